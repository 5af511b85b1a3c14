"""The rules of the OpenAI-shape chat APIs over the ``messages`` litellm sends to ``.../chat/completions``:
OpenAI and Azure, and the OpenAI-compatible providers with rules of their own.

Every provider: quirks 1 and 2 (calls answered, results answering a call), 6 (arguments are a string),
12 (``messages`` is not empty).

===================  ======================================================================================
rules                quirks
===================  ======================================================================================
openai, openrouter   3 (ids at most 40 characters), 4 (``name`` pattern), 5 (``content`` only absent or
                     null on an assistant turn with tool calls), 7 (images only in user turns), 11 (a file's
                     ``file_data`` needs a ``filename``)
o1-mini              the openai rules and 8 (no ``system``/``developer`` role)
azure                the openai rules, 9 (no ``developer`` role) and 10 (no ``file`` parts)
mistral              30 (ids are 9 alphanumerics), 31 (no user right after tool, no tool right after user,
                     the last turn user or tool, or assistant with ``prefix``), 32 (an assistant turn has
                     content or tool calls), 33 (only the keys Mistral defines per role, no nulls)
groq                 37 (only role, content, name, tool_calls, tool_call_id), 38 (system content a string)
xai                  40 (every message has a non-empty content element; an assistant turn may instead
                     carry tool calls)
deepseek             36 (content is a string); ``reasoning_content`` is a key of DeepSeek's (quirk 34)
deepseek-reasoner    36, and 34 (``reasoning_content`` on every assistant turn with tool calls)
perplexity           20/57 (after the system messages, user and assistant alternate, starting with user),
                     61 (no tool messages, no tool calls, every message has content)
default              53 (content never absent or null; arguments parse as JSON: vLLM, llama.cpp, LM Studio)
together_ai, ...     the common rows only (quirk 60: nothing message-specific found)
===================  ======================================================================================
"""

from __future__ import annotations

import json
from typing import Any

from tests.conformance.rules import Violation, fullmatch, openai_pairing

__all__ = ["EXTENSION_KEYS", "check"]

_OPENAI_LIKE = {"openai", "openrouter", "o1-mini", "azure"}

_MISTRAL_KEYS = {
    "system": {"role", "content"},
    "user": {"role", "content"},
    "assistant": {"role", "content", "tool_calls", "prefix"},
    "tool": {"role", "content", "tool_call_id", "name"},
}
_GROQ_KEYS = {"role", "content", "name", "tool_calls", "tool_call_id"}

EXTENSION_KEYS: dict[str, set[str]] = {
    "deepseek": {"reasoning_content"},  # its thinking mode takes its own reasoning back (quirk 34)
    "deepseek-reasoner": {"reasoning_content"},
    "mistral": {"prefix", "name"},  # `name` on tool messages only; quirk 33 checks the others
}
"""Message keys a provider documents beyond OpenAI's, removed before the OpenAI SDK oracle sees a body."""


def _parts(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message.get("content")
    return [p for p in content if isinstance(p, dict)] if isinstance(content, list) else []


def _is_empty(content: Any) -> bool:
    if content is None:
        return True
    if isinstance(content, str):
        return content == ""
    if isinstance(content, list):
        return not any(p.get("type") != "text" or p.get("text") for p in content if isinstance(p, dict))
    return False


def check(body: dict[str, Any], rules: str) -> list[Violation]:
    """The rules ``body`` breaks, for the provider named ``rules`` (a key of ``providers.PROVIDERS``)."""
    messages = body.get("messages") or []
    if not messages:
        return [Violation("r12", "messages", "empty array")]
    found = openai_pairing(messages)
    for i, message in enumerate(messages):
        where = f"messages[{i}]"
        for j, call in enumerate(message.get("tool_calls") or []):
            if not isinstance((call.get("function") or {}).get("arguments"), str):
                found.append(Violation("r6", f"{where}.tool_calls[{j}]", "arguments must be a JSON string"))
    checker = _FLAVOURS.get(rules)
    if checker is not None:
        found += checker(messages)
    if rules in _OPENAI_LIKE:
        found += _openai(messages, rules)
    return found


def _openai(messages: list[dict[str, Any]], rules: str) -> list[Violation]:
    found = []
    for i, message in enumerate(messages):
        where = f"messages[{i}]"
        role = message.get("role")
        for call in message.get("tool_calls") or []:
            if len(call.get("id", "")) > 40:
                found.append(Violation("r3", where, f"tool call id longer than 40: {len(call['id'])}"))
        if "tool_call_id" in message and len(message["tool_call_id"]) > 40:
            found.append(
                Violation("r3", where, f"tool_call_id longer than 40: {len(message['tool_call_id'])}")
            )
        if "name" in message and not fullmatch(r"[^\s<|\\/>]+", message["name"]):
            found.append(Violation("r4", where, f"name {message['name']!r} does not match ^[^\\s<|\\\\/>]+$"))
        if message.get("content") is None and not (role == "assistant" and message.get("tool_calls")):
            found.append(Violation("r5", where, "expected a string, got null"))
        for j, part in enumerate(_parts(message)):
            if part.get("type") == "image_url" and role != "user":
                found.append(
                    Violation("r7", f"{where}.content[{j}]", f"image URLs only in user messages, not {role}")
                )
            if part.get("type") == "file":
                file = part.get("file") or {}
                if file.get("file_data") and not file.get("filename"):
                    found.append(Violation("r11", f"{where}.content[{j}]", "file_data without filename"))
                if rules == "azure":
                    found.append(
                        Violation("r10", f"{where}.content[{j}]", "this model does not support file content")
                    )
        if rules == "o1-mini" and role in ("system", "developer"):
            found.append(Violation("r8", where, f"role {role!r} is not supported with this model"))
        if rules == "azure" and role == "developer":
            found.append(Violation("r9", where, "Invalid value: 'developer'"))
    return found


def _mistral(messages: list[dict[str, Any]]) -> list[Violation]:
    found = []
    for i, message in enumerate(messages):
        where = f"messages[{i}]"
        role = message.get("role")
        for call in message.get("tool_calls") or []:
            if not fullmatch(r"[a-zA-Z0-9]{9}", call.get("id")):
                found.append(
                    Violation("r30", where, f"tool call id {call.get('id')!r} must be 9 of a-z, A-Z, 0-9")
                )
        if role == "tool" and not fullmatch(r"[a-zA-Z0-9]{9}", message.get("tool_call_id")):
            found.append(
                Violation(
                    "r30", where, f"tool_call_id {message.get('tool_call_id')!r} must be 9 alphanumerics"
                )
            )
        previous = messages[i - 1].get("role") if i else None
        if role == "user" and previous == "tool":
            found.append(Violation("r31", where, "Unexpected role 'user' after role 'tool'"))
        if role == "tool" and previous == "user":
            found.append(Violation("r31", where, "Unexpected role 'tool' after role 'user'"))
        if role == "assistant" and _is_empty(message.get("content")) and not message.get("tool_calls"):
            found.append(Violation("r32", where, "Assistant message must have either content or tool_calls"))
        allowed = _MISTRAL_KEYS.get(role, set())
        extra = sorted(set(message) - allowed)
        if extra:
            found.append(Violation("r33", where, f"extra inputs are not permitted: {extra}"))
        nulls = sorted(k for k, v in message.items() if v is None)
        if nulls:
            found.append(Violation("r33", where, f"null values: {nulls}"))
    last = messages[-1]
    if last.get("role") not in ("user", "tool") and not (
        last.get("role") == "assistant" and last.get("prefix")
    ):
        found.append(
            Violation(
                "r31",
                f"messages[{len(messages) - 1}]",
                f"Expected last role User or Tool, got {last.get('role')}",
            )
        )
    return found


def _groq(messages: list[dict[str, Any]]) -> list[Violation]:
    found = []
    for i, message in enumerate(messages):
        extra = sorted(set(message) - _GROQ_KEYS)
        if extra:
            found.append(Violation("r37", f"messages[{i}]", f"properties {extra} are unsupported"))
        if message.get("role") == "system" and not isinstance(message.get("content"), str):
            found.append(Violation("r38", f"messages[{i}].content", "system content must be a string"))
    return found


def _xai(messages: list[dict[str, Any]]) -> list[Violation]:
    found = []
    for i, message in enumerate(messages):
        if message.get("role") == "assistant" and message.get("tool_calls"):
            continue
        # Whitespace is content: the errors quoted in quirk 40 are about empty elements.
        if _is_empty(message.get("content")):
            found.append(
                Violation(
                    "r40", f"messages[{i}]", "every message needs at least one non-empty content element"
                )
            )
    return found


def _deepseek(messages: list[dict[str, Any]]) -> list[Violation]:
    found = []
    for i, message in enumerate(messages):
        content = message.get("content")
        if isinstance(content, list):
            texts = [p.get("text") for p in content if isinstance(p, dict) and p.get("type") == "text"]
            detail = str(message.get("role"))
            if not texts:
                detail += ", no text parts"
            elif not any(texts):
                detail += ", only empty text parts"
            found.append(
                Violation(
                    "r36", f"messages[{i}].content", f"invalid type: sequence, expected a string ({detail})"
                )
            )
    return found


def _deepseek_reasoner(messages: list[dict[str, Any]]) -> list[Violation]:
    found = _deepseek(messages)
    for i, message in enumerate(messages):
        calls = message.get("role") == "assistant" and message.get("tool_calls")
        if calls and not isinstance(message.get("reasoning_content"), str):
            found.append(
                Violation(
                    "r34", f"messages[{i}]", "Missing `reasoning_content` field in the assistant message"
                )
            )
    return found


def _perplexity(messages: list[dict[str, Any]]) -> list[Violation]:
    found = []
    expected = "user"
    started = False
    for i, message in enumerate(messages):
        where = f"messages[{i}]"
        role = message.get("role")
        if role == "tool" or message.get("tool_calls"):
            found.append(Violation("r61", where, "no tool messages or tool calls: the chat API has no tools"))
        if _is_empty(message.get("content")):
            found.append(Violation("r61", where, "content: Field required"))
        if role == "system" and not started:
            continue
        started = True
        if role != expected:
            found.append(
                Violation(
                    "r20",
                    where,
                    "after the (optional) system messages, user and assistant roles should alternate",
                )
            )
        expected = "assistant" if role == "user" else "user"
    return found


def _default(messages: list[dict[str, Any]]) -> list[Violation]:
    found = []
    for i, message in enumerate(messages):
        if message.get("content") is None:
            found.append(
                Violation(
                    "r53", f"messages[{i}]", "'content' must be a string or an array (template servers)"
                )
            )
        for j, call in enumerate(message.get("tool_calls") or []):
            try:
                json.loads((call.get("function") or {}).get("arguments"))
            except (TypeError, ValueError):
                found.append(
                    Violation(
                        "r53", f"messages[{i}].tool_calls[{j}]", "arguments are not JSON (json.loads fails)"
                    )
                )
    return found


_FLAVOURS = {
    "mistral": _mistral,
    "groq": _groq,
    "xai": _xai,
    "deepseek": _deepseek,
    "deepseek-reasoner": _deepseek_reasoner,
    "perplexity": _perplexity,
    "default": _default,
}
