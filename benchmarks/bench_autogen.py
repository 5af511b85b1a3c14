"""The AutoGen windows (``messages.integrations.autogen``) beside AutoGen's own, in the same run.

On a history of 10,000 AutoGen messages (2,000 with ``--quick``), a weather chat of tool rounds (a user
question, an assistant turn with two calls, one result message with both results, an answer, a follow-up):

* reading the window: ``get_messages()`` of ``BufferedChatCompletionContext(buffer_size=20)``, ours vs
  AutoGen's, with nothing added between reads (AutoGen's is a slice of its list). Target: within 2x;
* an agent's loop: every message added one at a time, the window read after each, from an empty context;
* what a request pays: the window read and converted to this package's messages (``from_autogen``, as
  ``LiteLLMChatCompletionClient`` does before it applies the profile), on a history 10 times shorter and
  on the full one. The conversion sees only what the window returns, so the ratio stays near 1;
* loading the history: ``load_state`` of the 10,000 messages, ours vs AutoGen's (both validate the state
  with AutoGen's own model; ours then finds the exchanges).

Coroutines are driven without an event loop (``send(None)``), alike for both, so that the loop's own cost
does not hide the windows'.
"""

from __future__ import annotations

import json
from collections.abc import Coroutine
from typing import Any

from benchmarks._timing import Figure, Table, judged
from messages.convert.autogen import from_autogen


def now(coroutine: Coroutine[Any, Any, Any]) -> Any:
    """The value of a coroutine that never waits."""
    try:
        coroutine.send(None)
    except StopIteration as done:
        return done.value
    raise RuntimeError("the coroutine waited")


def history(size: int) -> list[Any]:
    """``size`` AutoGen messages of the weather chat (whole exchanges but maybe the last)."""
    from autogen_core import FunctionCall
    from autogen_core.models import (
        AssistantMessage,
        FunctionExecutionResult,
        FunctionExecutionResultMessage,
        UserMessage,
    )

    out: list[Any] = []
    n = 0
    while len(out) < size:
        n += 1
        ids = (f"call_{n}_a", f"call_{n}_b")
        out += [
            UserMessage(content=f"What is the weather in city {n} and in its twin town?", source="user"),
            AssistantMessage(
                content=[
                    FunctionCall(id=i, arguments=json.dumps({"city": f"{i} town"}), name="get_weather")
                    for i in ids
                ],
                thought="Let me look both up.",
                source="assistant",
            ),
            FunctionExecutionResultMessage(
                content=[
                    FunctionExecutionResult(
                        content=f"Sunny, {20 + n % 10} degrees", name="get_weather", call_id=i
                    )
                    for i in ids
                ]
            ),
            AssistantMessage(content=f"Both are sunny; city {n} is warmer.", source="assistant"),
            UserMessage(content="Thanks!", source="user"),
        ]
    return out[:size]


def main(quick: bool = False) -> list[Figure]:
    import autogen_core.model_context as theirs

    from messages.integrations.autogen import BufferedChatCompletionContext

    size = 2_000 if quick else 10_000
    repeat = 3 if quick else 9
    reads = 200 if quick else 1_000
    messages = history(size)
    buffer = 20

    ours_context = BufferedChatCompletionContext(buffer, initial_messages=messages)
    their_context = theirs.BufferedChatCompletionContext(buffer, initial_messages=messages)
    assert now(ours_context.get_messages()) == messages[-now(ours_context.get_messages()).__len__() :]

    def read(context: Any) -> Any:
        def run() -> None:
            for _ in range(reads):
                now(context.get_messages())

        return run

    table = Table(f"get_messages() of a buffered window (20) over {size:,} messages, {reads:,} reads")
    theirs_name, ours_name = "AutoGen BufferedChatCompletionContext", "ours (messages.integrations.autogen)"
    read_ratio = table.measure_paired(
        theirs_name, {theirs_name: read(their_context), ours_name: read(ours_context)}, repeat=repeat
    )[ours_name]
    table.show(theirs_name)

    def loop(make: Any) -> Any:
        def run() -> None:
            context = make()
            for message in messages:
                now(context.add_message(message))
                now(context.get_messages())

        return run

    table = Table(f"an agent's loop: {size:,} messages added one at a time, the window read after each")
    loop_ratio = table.measure_paired(
        theirs_name,
        {
            theirs_name: loop(lambda: theirs.BufferedChatCompletionContext(buffer)),
            ours_name: loop(lambda: BufferedChatCompletionContext(buffer)),
        },
        repeat=max(3, repeat // 3),
    )[ours_name]
    table.show(theirs_name)

    short = BufferedChatCompletionContext(buffer, initial_messages=messages[: size // 10])

    def request(context: Any) -> Any:
        def run() -> None:
            for _ in range(reads // 10):
                from_autogen(now(context.get_messages()))

        return run

    short_name, long_name = f"window of {size // 10:,} messages, converted", f"window of {size:,}, converted"
    table = Table("what a request pays: the window read and converted (from_autogen)")
    convert_ratio = table.measure_paired(
        short_name, {short_name: request(short), long_name: request(ours_context)}, repeat=repeat
    )[long_name]
    table.show(short_name)

    state = now(their_context.save_state())

    def load(context: Any) -> Any:
        return lambda: now(context.load_state(state))

    table = Table(f"load_state of {size:,} messages (AutoGen's state format)")
    load_ratio = table.measure_paired(
        theirs_name,
        {
            theirs_name: load(theirs.BufferedChatCompletionContext(buffer)),
            ours_name: load(BufferedChatCompletionContext(buffer)),
        },
        repeat=max(3, repeat // 3),
    )[ours_name]
    table.show(theirs_name)

    figures = [
        Figure("autogen: get_messages, buffered, ours vs AutoGen's", read_ratio, target=2.0),
        Figure("autogen: agent loop (add, read), ours vs AutoGen's", loop_ratio, target=2.5),
        Figure("autogen: read + convert, 10x the history vs 1x", convert_ratio, target=1.5),
        Figure("autogen: load_state, ours vs AutoGen's", load_ratio),
    ]
    print()
    for figure in figures:
        print(judged(figure))
    return figures
