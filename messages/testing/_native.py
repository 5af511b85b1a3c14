"""What the native routes share: a reply taken apart into reasoning, text and calls, and JSON events."""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from messages.models import AIMessage
from messages.testing._openai import reply_text, word_count

__all__ = ["NativeCall", "NativeReply", "signature_for", "sse", "take_apart"]


def signature_for(text: str, signer: str) -> str:
    """A deterministic base64 stand-in for the opaque signature ``signer`` (``"anthropic"``, ``"gemini"``)
    puts on reasoning ``text``: each provider's differs, as real ones do."""
    return base64.b64encode(hashlib.sha256(f"{signer}\n{text}".encode()).digest()).decode("ascii")


@dataclass(frozen=True)
class NativeCall:
    """One tool call as native APIs carry it: arguments decoded into an object."""

    id: str
    name: str
    arguments: dict[str, Any]
    raw_arguments: str
    thought_signature: str | None


@dataclass(frozen=True)
class NativeReply:
    """A responder's ``AIMessage``, taken apart for a native API."""

    thinking: list[dict[str, Any]]
    """Anthropic-style thinking blocks: the reply's own, or one signed block made from its reasoning."""
    reasoning: str
    """The reasoning text (``""`` when none)."""
    text: str
    calls: list[NativeCall]
    prompt_tokens: int
    completion_tokens: int


def take_apart(body: dict[str, Any], reply: AIMessage, signer: str, *, prompt: Any = None) -> NativeReply:
    """Split ``reply`` into what native APIs send separately, reasoning signed by ``signer``; tool arguments
    must decode to an object (a native API never returns anything else), else ``ValueError`` names the
    call."""
    calls = []
    for call in reply.tool_calls:
        decoded = call.parse_arguments()  # raises ToolArgumentsError (a ValueError) naming the call
        fields = call.provider_specific_fields or {}
        signature = fields.get("thought_signature")
        calls.append(
            NativeCall(
                call.id,
                call.name,
                decoded,
                call.arguments,
                signature if isinstance(signature, str) else None,
            )
        )
    reasoning = reply.reasoning_content or ""
    if reply.thinking_blocks:
        thinking = [dict(block) for block in reply.thinking_blocks]
        if not reasoning:
            reasoning = "".join(str(b.get("thinking", "")) for b in thinking if b.get("type") == "thinking")
    elif reasoning:
        thinking = [
            {"type": "thinking", "thinking": reasoning, "signature": signature_for(reasoning, signer)}
        ]
    else:
        thinking = []
    if reasoning and calls and calls[0].thought_signature is None:
        # Thinking models sign their first call (quirk 25); the stand-in does too.
        first = calls[0]
        signature = signature_for(reasoning, signer)
        calls[0] = NativeCall(first.id, first.name, first.arguments, first.raw_arguments, signature)
    prompt_tokens = word_count(body if prompt is None else prompt)
    completion_tokens = word_count(reply.model_dump())
    return NativeReply(thinking, reasoning, reply_text(reply), calls, prompt_tokens, completion_tokens)


def pieces(text: str, size: int = 7) -> Iterator[str]:
    """``text`` in pieces of ``size`` characters, as a stream would deliver it."""
    for start in range(0, len(text), size):
        yield text[start : start + size]


def sse(events: Iterable[tuple[str | None, dict[str, Any]]]) -> Iterator[bytes]:
    """Server-sent events: an ``event:`` line when named, then the JSON ``data:`` line."""
    for name, data in events:
        head = f"event: {name}\n".encode() if name else b""
        yield head + b"data: " + json.dumps(data).encode() + b"\n\n"
