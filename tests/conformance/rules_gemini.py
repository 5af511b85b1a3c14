"""The Gemini generateContent rules (Google AI Studio and Vertex AI alike) over the ``contents`` and
``system_instruction`` litellm sends.

Quirks checked: 23 (no empty ``parts``, no empty part, no ``{"text": ""}``, in
``contents`` and in ``system_instruction``), 24 (a function-call turn follows a user or function-response
turn; the function-response turn comes right after it, with as many parts, and holds nothing else; roles
are ``user`` and ``model``), 25 (thought signatures are base64), 26 (``contents`` is not empty), 27 (Gemma:
no system instruction), 28 (``functionResponse.response`` is an object, named after a call of the turn
before).
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from tests.conformance.rules import Violation

__all__ = ["check", "field"]

_DATA = (
    "text",
    "inline_data",
    "inlineData",
    "file_data",
    "fileData",
    "function_call",
    "functionCall",
    "function_response",
    "functionResponse",
    "executable_code",
    "executableCode",
    "code_execution_result",
    "codeExecutionResult",
)


def field(part: dict[str, Any], snake: str) -> Any:
    """``part[snake]`` or its camelCase spelling (litellm writes snake_case, the API takes both)."""
    head, *rest = snake.split("_")
    camel = head + "".join(word.title() for word in rest)
    return part.get(snake, part.get(camel))


def _parts(parts: Any, where: str, role: str = "system") -> list[Violation]:
    if not isinstance(parts, list) or not parts:
        return [Violation("r23", where, "contents.parts must not be empty")]
    found = []
    for j, part in enumerate(parts):
        at = f"{where}[{j}]"
        data = [key for key in _DATA if key in part] if isinstance(part, dict) else []
        if len(data) != 1:
            found.append(Violation("r23", at, f"required oneof field 'data' must have one field, has {data}"))
        elif data[0] == "text" and part["text"] == "":
            found.append(Violation("r23", at, f"empty text parameter in a {role} turn"))
        signature = field(part, "thought_signature") if isinstance(part, dict) else None
        if signature is not None and not _is_base64(signature):
            found.append(Violation("r25", at, "thought_signature: Base64 decoding failed"))
        response = field(part, "function_response") if isinstance(part, dict) else None
        if response is not None and not isinstance(response.get("response"), dict):
            found.append(Violation("r28", at, "functionResponse.response must be an object"))
    return found


def _is_base64(value: Any) -> bool:
    if not isinstance(value, str):
        return False
    try:
        decoded = base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        return False
    # Python's decoder forgives stray padding ("...=" on 40 characters); Google's does not.
    return base64.b64encode(decoded).decode() == value


def _calls(content: dict[str, Any]) -> list[dict[str, Any]]:
    return [field(p, "function_call") for p in content.get("parts") or [] if field(p, "function_call")]


def _responses(content: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        field(p, "function_response") for p in content.get("parts") or [] if field(p, "function_response")
    ]


def check(body: dict[str, Any], model: str) -> list[Violation]:
    """The rules ``body`` breaks (``model`` selects the Gemma rule, quirk 27)."""
    found: list[Violation] = []
    system = field(body, "system_instruction")
    if system is not None:
        if "gemma" in model.lower():
            found.append(
                Violation("r27", "system_instruction", "Developer instruction is not enabled for Gemma")
            )
        found += _parts(system.get("parts"), "system_instruction.parts")
    contents = body.get("contents") or []
    if not contents:
        return [*found, Violation("r26", "contents", "contents is not specified")]
    for i, content in enumerate(contents):
        where = f"contents[{i}]"
        role = content.get("role")
        if role not in ("user", "model"):
            found.append(Violation("r24", where, f"role {role!r} (Gemini knows user and model)"))
        found += _parts(content.get("parts"), f"{where}.parts", str(role))
        calls, responses = _calls(content), _responses(content)
        if calls:
            if i == 0 or contents[i - 1].get("role") != "user":
                found.append(
                    Violation(
                        "r24",
                        where,
                        "function call turn must come right after a user or function response turn",
                    )
                )
            following = contents[i + 1] if i + 1 < len(contents) else None
            if following is not None and len(_responses(following)) != len(calls):
                found.append(
                    Violation(
                        "r24",
                        f"contents[{i + 1}]",
                        f"{len(_responses(following))} function responses for {len(calls)} function calls",
                    )
                )
        if responses:
            previous = _calls(contents[i - 1]) if i else []
            if not previous:
                found.append(
                    Violation(
                        "r24", where, "function response turn must come right after a function call turn"
                    )
                )
            names = {call.get("name") for call in previous}
            for response in responses:
                if response.get("name") not in names:
                    found.append(
                        Violation(
                            "r28",
                            where,
                            f"function response {response.get('name')!r} matches no call before it",
                        )
                    )
            if len(responses) != len(content.get("parts") or []):
                found.append(
                    Violation("r24", where, "a function response turn must hold only function responses")
                )
    return found
