"""The Bedrock Converse routes: ``POST /model/<id>/converse`` (JSON) and ``/converse-stream`` (the AWS
binary event stream, ``application/vnd.amazon.eventstream``, which litellm decodes with botocore)."""

from __future__ import annotations

import binascii
import json
import struct
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from messages.models import AIMessage
from messages.testing._native import NativeReply, pieces, take_apart
from messages.testing._route import Reply, Responder, Route

__all__ = ["BedrockConverseRoute", "converse_response", "converse_stream_events", "event_stream_message"]


def _reasoning_block(block: dict[str, Any]) -> dict[str, Any]:
    if block.get("type") == "redacted_thinking":
        return {"reasoningContent": {"redactedContent": block.get("data", "")}}
    text = {"text": block.get("thinking", ""), "signature": block.get("signature", "")}
    return {"reasoningContent": {"reasoningText": text}}


def _blocks(native: NativeReply) -> list[dict[str, Any]]:
    blocks = [_reasoning_block(block) for block in native.thinking]
    if native.text:
        blocks.append({"text": native.text})
    for call in native.calls:
        blocks.append({"toolUse": {"toolUseId": call.id, "name": call.name, "input": call.arguments}})
    return blocks


def _usage(native: NativeReply) -> dict[str, int]:
    return {
        "inputTokens": native.prompt_tokens,
        "outputTokens": native.completion_tokens,
        "totalTokens": native.prompt_tokens + native.completion_tokens,
    }


def _stop_reason(native: NativeReply) -> str:
    return "tool_use" if native.calls else "end_turn"


def converse_response(body: dict[str, Any], reply: AIMessage) -> dict[str, Any]:
    """A ``ConverseResponse`` carrying ``reply``: reasoning, text and ``toolUse`` content blocks."""
    native = take_apart(body, reply, "bedrock")
    return {
        "output": {"message": {"role": "assistant", "content": _blocks(native)}},
        "stopReason": _stop_reason(native),
        "usage": _usage(native),
        "metrics": {"latencyMs": 1},
    }


def converse_stream_events(body: dict[str, Any], reply: AIMessage) -> Iterator[tuple[str, dict[str, Any]]]:
    """The ``ConverseStream`` events for ``reply``, as ``(event type, payload)``."""
    return _events(take_apart(body, reply, "bedrock"))


def _events(native: NativeReply) -> Iterator[tuple[str, dict[str, Any]]]:
    yield "messageStart", {"role": "assistant"}
    for index, block in enumerate(_blocks(native)):
        deltas: list[dict[str, Any]] = []
        if "text" in block:
            deltas = [{"text": p} for p in pieces(block["text"])]
        elif "toolUse" in block:
            use = block["toolUse"]
            start = {"toolUse": {"toolUseId": use["toolUseId"], "name": use["name"]}}
            yield "contentBlockStart", {"start": start, "contentBlockIndex": index}
            deltas = [{"toolUse": {"input": p}} for p in pieces(json.dumps(use["input"]))]
        else:
            reasoning = block["reasoningContent"]
            if "reasoningText" in reasoning:
                signed = reasoning["reasoningText"]
                deltas = [{"reasoningContent": {"text": p}} for p in pieces(signed["text"])]
                deltas.append({"reasoningContent": {"signature": signed["signature"]}})
            else:
                deltas = [{"reasoningContent": {"redactedContent": reasoning["redactedContent"]}}]
        for delta in deltas:
            yield "contentBlockDelta", {"delta": delta, "contentBlockIndex": index}
        yield "contentBlockStop", {"contentBlockIndex": index}
    yield "messageStop", {"stopReason": _stop_reason(native)}
    yield "metadata", {"usage": _usage(native), "metrics": {"latencyMs": 1}}


def _header(name: str, value: str) -> bytes:
    encoded_name, encoded_value = name.encode(), value.encode()
    # name length (1 byte), name, type 7 (string), value length (2 bytes), value
    return (
        struct.pack(">B", len(encoded_name))
        + encoded_name
        + struct.pack(">BH", 7, len(encoded_value))
        + encoded_value
    )


def event_stream_message(event_type: str, payload: dict[str, Any]) -> bytes:
    """One message of the AWS event-stream encoding: prelude (total and header lengths, CRC32), headers,
    JSON payload, CRC32 of the whole message."""
    headers = (
        _header(":event-type", event_type)
        + _header(":content-type", "application/json")
        + _header(":message-type", "event")
    )
    data = json.dumps(payload).encode()
    total = 12 + len(headers) + len(data) + 4
    prelude = struct.pack(">II", total, len(headers))
    prelude += struct.pack(">I", binascii.crc32(prelude))
    message = prelude + headers + data
    return message + struct.pack(">I", binascii.crc32(message))


@dataclass(frozen=True)
class BedrockConverseRoute(Route):
    """``POST /model/<id>/converse`` and ``/model/<id>/converse-stream``."""

    name: str = "bedrock"

    def matches(self, method: str, path: str) -> bool:
        return method == "POST" and "/model/" in path and path.endswith(("/converse", "/converse-stream"))

    def respond(self, body: dict[str, Any], path: str, responder: Responder) -> Reply:
        reply = responder(body)
        if path.endswith("/converse-stream"):
            frames = (event_stream_message(kind, data) for kind, data in converse_stream_events(body, reply))
            return Reply(200, frames, "application/vnd.amazon.eventstream")
        return Reply(200, json.dumps(converse_response(body, reply)).encode())
