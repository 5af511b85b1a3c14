"""The named hard cases: conversations that litellm, on some route, turns into a body the provider
rejects, or into a body that silently says something else. Each names the quirks it
probes."""

from __future__ import annotations

import base64
from collections.abc import Callable

from messages import (
    AIMessage,
    ImagePart,
    Message,
    SystemMessage,
    TextPart,
    ToolCall,
    ToolMessage,
    UserMessage,
)

__all__ = ["CASES", "PNG", "png_part"]

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)
"""A real 1x1 PNG: its bytes match its media type (quirk 21)."""

_SIGNATURE = base64.b64encode(bytes(range(48))).decode()


def png_part() -> ImagePart:
    """The PNG as an inline data URL (providers that fetch URLs client-side cannot reach the network)."""
    return ImagePart(url="data:image/png;base64," + base64.b64encode(PNG).decode())


def _call(call_id: str, name: str = "get_weather", arguments: str = '{"city": "Paris"}') -> ToolCall:
    return ToolCall(id=call_id, name=name, arguments=arguments)


def _exchange(calls: list[ToolCall], results: list[str], **fields: object) -> list[Message]:
    turn: list[Message] = [AIMessage(content=None, tool_calls=calls, **fields)]  # type: ignore[arg-type]
    return turn + [ToolMessage.for_call(call, text) for call, text in zip(calls, results, strict=True)]


def empty_texts() -> list[Message]:
    """Empty user and assistant texts and an empty text part (quirks 13, 23, 32, 40, 43, 55)."""
    return [
        SystemMessage(content="Be brief."),
        UserMessage(content="Hello there."),
        AIMessage(content=""),
        UserMessage(content=""),
        UserMessage(content=[TextPart(text=""), TextPart(text="Are you still there?")]),
        AIMessage(content="Yes."),
        UserMessage(content="Good."),
    ]


def empty_tool_call_text() -> list[Message]:
    """An assistant turn with ``""`` beside its tool call, as streamed Anthropic replies read back
    (quirks 5, 13, 29, 40, 43, 50)."""
    calls = [_call("call_Ab12Cd34Ef56Gh78Ij90Kl")]
    return [
        UserMessage(content="Weather in Paris?"),
        AIMessage(content="", tool_calls=calls),
        ToolMessage.for_call(calls[0], "rain"),
        AIMessage(content="It rains in Paris."),
        UserMessage(content="Thanks."),
    ]


def empty_tool_result() -> list[Message]:
    """A tool that returned nothing (docs/litellm.md, 'Mistral drops messages whose content is
    empty'; quirks 43, 55)."""
    calls = [_call("call_Empty0Result1Here2Xy")]
    return [
        UserMessage(content="Clear the cache."),
        *_exchange(calls, [""]),
        AIMessage(content="Done: the cache is clear."),
        UserMessage(content="Thanks."),
    ]


def parallel_calls() -> list[Message]:
    """Three calls in one turn, answered out of order (quirks 16, 24, 44)."""
    calls = [
        _call("call_P1aaaaaaaaaaaaaaaaaaaaa"),
        _call("call_P2bbbbbbbbbbbbbbbbbbbbb", arguments='{"city": "Oslo"}'),
    ]
    calls.append(_call("call_P3ccccccccccccccccccccc", "get_time", '{"tz": "UTC"}'))
    return [
        UserMessage(content="Weather in Paris and Oslo, and the time?"),
        AIMessage(content="Checking all three.", tool_calls=calls),
        ToolMessage.for_call(calls[2], "12:00"),
        ToolMessage.for_call(calls[0], "rain in Paris"),
        ToolMessage.for_call(calls[1], {"sky": "clear", "city": "Oslo"}),
        AIMessage(content="Rain in Paris, clear in Oslo, noon UTC."),
        UserMessage(content="Thanks."),
    ]


def gemini_ids() -> list[Message]:
    """Ids as litellm mints them for Gemini, carrying a thought signature (quirks 3, 17, 25, 30, 45)."""
    calls = [
        ToolCall(
            id=f"call_{'0123456789abcdef' * 2}__thought__{_SIGNATURE}",
            name="get_weather",
            arguments='{"city": "Rome"}',
            provider_specific_fields={"thought_signature": _SIGNATURE},
        ),
        _call(f"call_{'fedcba9876543210' * 2}", arguments='{"city": "Milan"}'),
    ]
    return [
        UserMessage(content="Weather in Rome and Milan?"),
        *_exchange(calls, ["sunny in Rome", "fog in Milan"], provider="gemini"),
        AIMessage(content="Sunny in Rome, fog in Milan."),
        UserMessage(content="And tomorrow?"),
    ]


def kimi_ids() -> list[Message]:
    """Kimi's ``functions.name:index`` ids (quirks 17, 30, 45)."""
    calls = [_call("functions.get_weather:0"), _call("functions.get_time:1", "get_time", '{"tz": "CET"}')]
    return [
        UserMessage(content="Weather and time in Paris?"),
        *_exchange(calls, ["cloudy in Paris", "09:30 CET"]),
        AIMessage(content="Cloudy, 09:30."),
        UserMessage(content="Thanks."),
    ]


def per_turn_ids() -> list[Message]:
    """Kimi's ids minted again in every turn: ``functions.get_weather:0`` called twice, each result right
    after its own call (issue 13; quirks 17, 30, 45: unique ids for Claude and Bedrock)."""
    first = _call("functions.get_weather:0")
    second = _call("functions.get_weather:0", arguments='{"city": "Oslo"}')
    return [
        UserMessage(content="Weather in Paris?"),
        *_exchange([first], ["cloudy in Paris"]),
        AIMessage(content="Cloudy. Shall I check Oslo?"),
        UserMessage(content="Yes."),
        *_exchange([second], ["snow in Oslo"]),
        AIMessage(content="Snow in Oslo."),
        UserMessage(content="Thanks."),
    ]


def uuid_ids() -> list[Message]:
    """UUIDs, as Ollama mints them (quirks 30, 45)."""
    calls = [_call("5f0c6b1e-2d7a-4c8e-9b3f-1a2b3c4d5e6f")]
    return [
        UserMessage(content="Weather in Lyon?"),
        *_exchange(calls, ["windy in Lyon"]),
        AIMessage(content="Windy."),
        UserMessage(content="Ok."),
    ]


def long_ids() -> list[Message]:
    """An id longer than OpenAI's 40 and Bedrock's 64 characters (quirks 3, 45)."""
    calls = [_call("call_" + "A1b2C3d4E5" * 8)]
    return [
        UserMessage(content="Weather in Nice?"),
        *_exchange(calls, ["mild in Nice"]),
        AIMessage(content="Mild."),
        UserMessage(content="Ok."),
    ]


def names() -> list[Message]:
    """``name`` on system, user, assistant and tool messages (quirks 4, 33, 37, 55, 57, 59)."""
    calls = [_call("call_Names0000000000000000")]
    return [
        SystemMessage(content="You are the weather desk.", name="ops"),
        UserMessage(content="Weather in Bern?", name="alice"),
        AIMessage(content=None, tool_calls=calls, name="weather_bot"),
        ToolMessage(tool_call_id=calls[0].id, content="snow in Bern", name="get_weather"),
        AIMessage(content="Snow in Bern.", name="weather_bot"),
        UserMessage(content="Thanks!", name="alice"),
    ]


def anthropic_reasoning() -> list[Message]:
    """A signed Anthropic thinking turn with a tool call (quirks 18, 34, 37, 33: provider-bound payloads)."""
    calls = [ToolCall(id="toolu_01ReasonAaaaaaaaaaaaaaa", name="get_weather", arguments='{"city": "Bonn"}')]
    thinking = [{"type": "thinking", "thinking": "The user wants Bonn's weather.", "signature": _SIGNATURE}]
    return [
        UserMessage(content="Weather in Bonn?"),
        *_exchange(
            calls,
            ["hail in Bonn"],
            reasoning_content="The user wants Bonn's weather.",
            thinking_blocks=thinking,
            provider="anthropic",
        ),
        AIMessage(content="Hail in Bonn.", reasoning_content="Reporting the result."),
        UserMessage(content="Thanks."),
    ]


def deepseek_reasoning() -> list[Message]:
    """DeepSeek-style ``reasoning_content`` on a tool-call turn (quirks 34, 33, 37)."""
    calls = [_call("call_00_ReasonDeepSeek0001")]
    return [
        UserMessage(content="Weather in Graz?"),
        *_exchange(calls, ["dry in Graz"], reasoning_content="I should call get_weather for Graz."),
        AIMessage(content="Dry in Graz."),
        UserMessage(content="Thanks."),
    ]


def images() -> list[Message]:
    """An image in a user turn and in a tool result (quirks 7, 21, 39, 51)."""
    calls = [_call("call_Images00000000000000", "take_photo", '{"where": "garden"}')]
    return [
        SystemMessage(content="Describe images briefly."),
        UserMessage(content=[TextPart(text="What is in this picture?"), png_part()]),
        AIMessage(content="A single pixel. Let me take a photo of the garden.", tool_calls=calls),
        ToolMessage(tool_call_id=calls[0].id, content=[TextPart(text="photo of the garden"), png_part()]),
        AIMessage(content="The photo is one pixel too."),
        UserMessage(content="Thanks."),
    ]


def consecutive_roles() -> list[Message]:
    """Two user turns, then two assistant turns, in a row (quirks 20, 42, 53, 57)."""
    return [
        UserMessage(content="First question: the capital of France?"),
        UserMessage(content="Second question: of Italy?"),
        AIMessage(content="Paris."),
        AIMessage(content="Rome."),
        UserMessage(content="Thanks."),
    ]


def user_after_tool() -> list[Message]:
    """A user turn right after the tool results (quirks 16, 24, 31, 44)."""
    calls = [_call("call_UserAfterTool00000000")]
    return [
        UserMessage(content="Weather in Bruges?"),
        *_exchange(calls, ["drizzle in Bruges"]),
        UserMessage(content="Also, should I bring an umbrella?"),
    ]


def system_mid_conversation() -> list[Message]:
    """A system message half-way (quirks 8, 19, 27, 57)."""
    return [
        SystemMessage(content="Answer in English."),
        UserMessage(content="Hello."),
        AIMessage(content="Hello! How can I help?"),
        SystemMessage(content="From now on, answer in French."),
        UserMessage(content="What time is it?"),
    ]


def ends_on_assistant() -> list[Message]:
    """A prefill: the last turn is the assistant's, ending in whitespace (quirks 14, 15, 31, 47)."""
    return [
        UserMessage(content="Write a haiku about rain."),
        AIMessage(content="Here is the haiku: "),
    ]


def empty_arguments() -> list[Message]:
    """A call streamed without argument fragments: ``arguments == ""`` (quirks 53, 58)."""
    calls = [_call("call_NoArgs000000000000000", "get_time", "")]
    return [
        UserMessage(content="What time is it?"),
        *_exchange(calls, ["12:00"]),
        AIMessage(content="It is noon."),
        UserMessage(content="Thanks."),
    ]


def identical_parallel_calls() -> list[Message]:
    """Two calls of one tool with the same arguments in one turn (quirks 16, 24, 44)."""
    calls = [
        _call("call_Twice1aaaaaaaaaaaaaaaa", "get_time", "{}"),
        _call("call_Twice2bbbbbbbbbbbbbbbb", "get_time", "{}"),
    ]
    return [
        UserMessage(content="Read the clock twice, to be sure."),
        *_exchange(calls, ["12:00:01", "12:00:02"]),
        AIMessage(content="Both reads agree: just after noon."),
        UserMessage(content="Thanks."),
    ]


def image_only_turn() -> list[Message]:
    """A user turn that is one image and no text (quirks 23, 36, 51)."""
    return [
        UserMessage(content="I will send you a picture."),
        AIMessage(content="Go ahead."),
        UserMessage(content=[png_part()]),
    ]


def blank_text_parts() -> list[Message]:
    """Whitespace-only and empty text parts in the system message (first and half-way), beside tool
    calls and in tool results (quirks 13, 23, 36, 43; docs/litellm.md,
    'Anthropic gets a placeholder text for empty content')."""
    calls = [
        _call("call_Blank1aaaaaaaaaaaaaaaa"),
        _call("call_Blank2bbbbbbbbbbbbbbbb", arguments='{"city": "Oslo"}'),
    ]
    return [
        SystemMessage(content=[TextPart(text="Be brief."), TextPart(text=" ")]),
        UserMessage(content="Weather in Paris and Oslo?"),
        AIMessage(content=[TextPart(text=""), TextPart(text="\n")], tool_calls=calls),
        ToolMessage(tool_call_id=calls[0].id, content=[TextPart(text="\n"), TextPart(text="rain in Paris")]),
        ToolMessage(tool_call_id=calls[1].id, content=[TextPart(text="")]),
        AIMessage(content="Rain in Paris; Oslo sent nothing."),
        SystemMessage(content=[TextPart(text="Stay brief."), TextPart(text="\n")]),
        UserMessage(content="Thanks."),
    ]


def prefill_after_thinking() -> list[Message]:
    """A final assistant turn that carries Anthropic's signed thinking (quirks 14, 18)."""
    thinking = [{"type": "thinking", "thinking": "A haiku has 5-7-5 syllables.", "signature": _SIGNATURE}]
    return [
        UserMessage(content="Write a haiku about rain."),
        AIMessage(content="Soft rain on the roof", thinking_blocks=thinking, provider="anthropic"),
    ]


def thinking_after_text() -> list[Message]:
    """Two assistant turns in a row, the second with Anthropic's signed thinking: merged into one turn,
    the thinking lands after the text (quirks 18, 20)."""
    thinking = [{"type": "thinking", "thinking": "Add the second half.", "signature": _SIGNATURE}]
    return [
        UserMessage(content="Write two lines about rain."),
        AIMessage(content="Rain taps the window."),
        AIMessage(content="The street shines.", thinking_blocks=thinking, provider="anthropic"),
        UserMessage(content="Nice."),
    ]


def system_at_the_end() -> list[Message]:
    """The last message is a system message (quirks 19, 31, 57)."""
    return [
        UserMessage(content="Hello."),
        AIMessage(content="Hello! How can I help?"),
        SystemMessage(content="From now on, answer in one sentence."),
    ]


CASES: dict[str, Callable[[], list[Message]]] = {
    "empty texts": empty_texts,
    "empty text beside calls": empty_tool_call_text,
    "empty tool result": empty_tool_result,
    "parallel calls": parallel_calls,
    "gemini ids": gemini_ids,
    "kimi ids": kimi_ids,
    "per-turn ids": per_turn_ids,
    "uuid ids": uuid_ids,
    "long ids": long_ids,
    "names": names,
    "anthropic reasoning": anthropic_reasoning,
    "deepseek reasoning": deepseek_reasoning,
    "images": images,
    "consecutive roles": consecutive_roles,
    "user after tool": user_after_tool,
    "system mid-way": system_mid_conversation,
    "ends on assistant": ends_on_assistant,
    "empty arguments": empty_arguments,
    "identical parallel calls": identical_parallel_calls,
    "image-only turn": image_only_turn,
    "blank text parts": blank_text_parts,
    "prefill after thinking": prefill_after_thinking,
    "thinking after text": thinking_after_text,
    "system at the end": system_at_the_end,
}
"""Every hard case, by the name the table prints."""
