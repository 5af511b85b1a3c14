"""The OpenAI Chat Completions route (also Mistral, Groq, DeepSeek, xAI, OpenRouter, Together, vLLM...)."""

from __future__ import annotations

import itertools
import json
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from messages.models import REASONING_DETAILS, AIMessage, lift_reasoning_details
from messages.parts import TextPart
from messages.testing._route import Reply, Responder, Route

__all__ = ["OpenAIChatRoute", "openai_completion", "openai_stream_chunks", "reply_text", "word_count"]

_ids = itertools.count(1)
# Reply ids are unique across processes, as OpenAI's are: a history that de-duplicates by message id (Agent
# Framework's history providers keep a streamed reply's id) would take a second process's first reply for
# the first process's.
_RUN = uuid.uuid4().hex[:8]


def word_count(value: Any) -> int:
    """A deterministic stand-in for a token count: the number of words in every string of ``value``."""
    if isinstance(value, str):
        return len(value.split())
    if isinstance(value, dict):
        return sum(word_count(v) for v in value.values())
    if isinstance(value, list):
        return sum(word_count(v) for v in value)
    return 0


def reply_text(reply: AIMessage) -> str:
    """The reply's text as one string (text parts joined, other parts left out), ``""`` when it has none."""
    if isinstance(reply.content, list):
        return "".join(part.text for part in reply.content if isinstance(part, TextPart))
    return reply.content or ""


def _usage(body: dict[str, Any], reply: AIMessage) -> dict[str, int]:
    prompt = word_count(body.get("messages", []))
    completion = word_count(reply.model_dump())
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


def _finish_reason(reply: AIMessage) -> str:
    return "tool_calls" if reply.tool_calls else "stop"


def _details(reply: AIMessage) -> Any:
    """The reply's reasoning details (``provider_specific_fields["reasoning_details"]``), ``None`` if none."""
    return (reply.provider_specific_fields or {}).get(REASONING_DETAILS)


def openai_completion(body: dict[str, Any], reply: AIMessage) -> dict[str, Any]:
    """A ``chat.completion`` object carrying ``reply``; its reasoning details as the message's own
    ``reasoning_details``, as OpenRouter and vLLM send them."""
    message = reply.model_dump()
    message.pop("name", None)
    message.pop("provider", None)
    if _details(reply) is not None:
        message = lift_reasoning_details(message)
    if isinstance(reply.content, list):  # OpenAI replies carry text as one string
        message["content"] = reply_text(reply)
    return {
        "id": f"chatcmpl-standin{_RUN}-{next(_ids)}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model", "stand-in"),
        "system_fingerprint": "fp_standin",
        "service_tier": "default",  # litellm's Groq parser needs it
        "choices": [
            {"index": 0, "message": message, "logprobs": None, "finish_reason": _finish_reason(reply)}
        ],
        "usage": _usage(body, reply),
    }


def _pieces(text: str, size: int) -> Iterator[str]:
    for start in range(0, len(text), size):
        yield text[start : start + size]


def openai_stream_chunks(
    body: dict[str, Any], reply: AIMessage, *, piece: int = 7
) -> Iterator[dict[str, Any]]:
    """The ``chat.completion.chunk`` objects OpenAI streams for ``reply``: role, refusal, reasoning (and the
    reasoning details in one chunk, as OpenRouter streams them) and text in pieces, each tool call opened
    with its id and name then its arguments in fragments, the finish reason, and a usage chunk when
    ``stream_options.include_usage`` asks for one."""
    base = {
        "id": f"chatcmpl-standin{_RUN}-{next(_ids)}",
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": body.get("model", "stand-in"),
        "system_fingerprint": "fp_standin",
    }

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {**base, "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]}

    if reply.refusal and reply.content is None:
        yield chunk({"role": "assistant", "content": None, "refusal": ""})
    else:
        yield chunk({"role": "assistant", "content": ""})
    for part in _pieces(reply.refusal or "", piece):
        yield chunk({"refusal": part})
    if reply.reasoning_content:
        for part in _pieces(reply.reasoning_content, piece):
            yield chunk({"reasoning_content": part})
    details = _details(reply)
    if details is not None:
        yield chunk({REASONING_DETAILS: details})
    for part in _pieces(reply_text(reply), piece):
        yield chunk({"content": part})
    for index, call in enumerate(reply.tool_calls):
        opening = {
            "index": index,
            "id": call.id,
            "type": "function",
            "function": {"name": call.name, "arguments": ""},
        }
        yield chunk({"tool_calls": [opening]})
        for part in _pieces(call.arguments, piece):
            yield chunk({"tool_calls": [{"index": index, "function": {"arguments": part}}]})
    yield chunk({}, _finish_reason(reply))
    options = body.get("stream_options") or {}
    if options.get("include_usage"):
        yield {**base, "choices": [], "usage": _usage(body, reply)}


def _sse(events: Iterator[dict[str, Any]]) -> Iterator[bytes]:
    for event in events:
        yield b"data: " + json.dumps(event).encode() + b"\n\n"
    yield b"data: [DONE]\n\n"


@dataclass(frozen=True)
class OpenAIChatRoute(Route):
    """``POST .../chat/completions``, streaming or not."""

    name: str = "openai"

    def matches(self, method: str, path: str) -> bool:
        return method == "POST" and path.endswith("/chat/completions")

    def respond(self, body: dict[str, Any], path: str, responder: Responder) -> Reply:
        reply = responder(body)
        if body.get("stream"):
            return Reply(200, _sse(openai_stream_chunks(body, reply)), "text/event-stream")
        return Reply(200, json.dumps(openai_completion(body, reply)).encode())
