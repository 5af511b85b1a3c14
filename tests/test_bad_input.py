"""Bad input gets a ValidationError (or a MessagesError) that names the field and the valid choices."""

from __future__ import annotations

import contextlib
import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from messages import (
    AIMessage,
    AudioPart,
    FilePart,
    ImagePart,
    MessagesError,
    MessageTypeError,
    TextPart,
    ToolCall,
    UserMessage,
    dump_messages,
    load_messages,
)
from messages import strategies as ms


def _error_of(data: object) -> ValidationError:
    with pytest.raises(ValidationError) as info:
        load_messages(data)  # type: ignore[arg-type]
    return info.value


def test_unknown_role_names_the_valid_roles():
    error = _error_of([{"role": "user", "content": "hi"}, {"role": "bogus", "content": "x"}])
    text = str(error)
    assert "1" in [str(p) for p in error.errors()[0]["loc"]]
    assert "'bogus'" in text
    for role in ("'system'", "'developer'", "'user'", "'assistant'", "'tool'"):
        assert role in text


def test_missing_role_says_so():
    error = _error_of([{"content": "hi"}])
    assert "role" in str(error)


def test_tool_message_without_tool_call_id_names_the_field():
    error = _error_of([{"role": "tool", "content": "r"}])
    (item,) = error.errors()
    assert item["loc"] == (0, "tool", "tool_call_id")
    assert item["type"] == "missing"


@pytest.mark.parametrize("missing", ["id", "name"])
def test_tool_call_without_id_or_name_names_the_field(missing):
    call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    if missing == "id":
        del call["id"]
    else:
        del call["function"]["name"]  # type: ignore[attr-defined]
    error = _error_of([{"role": "assistant", "content": None, "tool_calls": [call]}])
    (item,) = error.errors()
    assert item["loc"][-1] == missing
    assert item["type"] == "missing"
    assert item["loc"][:3] == (0, "assistant", "tool_calls")


def test_empty_tool_call_id_is_rejected():
    error = _error_of([{"role": "tool", "tool_call_id": "", "content": "r"}])
    assert error.errors()[0]["loc"] == (0, "tool", "tool_call_id")


def test_tool_call_of_another_type_names_the_valid_one():
    error = _error_of(
        [
            {
                "role": "assistant",
                "tool_calls": [{"id": "c", "type": "custom", "function": {"name": "f", "arguments": ""}}],
            }
        ]
    )
    assert "'function'" in str(error)
    assert error.errors()[0]["loc"][-1] == "type"


def test_content_of_the_wrong_type_names_the_field_and_the_choices():
    error = _error_of([{"role": "user", "content": 5}])
    locations = {item["loc"] for item in error.errors()}
    assert (0, "user", "content", "str") in locations
    assert any(loc[:3] == (0, "user", "content") and "list" in str(loc[3]) for loc in locations)


def test_unknown_part_type_names_the_valid_part_types():
    error = _error_of([{"role": "user", "content": [{"type": "txt", "text": "hi"}]}])
    text = str(error)
    for tag in ("'text'", "'image_url'", "'input_audio'", "'file'"):
        assert tag in text


def test_extra_keys_are_rejected_by_name():
    error = _error_of([{"role": "user", "content": "hi", "provider_specific_fields": None}])
    item = error.errors()[0]
    assert item["type"] == "extra_forbidden"
    assert item["loc"] == (0, "user", "provider_specific_fields")


def test_file_part_needs_a_source_and_a_filename_with_data():
    error = _error_of([{"role": "user", "content": [{"type": "file", "file": {"filename": "a.pdf"}}]}])
    assert "file_data" in str(error)
    assert "file_id" in str(error)
    error = _error_of([{"role": "user", "content": [{"type": "file", "file": {"file_data": "data:,x"}}]}])
    assert "needs a filename" in str(error)


def test_a_single_dict_is_not_a_conversation():
    error = _error_of({"role": "user", "content": "hi"})
    assert "list" in str(error)


def test_truncated_json_is_a_validation_error():
    error = _error_of('[{"role": "user", "content": "hi"')
    assert error.errors()[0]["type"] == "json_invalid"


def test_dump_messages_refuses_raw_dicts_by_index():
    with pytest.raises(
        MessageTypeError, match="message 1 is a dict, not a Message; read dicts with load_messages"
    ):
        dump_messages([UserMessage(content="hi"), {"role": "user", "content": "x"}])  # type: ignore[list-item]


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
    max_leaves=20,
)
roles = st.sampled_from(["system", "developer", "user", "assistant", "tool", "function", "bogus", ""])
keys = st.sampled_from(
    [
        "role",
        "content",
        "name",
        "tool_calls",
        "tool_call_id",
        "function",
        "arguments",
        "id",
        "type",
        "text",
        "image_url",
        "url",
        "detail",
        "input_audio",
        "file",
        "file_data",
        "reasoning_content",
        "thinking_blocks",
    ]
)
message_like = st.recursive(
    st.fixed_dictionaries({"role": roles}, optional={"content": json_values}),
    lambda inner: st.dictionaries(keys, inner | json_values | roles, max_size=5),
    max_leaves=12,
)


@given(st.one_of(json_values, st.lists(st.one_of(message_like, json_values), max_size=5)))
def test_arbitrary_json_raises_only_validation_or_messages_errors(data):
    for value in (data, json.dumps(data)):
        with contextlib.suppress(ValidationError, MessagesError):
            load_messages(value)


# Mutations of real dumps: random dicts rarely get past the role and into a part, a call or a file
# reference, so this fuzz starts from what the strategies generate and breaks it in one to four places.
mutant_keys = keys | st.text(max_size=8)
finite_json = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20)
    | keys
    | roles,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(mutant_keys, inner, max_size=3),
    max_leaves=8,
)


def _retyped(value: object) -> object:
    """The same data under another JSON type: a string becomes a number or a list, a dict its values..."""
    if isinstance(value, dict):
        return list(value.values())
    if isinstance(value, list):
        return {str(i): v for i, v in enumerate(value)}
    if isinstance(value, str):
        return [value] if value else 0
    if value is None:
        return ""
    return str(value)


MUTATIONS = ("replace", "delete", "add", "retype", "nest", "null")


@st.composite
def mutate_once(draw: st.DrawFn, data: list) -> None:
    """Walk down from the top to a random place, preferring to go deeper, and break it there."""
    parent: Any = data
    while True:
        slots = list(parent) if isinstance(parent, dict) else list(range(len(parent)))
        if not slots:
            break
        slot = draw(st.sampled_from(slots))
        child = parent[slot]
        if isinstance(child, (dict, list)) and child and draw(st.integers(0, 3)):
            parent = child
            continue
        kind = draw(st.sampled_from(MUTATIONS))
        if kind == "replace":
            parent[slot] = draw(finite_json)
        elif kind == "delete":
            del parent[slot]
        elif kind == "retype":
            parent[slot] = _retyped(child)
        elif kind == "nest":
            parent[slot] = draw(st.sampled_from([[child], {"value": child}, {slot: child}]))
        elif kind == "null":
            parent[slot] = None
        else:
            break  # "add": below
        return
    if isinstance(parent, dict):
        parent[draw(mutant_keys)] = draw(finite_json)
    else:
        parent.insert(draw(st.integers(0, len(parent))), draw(finite_json))


@st.composite
def mutated_dumps(draw: st.DrawFn) -> list:
    conversation = draw(
        st.one_of(ms.conversations(max_turns=4), st.lists(ms.messages(), min_size=1, max_size=2))
    )
    data = dump_messages(conversation, validate=False)
    for _ in range(draw(st.integers(1, 4))):
        draw(mutate_once(data))
    return data


def _check_load(value: object) -> None:
    """``load_messages`` raises only a ValidationError or a MessagesError; what it reads dumps and reads
    back equal, through dicts and through JSON."""
    try:
        loaded = load_messages(value)
    except (ValidationError, MessagesError):
        return
    dumped = dump_messages(loaded, validate=False)
    assert dumped == [m.model_dump() for m in loaded]
    assert load_messages(dumped) == loaded
    assert load_messages(json.dumps(dumped)) == loaded
    assert [type(m).model_validate_json(m.model_dump_json()) for m in loaded] == loaded


@given(mutated_dumps())
def test_mutated_dumps_raise_only_validation_or_messages_errors_and_what_loads_round_trips(data):
    _check_load(data)
    _check_load(json.dumps(data))


def _places(value: object, path: tuple = ()) -> list[tuple]:
    """The path of every value inside ``value``, outermost first."""
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    found = []
    for slot, child in items:
        found.append((*path, slot))
        found.extend(_places(child, (*path, slot)))
    return found


def _single_mutations(data: list, filler: object) -> list[list]:
    """Every dump that differs from ``data`` in one place: each value deleted, nulled, given another type,
    nested one level deeper or replaced by ``filler``, and ``filler`` added to each dict under a new key."""
    mutants = []
    for path in _places(data):
        for kind in ("delete", "null", "retype", "nest", "replace"):
            mutant = json.loads(json.dumps(data))
            parent = mutant
            for slot in path[:-1]:
                parent = parent[slot]
            slot = path[-1]
            if kind == "delete":
                del parent[slot]
            else:
                value = parent[slot]
                parent[slot] = {"null": None, "retype": _retyped(value), "nest": [value]}.get(kind, filler)
            mutants.append(mutant)
    for path in [(), *_places(data)]:
        mutant = json.loads(json.dumps(data))
        target = mutant
        for slot in path:
            target = target[slot]
        if isinstance(target, dict):
            target["extra"] = filler
            mutants.append(mutant)
    return mutants


@given(ms.conversations(max_turns=4), finite_json)
def test_every_single_mutation_of_a_dump_raises_only_validation_or_messages_errors(conversation, filler):
    # Systematic where the test above is random: every field of every part, call and message is
    # deleted, nulled, retyped, nested and replaced, so a check deep inside a file part is reached
    # whenever the conversation holds one.
    for mutant in _single_mutations(dump_messages(conversation, validate=False), filler):
        _check_load(mutant)


@pytest.mark.parametrize("validate", [True, False])
@pytest.mark.parametrize(
    "item",
    [TextPart(text="x"), ImagePart(url="https://example.com/a.png"), ToolCall(id="c", name="f")],
    ids=["text part", "image part", "tool call"],
)
def test_dump_messages_refuses_parts_and_calls_by_index(item, validate):
    # Parts and calls have dumpers of their own: without the protocol check they were dumped as messages.
    with pytest.raises(MessageTypeError, match=f"message 1 is a {type(item).__name__}, not a Message"):
        dump_messages([UserMessage(content="hi"), item], validate=validate)  # type: ignore[list-item]


# --- empty media payloads (issue 24): no provider takes a 0-byte image, clip or file ----------------------

_EMPTY_MEDIA = {
    "image data URL": ({"type": "image_url", "image_url": {"url": "data:image/png;base64,"}}, "url"),
    "image as a bare data URL": (
        {"type": "image_url", "image_url": "data:image/jpeg;base64,  "},
        "image_url",
    ),
    "audio": ({"type": "input_audio", "input_audio": {"data": "", "format": "wav"}}, "data"),
    "file": (
        {"type": "file", "file": {"file_data": "data:application/pdf;base64,", "filename": "a.pdf"}},
        "file_data",
    ),
    "video data URL": ({"type": "video_url", "video_url": {"url": "data:video/mp4;base64,"}}, "url"),
}


@pytest.mark.parametrize("role", ["user", "tool"])
@pytest.mark.parametrize("name", list(_EMPTY_MEDIA))
def test_an_empty_media_payload_is_refused_at_load_naming_the_field(name, role):
    part, field = _EMPTY_MEDIA[name]
    message: dict[str, Any] = {"role": role, "content": [{"type": "text", "text": "see"}, part]}
    if role == "tool":
        message["tool_call_id"] = "call_1"
    error = _error_of([message])
    # Among the union's attempts, the one for this part says why, at the part's own field.
    (said,) = [e for e in error.errors() if e["type"] == "value_error"]
    loc = said["loc"]
    assert loc[:3] == (0, role, "content")
    assert loc[4] == 1  # the part's index in the content
    assert field in loc[5:]
    assert "empty" in said["msg"]


def test_an_empty_payload_is_refused_when_built_in_python_too():
    with pytest.raises(ValidationError, match="empty payload"):
        ImagePart(url="data:image/png;base64,")
    with pytest.raises(ValidationError, match="audio data is empty"):
        AudioPart.from_bytes(b"")
    with pytest.raises(ValidationError, match="empty payload"):
        FilePart.from_bytes(b"", filename="empty.pdf")


def test_a_payload_or_an_url_is_accepted():
    ImagePart(url="data:image/png;base64,iVBORw0KGgo=")
    ImagePart(url="https://example.com/a.png")
    ImagePart(image_url="data:image/png;base64,AA==")
    FilePart(file_id="file-abc")
    AudioPart(data="UklGRg==", format="wav")


@pytest.mark.parametrize(
    ("build", "where"),
    [
        (lambda: AIMessage(content="x", provider_specific_fields={"a": {0: 1}}), "provider_specific_fields"),
        (
            lambda: AIMessage(content="x", thinking_blocks=[{"type": "thinking", "extra": {2: "x"}}]),
            "thinking_blocks",
        ),
        (
            lambda: ToolCall(id="c", name="f", provider_specific_fields={"s": [{1.5: 2}]}),
            "provider_specific_fields",
        ),
    ],
)
def test_a_provider_payload_with_a_key_json_cannot_hold_is_refused_naming_the_field_and_the_path(
    build, where
):
    # Found by the mutation property above: {0: 1} dumped as {"0": 1} and read back as another value.
    with pytest.raises(ValidationError) as caught:
        build()
    text = str(caught.value)
    assert where in text
    assert "JSON object keys are strings" in text
