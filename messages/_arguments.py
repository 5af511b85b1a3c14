"""Tool-call arguments given as a mapping, as the JSON text a tool call carries.

Below the message classes and the reply readers alike: ``ToolCall`` serializes a mapping with it, and so do
``AIMessage.from_litellm`` and ``StreamAccumulator`` for a provider that hands arguments over parsed.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

__all__ = ["encode_arguments"]


def encode_arguments(arguments: Mapping[str, Any]) -> str:
    """Serialize tool-call arguments given as a mapping, once, as compact JSON (as OpenAI models emit it).

    Raises ``ValueError`` saying why when they have no JSON form: an object JSON cannot encode, NaN or
    Infinity (which ``json.dumps`` would write as the non-JSON ``NaN``), a cycle, or nesting too deep.
    """
    try:
        return _encode(dict(arguments), allow_nan=False)
    except (TypeError, ValueError, RecursionError) as exc:
        if isinstance(exc, RecursionError):
            problem = "they are nested too deeply"
        elif isinstance(exc, ValueError) and _encodes_with_nan(arguments):
            problem = "they hold NaN or Infinity, which JSON has no form for"
        else:
            problem = str(exc)
        raise ValueError(f"arguments given as a mapping must be JSON-serializable: {problem}") from None


def _encode(value: Any, *, allow_nan: bool) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=allow_nan)


def _encodes_with_nan(arguments: Mapping[str, Any]) -> bool:
    try:
        _encode(dict(arguments), allow_nan=True)
    except (TypeError, ValueError, RecursionError):
        return False
    return True
