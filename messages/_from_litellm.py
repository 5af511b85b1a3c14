"""Reading a provider reply into the fields of an ``AIMessage``, one field at a time.

litellm's own ``Message.model_dump()`` carries keys that strict providers reject when the message is sent
back (``provider_specific_fields: {"refusal": null}``, ``function_call: null``, a tool call's ``index``;
measured on litellm 1.106.2 and 1.110.2), so nothing here copies a dump: each field is read by name, from a
litellm object, an OpenAI SDK object, or a plain dict alike. litellm itself is never imported.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from messages._arguments import encode_arguments
from messages.errors import ReplyError

__all__ = ["assistant_fields", "check_not_empty", "field", "plain"]

# Message-level provider fields that the AIMessage holds as fields of its own.
_HOISTED = frozenset({"refusal", "thinking_blocks", "reasoning_content"})

# Reply fields an AIMessage has no faithful place for. Each would be lost if read silently, and each would
# need a different turn to be sent back, so a reply that carries one is refused by name.
_UNHELD = {
    "function_call": (
        "a legacy 'function_call' (the pre-tools API): it has no id a ToolMessage could answer; pass "
        "tools= instead of functions= to get tool_calls"
    ),
}


def field(obj: Any, key: str) -> Any:
    """``obj[key]`` for a mapping, ``obj.key`` otherwise; ``None`` when absent.

    A pydantic object (litellm's and the OpenAI SDK's replies) is read from its fields and extras first: a
    name it does not have is ``None`` without asking ``getattr``, whose miss costs a raised and caught
    ``AttributeError`` in pydantic's ``__getattr__`` (most of what reading a reply took: ``python3
    scripts/dev.py bench turn`` times ``from_litellm``)."""
    if type(obj) is dict:
        return obj.get(key)
    values = getattr(obj, "__dict__", None)
    if values is not None and key in values:
        return values[key]
    if isinstance(obj, Mapping):
        return obj.get(key)
    if values is not None and _pydantic_without(type(obj), key):
        extra = getattr(obj, "__pydantic_extra__", None)
        return extra.get(key) if extra else None
    return getattr(obj, key, None)


_WITHOUT: dict[tuple[type, str], bool] = {}


def _pydantic_without(kind: type, key: str) -> bool:
    """Whether ``kind`` is a pydantic model class with no class attribute ``key`` (no property or method
    of that name): an instance then holds ``key`` in its fields or extras, or not at all (cached: the
    question costs a raised ``AttributeError`` in pydantic's metaclass when the answer is no)."""
    found = _WITHOUT.get((kind, key))
    if found is None:
        found = hasattr(kind, "__pydantic_fields__") and not hasattr(kind, key)
        if len(_WITHOUT) < 4_096:
            _WITHOUT[(kind, key)] = found
    return found


_SCALARS = (str, int, float, bool)


def plain(value: Any) -> Any:
    """A JSON-like copy of a provider payload (TypedDicts and pydantic objects become dicts; ``None`` values
    kept)."""
    if value is None or type(value) in _SCALARS:
        return value
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    dump = getattr(value, "model_dump", None)
    if callable(dump) and not isinstance(value, type):
        return plain(dump())
    return value


def _non_empty_fields(value: Any, *, drop: frozenset[str] = frozenset()) -> dict[str, Any] | None:
    if value is None or not isinstance(value, Mapping):
        return None
    kept = {str(k): plain(v) for k, v in value.items() if v is not None and k not in drop}
    return kept or None


def _provider_of(hidden: Mapping[str, Any]) -> str | None:
    """The provider a response names: ``custom_llm_provider``, else the prefix of ``litellm_model_name``
    (litellm 1.106.2 and 1.110.2 leave the first unset on a non-streamed Anthropic reply)."""
    named = hidden.get("custom_llm_provider")
    if isinstance(named, str) and named:
        return named
    model = hidden.get("litellm_model_name")
    if isinstance(model, str) and "/" in model:
        return model.split("/", 1)[0]
    return None


def _pick_message(obj: Any, choice: int) -> tuple[Any, str | None]:
    """The message inside a response or choice, and the provider the response names."""
    if not isinstance(choice, int) or isinstance(choice, bool) or choice < 0:
        raise ReplyError(
            f"choice must be the index of a choice in the response (an int >= 0), not {choice!r}"
        )
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
        try:
            arguments = encode_arguments(arguments)
        except ValueError as exc:
            raise ReplyError(f"tool call {position} of the reply ({field(raw, 'id')!r}): {exc}") from None
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


def _empty_text(content: Any) -> bool:
    """``""``, or text parts that are all empty (``[{"type": "text", "text": ""}]``)."""
    if isinstance(content, list):
        return all(
            isinstance(p, Mapping) and p.get("type") == "text" and p.get("text") == "" for p in content
        )
    return bool(content == "")


def assistant_fields(obj: Any, *, choice: int = 0, provider: str | None = None) -> dict[str, Any]:
    """The wire dict of an ``AIMessage`` read from a reply, to be validated by the model."""
    message, named_provider = _pick_message(obj, choice)
    for key, what in _UNHELD.items():
        if field(message, key) is not None:
            raise ReplyError(f"the reply carries {what}")
    raw_calls = field(message, "tool_calls") or []
    if not isinstance(raw_calls, Sequence) or isinstance(raw_calls, (str, bytes)):
        raise ReplyError(f"the reply's tool_calls is a {type(raw_calls).__name__}, not a list")
    calls = [_tool_call(raw, position) for position, raw in enumerate(raw_calls)]

    content = plain(field(message, "content"))
    if calls and _empty_text(content):
        # Anthropic and Bedrock streams rebuild to "" beside tool calls (measured on litellm 1.106.2 and
        # 1.110.2).
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
    for key in ("annotations", "images"):
        value = plain(field(message, key))
        if value:  # litellm sets [] on replies that have none
            fields[key] = value
    audio = field(message, "audio")
    if audio is not None:
        _take_audio(fields, audio)

    bound = thinking or extra is not None or any("provider_specific_fields" in c for c in calls)
    origin = provider or named_provider
    if bound and origin:
        fields["provider"] = origin
    return fields


def _take_audio(fields: dict[str, Any], audio: Any) -> None:
    """The audio reply's id (what OpenAI needs back on the next turn), and its transcript as the text when
    the reply has none; the audio data itself is not a message field (it expires with the id)."""
    audio_id = field(audio, "id")
    if not isinstance(audio_id, str) or not audio_id:
        raise ReplyError(f"the reply's audio has no id (got {audio_id!r}); it could not be referred to later")
    fields["audio"] = {"id": audio_id}
    transcript = field(audio, "transcript")
    if isinstance(transcript, str) and transcript and fields.get("content") in (None, ""):
        fields["content"] = transcript


def check_not_empty(fields: Mapping[str, Any], obj: Any, choice: int) -> None:
    """Refuse a reply with nothing in it (no content, tool calls, refusal or reasoning): as an assistant
    turn it would say nothing, and most providers reject it when it is sent back.

    Only ``AIMessage.from_litellm`` checks this; a stream that ended before any delta is read as ``""``
    by the accumulator, which keeps its finish reason and usage.
    """
    if fields.get("content") is not None or any(
        fields.get(key)
        for key in ("tool_calls", "refusal", "reasoning_content", "thinking_blocks", "images", "audio")
    ):
        return
    choices = field(obj, "choices")
    picked = choices[choice] if isinstance(choices, Sequence) and not isinstance(choices, str) else obj
    finish = field(picked, "finish_reason")
    why = f" (finish_reason {finish!r})" if finish is not None else ""
    raise ReplyError(
        f"the reply is empty{why}: no content, tool calls, refusal or reasoning; there is no assistant turn "
        "to read"
    )
