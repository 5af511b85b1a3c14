"""Prompt caching over a 50-turn chat with tools: how much of each request the cache can serve.

Each turn the bot sends the whole conversation so far through the real ``litellm.completion`` to the
loopback Anthropic stand-in, dumped with the model's profile, with breakpoints placed three ways:

* ``none``: no breakpoint;
* ``system``: one on the system prompt (what fixed switches such as "cache the instructions" give);
* ``auto``: ``messages.caching.place_cache_breakpoints`` (the system prompt and the newest request ends).

For every request body litellm sent, it counts the input tokens (words, the stand-in's deterministic
count), the tokens marked cacheable (the prefix up to the last block with ``cache_control``), and the tokens
a cache that behaves as Anthropic documents would serve: a prefix is written at each breakpoint that is at
least the minimum cacheable length, and a later request reads the longest written prefix that ends at one
of its breakpoints or up to 20 blocks before one. The figures are counts, not timings: they do not vary
from run to run.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import Any

from messages import (
    AIMessage,
    Message,
    SystemMessage,
    ToolCall,
    ToolMessage,
    UserMessage,
    _litellm,
    dump_messages,
)
from messages.caching import place_cache_breakpoints
from messages.testing import StandInServer, scripted
from messages.testing._openai import word_count

MODEL = "anthropic/claude-sonnet-4-5"
MIN_TOKENS = 1024
LOOKBACK = 20
TURNS = 50

_SYSTEM = " ".join(
    f"Rule {n}: answer briefly, cite the tool you used, and never guess a figure." for n in range(120)
)


def build_chat(turns: int) -> list[list[Message]]:
    """The messages each turn adds: a user question, then every third turn a tool call and its result,
    then the answer."""
    added: list[list[Message]] = []
    for n in range(turns):
        turn: list[Message] = [
            UserMessage(content=f"Question {n}: " + " ".join(f"detail {n}.{k}" for k in range(40)))
        ]
        if n % 3 == 2:
            call = ToolCall(id=f"toolu_{n:04d}", name="search", arguments={"query": f"topic {n}"})
            turn.append(AIMessage(tool_calls=[call]))
            turn.append(ToolMessage.for_call(call, " ".join(f"result {n}.{k}" for k in range(150))))
        turn.append(AIMessage(content=f"Answer {n}: " + " ".join(f"point {n}.{k}" for k in range(80))))
        added.append(turn)
    return added


def _count(message: Message) -> int:
    return word_count(message.model_dump())


Strategy = Callable[[list[Message]], list[Message]]

STRATEGIES: dict[str, Strategy] = {
    "none": lambda messages: messages,
    "system": lambda messages: place_cache_breakpoints(
        messages, model=MODEL, placement="system", min_tokens=MIN_TOKENS, token_counter=_count
    ),
    "auto": lambda messages: place_cache_breakpoints(
        messages, model=MODEL, min_tokens=MIN_TOKENS, token_counter=_count
    ),
}


def _blocks(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The request's blocks in the order Anthropic reads them: system, then each message's content."""
    blocks = list(body.get("system") or [])
    for message in body["messages"]:
        content = message["content"]
        blocks.extend([{"type": "text", "text": content}] if isinstance(content, str) else content)
    return blocks


def _key(blocks: list[dict[str, Any]]) -> str:
    return json.dumps([{k: v for k, v in b.items() if k != "cache_control"} for b in blocks], sort_keys=True)


def measure(strategy: Strategy, turns: int, server: StandInServer) -> dict[str, int]:
    """Totals over ``turns`` requests: input tokens, tokens marked cacheable, tokens the cache serves.

    Sent through ``messages._litellm.completion``: the chat has tool calls but sends no ``tools=``, which
    litellm before 1.85 refuses on its Anthropic route; it then sends litellm's own placeholder tool, as
    later releases do themselves, so that the bodies (and the figures) are the same on every release."""
    conversation: list[Message] = [SystemMessage(content=_SYSTEM)]
    cache: set[str] = set()
    totals = {"input": 0, "marked": 0, "read": 0, "requests": 0}
    for turn in build_chat(turns):
        conversation.append(turn[0])
        messages = dump_messages(strategy(conversation), model=MODEL)
        _litellm.completion(model=MODEL, messages=messages, **server.completion_kwargs(MODEL))
        blocks = _blocks(server.last_body())
        sizes = [word_count({k: v for k, v in b.items() if k != "cache_control"}) for b in blocks]
        prefix = [sum(sizes[: i + 1]) for i in range(len(sizes))]
        marks = [i for i, b in enumerate(blocks) if "cache_control" in b]
        read = 0
        for mark in marks:
            for j in range(mark, max(-1, mark - LOOKBACK - 1), -1):
                if _key(blocks[: j + 1]) in cache:
                    read = max(read, prefix[j])
                    break
        for mark in marks:
            if prefix[mark] >= MIN_TOKENS:
                cache.add(_key(blocks[: mark + 1]))
        totals["input"] += prefix[-1]
        totals["marked"] += prefix[marks[-1]] if marks else 0
        totals["read"] += read
        totals["requests"] += 1
        conversation.extend(turn[1:])
    return totals


def main(quick: bool = False) -> None:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    litellm.suppress_debug_info = True
    turns = 8 if quick else TURNS
    print(f"prompt caching, {turns} turns to {MODEL} (loopback stand-in; tokens counted as words)")
    head = ("placement", "input tokens", "marked cacheable", "served by cache", "share")
    print(f"{head[0]:<10} {head[1]:>13} {head[2]:>17} {head[3]:>16} {head[4]:>6}")
    with StandInServer(scripted(AIMessage(content="ok"))) as server:
        for name, strategy in STRATEGIES.items():
            t = measure(strategy, turns, server)
            share = t["read"] / t["input"] if t["input"] else 0.0
            print(f"{name:<10} {t['input']:>13,} {t['marked']:>17,} {t['read']:>16,} {share:>6.1%}")
