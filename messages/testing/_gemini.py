"""The Gemini generateContent routes: Google AI Studio, Vertex AI (same body, longer path), and the OAuth
token endpoint that Vertex service-account credentials call first."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from messages.models import AIMessage
from messages.testing._native import NativeReply, pieces, sse, take_apart
from messages.testing._server import Reply, Responder

__all__ = ["GeminiRoute", "OAuthTokenRoute", "gemini_response", "gemini_stream_chunks"]


def _call_part(call: Any) -> dict[str, Any]:
    part: dict[str, Any] = {"functionCall": {"name": call.name, "args": call.arguments}}
    if call.thought_signature is not None:
        part["thoughtSignature"] = call.thought_signature
    return part


def _parts(native: NativeReply) -> list[dict[str, Any]]:
    parts: list[dict[str, Any]] = []
    if native.reasoning:
        parts.append({"text": native.reasoning, "thought": True})
    if native.text:
        parts.append({"text": native.text})
    parts.extend(_call_part(call) for call in native.calls)
    return parts


def _usage(native: NativeReply) -> dict[str, int]:
    return {
        "promptTokenCount": native.prompt_tokens,
        "candidatesTokenCount": native.completion_tokens,
        "totalTokenCount": native.prompt_tokens + native.completion_tokens,
    }


def _response(body: dict[str, Any], parts: list[dict[str, Any]], finish: str | None) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
    if finish is not None:
        candidate["finishReason"] = finish
    return {"candidates": [candidate], "modelVersion": "stand-in", "responseId": "standin"}


def gemini_response(body: dict[str, Any], reply: AIMessage) -> dict[str, Any]:
    """A ``GenerateContentResponse`` carrying ``reply``: thought, text and ``functionCall`` parts (a thinking
    reply signs its first call, provider-quirks.md row 25)."""
    native = take_apart(body, reply, "gemini", prompt=body.get("contents"))
    response = _response(body, _parts(native), "STOP")
    response["usageMetadata"] = _usage(native)
    return response


def gemini_stream_chunks(body: dict[str, Any], reply: AIMessage) -> Iterator[dict[str, Any]]:
    """The ``GenerateContentResponse`` chunks of ``streamGenerateContent?alt=sse``: text in pieces, each call
    whole (Gemini never splits a call), finish reason and usage on the last chunk."""
    native = take_apart(body, reply, "gemini", prompt=body.get("contents"))
    return _chunks(body, native)


def _chunks(body: dict[str, Any], native: NativeReply) -> Iterator[dict[str, Any]]:
    for piece in pieces(native.reasoning):
        yield _response(body, [{"text": piece, "thought": True}], None)
    for piece in pieces(native.text):
        yield _response(body, [{"text": piece}], None)
    for call in native.calls:
        yield _response(body, [_call_part(call)], None)
    last = _response(body, [{"text": ""}], "STOP")
    last["usageMetadata"] = _usage(native)
    yield last


@dataclass(frozen=True)
class GeminiRoute:
    """``POST .../models/<model>:generateContent`` and ``:streamGenerateContent``; with ``vertex`` only
    the Vertex AI paths (``/v1/projects/<p>/locations/<l>/publishers/google/models/...``), else the others."""

    name: str = "gemini"
    vertex: bool = False

    def matches(self, method: str, path: str) -> bool:
        generate = path.endswith((":generateContent", ":streamGenerateContent"))
        return method == "POST" and generate and ("/projects/" in path) == self.vertex

    def respond(self, body: dict[str, Any], path: str, responder: Responder) -> Reply:
        reply = responder(body)
        if path.endswith(":streamGenerateContent"):
            events = ((None, chunk) for chunk in gemini_stream_chunks(body, reply))
            return Reply(200, sse(events), "text/event-stream")
        return Reply(200, json.dumps(gemini_response(body, reply)).encode())


@dataclass(frozen=True)
class OAuthTokenRoute:
    """``POST /token``: the OAuth token endpoint a service account's ``token_uri`` points at."""

    name: str = "oauth"

    def matches(self, method: str, path: str) -> bool:
        return method == "POST" and path.endswith("/token")

    def respond(self, body: dict[str, Any], path: str, responder: Responder) -> Reply:
        token = {"access_token": "stand-in-token", "token_type": "Bearer", "expires_in": 3600}
        return Reply(200, json.dumps(token).encode())
