"""A streaming bot: prints the reply as it arrives, tool-call arguments included, then runs the tools.

Each turn streams through ``StreamAccumulator``: ``add(chunk)`` returns the text the chunk added (printed at
once), ``partial`` is the reply so far (the tool calls whose arguments are still arriving), ``message()``
the finished ``AIMessage``, ready to append to the conversation; ``usage`` and ``finish_reason`` come from
the stream.

    python examples/streaming_bot.py                      # offline: a stand-in provider on 127.0.0.1
    python examples/streaming_bot.py "Weather in Oslo?"   # your own question, still offline
    python examples/streaming_bot.py --async              # the same with litellm.acompletion
    OPENAI_API_KEY=... python examples/streaming_bot.py --model openai/gpt-4o-mini   # the real provider

Offline, litellm streams from ``messages.testing.StandInServer``, which sends server-sent events exactly as
OpenAI does (text in small pieces, each tool call opened with its id and name, then its arguments in
fragments). The tools and the stand-in's rule-based "model" are those of ``tool_loop.py`` beside this file.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from typing import Any, TextIO

# Offline by default: no model cost map from GitHub, no tokenizer downloads (before litellm is imported).
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from tool_loop import TOOLS, offline_model, run_tool

from messages import (
    AIMessage,
    Message,
    StreamAccumulator,
    SystemMessage,
    ToolMessage,
    UserMessage,
    dump_messages,
)
from messages.testing import StandInServer


class LivePrinter:
    """Writes a streamed turn as it arrives: text as is, each tool call as ``-> name(arguments`` growing."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.shown: dict[str, int] = {}  # characters of arguments already printed, by call id
        self.current: str | None = None  # the call whose arguments are being printed
        self.at_line_start = True

    def write(self, text: str) -> None:
        if text:
            self.out.write(text)
            self.out.flush()
            self.at_line_start = text.endswith("\n")

    def update(self, accumulator: StreamAccumulator, text: str) -> None:
        """Print what the last chunk added."""
        if text:
            self.close_call()
            if self.at_line_start:
                self.write("assistant: ")
            self.write(text)
        for call in accumulator.partial.tool_calls:
            shown = self.shown.get(call.id)
            new = call.arguments[shown or 0 :]
            if shown is None or (new and call.id != self.current):
                # A call just opened (or, interleaved, an earlier one goes on): a line of its own.
                self.close_call()
                self.write("" if self.at_line_start else "\n")
                self.write(f"assistant -> {call.name}(" + ("..." if shown else ""))
                self.current = call.id
            self.write(new)
            self.shown[call.id] = len(call.arguments)

    def close_call(self) -> None:
        if self.current is not None:
            self.write(")")
            self.current = None

    def finish(self, accumulator: StreamAccumulator) -> None:
        """End the turn's output with the stream's finish reason and usage."""
        self.close_call()
        usage = accumulator.usage or {}
        tokens = (
            f", {usage['prompt_tokens']} prompt + {usage['completion_tokens']} completion tokens"
            if "prompt_tokens" in usage and "completion_tokens" in usage
            else ""
        )
        self.write(f"{'' if self.at_line_start else chr(10)}  [{accumulator.finish_reason}{tokens}]\n")


def stream_turn(stream: Any, out: TextIO) -> AIMessage:
    """Print one streamed reply as it arrives; return it as an ``AIMessage``."""
    accumulator = StreamAccumulator()
    printer = LivePrinter(out)
    for chunk in stream:
        printer.update(accumulator, accumulator.add(chunk).text)
    printer.finish(accumulator)
    return accumulator.message()


async def stream_turn_async(stream: Any, out: TextIO) -> AIMessage:
    """``stream_turn`` for ``await litellm.acompletion(..., stream=True)``: ``add`` is the same call."""
    accumulator = StreamAccumulator()
    printer = LivePrinter(out)
    async for chunk in stream:
        printer.update(accumulator, accumulator.add(chunk).text)
    printer.finish(accumulator)
    return accumulator.message()


def _conversation(question: str) -> list[Message]:
    return [
        SystemMessage(content="You are a concise assistant. Use the tools for weather and time."),
        UserMessage(content=question),
    ]


def _after_reply(conversation: list[Message], reply: AIMessage, out: TextIO) -> bool:
    """Append the reply and its tool results; whether the model must be asked again."""
    conversation.append(reply)
    for call in reply.tool_calls:
        result = ToolMessage.for_call(call, run_tool(call))
        out.write(f"tool [{call.id}]: {result.content}\n")
        conversation.append(result)
    return bool(reply.tool_calls)


def chat(question: str, *, model: str, out: TextIO = sys.stdout, **send: Any) -> list[Message]:
    """Run the streaming tool loop for one question; return the whole conversation."""
    import litellm  # imported here, where it is used: `import messages` never pulls it in

    conversation = _conversation(question)
    for _ in range(8):  # a bound, in case a model keeps calling tools
        stream = litellm.completion(
            model=model, messages=dump_messages(conversation, model=model), tools=TOOLS, stream=True, **send
        )
        if not _after_reply(conversation, stream_turn(stream, out), out):
            break
    return conversation


async def achat(question: str, *, model: str, out: TextIO = sys.stdout, **send: Any) -> list[Message]:
    """``chat`` with ``litellm.acompletion``."""
    import litellm

    conversation = _conversation(question)
    for _ in range(8):
        stream = await litellm.acompletion(
            model=model, messages=dump_messages(conversation, model=model), tools=TOOLS, stream=True, **send
        )
        if not _after_reply(conversation, await stream_turn_async(stream, out), out):
            break
    return conversation


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("question", nargs="?", default="What's the weather and the time in Paris and Tokyo?")
    parser.add_argument(
        "--model", help="a litellm model string; needs the provider's API key in the environment"
    )
    parser.add_argument("--async", dest="use_async", action="store_true", help="use litellm.acompletion")
    args = parser.parse_args(argv)
    # Usage arrives in OpenAI streams only when asked for; other providers always send it.
    send: dict[str, Any] = {"stream_options": {"include_usage": True}}

    def run(**extra: Any) -> list[Message]:
        model = args.model or "openai/gpt-4o-mini"
        if args.use_async:
            return asyncio.run(achat(args.question, model=model, **send, **extra))
        return chat(args.question, model=model, **send, **extra)

    if args.model:
        import litellm

        missing = litellm.validate_environment(args.model).get("missing_keys") or []
        if missing:
            print(
                f"--model {args.model} needs {', '.join(missing)} in the environment; "
                "without --model the example runs offline.",
                file=sys.stderr,
            )
            return 2
        print(f"user: {args.question}")
        run()
        return 0

    print(f"user: {args.question}")
    with StandInServer(offline_model) as server:
        url = server.url
        conversation = run(api_base=url, api_key="offline")
    requests = f"{len(server.requests)} streamed request{'s' if len(server.requests) != 1 else ''}"
    print(f"\n({requests} to the stand-in provider at {url}; {len(conversation)} typed messages)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
