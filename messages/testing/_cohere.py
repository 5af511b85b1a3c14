"""The Cohere v2 chat route, ``POST /v2/chat`` (litellm's default for ``cohere/`` models; its
``api_base`` must be the full URL, ``<server>/v2/chat``)."""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass
from typing import Any

from messages.models import AIMessage
from messages.testing._native import take_apart
from messages.testing._route import Reply, Responder, Route

__all__ = ["CohereChatRoute", "cohere_v2_response"]

_ids = itertools.count(1)


def cohere_v2_response(body: dict[str, Any], reply: AIMessage) -> dict[str, Any]:
    """A v2 ``ChatResponse`` carrying ``reply``: text content items, ``tool_plan`` and tool calls."""
    native = take_apart(body, reply, "cohere", prompt=body.get("messages"))
    message: dict[str, Any] = {"role": "assistant"}
    if native.text:
        message["content"] = [{"type": "text", "text": native.text}]
    if native.calls:
        if native.reasoning:
            message["tool_plan"] = native.reasoning
        message["tool_calls"] = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.raw_arguments}}
            for c in native.calls
        ]
    tokens = {"input_tokens": native.prompt_tokens, "output_tokens": native.completion_tokens}
    return {
        "id": f"standin-{next(_ids)}",
        "finish_reason": "TOOL_CALL" if native.calls else "COMPLETE",
        "message": message,
        "usage": {"billed_units": dict(tokens), "tokens": tokens},
    }


@dataclass(frozen=True)
class CohereChatRoute(Route):
    """``POST /v2/chat`` (not streamed: litellm's v2 stream parser is not exercised here)."""

    name: str = "cohere"

    def matches(self, method: str, path: str) -> bool:
        return method == "POST" and path.endswith("/v2/chat")

    def respond(self, body: dict[str, Any], path: str, responder: Responder) -> Reply:
        if body.get("stream"):
            message = "the stand-in's Cohere route does not stream; call without stream=True"
            return Reply(400, json.dumps({"message": message}).encode())
        return Reply(200, json.dumps(cohere_v2_response(body, responder(body))).encode())
