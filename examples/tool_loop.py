"""A bot with two tools, in typed messages from the first turn to the last.

It builds typed messages, dumps them into the real ``litellm.completion``, runs the tool calls it gets back,
answers each with ``ToolMessage.for_call``, and loops until the model answers in text; then it prints the
transcript.

    python examples/tool_loop.py                      # offline: a stand-in provider on 127.0.0.1
    python examples/tool_loop.py "Weather in Oslo?"   # your own question, still offline
    OPENAI_API_KEY=... python examples/tool_loop.py --model openai/gpt-4o-mini    # the real provider

Offline, litellm sends its real HTTP request to ``messages.testing.StandInServer``, whose "model" is the
small rule-based ``offline_model`` below: it calls the tools a question needs, then answers from their
results, exactly in the wire format OpenAI uses.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import sys
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

# Offline by default: no model cost map from GitHub, no tokenizer downloads (before litellm is imported).
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from messages import (
    AIMessage,
    Message,
    SystemMessage,
    ToolArgumentsError,
    ToolCall,
    ToolMessage,
    UserMessage,
    dump_messages,
    load_messages,
)
from messages.testing import StandInServer

TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Current weather for a city.",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string", "description": "City name, e.g. Paris"}},
                "required": ["city"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "get_time",
            "description": "The current local time in an IANA time zone.",
            "parameters": {
                "type": "object",
                "properties": {"timezone": {"type": "string", "description": "e.g. Europe/Paris"}},
                "required": ["timezone"],
            },
        },
    },
]

# A tiny weather "service", so that the example runs without a network.
_WEATHER = {
    "paris": ("light rain", 14),
    "tokyo": ("clear", 22),
    "oslo": ("snow", -3),
    "lima": ("overcast", 19),
    "cairo": ("sunny", 31),
}
_ZONES = {
    "paris": "Europe/Paris",
    "tokyo": "Asia/Tokyo",
    "oslo": "Europe/Oslo",
    "lima": "America/Lima",
    "cairo": "Africa/Cairo",
}


def get_weather(city: str) -> dict[str, Any]:
    """The weather for ``city`` (a fixed table here; a real bot would call a weather API)."""
    sky, celsius = _WEATHER.get(city.strip().lower(), ("unknown", None))
    return {"city": city, "sky": sky, "celsius": celsius}


def get_time(timezone: str) -> str:
    """The local time now in ``timezone``."""
    return datetime.now(ZoneInfo(timezone)).strftime("%H:%M (%A)")


def run_tool(call: ToolCall) -> Any:
    """Run one tool call; every failure becomes a result the model can read, never an exception."""
    try:
        arguments = call.parse_arguments()
    except ToolArgumentsError as exc:
        return f"error: {exc}"
    try:
        if call.name == "get_weather":
            return get_weather(**arguments)
        if call.name == "get_time":
            return get_time(**arguments)
    except Exception as exc:
        return f"error: {call.name} failed: {exc}"
    return f"error: there is no tool named {call.name!r}"


def offline_model(body: dict[str, Any]) -> AIMessage:
    """The stand-in provider's "model": calls the tools a question needs, then answers from the results."""
    conversation = load_messages(body["messages"])
    last = conversation[-1]
    if isinstance(last, ToolMessage):
        return AIMessage(content=_answer_from_results(conversation))
    question = last.content if isinstance(last.content, str) else ""
    # Ids unique to this request (as real providers mint them), yet the same on every run of the example.
    turn = hashlib.sha256(json.dumps(body["messages"]).encode()).hexdigest()[:6]
    cities = [city for city in _WEATHER if re.search(rf"\b{city}\b", question, re.IGNORECASE)]
    calls = [
        ToolCall(id=f"call_{turn}w{n}{city[:3]}", name="get_weather", arguments={"city": city.title()})
        for n, city in enumerate(cities)
    ]
    if re.search(r"\btime\b", question, re.IGNORECASE):
        calls += [
            ToolCall(id=f"call_{turn}t{n}{city[:3]}", name="get_time", arguments={"timezone": _ZONES[city]})
            for n, city in enumerate(cities)
        ]
    if not calls:
        known = ", ".join(city.title() for city in _WEATHER)
        return AIMessage(content=f"I can tell the weather and the time in {known}.")
    return AIMessage(content=None, tool_calls=calls)


def _answer_from_results(conversation: list[Message]) -> str:
    """One sentence per city, from the results of the last tool turn (matched to calls by tool_call_id)."""
    turn = next(m for m in reversed(conversation) if isinstance(m, AIMessage) and m.tool_calls)
    results = {m.tool_call_id: m.content for m in conversation if isinstance(m, ToolMessage)}
    facts: dict[str, list[str]] = {}
    for call in turn.tool_calls:
        arguments = call.parse_arguments()
        result = results.get(call.id, "")
        if call.name == "get_weather":
            weather = json.loads(str(result))
            summary = f"{weather['sky']}, {weather['celsius']} °C"
            facts.setdefault(arguments["city"].lower(), []).append(summary)
        elif call.name == "get_time":
            city = next(c for c, zone in _ZONES.items() if zone == arguments["timezone"])
            facts.setdefault(city, []).append(f"local time {result}")
    return " ".join(f"{city.title()}: {'; '.join(parts)}." for city, parts in facts.items())


def chat(question: str, *, model: str, **send: Any) -> list[Message]:
    """Run the tool loop for one question; return the whole conversation."""
    import litellm  # imported here, where it is used: `import messages` never pulls it in

    conversation: list[Message] = [
        SystemMessage(content="You are a concise assistant. Use the tools for weather and time."),
        UserMessage(content=question),
    ]
    for _ in range(8):  # a bound, in case a model keeps calling tools
        response = litellm.completion(
            model=model, messages=dump_messages(conversation, model=model), tools=TOOLS, **send
        )
        reply = AIMessage.from_litellm(response)
        conversation.append(reply)
        if not reply.tool_calls:
            break
        conversation.extend(ToolMessage.for_call(call, run_tool(call)) for call in reply.tool_calls)
    return conversation


def transcript(conversation: list[Message]) -> str:
    """The conversation as readable lines."""
    lines = []
    for message in conversation:
        if isinstance(message, AIMessage):
            for call in message.tool_calls:
                lines.append(f"assistant -> {call.name}({call.arguments})  [{call.id}]")
            if message.content:
                lines.append(f"assistant: {message.content}")
        elif isinstance(message, ToolMessage):
            lines.append(f"tool [{message.tool_call_id}]: {message.content}")
        else:
            lines.append(f"{message.role}: {message.content}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("question", nargs="?", default="What's the weather and the time in Paris and Tokyo?")
    parser.add_argument(
        "--model", help="a litellm model string; needs the provider's API key in the environment"
    )
    args = parser.parse_args(argv)

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
        print(transcript(chat(args.question, model=args.model)))
        return 0

    with StandInServer(offline_model) as server:
        url = server.url
        conversation = chat(args.question, model="openai/gpt-4o-mini", api_base=url, api_key="offline")
    print(transcript(conversation))
    print(
        f"\n({len(server.requests)} requests to the stand-in provider at {url}; "
        f"{len(conversation)} typed messages, no raw dicts)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
