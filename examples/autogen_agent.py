"""An AutoGen AssistantAgent that talks to Gemini through litellm, with this package's window and profile.

The agent (autogen-agentchat) uses ``LiteLLMChatCompletionClient``, whose every request passes the Gemini
profile, and a ``BufferedChatCompletionContext`` that never cuts a tool call from its result. It answers
four questions in a row with a weather tool. Once the history outgrows the window, the window starts on
an assistant turn, which Gemini refuses as sent (quirk 24: a conversation opens on a user turn); the
profile fixes it in every request, and the example prints what it fixed. Then the agent's state moves into
AutoGen's own model context, and the window is written out as an AutoGen component.

    pip install 'llm-messages[autogen]' autogen-agentchat
    python examples/autogen_agent.py                         # offline: a stand-in Gemini on 127.0.0.1
    GEMINI_API_KEY=... python examples/autogen_agent.py --model gemini/gemini-2.5-flash

Offline, litellm sends its real HTTP request (Gemini's generateContent) to
``messages.testing.StandInServer``, whose "model" is ``offline_model`` below: it calls the tool for the
city a question names, then answers from the result.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import sys
from typing import Any

# Offline by default: no model cost map from GitHub, no tokenizer downloads (before litellm is imported).
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from messages import AIMessage, ToolCall, dump_messages, get_profile, validate_conversation
from messages.convert import from_autogen
from messages.testing import StandInServer

_WEATHER = {"paris": "light rain, 14 °C", "tokyo": "clear, 22 °C", "oslo": "snow, -3 °C"}
QUESTIONS = ["Weather in Paris?", "And in Tokyo?", "What about Atlantis?", "Finally, Oslo?"]


def get_weather(city: str) -> str:
    """Current weather for a city (a fixed table here; empty for a city it does not know)."""
    return _WEATHER.get(city.strip().lower(), "")


def offline_model(body: dict[str, Any]) -> AIMessage:
    """The stand-in's "model", reading Gemini's request: a tool call for the city asked about, then an
    answer from the tool's result."""
    last = body["contents"][-1]["parts"]
    response = next((p["function_response"] for p in last if "function_response" in p), None)
    if response is not None:
        said = response["response"].get("content") or "nothing"
        return AIMessage(content=f"The weather service says: {said}.")
    question = " ".join(p.get("text", "") for p in last)
    city = re.findall(r"([A-Z][a-z]+)\?", question)
    if not city:
        return AIMessage(content="Ask me about the weather in a city.")
    return AIMessage(
        tool_calls=[ToolCall(id=f"call_{city[0].lower()}", name="get_weather", arguments={"city": city[0]})]
    )


async def chat(model: str, **completion_args: Any) -> None:
    from autogen_agentchat.agents import AssistantAgent
    from autogen_agentchat.messages import TextMessage, ToolCallExecutionEvent, ToolCallRequestEvent
    from autogen_core.model_context import UnboundedChatCompletionContext

    from messages.integrations.autogen import BufferedChatCompletionContext, LiteLLMChatCompletionClient

    client = LiteLLMChatCompletionClient(model, **completion_args)
    window = BufferedChatCompletionContext(buffer_size=6)
    agent = AssistantAgent(
        "weather", model_client=client, tools=[get_weather], model_context=window, reflect_on_tool_use=True
    )
    for question in QUESTIONS:
        print(f"user: {question}")
        result = await agent.run(task=question)
        for event in result.messages[1:]:
            if isinstance(event, ToolCallRequestEvent):
                for call in event.content:
                    print(f"  assistant -> {call.name}({call.arguments})")
            elif isinstance(event, ToolCallExecutionEvent):
                for done in event.content:
                    print(f"  tool: {done.content!r}")
            elif isinstance(event, TextMessage):
                print(f"  assistant: {event.content}")
        sent = from_autogen(await window.get_messages())
        validate_conversation(sent)  # whole exchanges only: raises otherwise
        history = len((await window.save_state())["messages"])
        # What the next request would break as litellm alone sends it; the client's profile fixes it.
        fixed = sorted({f"quirk {v.row}" for v in get_profile(model).check(dump_messages(sent))})
        shown = fixed or "nothing"
        print(f"  [window: {len(sent)} of {history} messages, whole exchanges; profile fixes: {shown}]")
    usage = client.total_usage()
    print(f"{usage.prompt_tokens} prompt + {usage.completion_tokens} completion tokens")

    state = await agent.save_state()
    theirs = AssistantAgent("weather", model_client=client, model_context=UnboundedChatCompletionContext())
    await theirs.load_state(state)
    print(
        f"state loaded into AutoGen's own context: {len(await theirs.model_context.get_messages())} messages"
    )
    component = window.dump_component().model_dump(include={"provider", "config"})
    print(f"window as a component: {json.dumps(component)}")


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--model", help="a litellm model string: talk to the real provider (its key in the environment)"
    )
    args = parser.parse_args()
    if args.model:
        asyncio.run(chat(args.model))
        return 0
    with StandInServer(offline_model) as server:
        model = "gemini/gemini-2.5-flash"
        asyncio.run(chat(model, **server.completion_kwargs(model)))
        bodies = server.bodies()
    firsts = [body["contents"][0]["role"] for body in bodies]
    print(
        f"{len(bodies)} requests to the stand-in Gemini, each opening on a turn of role {sorted(set(firsts))}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
