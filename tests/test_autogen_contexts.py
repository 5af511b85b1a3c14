"""The four windows as AutoGen model contexts (messages.integrations.autogen), inside the real AutoGen.

Why they exist, in two named cases: on the same history AutoGen's own TokenLimitedChatCompletionContext at
a limit of 90 tokens sends a tool call without its result (a 400 from every provider: quirk 2), and its
HeadAndTailChatCompletionContext says "Skipped 5 messages" where it left out 7. These windows keep whole
exchanges and count right (messages.context's rules, shared through messages._window).

The behaviours autogen-core's own test_model_context.py checks (at the 0.7.5 release) are
checked here in our words; the file itself is run from outside against these classes (the report of issue
25 says how). Then: every generated conversation and every window size gives a window that passes
validate_conversation; AssistantAgent tool loops with these windows as model_context, their state loaded
into AutoGen's own contexts and back; dump_component / load_component.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from messages import (
    ContextStateError,
    MessageTypeError,
    ToolMessage,
    UserMessage,
    validate_conversation,
)
from messages import strategies as ms
from messages.convert.autogen import from_autogen, to_autogen
from tests.test_convert_autogen import holdable

pytest.importorskip("autogen_core")
import autogen_core.model_context as theirs
from autogen_core import FunctionCall
from autogen_core.model_context import ChatCompletionContext
from autogen_core.models import (
    AssistantMessage,
    CreateResult,
    FunctionExecutionResult,
    FunctionExecutionResultMessage,
    ModelFamily,
    RequestUsage,
    SystemMessage,
)
from autogen_core.models import UserMessage as AgUser

from messages.integrations.autogen import (
    BufferedChatCompletionContext,
    HeadAndTailChatCompletionContext,
    TokenLimitedChatCompletionContext,
    UnboundedChatCompletionContext,
)


def run(coroutine: Any) -> Any:
    return asyncio.run(coroutine)


@pytest.fixture
def tiktoken_offline(monkeypatch: pytest.MonkeyPatch) -> None:
    """AutoGen's OpenAI and Ollama clients count with tiktoken, which downloads its encodings unless they
    are cached: point it at the ones litellm ships (as litellm does when it counts)."""
    spec = importlib.util.find_spec("litellm")
    assert spec is not None
    assert spec.submodule_search_locations
    bundled = Path(spec.submodule_search_locations[0]) / "litellm_core_utils" / "tokenizers"
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(bundled))


def openai_client() -> Any:
    from autogen_ext.models.openai import OpenAIChatCompletionClient

    return OpenAIChatCompletionClient(model="gpt-4o", api_key="offline")


async def fill(context: ChatCompletionContext, messages: list[Any]) -> list[Any]:
    for message in messages:
        await context.add_message(message)
    return await context.get_messages()


def user(text: str) -> AgUser:
    return AgUser(content=text, source="user")


def said(text: str) -> AssistantMessage:
    return AssistantMessage(content=text, source="assistant")


def calls(*ids: str, name: str = "get_weather") -> AssistantMessage:
    return AssistantMessage(
        content=[FunctionCall(id=i, arguments=json.dumps({"city": i}), name=name) for i in ids],
        source="assistant",
    )


def results(*ids: str, name: str = "get_weather") -> FunctionExecutionResultMessage:
    return FunctionExecutionResultMessage(
        content=[FunctionExecutionResult(content=f"weather of {i}", name=name, call_id=i) for i in ids]
    )


CHAT = [
    user("Hello!"),
    said("What can I do for you?"),
    user("Tell what are some fun things to do in seattle."),
]

# A weather chat of two tool rounds (nine AutoGen messages).
WEATHER = [
    user("What is the weather in Paris?"),
    AssistantMessage(
        content=[FunctionCall(id="call_1", arguments='{"city": "Paris"}', name="get_weather")],
        source="assistant",
    ),
    FunctionExecutionResultMessage(
        content=[FunctionExecutionResult(content="Sunny, 24 degrees", name="get_weather", call_id="call_1")]
    ),
    said("It is sunny and 24 degrees in Paris."),
    user("And in Tokyo?"),
    AssistantMessage(
        content=[FunctionCall(id="call_2", arguments='{"city": "Tokyo"}', name="get_weather")],
        source="assistant",
    ),
    FunctionExecutionResultMessage(
        content=[FunctionExecutionResult(content="Rain, 18 degrees", name="get_weather", call_id="call_2")]
    ),
    said("It is raining and 18 degrees in Tokyo."),
    user("Thanks! What to pack?"),
]


def valid(window: list[Any]) -> bool:
    try:
        validate_conversation(from_autogen(window))
    except ValueError:
        return False
    return True


# --- why: the two AutoGen cases -----------------------------------------------------------------------


def test_at_a_token_limit_of_90_autogens_window_sends_a_call_without_its_result_and_ours_does_not(
    tiktoken_offline,
):
    client = openai_client()
    autogen = run(fill(theirs.TokenLimitedChatCompletionContext(client, token_limit=90), WEATHER))
    # AutoGen pops from the middle until the count fits: the Paris call stays, its result goes.
    assert [type(m).__name__ for m in autogen] == [
        "UserMessage",
        "AssistantMessage",
        "AssistantMessage",
        "UserMessage",
    ]
    assert autogen[1] is WEATHER[1]
    assert not valid(autogen)
    ours_context = TokenLimitedChatCompletionContext(client, token_limit=90)
    ours = run(fill(ours_context, WEATHER))
    assert valid(ours)
    assert ours == WEATHER[-len(ours) :]  # the newest whole exchanges
    assert ours_context.token_count() <= 90
    assert client.count_tokens(ours) == ours_context.token_count()
    # The next older exchange would not have fitted.
    assert client.count_tokens(WEATHER[-len(ours) - 3 :]) > 90


def test_autogens_head_and_tail_says_skipped_5_when_7_were_left_out_and_ours_says_7():
    history = [
        user("Weather in Paris?"),
        calls("call_1"),
        results("call_1"),
        said("Sunny."),
        user("And Tokyo?"),
        user("And the time there, too."),
        calls("call_2"),
        results("call_2"),
        said("Rain, and it is noon."),
    ]
    autogen = run(fill(theirs.HeadAndTailChatCompletionContext(head_size=2, tail_size=2), history))
    # It trims the call from the head and the result from the tail, but counts as if it had not.
    assert autogen[0] is history[0]
    assert autogen[1].content == "Skipped 5 messages."
    assert autogen[2] is history[-1]
    assert len(history) - 2 == 7  # what it really left out
    ours = run(fill(HeadAndTailChatCompletionContext(head_size=2, tail_size=2), history))
    assert ours == [history[0], AgUser(content="Skipped 7 messages.", source="System"), history[-1]]
    assert valid(ours)


# --- AutoGen's own model-context tests, in our words --------------------------------------------------


def test_a_buffered_window_keeps_the_newest_messages_and_reloads_its_state():
    context = BufferedChatCompletionContext(buffer_size=2)
    assert run(fill(context, CHAT)) == CHAT[1:]
    run(context.clear())
    assert run(context.get_messages()) == []
    run(fill(context, CHAT[:2]))
    state = run(context.save_state())
    run(context.clear())
    run(context.load_state(state))
    assert run(context.get_messages()) == CHAT[:2]


def test_a_head_and_tail_window_keeps_the_first_and_last_with_a_note_between_and_reloads_its_state():
    history = [*CHAT, said("Pike place, space needle, mt rainer"), user("More places?")]
    context = HeadAndTailChatCompletionContext(head_size=1, tail_size=1)
    window = run(fill(context, history))
    assert window == [history[0], AgUser(content="Skipped 3 messages.", source="System"), history[-1]]
    run(context.clear())
    assert run(context.get_messages()) == []
    run(fill(context, history))
    state = run(context.save_state())
    run(context.clear())
    run(context.load_state(state))
    assert run(context.get_messages()) == window


def test_an_unbounded_window_keeps_everything_and_reloads_its_state():
    context = UnboundedChatCompletionContext()
    assert run(fill(context, CHAT)) == CHAT
    run(context.clear())
    assert run(context.get_messages()) == []
    run(fill(context, CHAT))
    state = run(context.save_state())
    run(context.clear())
    run(context.load_state(state))
    assert run(context.get_messages()) == CHAT


@pytest.mark.parametrize("client_name", ["openai", "ollama"])
def test_a_token_limited_window_counts_with_autogens_own_clients(tiktoken_offline, client_name):
    if client_name == "openai":
        client = openai_client()
    else:
        from autogen_ext.models.ollama import OllamaChatCompletionClient

        client = OllamaChatCompletionClient(model="llama3.3")
    total = client.count_tokens(CHAT)
    limited = TokenLimitedChatCompletionContext(model_client=client, token_limit=total - 1)
    window = run(fill(limited, CHAT))
    assert window == CHAT[1:] or window == CHAT[2:]
    assert client.count_tokens(window) <= total - 1
    state = run(limited.save_state())
    run(limited.clear())
    assert run(limited.get_messages()) == []
    run(limited.load_state(state))
    assert run(limited.get_messages()) == window
    # Without a limit: the model's own window (remaining_tokens), which these three fit in.
    assert run(fill(TokenLimitedChatCompletionContext(model_client=client), CHAT)) == CHAT
    # A result message whose call is gone, first in the history, is left out (AutoGen's case of an empty one).
    leading = run(fill(TokenLimitedChatCompletionContext(client, token_limit=total + 50), [results(), *CHAT]))
    assert leading == CHAT


def test_a_token_limited_window_counts_with_a_litellm_model_name_instead(litellm):
    context = TokenLimitedChatCompletionContext(model="gpt-4o", token_limit=40)
    window = run(fill(context, WEATHER))
    assert valid(window)
    dumped = [m.model_dump() for m in from_autogen(window)]
    assert context.token_count() == litellm.token_counter(model="gpt-4o", messages=dumped)
    assert context.token_count() <= 40
    assert TokenLimitedChatCompletionContext(model="gpt-4o")._ensure_limit() == 128000


def test_a_token_limited_window_counts_each_message_once(tiktoken_offline):
    class Counting:
        """AutoGen's OpenAI client, counting how many messages it is asked to count."""

        def __init__(self) -> None:
            self.client = openai_client()
            self.counted = 0

        def count_tokens(self, messages: Any, *, tools: Any = ()) -> int:
            self.counted += len(messages)
            return self.client.count_tokens(messages, tools=tools)

    counter = Counting()
    context = TokenLimitedChatCompletionContext(counter, token_limit=60)  # type: ignore[arg-type]
    history = WEATHER * 20
    for message in history:
        run(context.add_message(message))
        assert valid(run(context.get_messages())) or isinstance(message, AssistantMessage)
    assert counter.counted == len(history)  # AutoGen's counts its whole window again after every pop


# --- the rules, over every conversation ---------------------------------------------------------------


def trimmed_log(conversation: list[Any]) -> list[Any]:
    """The history of a log whose start was cut off: a leading result message whose call is gone."""
    return [results("gone_1", "gone_2"), *conversation]


@settings(max_examples=40)
@given(ms.conversations().map(holdable), st.booleans(), st.data())
def test_every_window_of_every_conversation_passes_validation(conversation, cut, data):
    history = to_autogen(conversation)
    if cut:
        history = trimmed_log(history)
    size = len(history)
    buffer = data.draw(st.integers(1, size + 1), label="buffer_size")
    head = data.draw(st.integers(0, size), label="head_size")
    tail = data.draw(st.integers(1, size + 1), label="tail_size")
    limit = data.draw(st.integers(1, 400), label="token_limit")
    windows = {
        "unbounded": UnboundedChatCompletionContext(),
        "buffered": BufferedChatCompletionContext(buffer),
        "head_and_tail": HeadAndTailChatCompletionContext(head, tail),
        # A deterministic counter: each message counts its JSON length / 10, plus 3 for the list.
        "token_limited": TokenLimitedChatCompletionContext(JsonLengthClient(), token_limit=limit),  # type: ignore[arg-type]
    }
    systems = 0
    while systems < len(history) and isinstance(history[systems], SystemMessage):
        systems += 1
    for name, context in windows.items():
        window = run(fill(context, history))
        validate_conversation(from_autogen(window))
        # Leading system messages kept; the rest a subsequence of the history (but the placeholder).
        assert window[:systems] == history[:systems], name
        kept = [m for m in window if not (isinstance(m, AgUser) and m.source == "System")]
        positions = [next(i for i, h in enumerate(history) if h is m) for m in kept]
        assert positions == sorted(positions), name
        if cut:
            assert history[systems] not in window, name  # the orphan result is left out
        if name == "buffered" and len(history) > systems:
            # Within the bound, unless the window is only the newest exchange, larger than the bound.
            newest = len(history) - 1
            while newest > systems and isinstance(history[newest], FunctionExecutionResultMessage):
                newest -= 1
            assert len(window) - systems <= buffer or window[systems:] == history[newest:], name


class JsonLengthClient:
    """Counts like a client would, by a rule the test can repeat: len(JSON) // 10 per message, 3 per list."""

    def count_tokens(self, messages: Any, *, tools: Any = ()) -> int:
        return 3 + sum(len(m.model_dump_json()) // 10 for m in messages)


# --- inside an AssistantAgent -------------------------------------------------------------------------


def get_weather(city: str) -> str:
    """The weather in a city."""
    return f"Sunny in {city}"


def replay_client(rounds: int) -> Any:
    from autogen_ext.models.replay import ReplayChatCompletionClient

    script: list[Any] = [
        CreateResult(
            finish_reason="function_calls",
            content=[
                FunctionCall(id=f"call_{i}", arguments=json.dumps({"city": f"city {i}"}), name="get_weather")
            ],
            usage=RequestUsage(prompt_tokens=10, completion_tokens=5),
            cached=False,
        )
        for i in range(rounds)
    ]
    script.append(
        CreateResult(
            finish_reason="stop",
            content="Done.",
            usage=RequestUsage(prompt_tokens=10, completion_tokens=5),
            cached=False,
        )
    )
    return ReplayChatCompletionClient(
        script,
        model_info={
            "function_calling": True,
            "vision": False,
            "json_output": False,
            "family": ModelFamily.GPT_4O,
            "structured_output": False,
        },
    )


def test_an_assistant_agent_tool_loop_sends_whole_exchanges_and_its_state_moves_between_contexts():
    from autogen_agentchat.agents import AssistantAgent

    model = replay_client(rounds=3)
    context = BufferedChatCompletionContext(buffer_size=4)
    agent = AssistantAgent(
        "weather", model_client=model, tools=[get_weather], model_context=context, max_tool_iterations=4
    )
    result = run(agent.run(task="Weather in three cities?"))
    assert result.messages[-1].content == "Done."
    # Every request the agent made was a valid conversation, though the window is smaller than the loop.
    sent = model.create_calls
    assert len(sent) == 4
    for request in sent:
        assert valid(list(request["messages"]))
        assert not isinstance(request["messages"][1], FunctionExecutionResultMessage)
    state = run(agent.save_state())
    # AutoGen's own context reads our state, and ours reads AutoGen's.
    other = AssistantAgent(
        "weather", model_client=replay_client(0), model_context=theirs.UnboundedChatCompletionContext()
    )
    run(other.load_state(state))
    history = run(other.model_context.get_messages())
    assert len(history) == 1 + 3 * 2 + 1
    back = AssistantAgent(
        "weather", model_client=replay_client(0), model_context=HeadAndTailChatCompletionContext(1, 2)
    )
    run(back.load_state(run(other.save_state())))
    window = run(back.model_context.get_messages())
    # The head is the task; the tail cannot hold the last call with its result within 2, so it is the
    # final answer alone; the 6 messages between are left out, and said so.
    assert window == [history[0], AgUser(content="Skipped 6 messages.", source="System"), history[-1]]
    assert valid(window)


def test_an_assistant_agent_with_our_window_dumps_and_loads_as_a_component():
    from autogen_agentchat.agents import AssistantAgent

    agent = AssistantAgent(
        "weather",
        model_client=replay_client(0),
        model_context=BufferedChatCompletionContext(buffer_size=6, initial_messages=[user("Earlier")]),
    )
    dumped = agent.dump_component()
    assert (
        dumped.config["model_context"]["provider"]
        == "messages.integrations.autogen.BufferedChatCompletionContext"
    )
    loaded = AssistantAgent.load_component(json.loads(dumped.model_dump_json()))
    assert isinstance(loaded.model_context, BufferedChatCompletionContext)
    assert loaded.model_context.buffer_size == 6
    assert run(loaded.model_context.get_messages()) == [user("Earlier")]


@pytest.mark.parametrize(
    "context",
    [
        UnboundedChatCompletionContext(initial_messages=[user("hi")]),
        BufferedChatCompletionContext(buffer_size=3),
        HeadAndTailChatCompletionContext(head_size=0, tail_size=4),
        TokenLimitedChatCompletionContext(model="gpt-4o-mini", token_limit=500, tool_schema=[{"name": "f"}]),
    ],
    ids=lambda c: type(c).__name__,
)
def test_every_window_dumps_and_loads_as_a_component_with_its_own_config_schema(context):
    dumped = context.dump_component()
    assert dumped.provider == f"messages.integrations.autogen.{type(context).__name__}"
    assert dumped.component_type == "chat_completion_context"
    loaded = ChatCompletionContext.load_component(json.loads(dumped.model_dump_json()))
    assert type(loaded) is type(context)
    assert loaded.dump_component() == dumped
    assert type(context).component_config_schema.__module__ == "messages.integrations.autogen._contexts"


def test_the_token_limited_windows_counter_is_a_serializable_model_client(tiktoken_offline):
    context = TokenLimitedChatCompletionContext(openai_client(), token_limit=60)
    dumped = json.loads(context.dump_component().model_dump_json())
    assert (
        dumped["config"]["model_client"]["provider"] == "autogen_ext.models.openai.OpenAIChatCompletionClient"
    )
    loaded = ChatCompletionContext.load_component(dumped)
    assert isinstance(loaded, TokenLimitedChatCompletionContext)
    assert loaded.model_client is not None
    assert run(fill(loaded, WEATHER)) == run(fill(context, WEATHER))
    with pytest.raises(TypeError, match="exactly one of model_client"):
        TokenLimitedChatCompletionContext()
    with pytest.raises(TypeError, match="exactly one of model_client"):
        TokenLimitedChatCompletionContext(openai_client(), model="gpt-4o")


# --- the leading orphan, and bad input -----------------------------------------------------------------


@pytest.mark.parametrize(
    "context",
    [
        UnboundedChatCompletionContext(),
        BufferedChatCompletionContext(buffer_size=10),
        HeadAndTailChatCompletionContext(head_size=2, tail_size=10),
        TokenLimitedChatCompletionContext(JsonLengthClient(), token_limit=10_000),  # type: ignore[arg-type]
    ],
    ids=lambda c: type(c).__name__,
)
def test_a_leading_orphan_result_is_left_out_of_the_window_but_kept_in_the_state(context):
    history = [SystemMessage(content="Be brief."), *trimmed_log(CHAT)]
    window = run(fill(context, history))
    assert window == [history[0], *CHAT]
    assert valid(window)
    assert len(run(context.save_state())["messages"]) == len(history)


def test_what_is_not_a_state_or_not_a_message_is_refused_and_the_window_left_as_it_was():
    context = BufferedChatCompletionContext(buffer_size=2)
    run(fill(context, CHAT))
    with pytest.raises(ContextStateError, match="not AutoGen's model-context state"):
        run(context.load_state({"messages": [{"role": "user", "content": "an OpenAI dict"}]}))
    assert run(context.get_messages()) == CHAT[1:]
    with pytest.raises(MessageTypeError, match="not an AutoGen LLMMessage"):
        run(context.add_message(UserMessage(content="one of ours")))  # type: ignore[arg-type]
    with pytest.raises(MessageTypeError, match="initial message 0"):
        BufferedChatCompletionContext(2, initial_messages=[ToolMessage(tool_call_id="c", content="x")])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="buffer_size must be at least 1"):
        BufferedChatCompletionContext(0)
