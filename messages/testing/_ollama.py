"""The Ollama native routes: ``POST /api/chat`` (litellm's ``ollama_chat/``) and ``POST /api/generate``
(litellm's ``ollama/``, a flattened prompt); streamed replies are newline-delimited JSON."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from messages.models import AIMessage
from messages.testing._native import NativeReply, pieces, take_apart
from messages.testing._route import Reply, Responder, Route

__all__ = ["OllamaRoute", "ollama_chat_chunks", "ollama_chat_response", "ollama_generate_response"]

_CREATED = "2025-01-01T00:00:00Z"


def _message(native: NativeReply, text: str, *, calls: bool = True, thinking: bool = True) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if thinking and native.reasoning:
        message["thinking"] = native.reasoning
    if calls and native.calls:
        # Ollama sends no call ids and decoded arguments (quirks 49, 52).
        message["tool_calls"] = [
            {"function": {"name": call.name, "arguments": call.arguments}} for call in native.calls
        ]
    return message


def _final(body: dict[str, Any], native: NativeReply) -> dict[str, Any]:
    return {
        "model": body.get("model", "stand-in"),
        "created_at": _CREATED,
        "done": True,
        "done_reason": "stop",
        "prompt_eval_count": native.prompt_tokens,
        "eval_count": native.completion_tokens,
    }


def ollama_chat_response(body: dict[str, Any], reply: AIMessage) -> dict[str, Any]:
    """An ``/api/chat`` reply carrying ``reply``: content, ``thinking`` and id-less tool calls."""
    native = take_apart(body, reply, "ollama", prompt=body.get("messages"))
    return {**_final(body, native), "message": _message(native, native.text)}


def ollama_chat_chunks(body: dict[str, Any], reply: AIMessage) -> Iterator[dict[str, Any]]:
    """The streamed ``/api/chat`` objects: thinking and text in pieces, the calls whole, then ``done``."""
    return _chunks(body, take_apart(body, reply, "ollama", prompt=body.get("messages")))


def _chunks(body: dict[str, Any], native: NativeReply) -> Iterator[dict[str, Any]]:
    head = {"model": body.get("model", "stand-in"), "created_at": _CREATED, "done": False}
    for piece in pieces(native.reasoning):
        yield {**head, "message": {"role": "assistant", "content": "", "thinking": piece}}
    for piece in pieces(native.text):
        yield {**head, "message": {"role": "assistant", "content": piece}}
    if native.calls:
        yield {**head, "message": _message(native, "", thinking=False)}
    yield {**_final(body, native), "message": {"role": "assistant", "content": ""}}


def ollama_generate_response(body: dict[str, Any], reply: AIMessage) -> dict[str, Any]:
    """An ``/api/generate`` reply: the text as ``response`` (the generate API has no tool calls)."""
    native = take_apart(body, reply, "ollama", prompt=body.get("prompt"))
    return {**_final(body, native), "response": native.text}


@dataclass(frozen=True)
class OllamaRoute(Route):
    """``POST /api/chat`` and ``POST /api/generate``, streaming (NDJSON) or not."""

    name: str = "ollama"

    def matches(self, method: str, path: str) -> bool:
        return method == "POST" and path.endswith(("/api/chat", "/api/generate"))

    def respond(self, body: dict[str, Any], path: str, responder: Responder) -> Reply:
        reply = responder(body)
        if path.endswith("/api/generate"):
            native = take_apart(body, reply, "ollama", prompt=body.get("prompt"))
            if body.get("stream"):
                head = {"model": body.get("model", "stand-in"), "created_at": _CREATED, "done": False}
                lines = [{**head, "response": p} for p in pieces(native.text)]
                lines.append({**_final(body, native), "response": ""})
                return Reply(200, _ndjson(iter(lines)), "application/x-ndjson")
            return Reply(200, json.dumps(ollama_generate_response(body, reply)).encode())
        if body.get("stream"):
            return Reply(200, _ndjson(ollama_chat_chunks(body, reply)), "application/x-ndjson")
        return Reply(200, json.dumps(ollama_chat_response(body, reply)).encode())


def _ndjson(objects: Iterator[dict[str, Any]]) -> Iterator[bytes]:
    for obj in objects:
        yield json.dumps(obj).encode() + b"\n"
