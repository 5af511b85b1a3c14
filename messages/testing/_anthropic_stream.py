"""The Anthropic Messages route (``POST /v1/messages``), streaming as Anthropic streams.

A streamed reply is the event sequence of Anthropic's Messages API: ``message_start`` (usage with the
input tokens), ``ping``, then one content block after another, each opened by ``content_block_start``,
filled by ``content_block_delta`` events and closed by ``content_block_stop``, then ``message_delta``
(stop reason and the cumulative output tokens) and ``message_stop``:

* a signed thinking block streams its text as ``thinking_delta`` and closes with one ``signature_delta``;
  a redacted thinking block arrives whole in its ``content_block_start``;
* text streams as ``text_delta`` pieces, one text block per text part;
* a tool call opens with its id, name and ``input: {}``, then streams its arguments as
  ``input_json_delta`` fragments (the first one empty, as Anthropic sends it).

The reply's ``thinking_blocks`` become thinking blocks; a reply with ``reasoning_content`` but no
``thinking_blocks`` gets one thinking block holding that text, with a stand-in signature (Anthropic signs
every thinking block it sends). Without ``stream`` the same blocks come back in one message object.
"""

from __future__ import annotations

import base64
import hashlib
import itertools
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from messages.models import AIMessage
from messages.testing._openai import word_count
from messages.testing._server import Reply, Responder

__all__ = ["AnthropicStreamRoute", "anthropic_blocks", "anthropic_message", "anthropic_stream_events"]

_ids = itertools.count(1)


def _stand_in_signature(text: str) -> str:
    return base64.b64encode(b"stand-in:" + hashlib.sha256(text.encode()).digest()[:12]).decode("ascii")


def anthropic_blocks(reply: AIMessage) -> list[dict[str, Any]]:
    """The content blocks of an Anthropic message carrying ``reply``: thinking, text, then tool use."""
    blocks: list[dict[str, Any]] = []
    if reply.thinking_blocks:
        blocks.extend(dict(block) for block in reply.thinking_blocks)
    elif reply.reasoning_content:
        text = reply.reasoning_content
        blocks.append({"type": "thinking", "thinking": text, "signature": _stand_in_signature(text)})
    texts = [reply.content] if isinstance(reply.content, str) else [p.text for p in reply.content or []]
    blocks.extend({"type": "text", "text": text} for text in texts if text)
    for call in reply.tool_calls:
        blocks.append({"type": "tool_use", "id": call.id, "name": call.name, "input": call.parse_arguments()})
    return blocks


def _stop_reason(reply: AIMessage) -> str:
    return "tool_use" if reply.tool_calls else "end_turn"


def _input_tokens(body: dict[str, Any]) -> int:
    return word_count(body.get("messages", [])) + word_count(body.get("system", ""))


def anthropic_message(body: dict[str, Any], reply: AIMessage) -> dict[str, Any]:
    """A non-streamed Anthropic ``message`` object carrying ``reply``."""
    return {
        "id": f"msg_standin{next(_ids)}",
        "type": "message",
        "role": "assistant",
        "model": body.get("model", "stand-in"),
        "content": anthropic_blocks(reply),
        "stop_reason": _stop_reason(reply),
        "stop_sequence": None,
        "usage": {"input_tokens": _input_tokens(body), "output_tokens": word_count(reply.model_dump())},
    }


def _pieces(text: str, size: int) -> Iterator[str]:
    for start in range(0, len(text), size):
        yield text[start : start + size]


def anthropic_stream_events(
    body: dict[str, Any], reply: AIMessage, *, piece: int = 7
) -> Iterator[tuple[str, dict[str, Any]]]:
    """The ``(event, data)`` pairs Anthropic streams for ``reply``, text and arguments in ``piece``-sized
    fragments."""
    yield (
        "message_start",
        {
            "type": "message_start",
            "message": {
                "id": f"msg_standin{next(_ids)}",
                "type": "message",
                "role": "assistant",
                "model": body.get("model", "stand-in"),
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": {
                    "input_tokens": _input_tokens(body),
                    "cache_creation_input_tokens": 0,
                    "cache_read_input_tokens": 0,
                    "output_tokens": 1,
                },
            },
        },
    )
    yield "ping", {"type": "ping"}

    def delta(index: int, payload: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        return "content_block_delta", {"type": "content_block_delta", "index": index, "delta": payload}

    calls = iter(reply.tool_calls)  # the tool_use blocks come in the order of the calls
    for index, block in enumerate(anthropic_blocks(reply)):
        kind = block["type"]
        if kind == "thinking":
            start: dict[str, Any] = {"type": "thinking", "thinking": "", "signature": ""}
        elif kind == "text":
            start = {"type": "text", "text": ""}
        elif kind == "tool_use":
            start = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
        else:  # redacted_thinking, and any other block: whole in its start event
            start = block
        yield "content_block_start", {"type": "content_block_start", "index": index, "content_block": start}
        if kind == "thinking":
            for part in _pieces(block["thinking"], piece):
                yield delta(index, {"type": "thinking_delta", "thinking": part})
            yield delta(index, {"type": "signature_delta", "signature": block["signature"]})
        elif kind == "text":
            for part in _pieces(block["text"], piece):
                yield delta(index, {"type": "text_delta", "text": part})
        elif kind == "tool_use":
            yield delta(index, {"type": "input_json_delta", "partial_json": ""})
            for part in _pieces(next(calls).arguments, piece):
                yield delta(index, {"type": "input_json_delta", "partial_json": part})
        yield "content_block_stop", {"type": "content_block_stop", "index": index}
    yield (
        "message_delta",
        {
            "type": "message_delta",
            "delta": {"stop_reason": _stop_reason(reply), "stop_sequence": None},
            "usage": {"output_tokens": word_count(reply.model_dump())},
        },
    )
    yield "message_stop", {"type": "message_stop"}


def _sse(events: Iterator[tuple[str, dict[str, Any]]]) -> Iterator[bytes]:
    for name, data in events:
        yield f"event: {name}\ndata: {json.dumps(data)}\n\n".encode()


@dataclass(frozen=True)
class AnthropicStreamRoute:
    """``POST .../v1/messages``, streaming or not."""

    name: str = "anthropic"

    def matches(self, method: str, path: str) -> bool:
        return method == "POST" and path.endswith("/v1/messages")

    def respond(self, body: dict[str, Any], path: str, responder: Responder) -> Reply:
        reply = responder(body)
        if body.get("stream"):
            return Reply(200, _sse(anthropic_stream_events(body, reply)), "text/event-stream")
        return Reply(200, json.dumps(anthropic_message(body, reply)).encode())
