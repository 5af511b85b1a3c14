"""A long chat held in a token-limited window that never splits a tool call from its result.

The bot keeps the whole history in a ``TokenLimitedContext`` and sends only the newest exchanges that fit
the limit (plus the system prompt). Every few turns the user asks something that needs a tool, so the
window's edge keeps landing next to tool exchanges: it moves past whole exchanges only, and every request
passes the protocol check. At the end the window's state is saved to JSON and restored into a fresh
context, as a bot would across restarts.

    python examples/long_chat.py                 # offline, 120 turns against a stand-in provider
    python examples/long_chat.py --turns 400 --limit 1500
    OPENAI_API_KEY=... python examples/long_chat.py --model openai/gpt-4o-mini --turns 6
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from tool_loop import TOOLS, offline_model, run_tool

from messages import (
    AIMessage,
    SystemMessage,
    ToolMessage,
    UserMessage,
    dump_messages,
    validate_conversation,
)
from messages.context import TokenLimitedContext
from messages.testing import StandInServer

QUESTIONS = [
    "Hi! I am planning a trip around the world this winter.",
    "What's the weather in Paris?",
    "Good. I also love long train rides; any advice for packing light?",
    "And the time in Tokyo?",
    "Which of Oslo and Lima is warmer right now, by the weather tool?",
    "Thanks. Remind me what we said about packing, in one line.",
]


def chat(turns: int, limit: int, model: str, **send: Any) -> TokenLimitedContext:
    """Run ``turns`` user turns through a token-limited window; return the context."""
    import litellm

    context = TokenLimitedContext(
        token_limit=limit,
        model=model,
        initial_messages=[SystemMessage(content="You are a concise travel assistant with weather tools.")],
    )
    for turn in range(turns):
        context.add_message(UserMessage(content=f"(turn {turn + 1}) {QUESTIONS[turn % len(QUESTIONS)]}"))
        while True:
            window = context.get_messages()
            validate_conversation(window)  # what is sent always keeps the protocol
            response = litellm.completion(
                model=model, messages=dump_messages(window, model=model), tools=TOOLS, **send
            )
            reply = AIMessage.from_litellm(response)
            context.add_message(reply)
            if not reply.tool_calls:
                break
            for call in reply.tool_calls:
                context.add_message(ToolMessage.for_call(call, run_tool(call)))
        if (turn + 1) % 20 == 0 or turn + 1 == turns:
            window = context.get_messages()
            print(
                f"turn {turn + 1:4}: history {len(context.history):5} messages, "
                f"window {len(window):3} messages, {context.token_count():5} of {limit} tokens, "
                f"first after the system prompt: {window[1].role if len(window) > 1 else '-'}"
            )
    return context


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--turns", type=int, default=120, help="user turns to run (default 120)")
    parser.add_argument("--limit", type=int, default=800, help="token limit of the window (default 800)")
    parser.add_argument("--model", help="a litellm model string; needs the provider's API key")
    args = parser.parse_args(argv)

    if args.model:
        import litellm

        missing = litellm.validate_environment(args.model).get("missing_keys") or []
        if missing:
            print(f"--model {args.model} needs {', '.join(missing)} in the environment.", file=sys.stderr)
            return 2
        context = chat(args.turns, args.limit, args.model)
    else:
        with StandInServer(offline_model) as server:
            context = chat(
                args.turns, args.limit, "openai/gpt-4o-mini", api_base=server.url, api_key="offline"
            )

    state = json.dumps(context.save_state())
    restored = TokenLimitedContext(token_limit=args.limit, model=args.model or "openai/gpt-4o-mini")
    restored.load_state(json.loads(state))
    same = restored.get_messages() == context.get_messages()
    print(f"\nsaved state: {len(state):,} bytes of JSON; restored window identical: {same}")
    last = context.get_messages()[-1]
    print(f"last reply: {last.content}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
