"""Rules about litellm's own message keys (``litellm/types/llms/openai.py``), which OpenAI's shape lacks.

What litellm 1.110.2 (as 1.106.2) does with each, measured by sending them through the real
``litellm.completion`` to the loopback stand-in (``tests/test_extension_wire.py``):

* ``cache_control`` (on a message, a text part, a thinking block): carried onto the matching block (a
  thinking block's too, which Anthropic rejects) for Anthropic, Claude on Vertex AI and Bedrock's invoke
  API, turned into ``cachePoint`` blocks on Bedrock Converse (for models litellm knows to cache; dropped
  for the others), dropped by its Gemini, DeepSeek and Mistral routes, and sent as is to every other
  OpenAI-shaped route (OpenAI through a custom ``api_base``, Groq, xAI, Together, vLLM...), which reject
  an unknown key. ``CacheMarks`` removes it where it cannot be carried; ``CacheBreakpoints`` keeps
  Claude's limit of 4.
* a tool result's ``is_error``: dropped by every route litellm converts (Anthropic's ``tool_result`` too:
  litellm 1.110.2's ``convert_to_anthropic_tool_result`` never sets its ``is_error``), sent as is to the
  OpenAI-shaped ones. ``ErrorFlags`` says the failure in the content on every route and leaves the flag
  out.
* a ``video_url`` part: dropped without a word by every converting route (Gemini and Vertex AI included;
  litellm reads video only from a ``file`` part there), sent as is to the OpenAI-shaped ones, which
  reject it. ``VideoParts`` turns it into a ``file`` part for Gemini; every other profile's table takes
  none (``UnsupportedParts`` reports them, quirk 72).
* image, audio and file parts in an assistant turn: dropped without a word by litellm's Anthropic route
  (and by its Gemini route on 1.106.2; 1.110.2 sends them), kept by Bedrock (images only) and Ollama
  (images only), sent as is to OpenAI-shaped routes, whose shape allows text and refusals there only. The
  profiles' tables say which each takes (``UnsupportedParts`` reports the others, quirk 77).
* an ``image_url`` given as a bare string, ``image_url.format``, ``file.format``, ``file.detail`` and
  ``file.video_metadata``: read by the converting routes; OpenAI's shape has none of them.
  ``PartKeys`` sends the OpenAI form on the OpenAI-shaped routes.
"""

from __future__ import annotations

import mimetypes
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from messages.profiles._rule import EMPTY, NONE, PARTS, Context, Message, Note, Rule, Shape, an, parts_of

__all__ = [
    "CLAUDE_CACHE_LIMIT",
    "ERROR_PREFIX",
    "CacheBreakpoints",
    "CacheMarks",
    "ErrorFlags",
    "PartKeys",
    "VideoParts",
    "cache_marks",
    "said_failed",
    "says_failure",
]

CLAUDE_CACHE_LIMIT = 4
"""Anthropic's most ``cache_control`` blocks in one request (quirk 22); Bedrock's most cache points."""

_MARK = "cache_control"


def _has_marks(m: Message) -> bool:
    if _MARK in m:
        return True
    for p in parts_of(m.get("content")):
        if _MARK in p:
            return True
    blocks = m.get("thinking_blocks")
    return isinstance(blocks, list) and any(isinstance(b, dict) and _MARK in b for b in blocks)


def cache_marks(m: Message) -> list[tuple[str, int | None]]:
    """Where ``m`` carries a cache breakpoint, in the order litellm writes the blocks: each thinking block
    (``("thinking", i)``), each content part (``("part", i)``), then the message itself
    (``("message", None)``, which litellm puts on its last block).

    Args:
        m: a dumped message.

    Returns:
        ``(kind, index)`` pairs, in litellm's order.

    Raises nothing.
    """
    found: list[tuple[str, int | None]] = []
    blocks = m.get("thinking_blocks")
    if isinstance(blocks, list):
        found.extend(("thinking", i) for i, b in enumerate(blocks) if isinstance(b, dict) and _MARK in b)
    content = m.get("content")
    if isinstance(content, list):
        found.extend(("part", i) for i, p in enumerate(content) if isinstance(p, dict) and _MARK in p)
    if _MARK in m:
        found.append(("message", None))
    return found


def _without_marks(m: Message, marks: Iterable[tuple[str, int | None]]) -> Message:
    """``m`` without the breakpoints at ``marks`` (a new dict; parts and blocks copied where changed)."""
    new = dict(m)
    for kind, index in marks:
        if kind == "message":
            del new[_MARK]
            continue
        key = "thinking_blocks" if kind == "thinking" else "content"
        items = list(new[key])
        assert index is not None
        items[index] = {k: v for k, v in items[index].items() if k != _MARK}
        new[key] = items
    return new


def _thinking_marks(m: Message) -> bool:
    blocks = m.get("thinking_blocks")
    return isinstance(blocks, list) and any(isinstance(b, dict) and _MARK in b for b in blocks)


@dataclass(frozen=True, kw_only=True)
class CacheMarks(Rule):
    """``cache_control`` only where the route carries it to a prompt cache (quirks 70 and 76).

    Without ``keep`` (every profile but Claude's), each breakpoint goes: on a message, a text part or a
    thinking block. On an OpenAI-shaped route litellm would send it as is, and the provider rejects the
    unknown key ("Unrecognized request argument supplied: cache_control"), so ``check`` reports it; on a
    converting route (Gemini, Ollama...) litellm drops it itself, and the fix is silent. With ``keep``
    (Claude) only the marks on thinking blocks go, which litellm copies onto the block and Anthropic
    rejects ("messages.13.content.0.thinking.cache_control: Extra inputs are not permitted", quirk 76).
    """

    id = "cache-control"
    stage = 29

    row: int | None = 70
    keep: bool = False
    """Whether the provider caches prompts at the breakpoints (Anthropic, Bedrock, Vertex AI Claude)."""
    strict: bool = False
    """Whether the route rejects unknown keys (set when compiled)."""
    needs_text: bool = False
    """With ``keep``: whether a message's own mark needs a text to sit on (OpenRouter: litellm moves it
    onto a text part it makes, ``{"type": "text", "text": null}`` for a message without content)."""

    def bind(self, cx: Context) -> Rule:
        return replace(self, strict=cx.strict)

    def sends_keys(self, role: str) -> frozenset[str]:
        return frozenset({_MARK}) if self.keep else frozenset()

    def screens(self, shape: Shape) -> bool:
        if self.keep:
            return shape.odd and (
                shape.role == "assistant" or (self.needs_text and shape.kind in (NONE, EMPTY))
            )
        return shape.odd or shape.kind == PARTS

    def _textless_mark(self, m: Message) -> bool:
        return self.needs_text and _MARK in m and m.get("content") in (None, "")

    def detect(self, m: Message, run: Any) -> bool:
        if self.keep:
            return _thinking_marks(m) or self._textless_mark(m)
        return _has_marks(m)

    def fix(self, m: Message, finding: Any, run: Any) -> Message:
        marks = cache_marks(m)
        if self.keep:
            textless = self._textless_mark(m)
            marks = [mark for mark in marks if mark[0] == "thinking" or (textless and mark[0] == "message")]
        return _without_marks(m, marks)

    def describe(self, finding: Any, m: Message, cx: Context) -> Iterable[Note]:
        if self._textless_mark(m):
            yield Note(
                f"litellm's {cx.provider} route puts this mark on a text part with text null (no content)"
            )
        if self.keep and _thinking_marks(m):
            yield Note(f"{cx.provider} rejects cache_control on a thinking block", row=76)
        elif not self.keep and self.strict:
            yield Note(
                f"{cx.provider} rejects cache_control on {an(m.get('role'))} message (prompt-cache "
                "breakpoints reach Anthropic, Bedrock and Vertex AI Claude only)"
            )


@dataclass(frozen=True, kw_only=True)
class CacheBreakpoints(Rule):
    """At most ``limit`` cache breakpoints in a request, the newest kept (quirk 22: "A maximum of 4 blocks
    with cache_control may be provided. Found 5."; litellm passes them all on).

    Breakpoints are counted in the order the provider's request has them: system messages first (litellm
    hoists them), then the others in order, and within a message as ``cache_marks`` lists them. Tools may
    carry breakpoints too, which this list does not see: a bot that marks its tools marks fewer messages.
    """

    id = "cache-breakpoints"
    stage = 29

    row: int | None = 22
    limit: int = CLAUDE_CACHE_LIMIT
    """The most breakpoints a request may carry (the newest are kept)."""

    def screens(self, shape: Shape) -> bool:
        return shape.odd or shape.kind == PARTS

    def detect(self, m: Message, run: Any) -> bool:
        return _has_marks(m)

    def _excess(self, messages: Sequence[Message]) -> list[tuple[int, tuple[str, int | None]]]:
        """The breakpoints beyond the limit, oldest first, as (message index, mark)."""
        # Marks on thinking blocks are not counted: the cache-control rule removes them (quirk 76).
        marked = [
            (i, mark)
            for i, m in enumerate(messages)
            if _has_marks(m)
            for mark in cache_marks(m)
            if mark[0] != "thinking"
        ]
        if len(marked) <= self.limit:
            return []
        hoisted = [x for x in marked if messages[x[0]].get("role") in ("system", "developer")]
        ordered = hoisted + [x for x in marked if messages[x[0]].get("role") not in ("system", "developer")]
        return ordered[: len(ordered) - self.limit]

    def detect_list(self, messages: Sequence[Message], cx: Context) -> list[tuple[int | None, Any]]:
        excess = self._excess(messages)
        return [(None, len(excess))] if excess else []

    def fix_list(
        self, messages: list[Message], cx: Context, made: list[Message], at: Sequence[int] | None
    ) -> list[Message]:
        excess = self._excess(messages)
        if not excess:
            return messages
        by_message: dict[int, list[tuple[str, int | None]]] = {}
        for index, mark in excess:
            by_message.setdefault(index, []).append(mark)
        new = list(messages)
        for index, marks in by_message.items():
            new[index] = _without_marks(messages[index], marks)
            made.append(new[index])
        return new

    def describe_list(self, finding: Any, messages: Sequence[Message], cx: Context) -> Iterable[Note]:
        total = sum(1 for m in messages for mark in cache_marks(m) if mark[0] != "thinking")
        yield Note(
            f"{total} cache breakpoints; {cx.provider} takes at most {self.limit} per request ('A maximum of "
            f"{self.limit} blocks with cache_control may be provided'): the {finding} oldest are removed"
        )


ERROR_PREFIX = "Error: "
"""How a failed tool result's content starts once ``ErrorFlags`` says the failure in it: the wording AutoGen's
agents and Agent Framework's function invocation write there (``"Error: Function failed."``)."""


def says_failure(content: Any) -> bool:
    """Whether a tool result's content already says it failed: its text (the first text part's) starts
    with ``Error``, whatever the case, as AutoGen's and Agent Framework's failed results do.

    Args:
        content: a tool result's content, as dumped.

    Returns:
        ``True`` when its text starts with ``Error``.

    Raises nothing.
    """
    if isinstance(content, list):
        first = next((p for p in content if isinstance(p, dict)), None)
        content = first.get("text") if first is not None and first.get("type") == "text" else None
    return isinstance(content, str) and content.lstrip()[:5].lower() == "error"


def said_failed(content: Any) -> Any:
    """A failed tool result's content, saying it failed (``ERROR_PREFIX`` before its text, or a text part
    ``"Error:"`` before parts that do not start with text), unless it already says it.

    Args:
        content: a failed tool result's content, as dumped.

    Returns:
        The content, saying it failed.

    Raises nothing.
    """
    if says_failure(content):
        return content
    if isinstance(content, list):
        parts = list(content)
        first = parts[0] if parts else None
        if isinstance(first, dict) and first.get("type") == "text" and isinstance(first.get("text"), str):
            parts[0] = {**first, "text": ERROR_PREFIX + first["text"]}
            return parts
        return [{"type": "text", "text": ERROR_PREFIX.rstrip()}, *parts]
    text = content if isinstance(content, str) else ""
    return ERROR_PREFIX + text if text.strip() else ERROR_PREFIX.rstrip()


@dataclass(frozen=True, kw_only=True)
class ErrorFlags(Rule):
    """A tool result's ``is_error`` said in its content, on every route (quirk 71). No route litellm builds
    carries the flag: its converting routes (Anthropic's ``tool_result.is_error`` included, Bedrock,
    Gemini, ...) drop it, and the model then reads a failed result as a success; the OpenAI-shaped ones send
    the key as is, and strict servers reject it. So a result flagged as failed gets the failure in its
    content, in AutoGen's and Agent Framework's words (``"Error: ..."``, ``said_failed``), unless the content
    already says it, and the flag is left out, as AutoGen's and Agent Framework's own model clients send a
    failed result; a flag that says it did not fail is left out too. ``check`` reports the change."""

    id = "tool-error-flag"
    stage = 29

    row: int | None = 71
    strict: bool = False
    """Whether the route rejects unknown keys (set when compiled)."""
    rendered: bool = False
    """Whether tool results are rendered as text, the failure said in it (the tools-unsupported rule: set
    when compiled): nothing is left for this rule then."""

    def bind(self, cx: Context) -> Rule:
        return replace(self, strict=cx.strict, rendered="tools-unsupported" in cx.rules)

    def screens(self, shape: Shape) -> bool:
        return shape.role == "tool" and shape.odd and not self.rendered

    def detect(self, m: Message, run: Any) -> bool:
        return "is_error" in m and m.get("role") == "tool" and not self.rendered

    def fix(self, m: Message, finding: Any, run: Any) -> Message:
        new = {k: v for k, v in m.items() if k != "is_error"}
        if m.get("is_error") is True:
            new["content"] = said_failed(m.get("content"))
        return new

    def describe(self, finding: Any, m: Message, cx: Context) -> Iterable[Note]:
        if m.get("is_error") is True:
            said = "said already" if says_failure(m.get("content")) else "said in the content ('Error: ...')"
            what = (
                f"{cx.provider} rejects is_error on a tool result"
                if self.strict
                else f"litellm drops a tool result's is_error on its way to {cx.provider}"
            )
            yield Note(f"{what}: the failure is {said}, the flag left out")
        elif self.strict:
            yield Note(f"{cx.provider} rejects is_error on a tool result (it says nothing here: left out)")


def _video_format(url: str) -> str:
    guessed, _ = mimetypes.guess_type(url.split("?", 1)[0])
    return guessed if guessed is not None and guessed.startswith("video/") else "video/mp4"


@dataclass(frozen=True, kw_only=True)
class VideoParts(Rule):
    """``video_url`` parts sent as the ``file`` part litellm reads for Gemini and Vertex AI (quirk 72):
    litellm drops a ``video_url`` part without a word on every route it converts, Gemini's included, and
    reads video there only from a ``file`` part (``file_id`` the URL, ``format`` its video media type,
    ``detail`` kept). Elsewhere video parts are the part screen's (``UnsupportedParts``): a profile whose
    table does not take them reports them, not fixable."""

    id = "video-part"
    stage = 69

    row: int | None = 72

    def screens(self, shape: Shape) -> bool:
        return shape.kind == PARTS

    def detect(self, m: Message, run: Any) -> bool:
        return any(p.get("type") == "video_url" for p in parts_of(m.get("content")))

    def fix(self, m: Message, finding: Any, run: Any) -> Message:
        content = [self._as_file(p) if isinstance(p, dict) else p for p in m["content"]]
        return {**m, "content": content}

    @staticmethod
    def _as_file(part: dict[str, Any]) -> dict[str, Any]:
        if part.get("type") != "video_url":
            return part
        video = part.get("video_url")
        url = video.get("url") if isinstance(video, dict) else video
        ref: dict[str, Any] = {"file_id": url, "format": _video_format(str(url))}
        if isinstance(video, dict) and video.get("detail") is not None:
            ref["detail"] = video["detail"]
        return {"type": "file", "file": ref}

    def describe(self, finding: Any, m: Message, cx: Context) -> Iterable[Note]:
        yield Note(f"litellm drops video_url parts on its way to {cx.provider}; sent as file parts")


@dataclass(frozen=True, kw_only=True)
class PartKeys(Rule):
    """The OpenAI form of each part on OpenAI-shaped routes (quirk 73): an ``image_url`` given as a string
    becomes ``{"url": ...}``; litellm's ``image_url.format``, ``file.format``, ``file.detail`` and
    ``file.video_metadata`` go (OpenAI rejects them as unknown; they are hints for the converting routes,
    which read the media type from the URL when they have none). Does nothing on a converting route."""

    id = "part-keys"
    stage = 29

    row: int | None = 73
    strict: bool = False
    """Whether the route rejects unknown keys (set when compiled)."""

    def bind(self, cx: Context) -> Rule:
        return replace(self, strict=cx.strict)

    def screens(self, shape: Shape) -> bool:
        return self.strict and shape.kind == PARTS

    def detect(self, m: Message, run: Any) -> list[str] | None:
        if not self.strict:
            return None
        found = []
        for p in parts_of(m.get("content")):
            kind = p.get("type")
            if kind == "image_url":
                image = p.get("image_url")
                if isinstance(image, str):
                    found.append("image_url as a string")
                elif isinstance(image, dict) and "format" in image:
                    found.append("image_url.format")
            elif kind == "file":
                ref = p.get("file")
                if isinstance(ref, dict):
                    found.extend(f"file.{k}" for k in ("format", "detail", "video_metadata") if k in ref)
        return found or None

    def fix(self, m: Message, finding: Any, run: Any) -> Message:
        return {**m, "content": [self._openai_part(p) for p in m["content"]]}

    @staticmethod
    def _openai_part(part: Any) -> Any:
        if not isinstance(part, dict):
            return part
        kind = part.get("type")
        if kind == "image_url":
            image = part.get("image_url")
            if isinstance(image, str):
                return {**part, "image_url": {"url": image}}
            if isinstance(image, dict) and "format" in image:
                return {**part, "image_url": {k: v for k, v in image.items() if k != "format"}}
        elif kind == "file":
            ref = part.get("file")
            if isinstance(ref, dict) and not ref.keys().isdisjoint(("format", "detail", "video_metadata")):
                kept = {k: v for k, v in ref.items() if k not in ("format", "detail", "video_metadata")}
                return {**part, "file": kept}
        return part

    def describe(self, finding: Any, m: Message, cx: Context) -> Iterable[Note]:
        strings = [f for f in finding if f == "image_url as a string"]
        if strings:
            yield Note(f"{cx.provider} takes image_url as an object ({{'url': ...}}), not a string")
        keys = sorted({f for f in finding if f != "image_url as a string"})
        if keys:
            yield Note(f"{cx.provider} rejects litellm's part keys {', '.join(keys)}")
