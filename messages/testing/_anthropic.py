"""The Anthropic Messages route, ``POST /v1/messages`` (also what litellm sends to Claude on Vertex)."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from messages.models import AIMessage
from messages.testing._native import NativeReply, pieces, sse, take_apart
from messages.testing._server import Reply, Responder

__all__ = ["AnthropicMessagesRoute", "anthropic_message", "anthropic_stream_events"]

_ids = itertools.count(1)


def _blocks(native: NativeReply) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = list(native.thinking)
    if native.text:
        blocks.append({"type": "text", "text": native.text})
    for call in native.calls:
        blocks.append({"type": "tool_use", "id": call.id, "name": call.name, "input": call.arguments})
    return blocks


def _stop_reason(native: NativeReply) -> str:
    return "tool_use" if native.calls else "end_turn"


def anthropic_message(body: dict[str, Any], reply: AIMessage) -> dict[str, Any]:
    """A Messages API ``message`` object carrying ``reply``: thinking, text and ``tool_use`` blocks."""
    native = take_apart(body, reply, "anthropic")
    return {
        "id": f"msg_standin{next(_ids)}",
        "type": "message",
        "role": "assistant",
        "model": body.get("model", "stand-in"),
        "content": _blocks(native),
        "stop_reason": _stop_reason(native),
        "stop_sequence": None,
        "usage": {"input_tokens": native.prompt_tokens, "output_tokens": native.completion_tokens},
    }


def anthropic_stream_events(body: dict[str, Any], reply: AIMessage) -> Iterator[tuple[str, dict[str, Any]]]:
    """The named events Anthropic streams for ``reply``: each block opened, filled by deltas, closed."""
    # Taken apart before the stream starts, so that a bad reply fails the request, not the stream.
    return _events(body, take_apart(body, reply, "anthropic"))


def _events(body: dict[str, Any], native: NativeReply) -> Iterator[tuple[str, dict[str, Any]]]:
    message = {
        "id": f"msg_standin{next(_ids)}",
        "type": "message",
        "role": "assistant",
        "model": body.get("model", "stand-in"),
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": native.prompt_tokens, "output_tokens": 1},
    }
    yield "message_start", {"type": "message_start", "message": message}
    for index, block in enumerate(_blocks(native)):
        kind = block["type"]
        deltas: list[dict[str, Any]] = []
        start: dict[str, Any]
        if kind == "thinking":
            start = {"type": "thinking", "thinking": "", "signature": ""}
            deltas = [{"type": "thinking_delta", "thinking": p} for p in pieces(block["thinking"])]
            deltas.append({"type": "signature_delta", "signature": block["signature"]})
        elif kind == "text":
            start = {"type": "text", "text": ""}
            deltas = [{"type": "text_delta", "text": p} for p in pieces(block["text"])]
        elif kind == "tool_use":
            start = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
            deltas = [
                {"type": "input_json_delta", "partial_json": p} for p in pieces(json.dumps(block["input"]))
            ]
        else:  # redacted_thinking arrives whole in its start event
            start = block
        yield "content_block_start", {"type": "content_block_start", "index": index, "content_block": start}
        for delta in deltas:
            yield "content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}
        yield "content_block_stop", {"type": "content_block_stop", "index": index}
    yield (
        "message_delta",
        {
            "type": "message_delta",
            "delta": {"stop_reason": _stop_reason(native), "stop_sequence": None},
            "usage": {"output_tokens": native.completion_tokens},
        },
    )
    yield "message_stop", {"type": "message_stop"}


@dataclass(frozen=True)
class AnthropicMessagesRoute:
    """``POST /v1/messages``, streaming (named server-sent events) or not."""

    name: str = "anthropic"

    def matches(self, method: str, path: str) -> bool:
        return method == "POST" and path.endswith("/v1/messages")

    def respond(self, body: dict[str, Any], path: str, responder: Responder) -> Reply:
        reply = responder(body)
        if body.get("stream"):
            return Reply(200, sse(anthropic_stream_events(body, reply)), "text/event-stream")
        return Reply(200, json.dumps(anthropic_message(body, reply)).encode())
