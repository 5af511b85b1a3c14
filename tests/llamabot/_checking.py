"""A stand-in OpenAI that checks the tool-call protocol of each request as OpenAI does, and answers a
request that breaks it with OpenAI's own 400 and its words (quirks 1 and 2 of the catalog; llamabot's
issue #275 quotes the second), before the scripted model sees it.

The checks, in this order: a ``tool`` message that does not follow an assistant turn with ``tool_calls``
(or the other results of that turn); a ``tool`` message without ``tool_call_id``;
a ``tool_call_id`` that turn did not make; an assistant turn whose calls are not all answered before the
next message that is not a result (or the end of the list). A request that passes is answered by the
responder, as ``messages.testing.OpenAIChatRoute`` answers it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from messages.testing import OpenAIChatRoute, Responder, StandInServer
from messages.testing._route import Reply

ORPHAN = (
    "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with "
    "'tool_calls'."
)
"""OpenAI's words for a result with no call before it (quirk 2), as llamabot's issue #275 quotes them."""
UNANSWERED = (
    "An assistant message with 'tool_calls' must be followed by tool messages responding to each "
    "'tool_call_id'. The following tool_call_ids did not have response messages: "
)
"""OpenAI's words for a call without its result (quirk 1), before the ids."""


def protocol_problem(messages: Any) -> tuple[str, str | None] | None:
    """The message and ``param`` of OpenAI's 400 for the first tool-call problem of ``messages`` (a
    request's ``messages``), or ``None`` when the list keeps the protocol."""
    if not isinstance(messages, list) or not messages:
        return (
            "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty "
            "array instead.",
            "messages",
        )
    open_calls: list[str] | None = None  # the calls of the turn the results may answer; None: no turn
    for index, message in enumerate(messages):
        role = message.get("role") if isinstance(message, dict) else None
        if role == "tool":
            if open_calls is None:
                return ORPHAN, f"messages.[{index}].role"
            if "tool_call_id" not in message:
                return f"Missing required parameter: 'messages[{index}].tool_call_id'.", (
                    f"messages.[{index}].tool_call_id"
                )
            call_id = message["tool_call_id"]
            if call_id not in open_calls:
                return (
                    f"Invalid parameter: 'tool_call_id' of '{call_id}' not found in 'tool_calls' of "
                    "previous message.",
                    f"messages.[{index}].tool_call_id",
                )
            open_calls.remove(call_id)
            continue
        if open_calls:
            return UNANSWERED + ", ".join(open_calls), f"messages.[{index - 1}]"
        open_calls = None
        if role == "assistant" and message.get("tool_calls"):
            open_calls = [call["id"] for call in message["tool_calls"]]
    if open_calls:
        return UNANSWERED + ", ".join(open_calls), f"messages.[{len(messages) - 1}]"
    return None


@dataclass(frozen=True)
class CheckingOpenAIRoute(OpenAIChatRoute):
    """OpenAI's chat completions, refusing what OpenAI refuses in the tool-call protocol."""

    name: str = "openai-checked"

    def respond(self, body: dict[str, Any], path: str, responder: Responder) -> Reply:
        """OpenAI's 400 for a request that breaks the protocol; else the responder's reply.

        Raises nothing of its own.
        """
        problem = protocol_problem(body.get("messages"))
        if problem is not None:
            message, param = problem
            error = {"message": message, "type": "invalid_request_error", "param": param, "code": None}
            return Reply(400, json.dumps({"error": error}).encode())
        return super().respond(body, path, responder)


def checking_server(responder: Responder) -> StandInServer:
    """A stand-in OpenAI (not started) that checks every request's tool-call protocol."""
    return StandInServer(responder, routes=[CheckingOpenAIRoute()])
