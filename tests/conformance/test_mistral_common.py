"""mistral-common, Mistral's own request validator and tokenizer, as an oracle (issue 13, part 1).

The real ``litellm.completion`` sends each conversation to the Mistral stand-in; mistral-common's
``ChatCompletionRequest.from_openai`` and ``MistralTokenizer.v7()``'s ``encode_chat_completion`` (serving
mode) judge the captured body, adapted only where mistral-common does not model what Mistral's API takes
(``tests.oracles.MISTRAL_COMMON_ADAPTATIONS``). Every conversation the Mistral profile cannot make
acceptable is one that ``Profile.check`` reports as not fixable, and that the profile refuses to send.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings

from messages import (
    AIMessage,
    AudioPart,
    SystemMessage,
    TextPart,
    ToolCall,
    ToolMessage,
    UnfixableError,
    UserMessage,
    dump_messages,
    get_profile,
)
from messages import strategies as ms
from messages.testing import StandInServer
from tests import oracles
from tests.conformance.cases import CASES, png_part
from tests.conformance.harness import mistral_common_verdict, tools_for
from tests.conformance.providers import BY_KEY

pytestmark = pytest.mark.litellm

MISTRAL = BY_KEY["mistral"]
MODEL = MISTRAL.model


@pytest.fixture(scope="module")
def server() -> Iterator[StandInServer]:
    with StandInServer() as running:
        yield running


def sent(
    litellm, server: StandInServer, messages: list[dict[str, Any]], conversation: list[Any]
) -> dict[str, Any]:
    """The body the real litellm sends to the Mistral stand-in for ``messages``."""
    litellm.completion(
        model=MODEL, messages=copy.deepcopy(messages), tools=tools_for(conversation), **MISTRAL.kwargs(server)
    )
    body = server.last_body()
    assert isinstance(body, dict)
    return body


def verdict(litellm, server: StandInServer, conversation: list[Any], *, profiles: bool) -> list[str]:
    messages = dump_messages(conversation, model=MODEL) if profiles else dump_messages(conversation)
    return [v.message for v in mistral_common_verdict(sent(litellm, server, messages, conversation))]


# --- the oracle says no where Mistral does ------------------------------------------------------------------

_CALL = ToolCall(id="Ab3dE5gH7", name="get_weather", arguments='{"city": "Paris"}')
_RESULTS = [ToolMessage.for_call(_CALL, "rain")]

# Each class litellm alone sends, with the error mistral-common raises, as Mistral's API answers it.
REFUSED = {
    # Quirk 80.
    "system after assistant": (
        [
            UserMessage(content="Hi."),
            AIMessage(content="Hello."),
            SystemMessage(content="Be brief."),
            UserMessage(content="Time?"),
        ],
        "Unexpected role 'system' after role 'assistant'",
    ),
    "system after tool": (
        [
            UserMessage(content="Weather?"),
            AIMessage(tool_calls=[_CALL]),
            *_RESULTS,
            SystemMessage(content="Be brief."),
        ],
        "Unexpected role 'system' after role 'tool'",
    ),
    # Quirk 81: a lone assistant message, and a conversation that opens with a call (its calls uncounted).
    "assistant alone": (
        [AIMessage(content="Welcome back.")],
        "Conversation must start with a user message or system message",
    ),
    "opens with a call": (
        [AIMessage(tool_calls=[_CALL]), *_RESULTS],
        "Not the same number of function calls and responses",
    ),
    # Quirk 31.
    "ends on assistant": (
        [UserMessage(content="Hi."), AIMessage(content="Hello.")],
        "Expected last role User or Tool (or Assistant with prefix) for serving but got assistant",
    ),
    # Quirk 30.
    "long id": (
        [
            UserMessage(content="Weather?"),
            AIMessage(tool_calls=[_CALL.model_copy(update={"id": "call_0"})]),
            ToolMessage(tool_call_id="call_0", content="rain"),
        ],
        "Tool call id was call_0 but must be a-z, A-Z, 0-9, with a length of 9",
    ),
}


@pytest.mark.parametrize("name", list(REFUSED))
def test_litellm_alone_is_refused_and_the_profile_is_accepted(litellm, server, name):
    conversation, error = REFUSED[name]
    plain = verdict(litellm, server, conversation, profiles=False)
    assert len(plain) == 1
    assert error in plain[0]
    assert verdict(litellm, server, conversation, profiles=True) == []


@pytest.mark.parametrize("name", list(CASES))
def test_every_hard_case_with_the_profile_is_accepted(litellm, server, name):
    conversation = CASES[name]()
    assert verdict(litellm, server, conversation, profiles=True) == []


def test_parallel_results_with_moved_attachments_are_accepted(litellm, server):
    # "Not the same number of function calls and responses", reported against tool results that carry
    # images (moved to a user message, quirk 7) and several parallel results: the profile keeps every
    # result right after its calls, then the bridge, then the moved images.
    calls = [
        ToolCall(id=f"call_{n}", name="screenshot", arguments=f'{{"q": "{page}"}}')
        for n, page in enumerate(("home", "about", "blog"))
    ]
    conversation = [
        SystemMessage(content="You look at web pages."),
        UserMessage(content="Screenshot three pages."),
        AIMessage(content="Taking them.", tool_calls=calls),
        ToolMessage(tool_call_id="call_2", content=[TextPart(text="blog"), png_part()]),
        ToolMessage(tool_call_id="call_0", content=[png_part(), TextPart(text="home"), png_part()]),
        ToolMessage(tool_call_id="call_1", content="about: no image"),
        SystemMessage(content="Describe them in one line each."),
    ]
    assert verdict(litellm, server, conversation, profiles=True) == []


# --- the adaptations, each named, each one doing only what it says ------------------------------------------


def test_the_adaptations_are_named():
    assert set(oracles.MISTRAL_COMMON_ADAPTATIONS) == {"prefix", "image", "file"}


def _body(*messages: dict[str, Any]) -> dict[str, Any]:
    return {"model": "mistral-large-latest", "messages": list(messages)}


def test_prefix_is_accepted_on_the_last_message_only():
    user = {"role": "user", "content": "Write a haiku."}
    oracles.mistral_common_accepts(_body(user, {"role": "assistant", "content": "Autumn", "prefix": True}))
    with pytest.raises(Exception, match="Expected last role User or Tool"):
        oracles.mistral_common_accepts(_body(user, {"role": "assistant", "content": "Autumn"}))
    with pytest.raises(AssertionError, match="prefix True must be last message"):
        oracles.mistral_common_accepts(
            _body(user, {"role": "assistant", "content": "Autumn", "prefix": True}, user)
        )


def test_images_are_checked_and_still_refused_outside_user_messages():
    image = {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}
    oracles.mistral_common_accepts(
        _body({"role": "user", "content": [{"type": "text", "text": "See."}, image]})
    )
    with pytest.raises(Exception):  # noqa: B017, PT011 - pydantic's or mistral-common's own error
        oracles.mistral_common_accepts(
            _body({"role": "user", "content": [{"type": "image_url", "image_url": 7}]})
        )
    with pytest.raises(Exception):  # noqa: B017, PT011
        oracles.mistral_common_accepts(
            _body({"role": "system", "content": [image]}, {"role": "user", "content": "x"})
        )


# --- nothing is sent that Mistral refuses: what the profile cannot fix, it refuses to send ----------------


def _refused_or_accepted(litellm, server, conversation: list[Any]) -> bool:
    """Either the profile refuses ``conversation`` before sending (issue 24), naming exactly what ``check``
    calls not fixable, or mistral-common accepts the body litellm sends. Returns whether it was refused."""
    plain = dump_messages(conversation)
    unfixable = {(v.index, v.rule) for v in get_profile(MODEL).check(plain) if not v.fixable}
    if unfixable:
        with pytest.raises(UnfixableError) as refused:
            dump_messages(conversation, model=MODEL)
        assert {(v.index, v.rule) for v in refused.value.violations} == unfixable
        return True
    messages = dump_messages(conversation, model=MODEL)
    assert mistral_common_verdict(sent(litellm, server, messages, conversation)) == [], messages
    return False


UNFIXABLE = {
    # The v7 tokenizer has no audio encoder; litellm keeps the parts of a turn with an image (quirk 31's
    # route notes), so the audio would reach Mistral. A text model cannot hear it: refused (quirk 67).
    "audio beside an image": [
        UserMessage(content=[png_part(), AudioPart(data="UklGRg==", format="wav")]),
    ],
    # Quirk 82: a tool name Mistral rejects; only the caller can rename the tool (and its definition).
    "tool name with spaces": [
        UserMessage(content="Weather?"),
        AIMessage(tool_calls=[ToolCall(id="Ab3dE5gH7", name="get weather", arguments="{}")]),
        ToolMessage(tool_call_id="Ab3dE5gH7", content="rain"),
    ],
}


@pytest.mark.parametrize("name", list(UNFIXABLE))
def test_what_the_profile_cannot_fix_is_refused_and_check_says_so(litellm, server, name):
    conversation = UNFIXABLE[name]
    assert _refused_or_accepted(litellm, server, conversation)
    # Sent anyway, Mistral's own validator and tokenizer refuse it: the refusal spares a 400.
    messages = dump_messages(conversation, model=MODEL, on_unfixable="send")
    assert mistral_common_verdict(sent(litellm, server, messages, conversation)) != []


def test_generated_conversations_are_refused_or_accepted_never_sent_and_refused(litellm, server):
    # The raw strategies (audio and file parts included, unlike the conformance table's sendable ones);
    # `python -m tests.conformance.table --outcomes 200` runs many more, on every provider.
    @settings(
        max_examples=60,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        phases=[Phase.explicit, Phase.reuse, Phase.generate],
    )
    @given(ms.conversations(max_turns=6))
    def check(conversation: list[Any]) -> None:
        _refused_or_accepted(litellm, server, conversation)

    check()
