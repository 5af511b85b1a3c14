"""The assembly of a streamed reply into the fields of an ``AIMessage``, below the message classes.

``StreamAssembly`` reads stream chunks, field by field, into the wire dict of the reply:
``AIMessage.from_stream`` validates what it gives, and ``messages.streaming.StreamAccumulator`` is one that
adds ``partial`` and ``message()``. The merging rules are in the docstring of ``messages.streaming``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeGuard

from messages._arguments import encode_arguments
from messages._from_litellm import assistant_fields, field, plain
from messages.errors import ReplyError

__all__ = ["StreamAssembly", "StreamDelta"]


@dataclass(frozen=True)
class StreamDelta:
    """What one chunk added to the reply, for printing as it arrives."""

    text: str = ""
    """Reply text added by this chunk (``""`` for none)."""
    reasoning: str = ""
    """Reasoning text added by this chunk."""
    refusal: str = ""
    """Refusal text added by this chunk."""


_NO_DELTA = StreamDelta()


class _Call:
    """One tool call being assembled."""

    __slots__ = ("arguments", "arrival", "explicit_index", "id", "index", "name", "provider_fields", "type")

    def __init__(self, arrival: int, index: int | None) -> None:
        self.arrival = arrival
        self.index = index
        self.explicit_index = index is not None
        self.id: str | None = None
        self.name: str | None = None
        self.type = "function"
        self.arguments: list[str] = []
        self.provider_fields: dict[str, Any] | None = None

    def label(self) -> str:
        where = f"index {self.index}" if self.index is not None else f"arrival {self.arrival}"
        named = f" ({self.name})" if self.name else ""
        return f"tool call at {where}{named}"

    def wire(self, *, finished: bool) -> dict[str, Any]:
        arguments = "".join(self.arguments)
        if finished and not self.arguments:
            arguments = "{}"  # no argument text at all: what the builder and a non-streamed reply say
        call: dict[str, Any] = {
            "id": self.id,
            "type": self.type,
            "function": {"name": self.name, "arguments": arguments},
        }
        if self.provider_fields:
            call["provider_specific_fields"] = dict(self.provider_fields)
        return call


def _readable(value: Any) -> bool:
    """Whether ``field`` can read keys of ``value`` (a mapping or an object with attributes)."""
    return value is not None and not isinstance(value, (str, bytes, int, float, list, tuple))


def _sequence(value: Any) -> TypeGuard[Sequence[Any]]:
    return isinstance(value, Sequence) and not isinstance(value, (str, bytes))


class StreamAssembly:
    """Stream chunks assembled into the fields of an assistant reply (the wire dict an ``AIMessage``
    validates), with the stream's usage and finish reason: what ``StreamAccumulator`` and
    ``AIMessage.from_stream`` share. ``add(chunk)`` as ``StreamAccumulator.add``; ``reply_fields()`` and
    ``partial_fields()`` give the fields that ``message()`` and ``partial`` validate.
    """

    def __init__(self, *, choice: int = 0, provider: str | None = None) -> None:
        if isinstance(choice, bool) or not isinstance(choice, int) or choice < 0:
            raise ValueError(f"choice must be a choice index (an int >= 0), not {choice!r}")
        self._choice = choice
        self._provider = provider
        self._chunks = 0
        self._text: list[str] = []
        self._text_seen = False
        self._reasoning: list[str] = []
        self._refusal: list[str] = []
        self._calls: list[_Call] = []
        self._by_index: dict[int, _Call] = {}
        self._thinking: list[dict[str, Any]] = []
        self._thinking_text: list[str] = []
        self._message_fields: dict[str, Any] = {}
        self._citations: list[Any] = []
        self._annotations: list[Any] = []
        self._images: list[Any] = []
        self._audio_id: str | None = None
        self._transcript: list[str] = []
        self._usage: dict[str, Any] | None = None
        self._finish_reason: str | None = None
        self._other_choices: set[int] = set()
        self._followed_seen = False

    # -- reading results ---------------------------------------------------------------------------------

    @property
    def chunk_count(self) -> int:
        """How many chunks were added so far."""
        return self._chunks

    @property
    def usage(self) -> dict[str, Any] | None:
        """The last usage the stream reported (``prompt_tokens``, ``completion_tokens``, ...), as a plain
        dict; ``None`` when no chunk carried usage (OpenAI sends it only with
        ``stream_options={"include_usage": True}``)."""
        return None if self._usage is None else dict(self._usage)

    @property
    def finish_reason(self) -> str | None:
        """The last finish reason the followed choice reported (``"stop"``, ``"tool_calls"``, ``"length"``,
        ...); ``None`` while the stream runs, and after a stream that was cut off."""
        return self._finish_reason

    @property
    def provider(self) -> str | None:
        """The litellm provider that produced the stream, as given or read from litellm's chunks."""
        return self._provider

    def reply_fields(self) -> dict[str, Any]:
        """The fields of the reply once the stream has ended: what ``StreamAccumulator.message()`` validates.

        Returns:
            The reply's fields, by name, as ``AIMessage`` takes them.

        Raises:
            ReplyError: what ``message()`` raises (a call without id or name, the choice never seen).
        """
        if self._other_choices and not self._followed_seen:
            raise ReplyError(
                f"the stream carried choices {sorted(self._other_choices)} but never choice {self._choice}; "
                "pass choice= one of those"
            )
        return self._fields(strict=True)

    def partial_fields(self) -> dict[str, Any]:
        """The fields of the reply so far: what ``StreamAccumulator.partial`` validates.

        Returns:
            The reply's fields so far, by name, as ``AIMessage`` takes them.

        Raises nothing.
        """
        return self._fields(strict=False)

    # -- feeding -----------------------------------------------------------------------------------------

    def add(self, chunk: Any) -> StreamDelta:
        """Take one stream chunk; return the text, reasoning and refusal it added.

        Args:
            chunk: one chunk of the stream (litellm's, the OpenAI SDK's, or a dict).

        Returns:
            What it added: ``text``, ``reasoning`` and ``refusal`` (empty strings where it added none).

        Raises ``ReplyError`` for a chunk that cannot be read; what the chunk held before the field at
        fault stays added.

        Raises:
            ReplyError: a chunk this package cannot assemble into an assistant message (a ``function_call``
                delta, a custom tool call).
        """
        position = self._chunks
        self._chunks += 1
        where = f"stream chunk {position}"
        if isinstance(chunk, (str, bytes)):
            raise ReplyError(
                f"{where} is a {type(chunk).__name__}, not a parsed chunk; feed the chunks litellm (or the "
                "OpenAI SDK) yields, or the parsed JSON of each server-sent event"
            )
        if not _readable(chunk):
            raise ReplyError(
                f"{where} is a {type(chunk).__name__}; expected a litellm ModelResponseStream, an OpenAI "
                "ChatCompletionChunk or a chunk dict with 'choices'"
            )
        self._changed()
        if self._provider is None:
            self._provider = _provider_of(chunk)
        choices = field(chunk, "choices")
        usage = field(chunk, "usage")
        if usage is None:
            hidden = getattr(chunk, "_hidden_params", None)
            if isinstance(hidden, Mapping):
                usage = hidden.get("usage")
        if choices is None:
            error = field(chunk, "error")
            if error is not None:
                raise ReplyError(f"{where} is an error from the provider: {_error_text(error)}")
            if usage is None:
                raise ReplyError(
                    f"{where} has no 'choices' and no 'usage'; it is not a chat completion chunk"
                )
            choices = ()
        if not _sequence(choices):
            raise ReplyError(f"{where}: 'choices' is a {type(choices).__name__}, not a list")
        if usage is not None:
            self._take_usage(usage, where)
        delta = _NO_DELTA
        for number, choice in enumerate(choices):
            index = _call_index(field(choice, "index"), f"{where}, choices[{number}]")
            index = number if index is None else index
            if index == self._choice:
                self._followed_seen = True
                delta = self._take_choice(choice, f"{where}, choice {index}")
            else:
                self._other_choices.add(index)
        return delta

    # -- internals ---------------------------------------------------------------------------------------

    def _changed(self) -> None:
        """Called when a readable chunk arrives, before it is taken: a subclass drops what it derived."""

    def _take_usage(self, usage: Any, where: str) -> None:
        totals = plain(usage)
        if not isinstance(totals, dict):
            raise ReplyError(f"{where}: 'usage' is a {type(usage).__name__}, not an object")
        self._usage = {k: v for k, v in totals.items() if v is not None}

    def _take_choice(self, choice: Any, where: str) -> StreamDelta:
        if not _readable(choice):
            raise ReplyError(f"{where} is a {type(choice).__name__}, not an object")
        finish = field(choice, "finish_reason")
        if finish is not None:
            self._finish_reason = str(finish)
        delta = field(choice, "delta")
        if delta is None:
            if field(choice, "message") is not None:
                raise ReplyError(
                    f"{where} holds a complete 'message', not a 'delta'; read a non-streamed reply with "
                    "AIMessage.from_litellm"
                )
            return _NO_DELTA
        if not _readable(delta):
            raise ReplyError(f"{where}: 'delta' is a {type(delta).__name__}, not an object")
        return self._take_delta(delta, where)

    def _take_delta(self, delta: Any, where: str) -> StreamDelta:
        text = _text_of(field(delta, "content"), f"{where}: delta.content")
        if text is not None:
            self._text_seen = True
            if text:
                self._text.append(text)
        reasoning = field(delta, "reasoning_content")
        if reasoning is None:
            reasoning = field(delta, "reasoning")
        if reasoning is not None and not isinstance(reasoning, str):
            raise ReplyError(f"{where}: the reasoning delta is a {type(reasoning).__name__}, not text")
        if reasoning:
            self._reasoning.append(reasoning)
        refusal = field(delta, "refusal")
        if refusal is not None and not isinstance(refusal, str):
            raise ReplyError(f"{where}: delta.refusal is a {type(refusal).__name__}, not text")
        if refusal:
            self._refusal.append(refusal)
        if field(delta, "function_call") is not None:
            raise ReplyError(
                f"{where} carries a legacy 'function_call' delta, which an AIMessage cannot hold; pass "
                "tools= instead of functions= to get tool calls"
            )
        for number, call in enumerate(_delta_list(delta, "tool_calls", where)):
            self._take_call(call, f"{where}, tool_calls[{number}]")
        for number, block in enumerate(_delta_list(delta, "thinking_blocks", where)):
            self._take_thinking(block, f"{where}, thinking_blocks[{number}]")
        for key, collected in (("annotations", self._annotations), ("images", self._images)):
            collected.extend(plain(item) for item in _delta_list(delta, key, where))
        audio = field(delta, "audio")
        if audio is not None:
            self._take_audio(audio, where)
        extra = field(delta, "provider_specific_fields")
        if extra is not None:
            if not isinstance(extra, Mapping):
                raise ReplyError(
                    f"{where}: delta.provider_specific_fields is a {type(extra).__name__}, not an object"
                )
            self._take_message_fields(extra)
        if not (text or reasoning or refusal):
            return _NO_DELTA
        return StreamDelta(text=text or "", reasoning=reasoning or "", refusal=refusal or "")

    def _take_audio(self, audio: Any, where: str) -> None:
        if not _readable(audio):
            raise ReplyError(f"{where}: delta.audio is a {type(audio).__name__}, not an object")
        audio_id = field(audio, "id")
        if audio_id is not None:
            if not isinstance(audio_id, str):
                raise ReplyError(f"{where}: delta.audio.id is a {type(audio_id).__name__}, not text")
            self._audio_id = audio_id
        transcript = field(audio, "transcript")
        if isinstance(transcript, str) and transcript:
            self._transcript.append(transcript)

    def _take_message_fields(self, extra: Mapping[str, Any]) -> None:
        for key, value in extra.items():
            if value is None:
                continue
            if key == "citation":
                self._citations.append(plain(value))
            else:
                self._message_fields[str(key)] = plain(value)

    def _take_thinking(self, block: Any, where: str) -> None:
        if not _readable(block):
            raise ReplyError(f"{where} is a {type(block).__name__}, not an object")
        if field(block, "type") == "redacted_thinking":
            data = field(block, "data")
            if data:
                self._thinking_text.clear()  # unsigned text before a redacted block makes no block
                self._thinking.append({"type": "redacted_thinking", "data": data})
            return
        text = field(block, "thinking")
        if text:
            if not isinstance(text, str):
                raise ReplyError(f"{where}: 'thinking' is a {type(text).__name__}, not text")
            self._thinking_text.append(text)
        signature = field(block, "signature")
        if signature:
            if not isinstance(signature, str):
                raise ReplyError(f"{where}: 'signature' is a {type(signature).__name__}, not text")
            self._thinking.append(
                {"type": "thinking", "thinking": "".join(self._thinking_text), "signature": signature}
            )
            self._thinking_text.clear()

    def _take_call(self, delta: Any, where: str) -> None:
        if not _readable(delta):
            raise ReplyError(f"{where} is a {type(delta).__name__}, not an object")
        function = field(delta, "function")
        if function is None and field(delta, "custom") is not None:
            raise ReplyError(
                f"{where} is a custom (non-function) tool call, which an AIMessage cannot hold; declare the "
                "tool as type 'function'"
            )
        if function is not None and not _readable(function):
            raise ReplyError(f"{where}: 'function' is a {type(function).__name__}, not an object")
        index = _call_index(field(delta, "index"), where)
        call_id = _optional_text(field(delta, "id"), f"{where}: 'id'")
        name = _optional_text(field(function, "name"), f"{where}: function.name") if function else None
        call = self._route(index, call_id, name)
        if call_id and call.id is None:
            call.id = call_id
        if name and call.name is None:
            call.name = name
        kind = field(delta, "type")
        if kind and kind != "function":
            raise ReplyError(f"{where} has type {kind!r}; only 'function' tool calls can be held")
        if function is not None:
            arguments = field(function, "arguments")
            if isinstance(arguments, Mapping):
                arguments = encode_arguments(arguments)
            if arguments is not None and not isinstance(arguments, str):
                raise ReplyError(f"{where}: function.arguments is a {type(arguments).__name__}, not text")
            if arguments:
                call.arguments.append(arguments)
        extra = field(delta, "provider_specific_fields")
        if not extra and function is not None:
            extra = field(function, "provider_specific_fields")
        if extra:
            if not isinstance(extra, Mapping):
                raise ReplyError(
                    f"{where}: provider_specific_fields is a {type(extra).__name__}, not an object"
                )
            kept = {str(k): plain(v) for k, v in extra.items() if v is not None}
            if kept:
                call.provider_fields = {**(call.provider_fields or {}), **kept}

    def _route(self, index: int | None, call_id: str | None, name: str | None) -> _Call:
        """The call a tool-call delta continues, or a new one."""
        if index is not None:
            current = self._by_index.get(index)
            if current is None:
                same_id = self._with_id(call_id)
                # An id seen before, at no index of its own: a provider that sends the index late.
                if same_id is not None and not same_id.explicit_index:
                    same_id.index, same_id.explicit_index = index, True
                    self._by_index[index] = same_id
                    return same_id
                return self._open(index)
            if call_id and current.id and call_id != current.id:
                # The id guard: another call at a shared index. If its id was seen, the calls' fragments
                # interleave (a, b, a, b): continue that call, and a fragment without an id after this
                # one continues it too.
                known = self._with_id(call_id)
                if known is None:
                    return self._open(index)
                if known.index == index:
                    self._by_index[index] = known
                return known
            if not call_id and name and current.name and name != current.name:
                return self._open(index)  # another function at the same index, without an id
            return current
        if call_id:
            same_id = self._with_id(call_id)
            return same_id if same_id is not None else self._open(None)
        if self._calls:
            last = self._calls[-1]
            if not (name and last.name and name != last.name):
                return last
        return self._open(None)

    def _with_id(self, call_id: str | None) -> _Call | None:
        if not call_id:
            return None
        return next((c for c in reversed(self._calls) if c.id == call_id), None)

    def _open(self, index: int | None) -> _Call:
        call = _Call(len(self._calls), index)
        if index is None and call.arrival not in self._by_index:
            # A call that came without an index is taken to sit at its position, so that a provider that
            # sends the index only on later fragments still reaches it.
            call.index = call.arrival
            self._by_index[call.arrival] = call
        elif index is not None:
            self._by_index[index] = call
        self._calls.append(call)
        return call

    def _ordered_calls(self) -> list[_Call]:
        if all(c.explicit_index for c in self._calls):
            return sorted(self._calls, key=lambda c: (c.index, c.arrival))
        return list(self._calls)

    def _fields(self, *, strict: bool) -> dict[str, Any]:
        calls = []
        for call in self._ordered_calls():
            if call.id is None or call.name is None:
                if strict:
                    missing = " and ".join(
                        what for what, value in (("id", call.id), ("name", call.name)) if value is None
                    )
                    raise ReplyError(
                        f"the stream ended and the {call.label()} never received its {missing}; "
                        f"its arguments so far: {''.join(call.arguments)!r}"
                    )
                continue
            calls.append(call.wire(finished=strict))
        refusal = "".join(self._refusal)
        if self._text_seen:
            content: str | None = "".join(self._text)
        else:
            content = None if calls or refusal else ""
        message: dict[str, Any] = {"role": "assistant", "content": content}
        if calls:
            message["tool_calls"] = calls
        if refusal:
            message["refusal"] = refusal
        if self._reasoning:
            message["reasoning_content"] = "".join(self._reasoning)
        if self._thinking:
            message["thinking_blocks"] = [dict(b) for b in self._thinking]
        extra = dict(self._message_fields)
        if self._citations:
            extra["citations"] = list(self._citations)
        if extra:
            message["provider_specific_fields"] = extra
        if self._annotations:
            message["annotations"] = list(self._annotations)
        if self._images:
            message["images"] = list(self._images)
        if self._audio_id is not None or self._transcript:
            if not self._text_seen and self._transcript and content == "":
                message["content"] = None  # the transcript is the text (assistant_fields puts it there)
            message["audio"] = {"id": self._audio_id, "transcript": "".join(self._transcript)}
            if self._audio_id is None and not strict:
                del message["audio"]
        return assistant_fields(message, provider=self._provider)


def _provider_of(chunk: Any) -> str | None:
    if isinstance(chunk, Mapping):
        hidden = chunk.get("_hidden_params")
    else:
        hidden = getattr(chunk, "_hidden_params", None)
    if isinstance(hidden, Mapping):
        provider = hidden.get("custom_llm_provider")
        if isinstance(provider, str) and provider:
            return provider
    return None


def _delta_list(delta: Any, key: str, where: str) -> Sequence[Any]:
    """``delta.<key>``, a list (``()`` when absent); ``ReplyError`` naming the field when it is not one."""
    items = field(delta, key)
    if items is None:
        return ()
    if not _sequence(items):
        raise ReplyError(f"{where}: delta.{key} is a {type(items).__name__}, not a list")
    return items


def _error_text(error: Any) -> str:
    message = field(error, "message") if _readable(error) else None
    return str(message) if message else repr(plain(error))


def _text_of(content: Any, where: str) -> str | None:
    """A content delta as text: a string, or a list of text parts (Mistral streams those)."""
    if content is None or isinstance(content, str):
        return content
    if _sequence(content):
        pieces = []
        for number, part in enumerate(content):
            if isinstance(part, str):
                pieces.append(part)
                continue
            text = field(part, "text") if _readable(part) else None
            kind = field(part, "type") if _readable(part) else None
            if kind not in (None, "text") or not isinstance(text, str):
                raise ReplyError(f"{where}[{number}] is not a text part ({plain(part)!r:.80})")
            pieces.append(text)
        return "".join(pieces)
    raise ReplyError(f"{where} is a {type(content).__name__}, not text")


def _optional_text(value: Any, where: str) -> str | None:
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise ReplyError(f"{where} is a {type(value).__name__}, not text")
    return value


def _call_index(value: Any, where: str) -> int | None:
    """A tool-call delta's index: an int, a string of digits (``"0"``), or ``None`` when absent."""
    if value is None:
        return None
    if isinstance(value, bool):
        raise ReplyError(f"{where}: index {value!r} is not a number")
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    if isinstance(value, float) and value.is_integer():
        return int(value)
    raise ReplyError(f"{where}: index {value!r} is not a whole number")
