"""Assembling a streamed reply: ``StreamAccumulator`` turns stream chunks into an ``AIMessage``.

Feed it the chunks of ``litellm.completion(..., stream=True)`` (or ``acompletion``), OpenAI SDK
``ChatCompletionChunk`` objects, or plain chunk dicts, one at a time:

```python
import litellm
from messages import StreamAccumulator, UserMessage, dump_messages

messages = dump_messages([UserMessage(content="Say hello.")], model="gpt-4o-mini")
accumulator = StreamAccumulator()
for chunk in litellm.completion(model="gpt-4o-mini", messages=messages, stream=True):
    print(accumulator.add(chunk).text, end="", flush=True)
reply = accumulator.message()  # an AIMessage; accumulator.usage, .finish_reason too
```

``add`` is synchronous, so the same accumulator serves ``async for chunk in await litellm.acompletion(...)``;
``AIMessage.from_stream(chunks)`` and ``await AIMessage.afrom_stream(async_chunks)`` do the loop for you.
``partial`` is the message assembled so far, readable at any time. Chunks are read field by field, never by
copying a provider's dump. The rules, each chosen to give the reply the provider meant:

* Text, reasoning (``reasoning_content``, or ``reasoning`` as OpenRouter and Groq name it) and refusal
  deltas are concatenated. ``content`` is the text if any text delta came, else ``None`` beside tool calls
  or a refusal, else ``""`` (a reply that said nothing is an empty text, which every provider accepts
  back). ``""`` beside tool calls becomes ``None``, as in ``AIMessage.from_litellm``.
* Tool-call deltas merge by ``index``, with an id guard: a delta that carries an id different from the id
  of the call open at its index continues the call with that id if one was seen, else opens a new call
  (two parallel calls that share an index are never concatenated: LangChain #34807; Ollama, Grok and
  vLLM-style servers send every call at index 0, some with the id on every fragment and the calls'
  fragments interleaved). A delta without an id that names a different function than the open call also
  opens a new call. An index sent
  as a string of digits (``"0"``) is that number. A delta with no index (``None`` or missing) continues
  the call with its id if it carries one, else the call opened last, and a call it opens is taken to sit
  at its position; interleaved fragments of parallel calls therefore need an index (or an id on every
  fragment) to be told apart, as on every real wire.
  Calls are ordered by index (calls that share one, by arrival); when some call came without an index,
  by arrival. Argument fragments are joined exactly, byte for byte (whitespace too); a call that received
  no argument text at all has arguments ``"{}"`` in ``message()``, as ``litellm.stream_chunk_builder``
  and a non-streamed OpenAI reply give it (OpenAI streams no fragment for a call without arguments).
  ``partial`` shows the text received so far, ``""`` before the first fragment, so that it stays a prefix
  of the end.
* Per-call provider fields (Gemini thought signatures) are merged per call; message-level provider
  fields are merged key by key, the last value winning, except Anthropic's streamed ``citation`` entries,
  which are collected in order under ``citations``.
* Thinking blocks: thinking text accumulates until a signature arrives, which closes one signed block;
  redacted blocks are kept whole. Thinking text that never receives a signature makes no block (no
  provider accepts an unsigned block back); litellm streams that text as ``reasoning_content`` too, where
  it is kept. This is the rule ``stream_chunk_builder`` follows.
* Usage chunks restate the totals so far (Anthropic at ``message_start`` and again at ``message_delta``,
  Gemini on every chunk, OpenAI once at the end), so the last usage seen wins; usage is never summed
  across chunks (LangChain #30429). The finish reason is the last one seen.
  Both are properties of the accumulator, not fields of the message. A stream that ended without a
  finish reason was cut off (or came from a provider that never sends one): ``finish_reason`` is ``None``.
* With ``n > 1`` each chunk carries choices for several completions; the accumulator follows one choice,
  ``choice=0`` unless told otherwise, found by each choice's ``index`` (its position when it has none);
  ``message()`` says so when the stream never carried that choice.
* Annotations (URL citations) and generated images are collected in order, as they arrive. An audio reply
  keeps its id (the last one seen) and its transcript fragments, joined, as the text when no text delta
  came; the audio data is not kept, as in ``AIMessage.from_litellm``. Logprobs are not kept. Legacy
  ``function_call`` deltas and custom (non-function) tool calls raise ``ReplyError``: an ``AIMessage``
  cannot hold them, and dropping them would lose the reply.

A chunk that cannot be read raises ``ReplyError`` naming the chunk's position and the field; so does
``message()`` for a tool call that never received its id or name (``partial`` leaves such a call out
until they arrive).
"""

from __future__ import annotations

from messages._stream import StreamAssembly, StreamDelta
from messages.models import AIMessage

__all__ = ["StreamAccumulator", "StreamDelta"]


class StreamAccumulator(StreamAssembly):
    """Assembles stream chunks into an ``AIMessage``: ``add(chunk)``, ``partial`` at any time, ``message()``.

    ``choice`` picks which completion to follow when the request asked for several (``n > 1``);
    ``provider`` names who produced the stream when its chunks do not (litellm's chunks do), so that
    signed thinking blocks and thought signatures are bound to it (see ``AIMessage.provider``).

    Tool-call arguments are the fragments joined byte for byte; a call that received no argument text at
    all gets ``"{}"`` in ``message()``, as ``litellm.stream_chunk_builder`` and a non-streamed reply give
    it (``partial`` keeps ``""`` until text arrives). The module docstring has every merging rule.

    Args:
        choice: which completion to follow when the request asked for several (``n > 1``).
        provider: the litellm provider that produced the stream, when its chunks do not say.

    Raises:
        ValueError: ``choice`` is not a choice index (an int of at least 0).

    Examples:
        ```python
        from messages import StreamAccumulator

        chunks = [  # a streamed reply, as OpenAI-shape chunk dicts
            {"choices": [{"index": 0, "delta": {"role": "assistant", "content": "Hel"}}]},
            {"choices": [{"index": 0, "delta": {"content": "lo!"}, "finish_reason": "stop"}]},
        ]
        accumulator = StreamAccumulator()
        for chunk in chunks:
            print(accumulator.add(chunk).text, end="")  # what each chunk added
        assert accumulator.message().content == "Hello!"
        assert accumulator.finish_reason == "stop"
        ```
    """

    def __init__(self, *, choice: int = 0, provider: str | None = None) -> None:
        super().__init__(choice=choice, provider=provider)
        self._partial: AIMessage | None = None

    @property
    def partial(self) -> AIMessage:
        """The reply assembled so far, as an ``AIMessage``; tool calls whose id or name has not arrived
        yet are left out, and the arguments of the last call may be incomplete JSON."""
        if self._partial is None:
            self._partial = AIMessage.model_validate(self.partial_fields())
        return self._partial

    def message(self) -> AIMessage:
        """The assembled reply, once the stream has ended. A call that received no argument text has
        arguments ``"{}"``.

        Returns:
            The whole reply.

        Raises:
            ReplyError: a tool call never received its id or name, or the stream carried choices but
                never the one followed (the choices it carried named).
        """
        return AIMessage.model_validate(self.reply_fields())

    def __repr__(self) -> str:
        return (
            f"StreamAccumulator(chunks={self._chunks}, tool_calls={len(self._calls)}, "
            f"finish_reason={self._finish_reason!r})"
        )

    def _changed(self) -> None:
        self._partial = None
