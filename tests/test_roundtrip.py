"""Round trips over the shipped strategies: a dump reads back into an equal message, for every kind."""

from __future__ import annotations

import json

import pytest
from hypothesis import Phase, find, given, settings
from pydantic import TypeAdapter

from messages import AIMessage, Message, dump_messages, load_messages, validate_conversation
from messages import strategies as ms
from tests.oracles import openai_accepts

MESSAGE = TypeAdapter(Message)


@given(ms.messages())
def test_validate_of_dump_gives_the_same_message(message):
    assert MESSAGE.validate_python(message.model_dump()) == message
    assert type(message).model_validate(message.model_dump()) == message


@given(ms.messages())
def test_validate_json_of_dump_json_gives_the_same_message(message):
    assert MESSAGE.validate_json(message.model_dump_json()) == message
    assert type(message).model_validate_json(message.model_dump_json()) == message


@given(ms.messages())
def test_dump_json_is_the_json_of_dump(message):
    assert json.loads(message.model_dump_json()) == message.model_dump()


@given(ms.messages())
def test_dumps_never_carry_null_or_empty_list_values_but_assistant_content(message):
    for key, value in message.model_dump().items():
        if key == "content" and message.role == "assistant":
            continue
        assert value is not None, key
        assert value != [] or key == "content", key


@given(ms.conversations())
def test_load_of_dump_gives_the_same_conversation(conversation):
    dumped = dump_messages(conversation)
    assert load_messages(dumped) == conversation
    assert load_messages(json.dumps(dumped)) == conversation
    assert dumped == [m.model_dump() for m in conversation]


@given(ms.conversations())
def test_generated_conversations_follow_the_protocol(conversation):
    validate_conversation(conversation)


@given(ms.conversations(extensions=False))
def test_openai_sdk_types_accept_every_dump_without_extension_fields(conversation):
    openai_accepts(dump_messages(conversation))


@given(ms.messages())
def test_compiled_dumper_and_pydantic_core_give_the_same_dict(message):
    # model_dump() uses the dumper compiled from the fields; any option goes through pydantic-core.
    assert message.model_dump() == message.model_dump(exclude_none=True)
    assert message.model_dump() == message.model_dump(mode="json")


@given(ms.messages())
def test_a_dump_never_aliases_the_message(message):
    # litellm mutates dicts it is given (docs/litellm.md, 'litellm mutates the dicts it is given'): a dump
    # must be a copy.
    before = message.model_dump()

    def scribble(value):
        if isinstance(value, dict):
            for key in list(value):
                scribble(value[key])
            value["scribbled"] = True
        elif isinstance(value, list):
            for item in value:
                scribble(item)
            value.append("scribbled")

    scribble(message.model_dump())
    assert message.model_dump() == before


# Options that keep the wire shape, and options that leave keys out (pydantic's own dump, with no key put
# back); both must work on every message class.
WIRE_OPTIONS = [{"mode": "json"}, {"by_alias": True}, {"round_trip": True}, {"exclude_none": True}]
PARTIAL_OPTIONS = [
    {"exclude_unset": True},
    {"exclude_defaults": True},
    {"exclude_unset": True, "exclude_none": False},
    {"exclude_defaults": True, "mode": "json"},
    {"exclude_none": False},
    {"include": {"role", "content"}},
    {"exclude": {"role"}},
    {"exclude": {"content"}, "exclude_unset": True},
]


def _json_options(options):
    return {k: v for k, v in options.items() if k != "mode"}  # model_dump_json has no mode


@given(ms.messages())
def test_every_dump_option_works_on_every_message_class(message):
    wire = message.model_dump()
    full = message.model_dump(mode="json", exclude_none=False)
    for options in WIRE_OPTIONS:
        assert message.model_dump(**options) == wire, options
        assert json.loads(message.model_dump_json(**_json_options(options))) == wire, options
    for options in PARTIAL_OPTIONS:
        dumped = message.model_dump(**{**options, "mode": "json"})
        assert json.loads(message.model_dump_json(**_json_options(options))) == dumped, options
        assert _within(dumped, full), options


def _within(partial, full):
    """Whether ``partial`` is ``full`` with dict keys left out (at any depth) and nothing else changed."""
    if isinstance(partial, dict):
        return isinstance(full, dict) and all(k in full and _within(v, full[k]) for k, v in partial.items())
    if isinstance(partial, list):
        return isinstance(full, list) and len(partial) == len(full) and all(map(_within, partial, full))
    return partial == full


@pytest.mark.parametrize(
    "holds",
    [
        lambda m: m.provider_specific_fields is not None and m.provider is not None,
        lambda m: m.refusal is not None and m.content,
        lambda m: m.refusal is not None and m.tool_calls,
        lambda m: m.thinking_blocks is not None and m.reasoning_content is not None,
    ],
    ids=["message provider fields", "refusal beside text", "refusal beside calls", "reasoning"],
)
def test_generated_replies_cover_every_assistant_field(holds):
    # The round-trip properties above only cover what the strategies generate.
    find(
        ms.ai_messages(), holds, settings=settings(max_examples=2_000, database=None, phases=[Phase.generate])
    )


@given(ms.conversations(extensions=False))
def test_conversations_without_extensions_carry_no_provider_fields(conversation):
    for message in conversation:
        if isinstance(message, AIMessage):
            assert message.provider_specific_fields is None
            assert message.provider is None
            assert all(c.provider_specific_fields is None for c in message.tool_calls)
