"""Every profile applied to one canonical conversation, against a committed snapshot.

``tests/snapshots/profiles.json`` holds, for one model string per provider and per notable model family:
the profile it resolves to, the profile's rules (with their quirks and settings), what ``check`` says
about the plain dump (litellm alone), what ``apply`` refuses (``UnfixableError``: the findings it cannot
fix), the list it returns when told to send anyway, and what ``check`` still says after it.
A change to any profile shows up as one readable diff of that file. After an intended change, regenerate
it and read the diff before committing:

    make snapshots          # or: .venv/bin/python -m tests.test_profile_snapshot

The snapshot is the profiles with the newest litellm (constraints.txt). Some rules follow the installed
litellm (``messages._litellm``): ``profiles-floor.json`` holds the entries that differ with litellm at the
floor (constraints-floor.txt), written by the same command in the floor's environment
(``.venv-floor/bin/python -m tests.test_profile_snapshot``).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from dataclasses import fields
from pathlib import Path
from typing import Any

from messages import (
    AIMessage,
    ImagePart,
    Message,
    SystemMessage,
    TextPart,
    ToolCall,
    ToolMessage,
    UnfixableError,
    UserMessage,
    dump_messages,
    get_profile,
)
from messages.profiles import IdRule, Profile, Rule
from tests.litellm_pins import pin

SNAPSHOT = Path(__file__).parent / "snapshots" / "profiles.json"
FLOOR_SNAPSHOT = SNAPSHOT.with_name("profiles-floor.json")
_WHAT = "the profiles' snapshot (written by: python -m tests.test_profile_snapshot)"

PNG = "data:image/png;base64,iVBORw0KGgo="
GEMINI_ID = "call_0123456789abcdef0123456789abcdef__thought__c2lnbmF0dXJlIG9uZQ=="
KIMI_ID = "functions.get_weather:1"

MODELS = [
    "openai/gpt-4o",
    "openai/o1-mini",
    "azure/gpt-4o",
    "anthropic/claude-sonnet-4-5",
    "anthropic/claude-opus-4-6",
    "bedrock/converse/meta.llama3-70b-instruct-v1:0",
    "bedrock/converse/anthropic.claude-3-7-sonnet-20250219-v1:0",
    "bedrock/converse/us.anthropic.claude-opus-4-6-v1:0",
    "bedrock/converse/mistral.mistral-large-2402-v1:0",
    "gemini/gemini-2.5-flash",
    "gemini/gemma-3-27b-it",
    "vertex_ai/gemini-2.5-pro",
    "vertex_ai/claude-sonnet-4-6",
    "mistral/mistral-large-latest",
    "groq/llama-3.3-70b-versatile",
    "groq/llama-3.2-90b-vision-preview",
    "deepseek/deepseek-chat",
    "deepseek/deepseek-reasoner",
    "xai/grok-3",
    "ollama_chat/llama3.1",
    "ollama/llama3.1",
    "openrouter/openai/gpt-4o",
    "openrouter/anthropic/claude-opus-4.6",
    "openrouter/mistralai/mistral-large",
    "cohere/command-r-plus",
    "together_ai/meta-llama/Llama-3.3-70B-Instruct-Turbo",
    "fireworks_ai/accounts/fireworks/models/llama-v3p1-70b-instruct",
    "perplexity/sonar",
    "hosted_vllm/Qwen/Qwen3-8B",
    "hosted_vllm/mistralai/Mistral-7B-Instruct-v0.3",
]


def canonical() -> list[Message]:
    """One conversation with a case for most rules: a named developer message, an empty user turn, an
    image, parallel calls with a Gemini signature in one id and a Kimi id in the other, empty arguments,
    results out of order (one empty, one with an image), reasoning signed by two providers, a system
    message mid-way, two user turns in a row, and an assistant text last."""
    calls = [
        ToolCall(id=GEMINI_ID, name="get_weather", arguments=""),
        ToolCall(
            id=KIMI_ID,
            name="get_weather",
            arguments='{"city":"Oslo"}',
            provider_specific_fields={"thought_signature": "c2lnbmF0dXJlIHR3bw=="},
        ),
    ]
    return [
        SystemMessage(role="developer", content="You are a weather assistant.", name="ops team"),
        UserMessage(content="", name="ana"),
        UserMessage(
            content=[TextPart(text="Weather in Paris and Oslo? Here is my map."), ImagePart(url=PNG)]
        ),
        AIMessage(
            content="", tool_calls=calls, reasoning_content="Two cities: two calls.", provider="gemini"
        ),
        ToolMessage(
            tool_call_id=KIMI_ID, content=[TextPart(text="snow"), ImagePart(url=PNG)], name="get_weather"
        ),
        ToolMessage(tool_call_id=GEMINI_ID, content=""),
        AIMessage(
            content="Paris: no data. Oslo: snow.",
            thinking_blocks=[{"type": "thinking", "thinking": "Summarize.", "signature": "c2lnbmVk"}],
            provider="anthropic",
        ),
        SystemMessage(content="Answer in French from now on."),
        UserMessage(content="Merci !"),
        UserMessage(content="Et demain ?"),
        AIMessage(content="Demain, "),
    ]


def _plain(value: Any) -> Any:
    if isinstance(value, IdRule):
        rule = value.describe()
        return f"{rule}, Gemini signatures kept" if value.keeps_signatures else rule
    if isinstance(value, frozenset | set):
        return sorted(value)
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in sorted(value.items())}
    return value


def _rule(rule: Rule) -> str:
    """A rule as one line: its id, its quirk, and the settings that differ from the rule's defaults."""
    default = type(rule)()
    settings = {
        f.name: _plain(getattr(rule, f.name))
        for f in fields(rule)
        if f.repr and f.name != "row" and getattr(rule, f.name) != getattr(default, f.name)
    }
    quirk = f" (quirk {rule.row})" if rule.row is not None else ""
    said = ", ".join(f"{name}={json.dumps(value, ensure_ascii=False)}" for name, value in settings.items())
    return f"{rule.id}{quirk}" + (f": {said}" if said else "")


def _rules(profile: Profile) -> list[str]:
    return sorted(_rule(rule) for rule in profile.rules)


def _parts(profile: Profile) -> list[str]:
    """The profile's table, one line per role: the kinds of part it takes, and the row of the others."""
    table = profile.parts
    lines = []
    for role in ("system", "user", "assistant", "tool"):
        cell = table.role(role)
        assert cell is not None
        via = "".join(f", {kind} via {rule}" for kind, rule in sorted(cell.via.items()))
        lines.append(f"{role}: {', '.join(sorted(cell.kinds))}{via} (else quirk {cell.row})")
    return lines


def render() -> dict[str, Any]:
    """What the snapshot holds, built from the profiles as they are now."""
    dumped = dump_messages(canonical())
    profiles = {}
    for model in MODELS:
        profile = get_profile(model)
        try:
            profile.apply(dumped)
            refused: list[str] = []
        except UnfixableError as error:
            refused = [str(v) for v in error.violations]
        applied = profile.apply(dumped, on_unfixable="send")
        profiles[model] = {
            "profile": profile.name,
            "rules": _rules(profile),
            "parts": _parts(profile),
            "litellm alone": [str(v) for v in profile.check(dumped)],
            "refused by apply": refused,
            "applied with on_unfixable='send'": applied,
            "left after apply": [str(v) for v in profile.check(applied)],
        }
    return {"conversation": dumped, "profiles": profiles}


def _lines(value: Any, indent: int) -> str:
    """JSON with one message or one violation per line, so that a diff shows what changed."""
    pad = " " * indent
    if isinstance(value, dict) and value and any(isinstance(v, list | dict) for v in value.values()):
        items = [f"{pad}  {json.dumps(k)}: {_lines(v, indent + 2).lstrip()}" for k, v in value.items()]
        return pad + "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(value, list) and value and (len(value) > 1 or isinstance(value[0], dict)):
        items = [pad + "  " + json.dumps(item, ensure_ascii=False) for item in value]
        return pad + "[\n" + ",\n".join(items) + "\n" + pad + "]"
    return pad + json.dumps(value, ensure_ascii=False)


def _floor_differences(rendered: dict[str, Any]) -> dict[str, Any]:
    """The entries of ``rendered`` (made with litellm at the floor) that differ from the main snapshot."""
    main = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    changed = {
        m: e for m, e in rendered["profiles"].items() if main["profiles"].get(m) != json.loads(json.dumps(e))
    }
    return {"profiles": changed}


def _expected() -> dict[str, Any]:
    """The snapshot for the installed litellm: the main one, with the floor's entries at the floor."""
    expected: dict[str, Any] = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    if pin(_WHAT) == "floor":
        expected["profiles"].update(json.loads(FLOOR_SNAPSHOT.read_text(encoding="utf-8"))["profiles"])
    return expected


def write_snapshot() -> None:
    SNAPSHOT.parent.mkdir(exist_ok=True)
    if pin(_WHAT) == "floor":
        FLOOR_SNAPSHOT.write_text(_lines(_floor_differences(render()), 0) + "\n", encoding="utf-8")
    else:
        SNAPSHOT.write_text(_lines(render(), 0) + "\n", encoding="utf-8")


def test_every_profile_on_the_canonical_conversation_matches_the_snapshot():
    expected = _expected()
    actual = render()
    assert actual["conversation"] == expected["conversation"]
    assert list(actual["profiles"]) == list(expected["profiles"])
    for model, entry in actual["profiles"].items():
        assert entry == expected["profiles"][model], (
            f"{model} changed; if intended, run `make snapshots` and read the diff of {SNAPSHOT.name}"
        )


def test_the_snapshot_file_is_written_as_the_command_writes_it():
    if pin(_WHAT) == "floor":
        assert FLOOR_SNAPSHOT.read_text(encoding="utf-8") == _lines(_floor_differences(render()), 0) + "\n"
    else:
        assert SNAPSHOT.read_text(encoding="utf-8") == _lines(render(), 0) + "\n"


def test_the_snapshot_covers_every_provider():
    import importlib

    from messages.profiles import BUILTIN_MODULES

    covered = {get_profile(model).provider for model in MODELS}
    providers = {importlib.import_module(f"messages.profiles.{m}").PROFILE.provider for m in BUILTIN_MODULES}
    assert covered == providers, sorted(providers - covered)


if __name__ == "__main__":
    write_snapshot()
    print(f"wrote {FLOOR_SNAPSHOT if pin(_WHAT) == 'floor' else SNAPSHOT}", file=sys.stderr)
