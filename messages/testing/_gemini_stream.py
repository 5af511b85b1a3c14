"""The Gemini streaming route (``POST .../models/<model>:streamGenerateContent?alt=sse``).

Gemini streams ``GenerateContentResponse`` objects as server-sent events (``data: {...}`` lines, no event
names). Each carries one candidate with a piece of content and the usage so far (``usageMetadata`` on every
chunk, cumulative, as Gemini sends it):

* reasoning streams as parts ``{"text": ..., "thought": true}``;
* text streams as parts ``{"text": ...}``;
* function calls arrive whole, all of a turn's calls in one chunk (as Gemini sends parallel calls), each
  ``{"functionCall": {"name", "args"}}`` with the call's ``thoughtSignature`` when its provider fields hold
  a ``thought_signature``; Gemini has no call ids (litellm makes them up);
* the last chunk carries ``finishReason: "STOP"``.

The reply's ``thinking_blocks`` (Anthropic's) have no Gemini form and are not sent.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from messages.models import AIMessage
from messages.testing._openai import reply_text, word_count
from messages.testing._server import Reply, Responder

__all__ = ["GeminiStreamRoute", "gemini_stream_chunks"]

_ids = itertools.count(1)


def _pieces(text: str, size: int) -> Iterator[str]:
    for start in range(0, len(text), size):
        yield text[start : start + size]


def _function_call(call: Any) -> dict[str, Any]:
    part: dict[str, Any] = {"functionCall": {"name": call.name, "args": call.parse_arguments()}}
    signature = (call.provider_specific_fields or {}).get("thought_signature")
    if signature:
        part["thoughtSignature"] = signature
    return part


def gemini_stream_chunks(
    body: dict[str, Any], reply: AIMessage, *, model: str = "gemini-stand-in", piece: int = 7
) -> Iterator[dict[str, Any]]:
    """The ``GenerateContentResponse`` chunks Gemini streams for ``reply``."""
    response_id = f"standin{next(_ids)}"
    prompt = word_count(body.get("contents", [])) + word_count(body.get("systemInstruction", {}))
    parts: list[dict[str, Any]] = []
    if reply.reasoning_content:
        parts += [{"text": p, "thought": True} for p in _pieces(reply.reasoning_content, piece)]
    parts += [{"text": p} for p in _pieces(reply_text(reply), piece)]
    chunks = [[part] for part in parts]
    if reply.tool_calls:
        chunks.append([_function_call(call) for call in reply.tool_calls])
    if not chunks:
        chunks.append([{"text": ""}])
    thought_text, answer_text, called = "", "", []
    for number, chunk_parts in enumerate(chunks):
        for part in chunk_parts:
            if part.get("thought"):
                thought_text += part["text"]
            elif "text" in part:
                answer_text += part["text"]
            else:
                called.append(part["functionCall"])
        candidate: dict[str, Any] = {"content": {"parts": chunk_parts, "role": "model"}, "index": 0}
        if number == len(chunks) - 1:
            candidate["finishReason"] = "STOP"
        # Usage so far, restated on every chunk as Gemini does (words stand in for tokens).
        candidates, thoughts = word_count(answer_text) + word_count(called), word_count(thought_text)
        usage = {
            "promptTokenCount": prompt,
            "candidatesTokenCount": candidates,
            "totalTokenCount": prompt + candidates + thoughts,
        }
        if thoughts:
            usage["thoughtsTokenCount"] = thoughts
        yield {
            "candidates": [candidate],
            "usageMetadata": usage,
            "modelVersion": model,
            "responseId": response_id,
        }


@dataclass(frozen=True)
class GeminiStreamRoute:
    """``POST .../models/<model>:streamGenerateContent`` (Google AI Studio and Vertex AI paths alike)."""

    name: str = "gemini"

    def matches(self, method: str, path: str) -> bool:
        return method == "POST" and path.endswith(":streamGenerateContent")

    def respond(self, body: dict[str, Any], path: str, responder: Responder) -> Reply:
        reply = responder(body)
        model = path.rsplit("/", 1)[-1].split(":", 1)[0]
        events = gemini_stream_chunks(body, reply, model=model)
        return Reply(
            200, (b"data: " + json.dumps(e).encode() + b"\r\n\r\n" for e in events), "text/event-stream"
        )
