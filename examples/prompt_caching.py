"""Prompt caching on Claude: breakpoints placed for you each turn, so a long chat keeps hitting the cache.

Each turn, ``place_cache_breakpoints(conversation, model=MODEL)`` marks the system prompt and the newest
ends of requests (at most 4, Anthropic's limit; none on a prefix shorter than the model caches), and
``dump_messages(..., model=MODEL)`` sends them through litellm, which puts each mark on the matching
Anthropic block. The example prints, per turn, which messages carry a mark and how much of the request
lies before the last one (what Anthropic may serve from its cache). At the end it shows the profile
keeping a hand-marked conversation within the limit.

    python examples/prompt_caching.py              # offline: Anthropic's API stood in for on 127.0.0.1
    python examples/prompt_caching.py --turns 12
    ANTHROPIC_API_KEY=... python examples/prompt_caching.py --model anthropic/claude-sonnet-4-5

With a real key the replies' ``usage`` says what the cache served (``cache_read_input_tokens``).
"""

from __future__ import annotations

import argparse
import os
import sys

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from messages import AIMessage, CacheControl, Message, SystemMessage, UserMessage, dump_messages, get_profile
from messages.caching import min_cacheable_tokens, place_cache_breakpoints
from messages.testing import StandInServer, scripted

MODEL = "anthropic/claude-sonnet-4-5"
SYSTEM = "You are the support assistant of a bike shop. " + " ".join(
    f"Policy {n}: repairs of kind {n} take {n % 5 + 1} days and cost {10 + n} euros." for n in range(400)
)


def words(message: Message) -> int:
    """A stand-in token count (words), so that the figures do not depend on a tokenizer."""
    return len(str(message.model_dump()).split())


def chat(turns: int, model: str, completion_kwargs: dict[str, object]) -> None:
    import litellm

    conversation: list[Message] = [SystemMessage(content=SYSTEM)]
    print(f"{model}: at most 4 breakpoints, none below {min_cacheable_tokens(model)} tokens")
    for n in range(turns):
        conversation.append(UserMessage(content=f"Question {n}: how long does a repair of kind {n} take?"))
        marked = place_cache_breakpoints(conversation, model=model, token_counter=words)
        response = litellm.completion(
            model=model, messages=dump_messages(marked, model=model), **completion_kwargs
        )
        reply = AIMessage.from_litellm(response)
        where = [i for i, m in enumerate(marked) if m.cache_control is not None]
        cached = sum(words(m) for m in marked[: where[-1] + 1]) if where else 0
        total = sum(words(m) for m in marked)
        print(f"turn {n + 1:>2}: marks on messages {where}; {cached} of {total} tokens before the last mark")
        conversation.append(reply)


def limit_demo(model: str) -> None:
    """A conversation marked by hand on every user turn: the profile sends the newest four."""
    marked: list[Message] = [SystemMessage(content="Be brief.", cache_control=CacheControl())]
    for n in range(5):
        marked.append(UserMessage(content=f"Question {n}", cache_control=CacheControl()))
        marked.append(AIMessage(content=f"Answer {n}"))
    marked.append(UserMessage(content="Last question"))
    (violation,) = get_profile(model).check(dump_messages(marked))
    sent = dump_messages(marked, model=model)
    kept = [m["content"] for m in sent if "cache_control" in m]
    print(f"hand-marked: {violation.message}")
    print(f"sent with marks on: {kept}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--model", default=None, help="a Claude model with ANTHROPIC_API_KEY set (default: offline)"
    )
    parser.add_argument("--turns", type=int, default=6)
    args = parser.parse_args()
    if args.model:
        if not os.environ.get("ANTHROPIC_API_KEY"):
            print("set ANTHROPIC_API_KEY to talk to the real provider", file=sys.stderr)
            return 2
        chat(args.turns, args.model, {})
        limit_demo(args.model)
        return 0
    with StandInServer(scripted(AIMessage(content="About three days."))) as server:
        chat(args.turns, MODEL, server.completion_kwargs(MODEL))
    limit_demo(MODEL)
    return 0


if __name__ == "__main__":
    sys.exit(main())
