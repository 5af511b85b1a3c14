"""The OpenAI Responses API route: ``POST .../responses``, streaming (server-sent events) or not.

The reply is a ``response`` object whose ``output`` holds, in order, a ``reasoning`` item (when the
responder's message has ``reasoning_content``), a ``message`` item with the text (or the refusal), and one
``function_call`` item per tool call. Each response gets a fresh ``resp_...`` id; the request's
``previous_response_id`` is echoed back, as the service does.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from messages.models import AIMessage
from messages.testing._native import pieces, sse
from messages.testing._openai import reply_text, word_count
from messages.testing._route import Reply, Responder, Route

__all__ = ["OpenAIResponsesRoute", "responses_events", "responses_object"]

_ids = itertools.count(1)
_ids_lock = threading.Lock()


def _next_id() -> int:
    with _ids_lock:
        return next(_ids)


def _output_items(reply: AIMessage, serial: int) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    if reply.reasoning_content:
        items.append(
            {
                "id": f"rs_standin{serial}",
                "type": "reasoning",
                "summary": [{"type": "summary_text", "text": reply.reasoning_content}],
            }
        )
    text = reply_text(reply)
    if text or reply.refusal or not reply.tool_calls:
        content: list[dict[str, Any]] = []
        if text or not reply.refusal:
            content.append({"type": "output_text", "text": text, "annotations": []})
        if reply.refusal:
            content.append({"type": "refusal", "refusal": reply.refusal})
        items.append(
            {
                "id": f"msg_standin{serial}",
                "type": "message",
                "status": "completed",
                "role": "assistant",
                "content": content,
            }
        )
    for index, call in enumerate(reply.tool_calls):
        items.append(
            {
                "id": f"fc_standin{serial}_{index}",
                "type": "function_call",
                "status": "completed",
                "call_id": call.id,
                "name": call.name,
                "arguments": call.arguments,
            }
        )
    return items


def responses_object(
    body: dict[str, Any], reply: AIMessage, *, serial: int | None = None, status: str = "completed"
) -> dict[str, Any]:
    """A Responses API ``response`` object carrying ``reply``."""
    serial = _next_id() if serial is None else serial
    output = _output_items(reply, serial) if status == "completed" else []
    prompt = word_count(body.get("input", []))
    completion = word_count([item for item in output if item["type"] != "reasoning"])
    return {
        "id": f"resp_standin{serial}",
        "object": "response",
        "created_at": int(time.time()),
        "status": status,
        "model": body.get("model", "stand-in"),
        "output": output,
        "error": None,
        "incomplete_details": None,
        "instructions": body.get("instructions"),
        "metadata": {},
        "parallel_tool_calls": True,
        "previous_response_id": body.get("previous_response_id"),
        "store": body.get("store", True),
        "temperature": 1.0,
        "tool_choice": "auto",
        "tools": body.get("tools", []),
        "top_p": 1.0,
        "text": {"format": {"type": "text"}},
        "usage": (
            {
                "input_tokens": prompt,
                "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
                "output_tokens": completion,
                "output_tokens_details": {"reasoning_tokens": 0},
                "total_tokens": prompt + completion,
            }
            if status == "completed"
            else None
        ),
    }


def responses_events(
    body: dict[str, Any], reply: AIMessage, *, serial: int | None = None, piece: int = 7
) -> Iterator[dict[str, Any]]:
    """The server-sent events the Responses API streams for ``reply``: created, each output item opened,
    its text or arguments in pieces, closed, then completed with the whole response."""
    serial = _next_id() if serial is None else serial
    final = responses_object(body, reply, serial=serial)
    sequence = itertools.count()

    def event(kind: str, **fields: Any) -> dict[str, Any]:
        return {"type": kind, "sequence_number": next(sequence), **fields}

    yield event(
        "response.created", response=responses_object(body, reply, serial=serial, status="in_progress")
    )
    for index, item in enumerate(final["output"]):
        if item["type"] == "message":
            yield event(
                "response.output_item.added",
                output_index=index,
                item={**item, "status": "in_progress", "content": []},
            )
            for part_index, part in enumerate(item["content"]):
                ids = {"item_id": item["id"], "output_index": index, "content_index": part_index}
                if part["type"] == "output_text":
                    empty = {**part, "text": ""}
                    yield event("response.content_part.added", **ids, part=empty)
                    for delta in pieces(part["text"], piece):
                        yield event("response.output_text.delta", **ids, delta=delta, logprobs=[])
                    yield event("response.output_text.done", **ids, text=part["text"], logprobs=[])
                else:
                    yield event("response.content_part.added", **ids, part={**part, "refusal": ""})
                    yield event("response.refusal.done", **ids, refusal=part["refusal"])
                yield event("response.content_part.done", **ids, part=part)
        elif item["type"] == "function_call":
            yield event(
                "response.output_item.added",
                output_index=index,
                item={**item, "status": "in_progress", "arguments": ""},
            )
            for delta in pieces(item["arguments"], piece):
                yield event(
                    "response.function_call_arguments.delta",
                    item_id=item["id"],
                    output_index=index,
                    delta=delta,
                )
            yield event(
                "response.function_call_arguments.done",
                item_id=item["id"],
                output_index=index,
                name=item["name"],
                arguments=item["arguments"],
            )
        else:
            yield event("response.output_item.added", output_index=index, item=item)
        yield event("response.output_item.done", output_index=index, item=item)
    yield event("response.completed", response=final)


@dataclass(frozen=True)
class OpenAIResponsesRoute(Route):
    """``POST .../responses`` (the OpenAI Responses API), streaming or not.

    ``issued`` lists the id of every response it sent, in order, so that a test can check which one a
    later request names as ``previous_response_id``.
    """

    name: str = "openai-responses"
    issued: list[str] = field(default_factory=list, compare=False)
    """The id of every response sent, in order (give none: the route fills it)."""

    def matches(self, method: str, path: str) -> bool:
        return method == "POST" and path.endswith("/responses")

    def respond(self, body: dict[str, Any], path: str, responder: Responder) -> Reply:
        reply = responder(body)
        serial = _next_id()
        self.issued.append(f"resp_standin{serial}")
        if body.get("stream"):
            events = responses_events(body, reply, serial=serial)
            return Reply(200, sse((event["type"], event) for event in events), "text/event-stream")
        return Reply(200, json.dumps(responses_object(body, reply, serial=serial)).encode())
