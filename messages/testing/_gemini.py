"""The Gemini generateContent routes: Google AI Studio, Vertex AI (same body, longer path), and the OAuth
token endpoint that Vertex service-account credentials call first.

A reply is a ``GenerateContentResponse`` with one candidate whose parts are the reasoning
(``{"text": ..., "thought": true}``), the text, then one ``{"functionCall": {"name", "args"}}`` per call,
with the call's ``thoughtSignature`` (a thinking reply signs its first call, quirk 25).
Gemini has no call ids (litellm makes them up). Anthropic's signed ``thinking_blocks`` have no Gemini form:
only their text is sent, as reasoning.

``:streamGenerateContent?alt=sse`` streams the same parts as server-sent events (``data:`` lines, no event
names): reasoning and text in pieces, all of a turn's calls whole in one chunk (as Gemini sends parallel
calls), ``finishReason: "STOP"`` on the last chunk, and the usage so far restated on every chunk
(cumulative, as Gemini sends it). Words stand in for tokens; thoughts are counted apart from candidates.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from messages.models import AIMessage
from messages.testing._native import NativeCall, NativeReply, pieces, sse, take_apart
from messages.testing._openai import word_count
from messages.testing._route import Reply, Responder, Route

__all__ = ["GeminiRoute", "GeminiStreamRoute", "OAuthTokenRoute", "gemini_response", "gemini_stream_chunks"]

_ids = itertools.count(1)


def _take_apart(body: dict[str, Any], reply: AIMessage) -> NativeReply:
    prompt = [body.get("contents", []), body.get("systemInstruction", {})]
    return take_apart(body, reply, "gemini", prompt=prompt)


def _call_part(call: NativeCall) -> dict[str, Any]:
    part: dict[str, Any] = {"functionCall": {"name": call.name, "args": call.arguments}}
    if call.thought_signature is not None:
        part["thoughtSignature"] = call.thought_signature
    return part


def _usage(prompt: int, parts: list[dict[str, Any]]) -> dict[str, int]:
    """The usage of a reply whose parts so far are ``parts``."""
    thought = "".join(p["text"] for p in parts if p.get("thought"))
    answer = "".join(p["text"] for p in parts if "text" in p and not p.get("thought"))
    calls = [p["functionCall"] for p in parts if "functionCall" in p]
    candidates, thoughts = word_count(answer) + word_count(calls), word_count(thought)
    usage = {
        "promptTokenCount": prompt,
        "candidatesTokenCount": candidates,
        "totalTokenCount": prompt + candidates + thoughts,
    }
    if thoughts:
        usage["thoughtsTokenCount"] = thoughts
    return usage


def _response(
    parts: list[dict[str, Any]], usage: dict[str, int], *, last: bool, model: str, response_id: str
) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"parts": parts, "role": "model"}, "index": 0}
    if last:
        candidate["finishReason"] = "STOP"
    return {
        "candidates": [candidate],
        "usageMetadata": usage,
        "modelVersion": model,
        "responseId": response_id,
    }


def gemini_response(
    body: dict[str, Any], reply: AIMessage, *, model: str = "gemini-stand-in"
) -> dict[str, Any]:
    """A ``GenerateContentResponse`` carrying ``reply``: thought, text and ``functionCall`` parts."""
    native = _take_apart(body, reply)
    parts: list[dict[str, Any]] = []
    if native.reasoning:
        parts.append({"text": native.reasoning, "thought": True})
    if native.text:
        parts.append({"text": native.text})
    parts.extend(_call_part(call) for call in native.calls)
    usage = _usage(native.prompt_tokens, parts)
    return _response(parts, usage, last=True, model=model, response_id=f"standin{next(_ids)}")


def gemini_stream_chunks(
    body: dict[str, Any], reply: AIMessage, *, model: str = "gemini-stand-in"
) -> Iterator[dict[str, Any]]:
    """The ``GenerateContentResponse`` chunks Gemini streams for ``reply``."""
    # Taken apart before the stream starts, so that a bad reply fails the request, not the stream.
    return _chunks(_take_apart(body, reply), model)


def _chunks(native: NativeReply, model: str) -> Iterator[dict[str, Any]]:
    response_id = f"standin{next(_ids)}"
    chunks = [[{"text": p, "thought": True}] for p in pieces(native.reasoning)]
    chunks += [[{"text": p}] for p in pieces(native.text)]
    if native.calls:
        chunks.append([_call_part(call) for call in native.calls])
    if not chunks:
        chunks.append([{"text": ""}])
    sent: list[dict[str, Any]] = []
    for number, parts in enumerate(chunks):
        sent += parts
        usage = _usage(native.prompt_tokens, sent)
        yield _response(parts, usage, last=number == len(chunks) - 1, model=model, response_id=response_id)


@dataclass(frozen=True)
class GeminiRoute(Route):
    """``POST .../models/<model>:generateContent`` and ``:streamGenerateContent``; with ``vertex`` only
    the Vertex AI paths (``/v1/projects/<p>/locations/<l>/publishers/google/models/...``), else the others."""

    name: str = "gemini"
    vertex: bool = False
    """Serve the Vertex AI paths instead of the Gemini API's."""

    def matches(self, method: str, path: str) -> bool:
        generate = path.endswith((":generateContent", ":streamGenerateContent"))
        return method == "POST" and generate and ("/projects/" in path) == self.vertex

    def respond(self, body: dict[str, Any], path: str, responder: Responder) -> Reply:
        reply = responder(body)
        model, _, method = path.rsplit("/", 1)[-1].partition(":")
        if method == "streamGenerateContent":
            events = ((None, chunk) for chunk in gemini_stream_chunks(body, reply, model=model))
            return Reply(200, sse(events), "text/event-stream")
        return Reply(200, json.dumps(gemini_response(body, reply, model=model)).encode())


GeminiStreamRoute = GeminiRoute
"""The same route under the name it had while streaming was served by a separate class."""


@dataclass(frozen=True)
class OAuthTokenRoute(Route):
    """``POST /token``: the OAuth token endpoint a service account's ``token_uri`` points at."""

    name: str = "oauth"

    def matches(self, method: str, path: str) -> bool:
        return method == "POST" and path.endswith("/token")

    def respond(self, body: dict[str, Any], path: str, responder: Responder) -> Reply:
        token = {"access_token": "stand-in-token", "token_type": "Bearer", "expires_in": 3600}
        return Reply(200, json.dumps(token).encode())
