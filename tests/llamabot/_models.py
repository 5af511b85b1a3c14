"""The stand-in's models for the llamabot flows: deterministic replies read from the request, the same for
llamabot as shipped and for the integration, so that what differs is what the bots send.

``arithmetic`` adds with the request's ``add`` tool when asked "What is x + y?" and reports a result; as an
agent (``respond_to_user`` among the tools) it answers through that tool. ``steps`` plays a plan of calls,
one step per result the request holds since the user's question (a ``role: tool`` message, or, as
llamabot's AgentBot sends its history, a "Chosen Tool: ..." line). Both answer a summary request
(``LiteLLMSummarizer``'s) with a summary.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from messages import AIMessage, ToolCall
from messages.compaction import DEFAULT_INSTRUCTIONS

SUMMARY = "The user asked for sums; the assistant worked them out with the add tool."
"""What the stand-in answers a summary request with."""

ADD = {
    "type": "function",
    "function": {
        "name": "add",
        "description": "Add two numbers.",
        "parameters": {
            "type": "object",
            "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
            "required": ["a", "b"],
        },
    },
}
"""The add tool's schema, for the bots that take schemas (``SimpleBot(..., tools=[ADD])``)."""

_SUM = re.compile(r"(-?\d+)\s*\+\s*(-?\d+)")


def _text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return content or ""


def _tool_names(body: dict[str, Any]) -> list[str]:
    return [tool["function"]["name"] for tool in body.get("tools") or []]


def _summary_request(body: dict[str, Any]) -> bool:
    return any(
        _text(m).startswith(DEFAULT_INSTRUCTIONS[:40]) for m in body["messages"] if m["role"] == "system"
    )


def _call(body: dict[str, Any], name: str, arguments: dict[str, Any]) -> AIMessage:
    """A call with an id unique in the conversation (the request's length)."""
    return AIMessage(
        tool_calls=[ToolCall(id=f"call_{len(body['messages'])}", name=name, arguments=arguments)]
    )


def _answer(body: dict[str, Any], text: str) -> AIMessage:
    if "respond_to_user" in _tool_names(body):
        return _call(body, "respond_to_user", {"response": text})
    return AIMessage(content=text)


def arithmetic(body: dict[str, Any]) -> AIMessage:
    """The stand-in's model: a sum asked for is added with the ``add`` tool, a result reported."""
    if _summary_request(body):
        return AIMessage(content=SUMMARY)
    last = body["messages"][-1]
    if last["role"] == "tool":
        return _answer(body, f"The answer is {_text(last)}.")
    found = _SUM.search(_text(last)) if last["role"] == "user" else None
    if found and "add" in _tool_names(body):
        return _call(body, "add", {"a": int(found[1]), "b": int(found[2])})
    return _answer(body, "Hello from the stand-in.")


Step = Callable[[dict[str, Any], str], AIMessage]
"""One step of a plan: the reply, given the request and the newest result's text."""


def steps(*plan: Step) -> Callable[[dict[str, Any]], AIMessage]:
    """A model that plays ``plan``: step ``k`` when the request holds ``k`` results since the user's
    question (the newest user message with a question mark; the request's start when a window left it
    out); the last step once the plan is played."""

    def respond(body: dict[str, Any]) -> AIMessage:
        if _summary_request(body):
            return AIMessage(content=SUMMARY)
        messages = body["messages"]
        # The user's question, or the start of what the window kept when it left the question out.
        asked = max((i for i, m in enumerate(messages) if m["role"] == "user" and "?" in _text(m)), default=0)
        after = messages[asked + 1 :]
        done = [m for m in after if m["role"] == "tool" or _text(m).startswith("Chosen Tool:")]
        results = [m for m in after if m["role"] == "tool"] or [
            m for m in after if m["role"] == "user" and not _text(m).startswith("Chosen Tool:")
        ]
        newest = _text(results[-1]) if results else ""
        return plan[min(len(done), len(plan) - 1)](body, newest)

    return respond


def calls(name: str, **arguments: Any) -> Step:
    """A step that calls ``name`` with ``arguments`` (``"$"`` stands for the newest result)."""

    def step(body: dict[str, Any], newest: str) -> AIMessage:
        given = {k: (int(newest) if v == "$" else v) for k, v in arguments.items()}
        return _call(body, name, given)

    return step


def parallel(*named: tuple[str, dict[str, Any]]) -> Step:
    """A step that makes several calls in one reply."""

    def step(body: dict[str, Any], newest: str) -> AIMessage:
        size = len(body["messages"])
        return AIMessage(
            tool_calls=[
                ToolCall(id=f"call_{size}_{n}", name=name, arguments=arguments)
                for n, (name, arguments) in enumerate(named)
            ]
        )

    return step


def answers(template: str) -> Step:
    """A step that answers, ``{}`` standing for the newest result."""

    def step(body: dict[str, Any], newest: str) -> AIMessage:
        return _answer(body, template.format(newest))

    return step


def says(text: str) -> Step:
    """A step that replies with text and no call."""

    def step(body: dict[str, Any], newest: str) -> AIMessage:
        return AIMessage(content=text)

    return step
