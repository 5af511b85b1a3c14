"""What differs between litellm releases (``messages._litellm``), measured on the litellm installed.

Each ``Change`` the package follows says whether the installed release behaves the new way, from the
release's number alone; here the same request goes through the real litellm to the stand-in (or its own
helper is asked), and what it does must be what ``holds()`` says. The suite runs with litellm at the floor
(``python3 scripts/dev.py floor``) and at the newest release, so each change is seen both ways. And the floor
is the same number everywhere it is declared.
"""

from __future__ import annotations

import importlib.metadata
import json
import re
import tomllib
from typing import Any

import pytest

from messages import (
    AIMessage,
    ImagePart,
    SystemMessage,
    TextPart,
    ToolCall,
    ToolMessage,
    UserMessage,
    _litellm,
)
from messages._litellm import (
    CHANGES,
    FLOOR,
    GEMINI_MODEL_MEDIA,
    MID_SYSTEM_AS_USER,
    OPENAI_PREFIX_COUNTED,
    TEXT_IN_PIECES,
    TOOL_MEDIA_MOVED,
    Change,
    version_tuple,
)
from messages.testing import StandInServer
from tests.litellm_pins import FLOOR as FLOOR_PIN
from tests.litellm_pins import ROOT

PNG = "data:image/png;base64,iVBORw0KGgo="
CALL = ToolCall(id="call_1", name="lookup", arguments="{}")
TOOLS = [
    {"type": "function", "function": {"name": "lookup", "parameters": {"type": "object", "properties": {}}}}
]


def _send(litellm: Any, server: StandInServer, model: str, messages: list[Any], **options: Any) -> Any:
    dumped = [m.model_dump() for m in messages]
    litellm.completion(model=model, messages=dumped, **server.completion_kwargs(model), **options)
    return server.last_body()


# --- the floor, declared once ------------------------------------------------------------------------------


def test_the_floor_is_the_one_pyproject_declares_and_constraints_floor_pins():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    [litellm] = [d for d in project["dependencies"] if d.startswith("litellm")]
    assert f"litellm>={FLOOR}," in litellm
    # The compromised releases, and those whose completion(tools=...) imports mcp or fastapi.
    for left_out in ("!=1.82.7", "!=1.82.8", "!=1.92.*", "!=1.106.*", "!=1.108.0", "!=1.108.3"):
        assert left_out in litellm
    assert FLOOR_PIN == FLOOR
    [pydantic] = [d for d in project["dependencies"] if d.startswith("pydantic")]
    floor_pins = (ROOT / "constraints-floor.txt").read_text(encoding="utf-8")
    lowest = re.search(r"pydantic>=([\d.]+)", pydantic)
    assert lowest is not None
    assert f"\npydantic=={lowest[1]}.0\n" in floor_pins


@pytest.mark.parametrize("change", CHANGES, ids=[c.since for c in CHANGES])
def test_each_change_came_after_the_floor_and_after_the_release_measured_without_it(change):
    assert version_tuple(FLOOR) < version_tuple(change.before) < version_tuple(change.since)


def test_the_changes_are_in_the_order_of_their_releases():
    assert [version_tuple(c.since) for c in CHANGES] == sorted(version_tuple(c.since) for c in CHANGES)


def test_a_release_number_is_read_as_its_numbers():
    assert version_tuple("1.77.2.post1") == (1, 77, 2)
    assert version_tuple("1.110.2") > version_tuple("1.99.0")
    with pytest.raises(ValueError, match="not a version"):
        version_tuple("latest")


def test_without_litellm_every_change_is_taken_to_hold(monkeypatch):
    # What `pip install llm-messages` gets is the newest release: the profiles answer for it.
    def missing(name: str) -> str:
        raise importlib.metadata.PackageNotFoundError(name)

    _litellm.installed.cache_clear()
    monkeypatch.setattr(importlib.metadata, "version", missing)
    try:
        assert _litellm.installed() is None
        assert all(change.holds() for change in CHANGES)
        assert Change(since="99.0.0", before="98.0.0", what="a release to come").holds()
    finally:
        monkeypatch.undo()
        _litellm.installed.cache_clear()
    assert _litellm.installed() == version_tuple(importlib.metadata.version("litellm"))


# --- each change, measured -------------------------------------------------------------------------------


@pytest.mark.litellm
def test_the_openai_route_moves_the_media_of_a_tool_result_as_tool_media_moved_says(litellm):
    chat = [
        UserMessage(content="Take a screenshot."),
        AIMessage(tool_calls=[CALL]),
        ToolMessage(tool_call_id="call_1", content=[TextPart(text="taken"), ImagePart(url=PNG)]),
    ]
    with StandInServer() as server:
        body = _send(litellm, server, "openai/gpt-4o-mini", chat, tools=TOOLS)
    moved = [m["role"] for m in body["messages"]] == ["user", "assistant", "tool", "user"]
    assert moved is TOOL_MEDIA_MOVED.holds()


@pytest.mark.litellm
def test_anthropic_gets_a_late_system_message_as_mid_system_as_user_says(litellm):
    chat = [UserMessage(content="Hello."), AIMessage(content="Hi."), SystemMessage(content="Be brief.")]
    with StandInServer() as server:
        body = _send(litellm, server, "anthropic/claude-sonnet-4-5", chat)
    as_user = [m["role"] for m in body["messages"]] == ["user", "assistant", "user"]
    assert as_user is MID_SYSTEM_AS_USER.holds()
    assert ("Be brief." in json.dumps(body.get("system"))) is not as_user  # else hoisted into the system


@pytest.mark.litellm
def test_gemini_gets_an_assistants_image_as_gemini_model_media_says(litellm):
    chat = [
        UserMessage(content="Draw a cat."),
        AIMessage(content=[TextPart(text="Here."), ImagePart(url=PNG)]),
        UserMessage(content="Thanks."),
    ]
    with StandInServer() as server:
        body = _send(litellm, server, "gemini/gemini-2.5-flash", chat)
    sent = "inline_data" in json.dumps(body["contents"][1])
    assert sent is GEMINI_MODEL_MEDIA.holds()


@pytest.mark.litellm
def test_token_counter_encodes_a_text_in_pieces_as_text_in_pieces_says(litellm):
    import tiktoken

    litellm.token_counter(model="gpt-4o", text="warm")  # litellm points tiktoken at the files it ships
    text = "ünïcödé 東京 " * 300  # 3,600 characters: a piece of 1,024 ends inside a word
    encoding = tiktoken.get_encoding("o200k_base")
    whole = len(encoding.encode(text))
    pieces = sum(len(encoding.encode(text[i : i + 1024])) for i in range(0, len(text), 1024))
    assert whole != pieces
    assert litellm.token_counter(model="gpt-4o", text=text) == (pieces if TEXT_IN_PIECES.holds() else whole)


@pytest.mark.litellm
def test_token_counter_reads_an_openai_prefix_as_openai_prefix_counted_says(litellm):
    import tiktoken

    litellm.token_counter(model="gpt-4o", text="warm")
    text = "ünïcödé 東京 Sunny " * 20
    counted = litellm.token_counter(model="openai/gpt-4o", text=text)
    encoding = "o200k_base" if OPENAI_PREFIX_COUNTED.holds() else "cl100k_base"
    assert counted == len(tiktoken.get_encoding(encoding).encode(text))


@pytest.mark.litellm
@pytest.mark.parametrize(
    ("model", "body"),
    [
        ("anthropic/claude-sonnet-4-5", lambda b: [t["name"] for t in b.get("tools", [])]),
        (
            "bedrock/converse/anthropic.claude-sonnet-4-5-20250929-v1:0",
            lambda b: [t["toolSpec"]["name"] for t in b.get("toolConfig", {}).get("tools", [])],
        ),
    ],
    ids=["anthropic", "bedrock"],
)
def test_a_history_with_calls_and_no_tools_is_sent_on_every_release(litellm, model, body):
    # Anthropic before 1.85 and Bedrock before 1.103 refuse it (UnsupportedParamsError, before sending);
    # later releases add litellm's placeholder tool (Anthropic) or write the calls as text (Bedrock).
    # messages._litellm.completion sends it on every release, with the placeholder where litellm refused.
    chat = [
        UserMessage(content="Look it up."),
        AIMessage(tool_calls=[CALL]),
        ToolMessage(tool_call_id="call_1", content="found"),
        UserMessage(content="Summarize."),
    ]
    dumped = [m.model_dump() for m in chat]
    with StandInServer() as server:
        kwargs = server.completion_kwargs(model)
        refusal = None
        try:
            litellm.completion(model=model, messages=dumped, **kwargs)
        except litellm.UnsupportedParamsError as refused:
            refusal = str(refused)
        alone = server.bodies()
        _litellm.completion(model=model, messages=dumped, **kwargs)
        sent = server.last_body()
    if refusal is None:
        assert sent == alone[-1]  # nothing of its own where litellm sends the history itself
    else:
        assert "without `tools=`" in refusal
        assert alone == []  # refused before anything was sent
        assert body(sent) == ["dummy_tool"]  # litellm's own placeholder, as later releases send it


@pytest.mark.litellm
def test_a_refusal_that_is_not_about_tools_is_raised_as_it_is(litellm):
    model = "anthropic/claude-sonnet-4-5"
    with StandInServer() as server:
        kwargs = {**server.completion_kwargs(model), "frequency_penalty": 1}
        with pytest.raises(litellm.UnsupportedParamsError, match="frequency_penalty"):
            _litellm.completion(model=model, messages=[{"role": "user", "content": "hi"}], **kwargs)
        assert server.requests == []


@pytest.mark.litellm
@pytest.mark.parametrize(
    ("model", "route"),
    [("vertex_ai/gemini-2.5-flash", "vertex_ai"), ("vertex_ai/claude-sonnet-4-5@20250929", "anthropic")],
)
def test_the_stand_in_gets_vertex_ai_requests_from_every_release(litellm, model, route):
    # litellm before 1.93 appends ":generateContent" to the api_base it is given, later releases join their
    # own path to a bare one: vertex_api_base gives the whole path, which both complete alike.
    with StandInServer() as server:
        for stream in (False, True):
            reply = litellm.completion(
                model=model,
                messages=[{"role": "user", "content": "hi"}],
                stream=stream,
                **server.completion_kwargs(model),
            )
            if stream:
                list(reply)
        paths = [r.path.split("?")[0] for r in server.requests if r.route == route]
    publisher = "anthropic" if route == "anthropic" else "google"
    path = f"/v1/projects/stand-in-project/locations/us-central1/publishers/{publisher}/models/"
    path += model.split("/", 1)[1]
    endings = (
        (":rawPredict", ":streamRawPredict")
        if route == "anthropic"
        else (":generateContent", ":streamGenerateContent")
    )
    assert paths[-2:] == [path + ending for ending in endings]
