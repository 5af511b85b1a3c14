"""Is everything still there? An extractor per native body format, written from each API's documented
shape and not from litellm's or the profiles' code, and the two checks built on it:

* ``lost``: every non-empty text of the input (system, user and assistant text, text parts) and every tool
  result is still in the body litellm sends (issue 4, judging). A text may be re-encoded or moved (merged
  into a neighbour, stripped of surrounding whitespace, rendered into another turn): it counts as kept when
  its stripped form is inside some text the model reads. A tool result counts as kept when one tool result
  of the body holds it (or, where the provider has no tools, when its text is in the body at all); an empty
  tool result needs a tool result of its own.
* ``lost-media``: every image, audio clip, file and video of the input is still in the body, as its bytes
  (base64, as the data URL or the audio had it), its URL or its file id: litellm drops the parts a route has
  no form for without a word.
* ``foreign``: no reasoning payload bound to another provider (Anthropic thinking signatures, Gemini thought
  signatures, Bedrock reasoning signatures) is in the body: such a payload means something only to the
  provider that wrote it, and others refuse it or misread it (quirk 63).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from messages import AIMessage, Message, TextPart, ToolMessage
from tests.conformance.rules import Violation, strings

__all__ = ["Extracted", "extract", "foreign_payloads", "lost_content", "lost_media"]

ACCEPTS_PAYLOADS_OF: dict[str, set[str]] = {
    "anthropic": {"anthropic"},
    "gemini": {"gemini", "vertex_ai"},
    "bedrock": {"bedrock"},
}
"""Whose signed reasoning each native family may receive back: its own only."""


@dataclass
class Extracted:
    """What the model reads in a body: texts, and one entry per tool result (its strings and objects)."""

    texts: list[str] = field(default_factory=list)
    results: list[list[Any]] = field(default_factory=list)


def _text_of(content: Any) -> list[str]:
    """The strings of an OpenAI-shape (or Cohere v2) content: a string, or the text of its parts."""
    if isinstance(content, str):
        return [content]
    if isinstance(content, list):
        found: list[str] = []
        for part in content:
            if isinstance(part, dict):
                found += [text for _, text in strings(part.get("text", part.get("document")))]
        return found
    return []


def _openai(body: dict[str, Any], out: Extracted) -> None:
    for message in body.get("messages") or []:
        if message.get("role") == "tool":
            out.results.append(_text_of(message.get("content")))
        else:
            out.texts += _text_of(message.get("content"))


def _anthropic(body: dict[str, Any], out: Extracted) -> None:
    system = body.get("system")
    out.texts += [system] if isinstance(system, str) else [b.get("text", "") for b in system or []]
    for message in body.get("messages") or []:
        content = message.get("content")
        for block in [{"type": "text", "text": content}] if isinstance(content, str) else content or []:
            if block.get("type") == "text":
                out.texts.append(block.get("text", ""))
            elif block.get("type") == "tool_result":
                inner = block.get("content")
                pieces = [inner] if isinstance(inner, str) else [b.get("text", "") for b in inner or []]
                out.results.append(pieces)


def _gemini_field(part: dict[str, Any], snake: str, camel: str) -> Any:
    return part.get(snake, part.get(camel))


def _gemini(body: dict[str, Any], out: Extracted) -> None:
    system = _gemini_field(body, "system_instruction", "systemInstruction") or {}
    contents = [system, *(body.get("contents") or [])]
    for content in contents:
        for part in content.get("parts") or []:
            if "text" in part and not part.get("thought"):
                out.texts.append(part["text"])
            response = _gemini_field(part, "function_response", "functionResponse")
            if response is not None:
                payload = response.get("response")
                out.results.append([payload, *(text for _, text in strings(payload))])


def _bedrock(body: dict[str, Any], out: Extracted) -> None:
    out.texts += [block["text"] for block in body.get("system") or [] if "text" in block]
    for message in body.get("messages") or []:
        for block in message.get("content") or []:
            if "text" in block:
                out.texts.append(block["text"])
            result = block.get("toolResult")
            if result is not None:
                pieces: list[Any] = []
                for item in result.get("content") or []:
                    if "text" in item:
                        pieces.append(item["text"])
                    if "json" in item:
                        pieces += [item["json"], *(text for _, text in strings(item["json"]))]
                out.results.append(pieces)


def _ollama(body: dict[str, Any], out: Extracted) -> None:
    if "messages" not in body:  # /api/generate: one flattened prompt
        out.texts += [body.get(key) for key in ("system", "prompt") if isinstance(body.get(key), str)]
        return
    for message in body["messages"]:
        content = message.get("content")
        text = [content] if isinstance(content, str) else _text_of(content)
        if message.get("role") == "tool":
            out.results.append(text)
        else:
            out.texts += text


_EXTRACTORS = {
    "openai": _openai,
    "cohere": _openai,
    "anthropic": _anthropic,
    "gemini": _gemini,
    "bedrock": _bedrock,
    "ollama_chat": _ollama,
    "ollama_generate": _ollama,
}


def extract(body: dict[str, Any], family: str) -> Extracted:
    """The texts and tool results of a native ``body`` of ``family`` (see ``providers.Family``)."""
    out = Extracted()
    _EXTRACTORS[family](body, out)
    return out


def _needles(content: Any) -> list[str]:
    if isinstance(content, str):
        return [content.strip()] if content.strip() else []
    if isinstance(content, list):
        return [p.text.strip() for p in content if isinstance(p, TextPart) and p.text.strip()]
    return []


def _holds(piece: Any, needle: str) -> bool:
    if isinstance(piece, str):
        return needle in piece
    try:
        decoded = json.loads(needle)
    except ValueError:
        decoded = None
    # Gemini carries a result as a JSON object: the decoded result itself, or {"content": text}.
    return decoded is not None and piece == decoded


def _in_texts(needle: str, texts: Iterable[str]) -> bool:
    return any(needle in text for text in texts)


def _copies(needle: str, texts: Iterable[str]) -> int:
    """How many times ``needle`` is in ``texts`` (merged turns may hold several copies in one string)."""
    return sum(text.count(needle) for text in texts)


def lost_content(
    conversation: list[Message], body: dict[str, Any], family: str, *, tool_results: bool = True
) -> list[Violation]:
    """``lost`` for every non-empty text and every tool result of ``conversation`` missing from ``body``.

    With ``tool_results=False`` (an API without tools: results can only be rendered as text) a result
    counts as kept when its text is in the body, and an empty result has nothing to look for.
    """
    out = extract(body, family)
    every_string = out.texts + [p for entry in out.results for p in entry if isinstance(p, str)]
    found: list[Violation] = []
    results: list[tuple[int, list[str]]] = []
    # A text given twice must be there twice: one copy lost is a lost text, even beside the other.
    wanted: Counter[str] = Counter()
    for index, message in enumerate(conversation):
        if isinstance(message, ToolMessage):
            results.append((index, _needles(message.content)))
            continue
        for needle in _needles(message.content):
            wanted[needle] += 1
            if _copies(needle, every_string) < wanted[needle]:
                found.append(Violation("lost", f"input[{index}]", f"text {needle[:40]!r} is not in the body"))
    unused = list(range(len(out.results)))
    # Results with text first: an empty result may then take any entry left.
    for index, needles in sorted(results, key=lambda r: not r[1]):
        match = next(
            (k for k in unused if all(any(_holds(p, n) for p in out.results[k]) for n in needles)),
            None,
        )
        if match is not None:
            unused.remove(match)
        elif tool_results or not all(_in_texts(n, every_string) for n in needles):
            what = f"result {needles[0][:40]!r}" if needles else "an empty result"
            found.append(Violation("lost", f"input[{index}]", f"tool {what} is not in the body"))
    return found


def _media_needle(part: Any) -> str | None:
    """What of a media part must reach the body: its base64 payload, its URL, or its file id."""
    from messages import AudioPart, FilePart, ImagePart, VideoPart

    if isinstance(part, ImagePart | VideoPart):
        url = part.url
    elif isinstance(part, AudioPart):
        return part.data
    elif isinstance(part, FilePart):
        url = part.file_data if part.file_data is not None else part.file_id
    else:
        return None
    if url is None:
        return None
    return url.partition(",")[2] if url.startswith("data:") else url


def lost_media(conversation: list[Message], body: dict[str, Any]) -> list[Violation]:
    """``lost-media`` for every media part of ``conversation`` (image, audio, file, video) whose payload,
    URL or file id is nowhere in ``body``."""
    sent = json.dumps(body, ensure_ascii=False)
    found: list[Violation] = []
    for index, message in enumerate(conversation):
        content = message.content if isinstance(message.content, list) else []
        for position, part in enumerate(content):
            needle = _media_needle(part)
            if needle and needle not in sent:
                found.append(
                    Violation(
                        "lost-media",
                        f"input[{index}].content[{position}]",
                        f"the {part.type} is not in the body",
                    )
                )
    return found


def _signed(value: Any) -> list[str]:
    """The signatures and redacted payloads inside ``value``: strings under a key that names a signature
    (``signature``, ``thought_signature(s)``) or an opaque blob (``data``, ``redactedContent``). Reasoning
    *text* is not a payload: DeepSeek thinking models want it back whoever wrote it (quirk 34)."""
    found = []
    for where, text in strings(value):
        key = where.rsplit(".", 1)[-1].split("[", 1)[0].lower()
        if ("signature" in key or key in ("data", "redactedcontent")) and len(text) >= 8:
            found.append(text)
    return found


def _payloads(message: AIMessage) -> list[str]:
    found = _signed(message.thinking_blocks or [])
    for call in message.tool_calls:
        found += _signed(call.provider_specific_fields or {})
    return found + _signed(message.provider_specific_fields or {})


def foreign_payloads(conversation: list[Message], body: dict[str, Any], family: str) -> list[Violation]:
    """``foreign`` for every signed reasoning payload of another provider's turn found in ``body``."""
    accepted = ACCEPTS_PAYLOADS_OF.get(family, set())
    sent = [text for _, text in strings(body)]
    # A string that is also a payload the target may receive (its own, or a signature litellm keeps in a
    # Gemini call id) cannot be told apart: generated examples do repeat short signatures.
    own = {
        p for m in conversation if isinstance(m, AIMessage) and m.provider in accepted for p in _payloads(m)
    }
    if "gemini" in accepted:  # litellm hands Gemini the signature it keeps in a call id
        own |= {
            c.id.split("__thought__", 1)[1]
            for m in conversation
            if isinstance(m, AIMessage)
            for c in m.tool_calls
            if "__thought__" in c.id
        }
    # Nor can a payload that also stands in the conversation's own content (generated examples draw
    # signatures and image data from one pool of base64 strings: a data URL may contain a signature), a
    # reply's generated images and audio included (litellm sends those to Gemini as inline data).
    content = [
        text
        for m in conversation
        for key in ("content", "images", "audio")
        for _, text in strings(m.model_dump().get(key))
    ]
    found = []
    for index, message in enumerate(conversation):
        if not isinstance(message, AIMessage) or message.provider in accepted:
            continue
        for payload in _payloads(message):
            if payload in own or any(payload in text for text in content):
                continue
            if any(payload in text for text in sent):
                owner = message.provider or "an unnamed provider"
                found.append(
                    Violation("foreign", f"input[{index}]", f"a reasoning payload of {owner} was sent")
                )
                break
    return found
