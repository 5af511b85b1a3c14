"""Hypothesis strategies for Agent Framework messages holding every content type Agent Framework defines
(agent-framework-core 1.23, ``agent_framework._types.ContentType``), built with its own constructors.

``af_messages()`` draws one message of any role (an unknown one too) with a few contents of any type, a
``message_id``, an ``author_name`` and ``additional_properties`` now and then; ``af_histories()`` a list of
them with distinct message ids (a history provider takes a repeated id for a replay of the first). Every
value is JSON, as a store keeps it; each message is one that Agent Framework's own persistence gives back
(``Message.from_dict(m.to_dict())`` serializes as ``m``), since that is what these tests ask of ours.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable
from typing import Any, get_args

from agent_framework import Content, Message
from agent_framework._types import ContentType
from hypothesis import strategies as st

from messages import strategies as ms

CONTENT_TYPES: tuple[str, ...] = get_args(ContentType)
"""Every content type Agent Framework defines."""

_WORDS = st.sampled_from(["", "hi", "Paris", "sunny", "a b", "ünï", "42", "{}", "Error: no"])
_IDS = st.sampled_from(["call_1", "call_2", "c3", "toolu_01", "af-call-1", "rs_1"])
JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | _WORDS,
    lambda inner: st.lists(inner, max_size=2) | st.dictionaries(_WORDS, inner, max_size=2),
    max_leaves=4,
)
"""JSON values, small."""
PROPERTIES = st.dictionaries(st.sampled_from(["k", "openai", "note", "_attribution"]), JSON, max_size=2)
"""``additional_properties``: a few JSON values."""
DETAILS = st.lists(
    st.fixed_dictionaries(
        {"type": st.sampled_from(["reasoning.text", "reasoning.encrypted"]), "data": _WORDS},
        optional={"id": _IDS, "index": st.integers(0, 3), "format": st.just("anthropic-claude-v1")},
    ),
    min_size=1,
    max_size=2,
)
"""OpenRouter's ``reasoning_details``."""


def _maybe(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.none() | strategy


@st.composite
def _data(draw: st.DrawFn) -> Content:
    media_type = draw(st.sampled_from(["image/png", "audio/wav", "application/pdf", "text/plain"]))
    return Content.from_data(
        draw(st.binary(max_size=6)),
        media_type,
        name=draw(_maybe(st.sampled_from(["a.pdf", "note.txt"]))),
        file_id=draw(_maybe(st.just("file-1"))),
        additional_properties=draw(PROPERTIES),
    )


@st.composite
def _uri(draw: st.DrawFn) -> Content:
    media_type = draw(st.sampled_from(["image/png", "image/*", "application/pdf", "audio/mp3"]))
    return Content.from_uri(
        draw(st.sampled_from(["https://x.test/a.png", "https://x.test/doc"])),
        media_type=media_type,
        additional_properties=draw(PROPERTIES),
    )


def _call(draw: st.DrawFn, *, local: bool | None = None) -> Content:
    hosted = draw(st.booleans()) if local is None else not local
    arguments = draw(
        st.one_of(st.just('{"city":"Paris"}'), st.just(""), st.dictionaries(_WORDS, JSON, max_size=2))
    )
    return Content.from_function_call(
        draw(_IDS),
        draw(st.sampled_from(["get_weather", "delete_file", ""])),
        arguments=arguments,
        id=draw(_maybe(st.just("af-call-1"))),
        hosted=hosted,
        informational_only=draw(st.booleans()) if hosted else False,
        server_name=draw(_maybe(st.just("srv"))) if hosted else None,
        additional_properties=draw(PROPERTIES),
    )


def _text(draw: st.DrawFn) -> Content:
    refusal = {"core": {"model_output_kind": "refusal"}} if draw(st.integers(0, 4)) == 0 else {}
    citation = {"type": "citation", "title": "Paris", "url": "https://x.test/paris"}
    return Content.from_text(
        draw(_WORDS),
        annotations=draw(_maybe(st.just([citation]))),
        additional_properties={**draw(PROPERTIES), **refusal},
    )


def _reasoning(draw: st.DrawFn) -> Content:
    kind = draw(st.sampled_from(["text", "details", "encrypted", "both"]))
    text = draw(_WORDS) if kind in ("text", "both") else None
    protected = None
    if kind == "details":
        protected = json.dumps(draw(DETAILS))
    elif kind in ("encrypted", "both"):
        protected = draw(st.sampled_from(["gAAAAB-opaque", "[not json", "{}"]))
    return Content.from_text_reasoning(
        id=draw(_maybe(_IDS)),
        text=text,
        protected_data=protected,
        merge_mode=draw(st.sampled_from([None, "append"])),
        additional_properties=draw(PROPERTIES),
    )


def _result(draw: st.DrawFn) -> Content:
    result = draw(st.one_of(_WORDS, st.lists(st.builds(Content.from_text, _WORDS), min_size=1, max_size=2)))
    return Content.from_function_result(
        draw(_IDS),
        result=result,
        id=draw(_maybe(st.just("af-call-1"))),
        exception=draw(_maybe(st.just("boom"))),
        additional_properties=draw(PROPERTIES),
    )


def _approval(draw: st.DrawFn, response: bool) -> Content:
    call = _call(draw, local=True)
    request = Content.from_function_approval_request(call.id or "req-1", call) if call.id else None
    if request is None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)  # the legacy binding by call_id, for coverage
            request = Content.from_function_approval_request("req-1", call)
    return request.to_function_approval_response(draw(st.booleans())) if response else request


def _computer(draw: st.DrawFn, result: bool) -> Content:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # computer use is an experimental feature of Agent Framework
        if result:
            screenshot = Content.from_uri("https://x.test/shot.png", media_type="image/png")
            return Content.from_computer_tool_result(
                call_id=draw(_IDS), screenshot=draw(_maybe(st.just(screenshot))), status="completed"
            )
        return Content.from_computer_tool_call(
            id="cu_1",
            call_id=draw(_IDS),
            actions=[{"type": "click", "x": draw(st.integers(0, 9)), "y": 1}],
            pending_safety_checks=draw(_maybe(st.just([{"id": "sc_1", "code": "malicious"}]))),
        )


_BUILDERS: dict[str, Callable[[st.DrawFn], Content]] = {
    "text": _text,
    "text_reasoning": _reasoning,
    "data": lambda draw: draw(_data()),
    "uri": lambda draw: draw(_uri()),
    "error": lambda draw: Content.from_error(
        message=draw(_WORDS),
        error_code=draw(_maybe(st.just("rate_limit"))),
        error_details=draw(_maybe(_WORDS)),
    ),
    "function_call": _call,
    "function_result": _result,
    "usage": lambda draw: Content.from_usage(
        {"input_token_count": draw(st.integers(0, 9)), "output_token_count": 3, "total_token_count": 12}
    ),
    "hosted_file": lambda draw: Content.from_hosted_file(
        draw(st.sampled_from(["file-1", "assistant-2"])),
        media_type=draw(_maybe(st.just("application/pdf"))),
        name=draw(_maybe(st.just("report.pdf"))),
    ),
    "hosted_vector_store": lambda draw: Content.from_hosted_vector_store("vs_1"),
    "code_interpreter_tool_call": lambda draw: Content.from_code_interpreter_tool_call(
        call_id=draw(_IDS), inputs=[Content.from_text("print(1)")]
    ),
    "code_interpreter_tool_result": lambda draw: Content.from_code_interpreter_tool_result(
        call_id=draw(_IDS), outputs=[Content.from_text("1")]
    ),
    "image_generation_tool_call": lambda draw: Content.from_image_generation_tool_call(image_id="ig_1"),
    "image_generation_tool_result": lambda draw: Content.from_image_generation_tool_result(
        image_id="ig_1", outputs=Content.from_uri("https://x.test/gen.png", media_type="image/png")
    ),
    "mcp_server_tool_call": lambda draw: Content.from_mcp_server_tool_call(
        draw(_IDS), "lookup", server_name=draw(_maybe(st.just("docs"))), arguments={"q": draw(_WORDS)}
    ),
    "mcp_server_tool_result": lambda draw: Content.from_mcp_server_tool_result(
        draw(_IDS), output=draw(st.one_of(_WORDS, st.just([Content.from_text("found")])))
    ),
    "search_tool_call": lambda draw: Content.from_search_tool_call(
        draw(_IDS), tool_name="web_search", arguments={"query": draw(_WORDS)}, status="completed"
    ),
    "search_tool_result": lambda draw: Content.from_search_tool_result(
        draw(_IDS), tool_name="web_search", result=draw(JSON)
    ),
    "shell_tool_call": lambda draw: Content.from_shell_tool_call(
        call_id=draw(_IDS), commands=["ls"], timeout_ms=draw(_maybe(st.just(1000))), status="completed"
    ),
    "shell_tool_result": lambda draw: Content.from_shell_tool_result(
        call_id=draw(_IDS), outputs=[Content.from_shell_command_output(stdout="a.txt", exit_code=0)]
    ),
    "shell_command_output": lambda draw: Content.from_shell_command_output(
        stdout=draw(_WORDS),
        stderr=draw(_maybe(_WORDS)),
        exit_code=draw(_maybe(st.integers(0, 2))),
        timed_out=draw(_maybe(st.booleans())),
    ),
    "computer_tool_call": lambda draw: _computer(draw, False),
    "computer_tool_result": lambda draw: _computer(draw, True),
    "function_approval_request": lambda draw: _approval(draw, False),
    "function_approval_response": lambda draw: _approval(draw, True),
    "oauth_consent_request": lambda draw: Content.from_oauth_consent_request(
        consent_link=draw(st.sampled_from(["https://login.test/consent", "https://x.test/o"]))
    ),
}
assert set(_BUILDERS) == set(CONTENT_TYPES), set(CONTENT_TYPES) ^ set(_BUILDERS)


@st.composite
def af_contents(draw: st.DrawFn, kinds: tuple[str, ...] = CONTENT_TYPES) -> Content:
    """One content of one of ``kinds``, sometimes with its own ``additional_properties``."""
    content = _BUILDERS[draw(st.sampled_from(kinds))](draw)
    if draw(st.integers(0, 5)) == 0:
        content.additional_properties = {**content.additional_properties, **draw(PROPERTIES)}
    return content


_LIKELY = {
    "user": ("text", "data", "uri", "hosted_file", "function_approval_response"),
    "assistant": ("text", "text_reasoning", "function_call", "usage", "function_approval_request"),
    "tool": ("function_result",),
    "system": ("text",),
}


@st.composite
def af_messages(draw: st.DrawFn, message_id: str | None = None) -> Message:
    """One Agent Framework message: a role (mostly the usual ones), contents of any type (mostly the ones
    agents record for that role), and now and then an author, properties and ``message_id``."""
    role = draw(
        st.sampled_from(["user", "assistant", "tool", "system", "user", "assistant", "tool", "critic"])
    )
    likely = _LIKELY.get(role, CONTENT_TYPES)
    contents = draw(st.lists(st.one_of(af_contents(likely), af_contents()), max_size=4))
    return Message(
        role,
        contents,
        author_name=draw(_maybe(ms.participant_names())),
        message_id=message_id,
        additional_properties=draw(PROPERTIES),
    )


@st.composite
def af_histories(draw: st.DrawFn, max_size: int = 6) -> list[Message]:
    """A list of Agent Framework messages, their message ids distinct where they have one."""
    size = draw(st.integers(1, max_size))
    out = []
    for n in range(size):
        out.append(draw(af_messages(message_id=f"msg-{n}" if draw(st.booleans()) else None)))
    return out


def round_trips_in_agent_framework(message: Message) -> bool:
    """Whether Agent Framework's own persistence gives ``message`` back (``from_dict(to_dict())``)."""
    try:
        return bool(Message.from_dict(message.to_dict()).to_dict() == message.to_dict())
    except (ValueError, TypeError):
        return False
