"""Reading a provider reply into the fields of an ``AIMessage``, one field at a time.

litellm's own ``Message.model_dump()`` carries keys that strict providers reject when the message is sent
back (``provider_specific_fields: {"refusal": null}``, ``function_call: null``, a tool call's ``index``;
litellm-notes.md TL;DR 7), so nothing here copies a dump: each field is read by name, from a litellm object,
an OpenAI SDK object, or a plain dict alike. litellm itself is never imported.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from messages.errors import ReplyError
from messages.models import encode_arguments

__all__ = ["assistant_fields", "field", "plain"]

# Message-level provider fields that the AIMessage holds as fields of its own.
_HOISTED = frozenset({"refusal", "thinking_blocks", "reasoning_content"})


def field(obj: Any, key: str) -> Any:
    """``obj[key]`` for a mapping, ``obj.key`` otherwise; ``None`` when absent."""
    if isinstance(obj, Mapping):
        return obj.get(key)
    return getattr(obj, key, None)


def plain(value: Any) -> Any:
    """A JSON-like copy of a provider payload (TypedDicts and pydantic objects become dicts; ``None`` values
    kept)."""
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    dump = getattr(value, "model_dump", None)
    if callable(dump) and not isinstance(value, type):
        return plain(dump())
    return value


def _non_empty_fields(value: Any, *, drop: frozenset[str] = frozenset()) -> dict[str, Any] | None:
    if not isinstance(value, Mapping):
        return None
    kept = {str(k): plain(v) for k, v in value.items() if v is not None and k not in drop}
    return kept or None


def _provider_of(hidden: Mapping[str, Any]) -> str | None:
    """The provider a response names: ``custom_llm_provider``, else the prefix of ``litellm_model_name``
    (litellm 1.106.2 leaves the first unset on a non-streamed Anthropic reply)."""
    named = hidden.get("custom_llm_provider")
    if isinstance(named, str) and named:
        return named
    model = hidden.get("litellm_model_name")
    if isinstance(model, str) and "/" in model:
        return model.split("/", 1)[0]
    return None


def _pick_message(obj: Any, choice: int) -> tuple[Any, str | None]:
    """The message inside a response or choice, and the provider the response names."""
    provider: str | None = None
    choices = field(obj, "choices")
    if choices is not None:
        hidden = getattr(obj, "_hidden_params", None)
        if isinstance(hidden, Mapping):
            provider = _provider_of(hidden)
        if not isinstance(choices, Sequence) or isinstance(choices, str) or len(choices) <= choice:
            count = len(choices) if isinstance(choices, Sequence) else 0
            raise ReplyError(f"the response has {count} choice(s); choice {choice} does not exist")
        obj = choices[choice]
    if field(obj, "delta") is not None and field(obj, "message") is None:
        raise ReplyError("this is a streaming chunk, not a reply; feed chunks to StreamAccumulator")
    message = field(obj, "message")
    if message is not None:
        obj = message
    if isinstance(obj, (str, bytes)) or not (isinstance(obj, Mapping) or hasattr(obj, "role")):
        raise ReplyError(
            f"cannot read an assistant reply from a {type(obj).__name__}; expected a litellm ModelResponse, "
            "Choices or Message, or an OpenAI-shape dict"
        )
    return obj, provider


def _tool_call(raw: Any, position: int) -> dict[str, Any]:
    function = field(raw, "function")
    if function is None:
        raise ReplyError(f"tool call {position} of the reply has no 'function'")
    arguments = field(function, "arguments")
    if isinstance(arguments, Mapping):
        arguments = encode_arguments(arguments)
    call: dict[str, Any] = {
        "id": field(raw, "id"),
        "type": field(raw, "type") or "function",
        "function": {"name": field(function, "name"), "arguments": "" if arguments is None else arguments},
    }
    # litellm keeps Gemini thought signatures on the call, or on its function (litellm factory.py,
    # get_thought_signature_from_tool): either place is read, the call's own first.
    extra = _non_empty_fields(field(raw, "provider_specific_fields")) or _non_empty_fields(
        field(function, "provider_specific_fields")
    )
    if extra is not None:
        call["provider_specific_fields"] = extra
    return call


def assistant_fields(obj: Any, *, choice: int = 0, provider: str | None = None) -> dict[str, Any]:
    """The wire dict of an ``AIMessage`` read from a reply, to be validated by the model."""
    message, named_provider = _pick_message(obj, choice)
    raw_calls = field(message, "tool_calls") or []
    if not isinstance(raw_calls, Sequence) or isinstance(raw_calls, (str, bytes)):
        raise ReplyError(f"the reply's tool_calls is a {type(raw_calls).__name__}, not a list")
    calls = [_tool_call(raw, position) for position, raw in enumerate(raw_calls)]

    content = plain(field(message, "content"))
    if calls and content == "":
        # Anthropic and Bedrock streams rebuild to "" beside tool calls (litellm-notes.md TL;DR 5).
        content = None

    fields: dict[str, Any] = {"role": field(message, "role") or "assistant", "content": content}
    if calls:
        fields["tool_calls"] = calls
    message_extra = field(message, "provider_specific_fields")
    refusal = field(message, "refusal")
    if refusal is None and isinstance(message_extra, Mapping):
        refusal = message_extra.get("refusal")
    if refusal:
        fields["refusal"] = refusal
    reasoning = field(message, "reasoning_content")
    if reasoning:
        fields["reasoning_content"] = reasoning
    thinking = plain(field(message, "thinking_blocks"))
    if thinking:
        fields["thinking_blocks"] = thinking
    extra = _non_empty_fields(message_extra, drop=_HOISTED)
    if extra is not None:
        fields["provider_specific_fields"] = extra

    bound = thinking or extra is not None or any("provider_specific_fields" in c for c in calls)
    origin = provider or named_provider
    if bound and origin:
        fields["provider"] = origin
    return fields
