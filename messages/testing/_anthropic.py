"""The Anthropic Messages route (``POST /v1/messages``, also what litellm sends to Claude on Vertex), streamed
as Anthropic streams or not.

The reply's ``thinking_blocks`` become thinking blocks; a reply with ``reasoning_content`` but no
``thinking_blocks`` gets one thinking block holding that text, with a stand-in signature (Anthropic signs
every thinking block it sends). Then one text block, then a ``tool_use`` block per call (its ``input`` the
decoded arguments: a call whose arguments are not a JSON object fails the request, before any byte of a
stream is sent).

A streamed reply is the event sequence of Anthropic's Messages API: ``message_start`` (usage with the
input tokens), ``ping``, then one content block after another, each opened by ``content_block_start``,
filled by ``content_block_delta`` events and closed by ``content_block_stop``, then ``message_delta``
(stop reason and the cumulative output tokens) and ``message_stop``:

* a signed thinking block streams its text as ``thinking_delta`` and closes with one ``signature_delta``;
  a redacted thinking block arrives whole in its ``content_block_start``;
* text streams as ``text_delta`` pieces;
* a tool call opens with its id, name and ``input: {}``, then streams its arguments as written as
  ``input_json_delta`` fragments (the first one empty, as Anthropic sends it).
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from messages.models import AIMessage
from messages.testing._native import NativeReply, pieces, sse, take_apart
from messages.testing._route import Reply, Responder, Route

__all__ = ["AnthropicMessagesRoute", "AnthropicStreamRoute", "anthropic_message", "anthropic_stream_events"]

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
        "usage": {
            "input_tokens": native.prompt_tokens,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
            "output_tokens": 1,
        },
    }
    yield "message_start", {"type": "message_start", "message": message}
    yield "ping", {"type": "ping"}
    calls = iter(native.calls)  # the tool_use blocks come in the order of the calls
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
            fragments = ["", *pieces(next(calls).raw_arguments)]
            deltas = [{"type": "input_json_delta", "partial_json": p} for p in fragments]
        else:  # redacted_thinking, and any other block: whole in its start event
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
class AnthropicMessagesRoute(Route):
    """``POST .../v1/messages``, streaming (named server-sent events) or not; also Claude on Vertex AI
    (``.../publishers/anthropic/models/...:rawPredict`` and ``:streamRawPredict``) and on Bedrock's invoke
    API (``/model/anthropic.../invoke``, not streamed), which take and give Anthropic's own bodies."""

    name: str = "anthropic"

    def matches(self, method: str, path: str) -> bool:
        if method != "POST":
            return False
        if path.endswith("/v1/messages"):
            return True
        if "/publishers/anthropic/" in path and path.endswith(("rawPredict", "RawPredict")):
            return True
        return path.startswith("/model/") and "anthropic." in path and path.endswith("/invoke")

    def respond(self, body: dict[str, Any], path: str, responder: Responder) -> Reply:
        reply = responder(body)
        if body.get("stream"):
            return Reply(200, sse(anthropic_stream_events(body, reply)), "text/event-stream")
        return Reply(200, json.dumps(anthropic_message(body, reply)).encode())


AnthropicStreamRoute = AnthropicMessagesRoute
"""The same route under the name it had while streaming was served by a separate class."""
