"""The Ollama native rules over the body litellm sends to ``/api/chat`` (``ollama_chat/``) and
``/api/generate`` (``ollama/``, a flattened prompt: nothing to check but the content, which the extractor
does).

Quirks checked: 49 (``tool_calls[].function.arguments`` is an object), 50 (``content``
is a string: the Go server reads ``content`` into a string, so ``null`` and part lists fail), 51 (images are
raw base64: no ``data:`` prefix, no URL), 52 (a tool message names its tool in ``tool_name``, the field
Ollama correlates results by).
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from tests.conformance.rules import Violation

__all__ = ["check"]


def check(body: dict[str, Any], model: str) -> list[Violation]:
    """The rules an ``/api/chat`` body breaks (an ``/api/generate`` body has no messages to check)."""
    if "messages" not in body:
        return []
    found: list[Violation] = []
    called: list[str] = []
    for i, message in enumerate(body["messages"]):
        where = f"messages[{i}]"
        if not isinstance(message.get("content"), str):
            found.append(
                Violation(
                    "r50", where, f"invalid message content type: {type(message.get('content')).__name__}"
                )
            )
        for j, call in enumerate(message.get("tool_calls") or []):
            arguments = (call.get("function") or {}).get("arguments")
            if not isinstance(arguments, dict):
                found.append(
                    Violation(
                        "r49", f"{where}.tool_calls[{j}]", "cannot unmarshal arguments: not a JSON object"
                    )
                )
        if message.get("tool_calls"):
            called = [(c.get("function") or {}).get("name") for c in message["tool_calls"]]
        for j, image in enumerate(message.get("images") or []):
            if (
                not isinstance(image, str)
                or image.startswith(("data:", "http:", "https:"))
                or not _is_base64(image)
            ):
                found.append(Violation("r51", f"{where}.images[{j}]", "illegal base64 data: not raw base64"))
        if message.get("role") == "tool" and message.get("tool_name") not in called:
            found.append(
                Violation(
                    "r52", where, f"tool_name {message.get('tool_name')!r} names no call of the turn before"
                )
            )
    return found


def _is_base64(value: str) -> bool:
    try:
        base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        return False
    return True
