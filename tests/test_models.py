"""Named cases for the message classes: the exact wire shape, construction, and clear errors."""

from __future__ import annotations

import json

import pytest
from pydantic import TypeAdapter, ValidationError

from messages import (
    AIMessage,
    AudioPart,
    FilePart,
    ImagePart,
    Message,
    SystemMessage,
    TextPart,
    ToolArgumentsError,
    ToolCall,
    ToolMessage,
    UserMessage,
    dump_messages,
)

MESSAGE = TypeAdapter(Message)


def test_tool_call_only_turn_dumps_content_null_and_function_tool_calls():
    # The shape OpenAI documents for an assistant turn that only calls tools (quirks 5, 6).
    message = AIMessage(tool_calls=[ToolCall(id="call_1", name="get_weather", arguments={"city": "Paris"})])
    assert message.model_dump() == {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'},
            }
        ],
    }
    assert list(message.model_dump()) == ["role", "content", "tool_calls"]


def test_text_reply_has_no_tool_calls_key_and_no_nulls():
    assert AIMessage(content="Hi").model_dump() == {"role": "assistant", "content": "Hi"}
    assert json.loads(AIMessage(content="Hi").model_dump_json()) == {"role": "assistant", "content": "Hi"}


def test_tool_call_only_turn_json_keeps_content_null():
    message = AIMessage(tool_calls=[ToolCall(id="c", name="f")])
    assert json.loads(message.model_dump_json()) == {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": ""}}],
    }


def test_model_dump_json_honours_indent():
    text = AIMessage(tool_calls=[ToolCall(id="c", name="f")]).model_dump_json(indent=2)
    assert text.startswith('{\n  "role": "assistant",\n  "content": null')


def test_tool_message_dumps_tool_call_id():
    call = ToolCall(id="call_9", name="get_time", arguments="{}")
    assert ToolMessage.for_call(call, "12:00").model_dump() == {
        "role": "tool",
        "tool_call_id": "call_9",
        "content": "12:00",
    }


def test_unset_name_is_omitted_and_set_name_is_kept():
    assert UserMessage(content="hi").model_dump() == {"role": "user", "content": "hi"}
    assert UserMessage(content="hi", name="ada").model_dump() == {
        "role": "user",
        "content": "hi",
        "name": "ada",
    }


def test_explicit_exclude_none_false_shows_every_field():
    dumped = UserMessage(content="hi").model_dump(exclude_none=False)
    assert dumped == {"role": "user", "content": "hi", "name": None, "cache_control": None}


def test_arguments_dict_is_serialized_once_and_string_kept_byte_exact():
    spaced = '{ "city" :  "Paris" }'
    assert ToolCall(id="a", name="f", arguments=spaced).arguments == spaced
    assert ToolCall(id="a", name="f", arguments={"city": "Zürich"}).arguments == '{"city":"Zürich"}'


def test_parse_arguments_empty_means_no_arguments():
    assert ToolCall(id="a", name="f", arguments="").parse_arguments() == {}
    assert ToolCall(id="a", name="f", arguments="  ").parse_arguments() == {}
    assert ToolCall(id="a", name="f", arguments='{"x": [1]}').parse_arguments() == {"x": [1]}


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        ('{"city": "Par', "not valid JSON"),
        ("[1, 2]", "decode to list"),
        ("[" * 100_000, "nested too deeply"),  # json.loads raises RecursionError
        ('{"n": ' + "9" * 5_000 + "}", "4300 digits"),  # json.loads raises a plain ValueError
    ],
    ids=["truncated", "list", "deep", "long integer"],
)
def test_parse_arguments_bad_json_raises_with_raw_text(raw, reason):
    call = ToolCall(id="call_7", name="get_weather", arguments=raw)
    with pytest.raises(ToolArgumentsError, match=reason) as info:
        call.parse_arguments()
    assert info.value.raw == raw
    assert info.value.tool_call_id == "call_7"
    assert "call_7" in str(info.value)
    assert isinstance(info.value, ValueError)


def test_for_call_json_encodes_non_string_results():
    call = ToolCall(id="c1", name="f")
    assert ToolMessage.for_call(call, {"temp": 21, "sky": "clear"}).content == '{"temp":21,"sky":"clear"}'
    assert ToolMessage.for_call(call, [1, 2]).content == "[1,2]"
    assert ToolMessage.for_call(call, 3.5).content == "3.5"
    assert ToolMessage.for_call(call, None).content == "null"
    assert ToolMessage.for_call(call, "").content == ""


def test_for_call_keeps_content_parts():
    call = ToolCall(id="c1", name="screenshot")
    parts = [TextPart(text="here"), ImagePart(url="https://example.com/a.png")]
    assert ToolMessage.for_call(call, parts).content == parts


def test_for_call_unencodable_result_names_the_call():
    with pytest.raises(ValueError, match=r"'c1' \(f\).*cannot be encoded as JSON"):
        ToolMessage.for_call(ToolCall(id="c1", name="f"), object())


def test_parts_dump_the_openai_nesting():
    assert ImagePart(url="https://x/y.png", detail="low").model_dump() == {
        "type": "image_url",
        "image_url": {"url": "https://x/y.png", "detail": "low"},
    }
    assert AudioPart.from_bytes(b"RIFF", format="wav").model_dump() == {
        "type": "input_audio",
        "input_audio": {"data": "UklGRg==", "format": "wav"},
    }
    assert FilePart.from_bytes(b"%PDF", filename="a.pdf").model_dump() == {
        "type": "file",
        "file": {"file_data": "data:application/pdf;base64,JVBERg==", "filename": "a.pdf"},
    }
    assert FilePart(file_id="file-1").model_dump() == {"type": "file", "file": {"file_id": "file-1"}}


def test_part_properties_read_the_nested_fields():
    image = ImagePart(url="https://x/y.png", detail="high")
    assert (image.url, image.detail) == ("https://x/y.png", "high")
    audio = AudioPart(data="AAAA", format="mp3")
    assert (audio.data, audio.format) == ("AAAA", "mp3")
    file = FilePart(file_data="data:application/pdf;base64,AA==", filename="r.pdf")
    assert (file.file_data, file.file_id, file.filename) == (
        "data:application/pdf;base64,AA==",
        None,
        "r.pdf",
    )


def test_repr_never_prints_a_whole_base64_payload():
    payload = b"\x89PNG" * 5000
    message = UserMessage(content=[ImagePart.from_bytes(payload), AudioPart.from_bytes(payload)])
    text = repr(message)
    assert len(text) < 400
    assert "chars]" in text
    file_repr = repr(FilePart.from_bytes(payload, filename="big.pdf"))
    assert len(file_repr) < 300
    assert "big.pdf" in file_repr


def test_repr_shows_tool_calls_flat():
    call = ToolCall(id="call_1", name="get_weather", arguments='{"city":"Paris"}')
    assert repr(call) == "ToolCall(id='call_1', name='get_weather', arguments='{\"city\":\"Paris\"}')"


def test_messages_are_frozen_values():
    message = UserMessage(content="hi")
    with pytest.raises(ValidationError, match="frozen"):
        message.content = "changed"  # type: ignore[misc]
    assert message == UserMessage(content="hi")


def test_developer_role_is_a_system_message():
    message = MESSAGE.validate_python({"role": "developer", "content": "be brief"})
    assert isinstance(message, SystemMessage)
    assert message.model_dump() == {"role": "developer", "content": "be brief"}


def test_wire_dict_reads_back_as_the_right_class():
    cases = {
        "system": {"role": "system", "content": "s"},
        "user": {"role": "user", "content": [{"type": "text", "text": "t"}]},
        "assistant": {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "1", "type": "function", "function": {"name": "f", "arguments": "{}"}}],
        },
        "tool": {"role": "tool", "tool_call_id": "1", "content": "r"},
    }
    classes = {"system": SystemMessage, "user": UserMessage, "assistant": AIMessage, "tool": ToolMessage}
    for role, wire in cases.items():
        message = MESSAGE.validate_python(wire)
        assert type(message) is classes[role]
        assert message.model_dump() == wire


def test_tool_calls_null_is_not_a_list():
    # Dumps never write it; a log that does came from another library's objects (use from_litellm there).
    with pytest.raises(ValidationError) as info:
        MESSAGE.validate_python({"role": "assistant", "content": "hi", "tool_calls": None})
    assert info.value.errors()[0]["loc"] == ("assistant", "tool_calls")


def test_arguments_on_the_wire_must_be_a_string():
    # quirk 6: OpenAI rejects an object ("expected a string, but got an object instead").
    with pytest.raises(ValidationError) as info:
        MESSAGE.validate_python(
            {
                "role": "assistant",
                "tool_calls": [
                    {"id": "1", "type": "function", "function": {"name": "f", "arguments": {"a": 1}}}
                ],
            }
        )
    assert info.value.errors()[0]["loc"] == ("assistant", "tool_calls", 0, "function", "arguments")


def test_arguments_mapping_must_be_json_serializable():
    with pytest.raises(ValueError, match="must be JSON-serializable"):
        ToolCall(id="1", name="f", arguments={"when": object()})


@pytest.mark.parametrize("number", [float("nan"), float("inf"), -float("inf")])
def test_arguments_mapping_with_nan_or_infinity_is_refused(number):
    # json.dumps would write `NaN` / `Infinity`, which is not JSON: providers reject the request.
    with pytest.raises(ValueError, match="NaN or Infinity"):
        ToolCall(id="1", name="f", arguments={"x": [1, {"y": number}]})


def test_arguments_mapping_too_deep_or_cyclic_is_refused():
    deep: list = []
    for _ in range(100_000):
        deep = [deep]
    with pytest.raises(ValueError, match="nested too deeply"):
        ToolCall(id="1", name="f", arguments={"x": deep})
    cyclic: dict = {}
    cyclic["self"] = cyclic
    with pytest.raises(ValueError, match="Circular reference"):
        ToolCall(id="1", name="f", arguments=cyclic)


def test_constructor_rejects_both_flat_and_nested_forms():
    with pytest.raises(ValueError, match="either name=/arguments= or function="):
        ToolCall(id="1", name="f", function={"name": "f", "arguments": ""})
    with pytest.raises(ValueError, match="either url=/detail=/format= or image_url="):
        ImagePart(url="https://x", image_url={"url": "https://y"})


def _nested(depth: int) -> dict:
    value: dict = {"leaf": "x"}
    for level in range(depth):
        value = {"level": level, "next": [value]}
    return value


def _walk_pairs(copy: object, original: object) -> int:
    """The depth of two equal nestings, checked without recursion: equal leaves, no container shared."""
    pending, depth = [(copy, original, 0)], 0
    while pending:
        a, b, level = pending.pop()
        depth = max(depth, level)
        if isinstance(b, (dict, list)):
            assert type(a) is type(b)
            assert a is not b
            assert len(a) == len(b)
            pairs = [(a[k], b[k]) for k in b] if isinstance(b, dict) else zip(a, b, strict=True)
            pending.extend((x, y, level + 1) for x, y in pairs)
        else:
            assert a == b
    return depth


def test_provider_payloads_nested_very_deeply_still_dump():
    # Validation puts no depth limit on opaque provider data; the dump must not hit the recursion limit.
    deep = _nested(5_000)
    message = AIMessage(
        content="x", thinking_blocks=[deep], provider_specific_fields={"d": deep}, provider="anthropic"
    )
    for dumped in (message.model_dump(), dump_messages([message])[0]):
        assert _walk_pairs(dumped["thinking_blocks"], [deep]) == 10_002
        assert _walk_pairs(dumped["provider_specific_fields"], {"d": deep}) == 10_002


def test_cyclic_provider_payload_dumps_as_a_cyclic_copy():
    cyclic: dict = {"name": "loop"}
    cyclic["self"] = [cyclic]
    message = AIMessage(content="x", provider_specific_fields={"payload": cyclic})
    copied = message.model_dump()["provider_specific_fields"]["payload"]
    assert copied is not cyclic
    assert copied["self"][0] is copied
