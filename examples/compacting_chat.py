"""A long chat kept in a SQLite thread and compacted into stored summary checkpoints.

Each turn reads the thread through a compacting window (the system prompt, the newest summary, the
exchanges after it that fit) and, once the reply and its tool results are appended, lets the compactor
write a checkpoint when the window is over its trigger. The summaries are written by the default
summarizer, ``litellm.completion`` through the provider's profile (here the same offline stand-in answers
both the chat and the summary requests). Nothing of the history is rewritten: every message stays in the
store, each checkpoint records how its summary was made, and between two checkpoints every request begins
with the previous one, byte for byte, so a provider's prompt cache keeps hitting.

    python examples/compacting_chat.py                  # offline, 60 turns against a stand-in provider
    python examples/compacting_chat.py --turns 200 --limit 1500
    OPENAI_API_KEY=... python examples/compacting_chat.py --model openai/gpt-4o-mini --turns 8
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from tool_loop import TOOLS, offline_model, run_tool

from messages import (
    AIMessage,
    LocalThread,
    SQLiteThreadStore,
    SystemMessage,
    ToolMessage,
    UserMessage,
    dump_messages,
    validate_conversation,
)
from messages.compaction import DEFAULT_INSTRUCTIONS, Compactor, LiteLLMSummarizer
from messages.testing import StandInServer

QUESTIONS = [
    "Hi! I am planning a trip around the world this winter.",
    "What's the weather in Paris?",
    "Good. I also love long train rides; any advice for packing light?",
    "And the time in Tokyo?",
    "Which of Oslo and Lima is warmer right now, by the weather tool?",
    "Thanks. Remind me what we said about packing, in one line.",
]


def offline(body: dict[str, Any]) -> AIMessage:
    """The stand-in's "model": summarizes when asked to (the summarizer's instructions come first), else
    answers as the tool-loop example's model does."""
    first = body["messages"][0]
    if first.get("role") == "system" and str(first.get("content", "")).startswith(DEFAULT_INSTRUCTIONS[:40]):
        asked = [m["content"] for m in body["messages"] if m.get("role") == "user"][:-1]
        last = asked[-1] if asked else "nothing yet"
        return AIMessage(
            content=f"A traveller plans a winter trip around the world; {len(asked)} more questions were "
            f"answered with the weather and time tools, the last: {last[:80]!r}."
        )
    return offline_model(body)


def chat(store: SQLiteThreadStore, turns: int, limit: int, model: str, **send: Any) -> LocalThread:
    """Run ``turns`` user turns, reading through the compactor's window and compacting after each."""
    import litellm

    compactor = Compactor(LiteLLMSummarizer(model, **send), limit=limit, model=model)
    thread = LocalThread()
    store.save_thread(thread)
    thread.append(store, SystemMessage(content="You are a concise travel assistant with weather tools."))
    previous = ""
    requests = changed = unexpected = 0
    compacted = False
    for turn in range(turns):
        thread.append(store, UserMessage(content=f"(turn {turn + 1}) {QUESTIONS[turn % len(QUESTIONS)]}"))
        while True:
            window = compactor.window()
            request = thread.read(store, window)  # reads the newest summary and what follows it
            validate_conversation(request)
            sent = json.dumps(dump_messages(request, model=model))
            stable = sent.startswith(previous[:-1])  # the previous request is this one's prefix
            requests, changed = requests + 1, changed + (not stable)
            unexpected += not stable and not compacted and requests > 1
            previous, compacted = sent, False
            response = litellm.completion(
                model=model, messages=dump_messages(request, model=model), tools=TOOLS, **send
            )
            reply = AIMessage.from_litellm(response)
            thread.append(store, reply)
            if not reply.tool_calls:
                break
            for call in reply.tool_calls:
                thread.append(store, ToolMessage.for_call(call, run_tool(call)))
        done = compactor.compact(store, thread)  # a checkpoint when the window is over its trigger
        compacted = bool(done.written)
        if done.written or (turn + 1) % 20 == 0 or turn + 1 == turns:
            print(
                f"turn {turn + 1:4}: thread {store.thread_info(thread.id).length:5} messages, "
                f"window {len(request):3} messages, {window.token_count():5} of {limit} tokens, "
                f"checkpoints {len(store.checkpoints(thread.id)):3}, "
                f"prefix {'kept' if stable else 'new'}" + (", compacted" if done.written else "")
            )
    print(
        f"{requests} requests; the previous request was not the next one's prefix {changed} times, "
        f"{unexpected} of them without a checkpoint just before"
    )
    return thread


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--turns", type=int, default=60, help="user turns to run (default 60)")
    parser.add_argument("--limit", type=int, default=1200, help="token limit of the window (default 1200)")
    parser.add_argument("--model", help="a litellm model string; needs the provider's API key")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory() as folder:
        store = SQLiteThreadStore(os.path.join(folder, "chats.sqlite"))
        if args.model:
            import litellm

            missing = litellm.validate_environment(args.model).get("missing_keys") or []
            if missing:
                print(f"--model {args.model} needs {', '.join(missing)} in the environment.", file=sys.stderr)
                return 2
            thread = chat(store, args.turns, args.limit, args.model)
        else:
            with StandInServer(offline) as server:
                thread = chat(
                    store,
                    args.turns,
                    args.limit,
                    "openai/gpt-4o-mini",
                    api_base=server.url,
                    api_key="offline",
                )
        chain = store.checkpoints(thread.id)
        print(
            f"\n{store.thread_info(thread.id).length} messages stored, none rewritten; "
            f"{len(chain)} checkpoints"
        )
        if chain:
            newest = chain[-1]
            made = newest.provenance
            print(
                f"newest checkpoint: covers positions up to {newest.upto}, "
                f"built on {newest.base or 'nothing'}; "
                f"summarizer {made.model}, prompt {made.prompt_hash[:12] if made.prompt_hash else '-'}, "
                f"{made.input_tokens} tokens in, {made.output_tokens} out"
            )
            print(f"its summary: {newest.summary.content}")
        store.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
