"""LiteLLMChatCompletionClient (messages.integrations.autogen) inside the real AutoGen, through the real
litellm, against the package's stand-ins: an AssistantAgent tool loop on OpenAI, Anthropic, Gemini, Mistral
and Bedrock whose every request body passes the conformance rules and the provider SDKs' own request types;
AutoGen's own OpenAI client, pointed at Gemini's OpenAI-compatible route, sends an empty text part the
catalog says Gemini refuses (quirk 23), where this client sends it fixed; streaming, JSON output, usage,
finish reasons, cancellation, model_info, token counts, components."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import threading
from typing import Any

import pytest
from pydantic import BaseModel

from messages import AIMessage, ToolCall, dump_messages, get_profile
from messages.convert.autogen import from_autogen
from messages.testing import StandInServer, scripted
from tests.conformance.harness import evaluate
from tests.conformance.providers import Provider

pytest.importorskip("autogen_core")
from autogen_core import CancellationToken, FunctionCall, Image
from autogen_core.models import (
    AssistantMessage,
    ChatCompletionClient,
    CreateResult,
    FunctionExecutionResult,
    FunctionExecutionResultMessage,
    ModelInfo,
    SystemMessage,
    UserMessage,
)

from messages.integrations.autogen import (
    BufferedChatCompletionContext,
    LiteLLMChatCompletionClient,
    TokenLimitedChatCompletionContext,
)

pytestmark = pytest.mark.litellm

PROVIDERS = [
    Provider("openai", "openai/gpt-4o-mini", "openai"),
    Provider("anthropic", "anthropic/claude-sonnet-4-5", "anthropic"),
    Provider("gemini", "gemini/gemini-2.5-flash", "gemini"),
    Provider("mistral", "mistral/mistral-large-latest", "openai"),
    Provider("bedrock", "bedrock/converse/anthropic.claude-3-5-sonnet-20240620-v1:0", "bedrock"),
]


def run(coroutine: Any) -> Any:
    return asyncio.run(coroutine)


def get_weather(city: str) -> str:
    """The weather in a city."""
    return "" if city == "Nowhere" else f"Sunny in {city}"


def client_for(server: StandInServer, model: str, **options: Any) -> LiteLLMChatCompletionClient:
    return LiteLLMChatCompletionClient(model, **server.completion_kwargs(model), **options)


@pytest.mark.parametrize("provider", PROVIDERS, ids=lambda p: p.key)
def test_an_assistant_agent_tool_loop_through_litellm_sends_bodies_every_provider_accepts(litellm, provider):
    from autogen_agentchat.agents import AssistantAgent

    replies = scripted(
        # OpenAI-style ids, which Mistral (quirk 30) and Bedrock need rewritten; an empty result (quirks
        # 23, 70: Gemini and Bedrock refuse empty content) from the call for Nowhere.
        AIMessage(
            content="Let me look both up.",
            tool_calls=[
                ToolCall(id="call_Pq8sLm2XvB7nR4tW", name="get_weather", arguments={"city": "Paris"}),
                ToolCall(id="call_Zk3Jd9Hf0Qa1Ue6Y", name="get_weather", arguments={"city": "Nowhere"}),
            ],
        ),
        AIMessage(content="Paris is sunny; Nowhere said nothing."),
    )
    with StandInServer(replies) as server:
        model = client_for(server, provider.model)
        sent: list[list[Any]] = []  # what the agent asked the client to send, request by request
        create = model.create

        async def recording(messages: Any, **kwargs: Any) -> CreateResult:
            sent.append(list(messages))
            return await create(messages, **kwargs)

        model.create = recording  # type: ignore[method-assign]
        agent = AssistantAgent(
            "weather",
            model_client=model,
            tools=[get_weather],
            model_context=BufferedChatCompletionContext(buffer_size=8),
            reflect_on_tool_use=True,
        )
        result = run(agent.run(task="Weather in Paris and Nowhere?"))
        state = run(agent.save_state())
        bodies = server.bodies()
    assert result.messages[-1].content == "Paris is sunny; Nowhere said nothing."
    assert len(bodies) == len(sent) == 2
    context = state["llm_context"]["messages"]
    assert [m["type"] for m in context] == [
        "UserMessage",
        "AssistantMessage",
        "FunctionExecutionResultMessage",
        "AssistantMessage",
    ]
    for messages, body in zip(sent, bodies, strict=True):
        # The provider's rules, its SDK's request type, and nothing of the conversation lost. The agent's
        # reflection on the tool results sends no tools; for Bedrock, which then refuses tool blocks,
        # litellm sends the calls and results as text, where the check looks for them.
        judged = provider if _has_tools(body) else dataclasses.replace(provider, has_tools=False)
        assert evaluate(judged, from_autogen(messages), body) == [], json.dumps(body)[:2000]
    assert model.total_usage().prompt_tokens > 0


def _has_tools(body: dict[str, Any]) -> bool:
    return bool(body.get("tools") or body.get("toolConfig"))


def test_autogens_own_client_sends_gemini_an_empty_text_part_and_this_one_sends_it_fixed(litellm):
    """AutoGen's Gemini transformers turn an empty text into " ", but only for text content: an empty text
    beside an image goes out as it is, which the catalog's quirk 23 says Gemini refuses."""
    from autogen_ext.models.openai import OpenAIChatCompletionClient
    from PIL import Image as PILImage

    picture = Image(PILImage.new("RGB", (2, 2), (0, 128, 255)))
    conversation = [UserMessage(content=["", picture], source="user")]
    gemini = get_profile("gemini/gemini-2.5-flash")
    with StandInServer(scripted(AIMessage(content="A blue square."))) as server:
        theirs = OpenAIChatCompletionClient(
            model="gemini-2.5-flash",
            base_url=f"{server.url}/v1beta/openai/",
            api_key="stand-in-key",
            max_retries=0,
        )
        run(theirs.create(conversation))
        sent_by_autogen = server.last_body()
        ours = client_for(server, "gemini/gemini-2.5-flash")
        reply = run(ours.create(conversation))
        sent_by_us = server.last_body()
    assert server.requests[0].path == "/v1beta/openai/chat/completions"
    refused = gemini.check(sent_by_autogen["messages"])
    assert [(v.index, v.row) for v in refused] == [(0, 23)], [str(v) for v in refused]
    assert sent_by_autogen["messages"][0]["content"][0] == {"type": "text", "text": ""}
    gemini_provider = next(p for p in PROVIDERS if p.key == "gemini")
    assert evaluate(gemini_provider, from_autogen(conversation), sent_by_us) == []
    # What we handed litellm passes the profile's own check, and the image went out.
    assert gemini.check(dump_messages(from_autogen(conversation), model="gemini/gemini-2.5-flash")) == []
    assert any("inline_data" in part for part in sent_by_us["contents"][0]["parts"])
    assert reply.content == "A blue square."


def test_a_stream_yields_the_text_then_the_result_with_usage(litellm):
    replies = scripted(
        AIMessage(content="It is sunny in Paris today, with a light breeze."),
        AIMessage(
            content="Checking.",
            tool_calls=[ToolCall(id="call_1", name="get_weather", arguments={"city": "Oslo"})],
        ),
    )
    with StandInServer(replies) as server:
        model = client_for(server, "openai/gpt-4o-mini")

        async def collect(**kwargs: Any) -> list[Any]:
            return [
                item
                async for item in model.create_stream(
                    [UserMessage(content="Weather?", source="user")], **kwargs
                )
            ]

        text = run(collect())
        calling = run(collect(tools=[get_weather_schema()]))
        body = server.last_body()
    *pieces, result = text
    assert len(pieces) > 1
    assert all(isinstance(p, str) for p in pieces)
    assert "".join(pieces) == result.content == "It is sunny in Paris today, with a light breeze."
    assert result.finish_reason == "stop"
    assert result.usage.prompt_tokens > 0
    assert result.usage.completion_tokens > 0
    *said, called = calling
    assert "".join(said) == "Checking."
    assert called.content == [FunctionCall(id="call_1", arguments='{"city":"Oslo"}', name="get_weather")]
    assert called.thought == "Checking."
    assert called.finish_reason == "function_calls"
    assert body["stream"] is True
    assert body["tool_choice"] == "auto"
    assert model.total_usage().prompt_tokens == result.usage.prompt_tokens + called.usage.prompt_tokens


def get_weather_schema() -> dict[str, Any]:
    return {
        "name": "get_weather",
        "description": "The weather in a city.",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    }


class Forecast(BaseModel):
    city: str
    sky: str


def test_json_output_asks_for_json_mode_or_the_models_schema(litellm):
    with StandInServer(scripted(AIMessage(content='{"city": "Paris", "sky": "clear"}'))) as server:
        model = client_for(server, "openai/gpt-4o-mini")
        asked = [UserMessage(content="Forecast for Paris as JSON.", source="user")]
        mode = run(model.create(asked, json_output=True))
        mode_body = server.last_body()
        structured = run(model.create(asked, json_output=Forecast))
        schema_body = server.last_body()
    assert mode_body["response_format"] == {"type": "json_object"}
    assert schema_body["response_format"]["type"] == "json_schema"
    assert schema_body["response_format"]["json_schema"]["schema"]["properties"].keys() == {"city", "sky"}
    assert Forecast.model_validate_json(structured.content) == Forecast(city="Paris", sky="clear")
    assert mode.content == structured.content


@pytest.mark.parametrize(
    ("reason", "expected"),
    [
        ("stop", "stop"),
        ("length", "length"),
        ("content_filter", "content_filter"),
        ("end_turn", "stop"),
        ("odd", "unknown"),
    ],
)
def test_finish_reasons_map_to_autogens(reason, expected):
    # litellm hands over OpenAI's reasons (and maps a provider's own, such as Anthropic's end_turn, to
    # them); what reaches the mapping is named here as it would be on the wire.
    from messages.integrations.autogen._client import _result

    assert _result(AIMessage(content="x"), reason, _usage(), False).finish_reason == expected


def _usage() -> Any:
    from autogen_core.models import RequestUsage

    return RequestUsage(prompt_tokens=0, completion_tokens=0)


def test_a_cancelled_request_stops_waiting_for_the_provider(litellm):
    release = threading.Event()
    reached = threading.Event()

    def slow(body: dict[str, Any]) -> AIMessage:
        reached.set()
        release.wait(60)  # set when the test ends
        return AIMessage(content="too late")

    with StandInServer(scripted(slow)) as server:
        model = client_for(server, "openai/gpt-4o-mini")

        async def cancel_midway() -> None:
            token = CancellationToken()
            request = asyncio.ensure_future(
                model.create([UserMessage(content="hi", source="user")], cancellation_token=token)
            )
            # Midway: the request reached the provider (seconds, on a busy machine).
            assert await asyncio.get_running_loop().run_in_executor(None, reached.wait, 60)
            token.cancel()
            with pytest.raises(asyncio.CancelledError):
                await request

        try:
            run(cancel_midway())
        finally:
            release.set()
    assert model.total_usage().prompt_tokens == 0


def test_model_info_and_token_counts_come_from_litellm(litellm):
    model = LiteLLMChatCompletionClient("gemini/gemini-2.5-flash")
    info = model.model_info
    assert info["function_calling"] is True
    assert info["vision"] is True
    assert info["family"] == "gemini-2.5-flash"
    assert LiteLLMChatCompletionClient("openai/gpt-4.1-nano").model_info["family"] == "gpt-41"
    assert (
        LiteLLMChatCompletionClient("bedrock/converse/anthropic.claude-3-5-sonnet-20240620-v1:0").model_info[
            "family"
        ]
        == "claude-3-5-sonnet"
    )
    given = {
        "vision": False,
        "function_calling": True,
        "json_output": False,
        "family": "unknown",
        "structured_output": False,
    }
    assert LiteLLMChatCompletionClient("openai/my-own", model_info=given).model_info == given
    with pytest.raises(ValueError, match="give model_info"):
        _ = LiteLLMChatCompletionClient("openai/my-own").model_info

    history = [
        SystemMessage(content="Be brief."),
        UserMessage(content="Weather in Paris?", source="user"),
        AssistantMessage(
            content=[FunctionCall(id="c1", arguments='{"city":"Paris"}', name="get_weather")],
            source="assistant",
        ),
        FunctionExecutionResultMessage(
            content=[FunctionExecutionResult(content="Sunny", name="get_weather", call_id="c1")]
        ),
    ]
    counter = LiteLLMChatCompletionClient("openai/gpt-4o")
    dumped = [m.model_dump() for m in from_autogen(history)]
    assert counter.count_tokens(history) == litellm.token_counter(model="openai/gpt-4o", messages=dumped)
    with_tools = counter.count_tokens(history, tools=[get_weather_schema()])
    assert with_tools > counter.count_tokens(history)
    assert counter.remaining_tokens(history) == 128000 - counter.count_tokens(history)
    assert (
        LiteLLMChatCompletionClient("openai/my-own", max_input_tokens=1000).remaining_tokens([]) == 1000 - 3
    )


def test_a_token_limited_window_counts_with_this_client(litellm):
    counter = LiteLLMChatCompletionClient("openai/gpt-4o")
    context = TokenLimitedChatCompletionContext(counter, token_limit=30)

    async def fill() -> list[Any]:
        for text in ["Hello!", "What can I do for you?", "Tell me what to do in Seattle, please."]:
            await context.add_message(UserMessage(content=text, source="user"))
        return await context.get_messages()

    window = run(fill())
    assert 0 < len(window) < 3
    assert counter.count_tokens(window) == context.token_count() <= 30


def test_the_client_dumps_and_loads_as_a_component_with_its_keys_masked(litellm):
    with StandInServer(scripted(AIMessage(content="hi"))) as server:
        model = client_for(server, "openai/gpt-4o-mini", temperature=0.2)
        dumped = model.dump_component()
        written = json.loads(dumped.model_dump_json())
        assert written["provider"] == "messages.integrations.autogen.LiteLLMChatCompletionClient"
        assert written["config"]["secret_args"]["api_key"] == "**********"
        assert written["config"]["completion_args"]["temperature"] == 0.2
        # Loaded from the dump object, the key is there; from its JSON, it has to be given again.
        loaded = ChatCompletionClient.load_component(dumped)
        assert isinstance(loaded, LiteLLMChatCompletionClient)
        result = run(loaded.create([UserMessage(content="hi", source="user")]))
        assert isinstance(result, CreateResult)
        headers = {k.lower(): v for k, v in server.requests[-1].headers.items()}
        assert headers["authorization"] == "Bearer stand-in-key"
        assert server.last_body()["temperature"] == 0.2
        # Loaded from its JSON, the mask is left out: litellm reads the key from its environment variable.
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("OPENAI_API_KEY", "sk-from-the-environment")
            reloaded = ChatCompletionClient.load_component(json.loads(dumped.model_dump_json()))
            run(reloaded.create([UserMessage(content="hi", source="user")]))
        headers = {k.lower(): v for k, v in server.requests[-1].headers.items()}
        assert headers["authorization"] == "Bearer sk-from-the-environment"


def test_a_window_that_breaks_the_protocol_is_refused_before_the_request(litellm):
    with StandInServer() as server:
        model = client_for(server, "openai/gpt-4o-mini")
        orphan = [
            UserMessage(content="hi", source="user"),
            FunctionExecutionResultMessage(
                content=[FunctionExecutionResult(content="x", name="f", call_id="gone")]
            ),
        ]
        with pytest.raises(ValueError, match="gone"):
            run(model.create(orphan))
        assert server.requests == []


def test_content_the_provider_has_no_form_for_is_refused_before_the_request_unless_asked_to_send(litellm):
    # DeepSeek's route takes text alone (quirk 36): an image would be dropped on the way without a word.
    tiny_png = Image.from_base64(
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
    )
    asked = [UserMessage(content=["what is in it?", tiny_png], source="user")]
    with StandInServer(scripted(AIMessage(content="a dot"))) as server:
        refusing = client_for(server, "deepseek/deepseek-chat")
        with pytest.raises(ValueError, match=r"message 0: part 1 is an image.*quirk 36"):
            run(refusing.create(asked))
        assert server.requests == []

        sending = client_for(server, "deepseek/deepseek-chat", on_unfixable="send")
        assert sending.dump_component().config["on_unfixable"] == "send"
        reloaded = ChatCompletionClient.load_component(sending.dump_component())
        result = run(reloaded.create(asked))
        assert result.content == "a dot"
        # Sent anyway, litellm's DeepSeek route flattens the parts to text and leaves the image out (it
        # says so in the text, to the model): what the refusal said would happen.
        sent = server.last_body()["messages"][0]["content"]
        assert isinstance(sent, str)
        assert sent.startswith("what is in it?")
        assert "iVBORw0KGgo" not in json.dumps(server.last_body())


def flood_level(river: str) -> str:
    """The flood level of a river."""
    raise ConnectionError(f"no gauge on the {river}")


@pytest.mark.parametrize("provider", PROVIDERS[1:3], ids=lambda p: p.key)
def test_a_tool_that_raises_goes_back_to_the_model_as_autogen_says_it(litellm, provider):
    # AutoGen flags the result is_error; its workbench writes the exception's text alone into the content.
    # The flag reaches no provider through litellm (quirk 71): every profile says it in the content
    # instead ("Error: ...", as AutoGen's agents word their own), and the client sends what it makes.
    from autogen_agentchat.agents import AssistantAgent

    replies = scripted(
        AIMessage(
            content="",
            tool_calls=[ToolCall(id="toolu_01", name="flood_level", arguments={"river": "Thames"})],
        ),
        AIMessage(content="The gauge is down."),
    )
    with StandInServer(replies) as server:
        agent = AssistantAgent(
            "rivers",
            model_client=client_for(server, provider.model),
            tools=[flood_level],
            reflect_on_tool_use=True,
        )
        result = run(agent.run(task="How high is the Thames?"))
        state = run(agent.save_state())
        second = server.bodies()[1]
    assert result.messages[-1].content == "The gauge is down."
    stored = state["llm_context"]["messages"][2]["content"][0]
    assert stored["is_error"] is True
    assert stored["content"] == "no gauge on the Thames"
    assert "Error: no gauge on the Thames" in json.dumps(second)
    assert "is_error" not in json.dumps(second)


def test_deepseeks_reasoning_beside_tool_calls_goes_back_as_it_was_written(litellm):
    # DeepSeek's thinking mode wants each tool-call turn's reasoning_content back (quirk 34); AutoGen's
    # FunctionCall and thought have no place for it. The client keeps it beside AutoGen's messages and sends
    # the real text, not the profile's stand-in " ", which a client without it (a history from another
    # process) still gets.
    from autogen_agentchat.agents import AssistantAgent

    model = "deepseek/deepseek-reasoner"
    replies = scripted(
        AIMessage(
            reasoning_content="The user wants Paris; call the tool.",
            tool_calls=[ToolCall(id="call_00_Pq8sLm2X", name="get_weather", arguments={"city": "Paris"})],
        ),
        AIMessage(content="It is sunny.", reasoning_content="Summarize."),
    )
    # litellm's map says deepseek-reasoner calls no tools (the R1 era); DeepSeek's thinking mode does.
    info = ModelInfo(
        vision=False, function_calling=True, json_output=True, family="r1", structured_output=False
    )
    with StandInServer(replies) as server:
        client = client_for(server, model, model_info=info)
        agent = AssistantAgent("w", model_client=client, tools=[get_weather], reflect_on_tool_use=True)
        run(agent.run(task="Weather in Paris?"))
        state = run(agent.save_state())
        sent = server.last_body()["messages"]
        fresh = client_for(server, model, model_info=info)
        history = [
            UserMessage(content="Weather in Paris?", source="user"),
            AssistantMessage(
                content=[
                    FunctionCall(id="call_00_Pq8sLm2X", name="get_weather", arguments='{"city": "Paris"}')
                ],
                source="w",
            ),
            FunctionExecutionResultMessage(
                content=[
                    FunctionExecutionResult(call_id="call_00_Pq8sLm2X", content="Sunny", name="get_weather")
                ]
            ),
        ]
        request = fresh._request(history, [], "auto", None, {})
    (turn,) = [m for m in sent if m.get("tool_calls")]
    assert turn["reasoning_content"] == "The user wants Paris; call the tool."
    assert [m["type"] for m in state["llm_context"]["messages"]][:2] == ["UserMessage", "AssistantMessage"]
    assert [m.get("reasoning_content") for m in request["messages"] if m.get("tool_calls")] == [" "]
