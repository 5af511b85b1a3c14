"""The coverage table of docs/guide/profiles.md, computed: every key and part type of litellm's message
types, the field that holds it, and what each provider profile does with it.

Each row is a small conversation holding the key, dumped, then given to each profile: the cell says
``kept`` (sent on as it is), ``stripped`` (the profile removes it), ``changed`` (sent in the form the route
reads: an image URL string as ``{"url": ...}``, a video as a file part...) or ``reported`` (``check`` says
it would be lost or rejected, and ``apply`` cannot fix it: ``dump_messages(model=...)`` refuses to send
it). Keys no message class holds are ``refused``:
``load_messages`` raises rather than drop them. ``python -m tests.coverage`` prints the table;
``tests/docs/test_pages.py`` holds the page to it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from messages import (
    AIMessage,
    AudioPart,
    CacheControl,
    FilePart,
    ImagePart,
    Message,
    SystemMessage,
    TextPart,
    ToolCall,
    ToolMessage,
    UserMessage,
    VideoPart,
    dump_messages,
    get_profile,
)

COLUMNS = {
    "openai": "openai/gpt-4o",
    "azure": "azure/gpt-4o",
    "anthropic": "anthropic/claude-sonnet-4-5",
    "bedrock": "bedrock/converse/us.anthropic.claude-sonnet-4-5-20250929-v1:0",
    "vertex claude": "vertex_ai/claude-sonnet-4-5",
    "gemini": "gemini/gemini-2.5-flash",
    "vertex gemini": "vertex_ai/gemini-2.5-flash",
    "mistral": "mistral/mistral-large-latest",
    "deepseek": "deepseek/deepseek-chat",
    "groq": "groq/llama-3.3-70b-versatile",
    "ollama": "ollama_chat/llama3.1",
    "cohere": "cohere/command-r-plus",
    "openrouter": "openrouter/openai/gpt-4o",
    "openrouter claude": "openrouter/anthropic/claude-sonnet-4.5",
    "vllm": "hosted_vllm/Qwen/Qwen3-8B",
}
"""The profile columns: a model string per provider (and per model family with rules of its own)."""

_PNG = "data:image/png;base64,iVBORw0KGgo="
_CALL = ToolCall(id="toolu_01", name="lookup", arguments={"q": "x"})
_EPH = CacheControl()


@dataclass(frozen=True)
class Row:
    key: str
    """The key or part type, as litellm's types name it."""
    field: str
    """Where a message class holds it."""
    messages: tuple[Message, ...] = ()
    """A conversation holding it, in the message at index ``at``."""
    at: int = 1
    value: Callable[[dict[str, Any]], Any] | None = None
    """What to compare before and after the profile, read from the message at ``at`` (whole message if
    None)."""
    survives: str | None = None
    """A text that, found in the message after the profile when the key is gone, makes the cell
    ``changed`` (a refusal sent as text) rather than ``stripped``."""


def _user(*parts: Any) -> tuple[Message, ...]:
    return (SystemMessage(content="Be brief."), UserMessage(content=list(parts)))


def _key(name: str) -> Callable[[dict[str, Any]], Any]:
    return lambda m: m.get(name)


def _part(index: int, *path: str) -> Callable[[dict[str, Any]], Any]:
    def read(m: dict[str, Any]) -> Any:
        content = m.get("content")
        value: Any = content[index] if isinstance(content, list) and len(content) > index else None
        for name in path:
            value = value.get(name) if isinstance(value, dict) else None
        return value

    return read


def _tool_exchange(result: ToolMessage) -> tuple[Message, ...]:
    return (
        UserMessage(content="Look it up."),
        AIMessage(tool_calls=[_CALL]),
        result,
        UserMessage(content="Thanks."),
    )


def _thinking(blocks: list[dict[str, Any]]) -> tuple[Message, ...]:
    return (
        UserMessage(content="Look it up."),
        AIMessage(tool_calls=[_CALL], thinking_blocks=blocks, provider="anthropic"),
        ToolMessage(tool_call_id="toolu_01", content="found"),
    )


def _reply(**fields: Any) -> tuple[Message, ...]:
    return (UserMessage(content="Hi"), AIMessage(**fields), UserMessage(content="And?"))


ROWS: tuple[Row, ...] = (
    Row("text part", "`TextPart`", _user(TextPart(text="hello")), value=lambda m: "hello" in json.dumps(m)),
    Row("image_url part", "`ImagePart`", _user(TextPart(text="see"), ImagePart(url=_PNG)), value=_part(1)),
    Row(
        "input_audio part",
        "`AudioPart`",
        _user(TextPart(text="hear"), AudioPart(data="UklGRg==", format="wav")),
        value=_part(1),
    ),
    Row(
        "file part", "`FilePart`", _user(TextPart(text="read"), FilePart(file_id="file-abc")), value=_part(1)
    ),
    Row(
        "video_url part",
        "`VideoPart`",
        _user(TextPart(text="watch"), VideoPart(url="gs://b/v.mp4")),
        value=_part(1),
    ),
    Row(
        "image_url as a string",
        "`ImagePart.image_url` (a `str`)",
        _user(TextPart(text="see"), ImagePart(image_url=_PNG)),
        value=_part(1, "image_url"),
    ),
    Row(
        "image_url.format",
        "`ImageURL.format`",
        _user(TextPart(text="see"), ImagePart(url=_PNG, format="image/png")),
        value=_part(1, "image_url", "format"),
    ),
    Row(
        "file.format",
        "`FileRef.format`",
        _user(TextPart(text="read"), FilePart(file_id="gs://b/d.pdf", format="application/pdf")),
        value=_part(1, "file", "format"),
    ),
    Row(
        "file.detail",
        "`FileRef.detail`",
        _user(TextPart(text="read"), FilePart(file_id="gs://b/v.mp4", format="video/mp4", detail="low")),
        value=_part(1, "file", "detail"),
    ),
    Row(
        "file.video_metadata",
        "`FileRef.video_metadata`",
        _user(
            TextPart(text="read"),
            FilePart(file_id="gs://b/v.mp4", format="video/mp4", video_metadata={"fps": 1}),
        ),
        value=_part(1, "file", "video_metadata"),
    ),
    Row(
        "system cache_control",
        "`SystemMessage.cache_control`",
        (SystemMessage(content="Be brief.", cache_control=_EPH), UserMessage(content="Hi")),
        at=0,
        value=_key("cache_control"),
    ),
    Row(
        "user cache_control",
        "`UserMessage.cache_control`",
        (SystemMessage(content="Be brief."), UserMessage(content="Hi", cache_control=_EPH)),
        value=_key("cache_control"),
    ),
    Row(
        "assistant cache_control",
        "`AIMessage.cache_control`",
        _reply(content="Hello.", cache_control=_EPH),
        value=_key("cache_control"),
    ),
    Row(
        "tool cache_control",
        "`ToolMessage.cache_control`",
        _tool_exchange(ToolMessage(tool_call_id="toolu_01", content="found", cache_control=_EPH)),
        at=2,
        value=_key("cache_control"),
    ),
    Row(
        "text part cache_control",
        "`TextPart.cache_control`",
        _user(TextPart(text="hello", cache_control=_EPH)),
        value=_part(0, "cache_control"),
    ),
    Row(
        "thinking block cache_control",
        "`AIMessage.thinking_blocks[].cache_control`",
        _thinking(
            [
                {
                    "type": "thinking",
                    "thinking": "t",
                    "signature": "c2ln",
                    "cache_control": {"type": "ephemeral"},
                }
            ]
        ),
        value=lambda m: [b.get("cache_control") for b in m.get("thinking_blocks") or []] or None,
    ),
    Row(
        "tool is_error",
        "`ToolMessage.is_error`",
        _tool_exchange(ToolMessage(tool_call_id="toolu_01", content="failed", is_error=True)),
        at=2,
        value=_key("is_error"),
        survives="Error: failed",
    ),
    Row(
        "name",
        "`name` (system, user, assistant, tool)",
        (SystemMessage(content="Be brief."), UserMessage(content="Hi", name="ada")),
        value=_key("name"),
    ),
    Row(
        "tool_calls",
        "`AIMessage.tool_calls`",
        _tool_exchange(ToolMessage(tool_call_id="toolu_01", content="found")),
        value=lambda m: [c["function"]["name"] for c in m.get("tool_calls") or []],
    ),
    Row(
        "tool_call_id",
        "`ToolMessage.tool_call_id` (with `ToolCall.id`)",
        _tool_exchange(ToolMessage(tool_call_id="toolu_01", content="found")),
        at=2,
        value=_key("tool_call_id"),
    ),
    Row(
        "assistant refusal",
        "`AIMessage.refusal`",
        _reply(content="No.", refusal="I can't help with that."),
        value=_key("refusal"),
        survives="I can't help with that.",
    ),
    Row(
        "reasoning_content",
        "`AIMessage.reasoning_content`",
        _reply(content="Hello.", reasoning_content="Greet."),
        value=_key("reasoning_content"),
    ),
    Row(
        "thinking_blocks (signed by anthropic)",
        "`AIMessage.thinking_blocks`",
        _thinking([{"type": "thinking", "thinking": "t", "signature": "c2ln"}]),
        value=_key("thinking_blocks"),
    ),
    Row(
        "provider_specific_fields (signed by gemini)",
        "`AIMessage.provider_specific_fields`, `ToolCall.provider_specific_fields`",
        _reply(
            content="Hello.", provider_specific_fields={"thought_signatures": ["c2ln"]}, provider="gemini"
        ),
        value=_key("provider_specific_fields"),
    ),
    Row(
        "reasoning_details (returned by openrouter)",
        '`AIMessage.provider_specific_fields["reasoning_details"]`',
        _reply(
            content="Hello.",
            provider_specific_fields={"reasoning_details": [{"type": "reasoning.encrypted", "data": "c2ln"}]},
            provider="openrouter",
        ),
        value=lambda m: (
            m.get("reasoning_details") or (m.get("provider_specific_fields") or {}).get("reasoning_details")
        ),
    ),
    Row(
        "assistant media parts",
        "`AIMessage.content` (image, audio, file parts)",
        _reply(content=[TextPart(text="Here:"), ImagePart(url=_PNG)]),
        value=_part(1),
    ),
    Row(
        "annotations (reply)",
        "`AIMessage.annotations`",
        _reply(
            content="Paris.",
            annotations=[
                {
                    "type": "url_citation",
                    "url_citation": {"url": "https://p.fr", "title": "P", "start_index": 0, "end_index": 5},
                }
            ],
        ),
        value=_key("annotations"),
    ),
    Row(
        "images (reply)",
        "`AIMessage.images`",
        _reply(content="A cat:", images=[{"type": "image_url", "image_url": {"url": _PNG}}]),
        value=_key("images"),
    ),
    Row(
        "audio (reply)",
        "`AIMessage.audio` (`AudioReference`)",
        _reply(content="Hello.", audio={"id": "audio_1"}),
        value=_key("audio"),
    ),
    Row(
        "function_call, function role",
        "none: `from_litellm` and `load_messages` refuse them (no id to answer)",
    ),
    Row(
        "document, audio_url, guarded_text, query, grounding_source parts",
        "none: `load_messages` refuses them",
    ),
    Row(
        "assistant thinking / redacted_thinking parts",
        "none: `load_messages` refuses them (use `thinking_blocks`)",
    ),
    Row("tool_reference part, reasoning_items", "none: `load_messages` refuses them"),
)


def cell(row: Row, model: str) -> str:
    """What the profile of ``model`` does with the key of ``row``."""
    if not row.messages:
        return "refused"
    profile = get_profile(model)
    dumped = dump_messages(list(row.messages), validate=False)
    applied = profile.apply(dumped, on_unfixable="send")  # "reported" below: what apply refuses to send
    if any(not v.fixable and v.index == row.at for v in profile.check(dumped)):
        return "reported"
    read = row.value or (lambda m: m)
    before = read(dumped[row.at])
    after = _find(applied, row, before)
    if after == before:
        return "kept"
    if after is None or after == [None]:
        if row.survives is not None and any(row.survives in json.dumps(m) for m in applied):
            return "changed"
        return "stripped"
    return "changed"


def _find(applied: list[dict[str, Any]], row: Row, before: Any) -> Any:
    """The value in the applied list: read from the message that holds the row's message (profiles may
    merge or move messages; the one whose content keeps the sample's text is taken)."""
    read = row.value or (lambda m: m)
    if len(applied) > row.at:
        value = read(applied[row.at])
        if value == before:
            return value
    for m in applied:
        value = read(m)
        if value == before:
            return value
    return read(applied[row.at]) if len(applied) > row.at else None


def table() -> str:
    """The coverage table, as Markdown."""
    head = ["key or part (litellm)", "held by", *COLUMNS]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for row in ROWS:
        cells = [cell(row, model) for model in COLUMNS.values()]
        lines.append(
            "| " + " | ".join([f"`{row.key}`" if row.messages else row.key, row.field, *cells]) + " |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    print(table())
    print(json.dumps(COLUMNS, indent=2))
