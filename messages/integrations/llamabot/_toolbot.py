"""The tool calls behind the text llamabot's ``ToolBot`` records as its reply.

``ToolBot`` (llamabot 0.19) appends its chosen calls to its chat memory as
``AIMessage(content=str(tool_calls))``: the text is the Python ``repr`` of a list of litellm
``ChatCompletionMessageToolCall`` objects, and the calls themselves are not kept. That repr is litellm's
pydantic ``repr`` and holds every field of each call as a Python literal, so the calls are read back
exactly: parsed as an expression, never evaluated, and only when the whole text is such a list.
"""

from __future__ import annotations

import ast
from typing import Any

from pydantic import ValidationError

from messages.models import ToolCall

__all__ = ["toolbot_calls"]

_CALL = "ChatCompletionMessageToolCall"
_FUNCTION = "Function"


def _keywords(node: ast.expr, name: str) -> dict[str, ast.expr] | None:
    """The keyword arguments of ``node`` when it is a call of ``name`` with keywords alone."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == name):
        return None
    if node.args or any(keyword.arg is None for keyword in node.keywords):
        return None
    return {str(keyword.arg): keyword.value for keyword in node.keywords}


def _literal(node: ast.expr) -> Any:
    return ast.literal_eval(node)


def _call(node: ast.expr) -> ToolCall | None:
    fields = _keywords(node, _CALL)
    if fields is None or "function" not in fields:
        return None
    function = _keywords(fields.pop("function"), _FUNCTION)
    if function is None or set(function) - {"name", "arguments"}:
        return None
    try:
        values = {key: _literal(value) for key, value in fields.items()}
        name, arguments = _literal(function["name"]), _literal(function.get("arguments", ast.Constant("")))
    except (ValueError, TypeError, SyntaxError, KeyError):
        return None
    if values.pop("type", "function") != "function" or set(values) - {"id", "provider_specific_fields"}:
        return None
    call_id = values.get("id")
    if not isinstance(call_id, str):
        return None
    try:
        return ToolCall(
            id=call_id,
            name=name,
            arguments=arguments,
            provider_specific_fields=values.get("provider_specific_fields"),
        )
    except (ValidationError, TypeError):
        return None


def toolbot_calls(text: str) -> list[ToolCall] | None:
    """The tool calls whose list's ``repr`` is ``text`` (what ``ToolBot`` records), or ``None`` when the
    text is anything else (an empty list included: ``ToolBot`` chose no call, and its ``"[]"`` is kept as
    the text it is)."""
    if not text.startswith(f"[{_CALL}("):
        return None
    try:
        tree = ast.parse(text, mode="eval")
    except (SyntaxError, ValueError, RecursionError):
        return None
    if not isinstance(tree.body, ast.List) or not tree.body.elts:
        return None
    calls = [_call(node) for node in tree.body.elts]
    if any(call is None for call in calls):
        return None
    return [call for call in calls if call is not None]
