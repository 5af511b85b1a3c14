"""litellm's own message keys (``litellm/types/llms/openai.py``): typed, validated, lossless (issue 12).

Named cases read litellm-shape dicts and dump them back unchanged; the strategies are shown to generate
every new field, so that the round-trip and profile properties cover them.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import Phase, find, given, settings
from pydantic import TypeAdapter, ValidationError

from messages import (
    AIMessage,
    CacheControl,
    FilePart,
    ImagePart,
    Message,
    SystemMessage,
    TextPart,
    ToolMessage,
    UserMessage,
    VideoPart,
    dump_messages,
    load_messages,
)
from messages import strategies as ms

MESSAGE = TypeAdapter(Message)
EPHEMERAL = {"type": "ephemeral"}

# One dict per placement litellm's types allow, as a bot that keeps litellm dicts has them.
LITELLM_DICTS = [
    {"role": "system", "content": "You are terse.", "cache_control": {"type": "ephemeral", "ttl": "1h"}},
    {"role": "system", "content": [{"type": "text", "text": "Rules...", "cache_control": EPHEMERAL}]},
    {"role": "developer", "content": "Be brief.", "cache_control": {"type": "ephemeral", "ttl": "5m"}},
    {
        "role": "user",
        "content": [
            {"type": "text", "text": "Long document...", "cache_control": EPHEMERAL},
            {"type": "image_url", "image_url": "https://example.com/cat.png"},
            {"type": "image_url", "image_url": {"url": "gs://bucket/cat", "format": "image/png"}},
            {"type": "video_url", "video_url": {"url": "https://youtu.be/abc", "detail": "low"}},
            {"type": "video_url", "video_url": "gs://bucket/clip.mp4"},
            {
                "type": "file",
                "file": {
                    "file_id": "gs://bucket/talk.mp4",
                    "format": "video/mp4",
                    "detail": "high",
                    "video_metadata": {"fps": 2, "start_offset": "10s", "end_offset": "20s"},
                },
            },
        ],
        "cache_control": EPHEMERAL,
    },
    {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Here is the chart:"},
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0K"}},
            {"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "wav"}},
            {"type": "file", "file": {"file_id": "file-abc"}},
        ],
        "cache_control": EPHEMERAL,
    },
    {
        "role": "assistant",
        "content": "Checking.",
        "tool_calls": [{"id": "toolu_1", "type": "function", "function": {"name": "f", "arguments": "{}"}}],
        "thinking_blocks": [
            {"type": "thinking", "thinking": "hm", "signature": "c2ln", "cache_control": EPHEMERAL},
            {"type": "redacted_thinking", "data": "ZGF0YQ==", "cache_control": None},
        ],
        "provider": "anthropic",
    },
    {
        "role": "tool",
        "tool_call_id": "toolu_1",
        "content": "boom",
        "cache_control": EPHEMERAL,
        "is_error": True,
    },
    {
        "role": "tool",
        "tool_call_id": "toolu_2",
        "content": [{"type": "text", "text": "ok", "cache_control": {"type": "ephemeral", "ttl": "1h"}}],
        "is_error": False,
    },
    {
        "role": "assistant",
        "content": "Paris [1]",
        "annotations": [
            {
                "type": "url_citation",
                "url_citation": {"start_index": 6, "end_index": 9, "title": "P", "url": "https://p.fr"},
            }
        ],
    },
    {"role": "assistant", "content": "Hello (spoken)", "audio": {"id": "audio_abc123"}},
    {
        "role": "assistant",
        "content": "A cat:",
        "images": [{"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}, "index": 0}],
    },
]


@pytest.mark.parametrize("wire", LITELLM_DICTS, ids=lambda d: f"{d['role']}-{sorted(d)}")
def test_a_litellm_dict_loads_and_dumps_back_unchanged(wire):
    (message,) = load_messages([wire])
    assert message.model_dump() == wire
    assert json.loads(message.model_dump_json()) == wire
    assert load_messages(json.dumps([wire])) == [message]
    assert load_messages(dump_messages([message], validate=False)) == [message]


def test_an_image_url_given_as_a_string_stays_a_string():
    part = ImagePart(image_url="https://example.com/a.png")
    assert part.url == "https://example.com/a.png"
    assert part.detail is None
    assert part.model_dump() == {"type": "image_url", "image_url": "https://example.com/a.png"}
    assert ImagePart(url="https://example.com/a.png").model_dump()["image_url"] == {
        "url": "https://example.com/a.png"
    }


def test_flat_keywords_build_the_new_nested_keys():
    assert ImagePart(url="gs://b/x", format="image/png").model_dump() == {
        "type": "image_url",
        "image_url": {"url": "gs://b/x", "format": "image/png"},
    }
    assert FilePart(
        file_id="f", format="video/mp4", detail="low", video_metadata={"fps": 1}
    ).model_dump() == {
        "type": "file",
        "file": {"file_id": "f", "format": "video/mp4", "detail": "low", "video_metadata": {"fps": 1}},
    }
    assert VideoPart(url="https://youtu.be/x").url == "https://youtu.be/x"
    assert VideoPart(video_url="gs://b/v.mp4").url == "gs://b/v.mp4"


def test_unset_new_fields_leave_every_dump_as_before():
    # The dumps existing users have stored, byte for byte: nothing new appears unless set.
    conversation = [
        SystemMessage(content=[TextPart(text="sys")]),
        UserMessage(content=[TextPart(text="hi"), ImagePart(url="https://x/y.png", detail="low")]),
        AIMessage(content="yo"),
        ToolMessage(tool_call_id="c", content="r"),
    ]
    assert json.dumps(dump_messages(conversation, validate=False)) == (
        '[{"role": "system", "content": [{"type": "text", "text": "sys"}]}, '
        '{"role": "user", "content": [{"type": "text", "text": "hi"}, '
        '{"type": "image_url", "image_url": {"url": "https://x/y.png", "detail": "low"}}]}, '
        '{"role": "assistant", "content": "yo"}, {"role": "tool", "tool_call_id": "c", "content": "r"}]'
    )


@pytest.mark.parametrize(
    ("wire", "where"),
    [
        ({"role": "system", "content": "s", "cache_control": {"type": "persistent"}}, "cache_control.type"),
        (
            {"role": "user", "content": "u", "cache_control": {"type": "ephemeral", "ttl": "2h"}},
            "cache_control.ttl",
        ),
        ({"role": "user", "content": "u", "cache_control": {"ttl": "5m", "mode": "x"}}, "cache_control.mode"),
        (
            {"role": "user", "content": [{"type": "text", "text": "t", "cache_control": {"type": "x"}}]},
            "0.text.cache_control.type",
        ),
        (
            {
                "role": "tool",
                "tool_call_id": "c",
                "content": "r",
                "cache_control": {"type": "ephemeral", "ttl": 60},
            },
            "cache_control.ttl",
        ),
        ({"role": "tool", "tool_call_id": "c", "content": "r", "is_error": "yes"}, "is_error"),
        ({"role": "assistant", "content": "a", "audio": {"id": ""}}, "audio.id"),
        ({"role": "assistant", "content": [{"type": "video_url", "video_url": "gs://v"}]}, "content"),
        ({"role": "user", "content": [{"type": "video_url", "video_url": ""}]}, "video_url"),
    ],
)
def test_a_bad_new_field_is_a_validation_error_naming_it(wire, where):
    with pytest.raises(ValidationError) as caught:
        MESSAGE.validate_python(wire)
    locations = [".".join(map(str, e["loc"])) for e in caught.value.errors()]
    assert any(where in location for location in locations), locations


def test_a_bad_cache_control_on_a_thinking_block_names_the_block():
    blocks = [
        {"type": "thinking", "thinking": "a", "signature": "s"},
        {
            "type": "thinking",
            "thinking": "b",
            "signature": "s",
            "cache_control": {"type": "ephemeral", "ttl": "1d"},
        },
    ]
    with pytest.raises(ValidationError, match=r"thinking_blocks\[1\]\.cache_control"):
        AIMessage(content="x", thinking_blocks=blocks)


def test_cache_control_is_a_typed_model():
    assert CacheControl().model_dump() == EPHEMERAL
    assert CacheControl(ttl="1h").model_dump() == {"type": "ephemeral", "ttl": "1h"}
    assert UserMessage(content="u", cache_control=CacheControl()) == UserMessage(
        content="u", cache_control=EPHEMERAL
    )


_FIND = settings(max_examples=3_000, database=None, phases=[Phase.generate])


def _parts(m):
    return m.content if isinstance(m.content, list) else []


@pytest.mark.parametrize(
    "holds",
    [
        lambda m: isinstance(m, SystemMessage) and m.cache_control is not None,
        lambda m: isinstance(m, UserMessage) and m.cache_control is not None and m.cache_control.ttl == "1h",
        lambda m: isinstance(m, AIMessage) and m.cache_control is not None,
        lambda m: isinstance(m, ToolMessage) and m.cache_control is not None,
        lambda m: isinstance(m, ToolMessage) and m.is_error is True,
        lambda m: any(isinstance(p, TextPart) and p.cache_control is not None for p in _parts(m)),
        lambda m: any(isinstance(p, VideoPart) and isinstance(p.video_url, str) for p in _parts(m)),
        lambda m: any(isinstance(p, VideoPart) and not isinstance(p.video_url, str) for p in _parts(m)),
        lambda m: any(isinstance(p, ImagePart) and isinstance(p.image_url, str) for p in _parts(m)),
        lambda m: any(
            isinstance(p, ImagePart) and not isinstance(p.image_url, str) and p.image_url.format
            for p in _parts(m)
        ),
        lambda m: any(isinstance(p, FilePart) and p.file.video_metadata and p.file.detail for p in _parts(m)),
        lambda m: isinstance(m, AIMessage) and any(not isinstance(p, TextPart) for p in _parts(m)),
        lambda m: isinstance(m, AIMessage) and any("cache_control" in b for b in m.thinking_blocks or ()),
        lambda m: isinstance(m, AIMessage) and m.annotations is not None,
        lambda m: isinstance(m, AIMessage) and m.images is not None,
        lambda m: isinstance(m, AIMessage) and m.audio is not None,
    ],
    ids=[
        "system cache_control",
        "user cache_control ttl",
        "assistant cache_control",
        "tool cache_control",
        "is_error",
        "text part cache_control",
        "video url string",
        "video url object",
        "image url string",
        "image format",
        "file video metadata",
        "assistant media parts",
        "thinking block cache_control",
        "annotations",
        "images",
        "audio",
    ],
)
def test_the_strategies_generate_every_new_field(holds):
    # The round-trip, fuzz and profile properties only cover what the strategies generate.
    find(ms.messages(), holds, settings=_FIND)


@given(ms.messages(extensions=False))
def test_without_extensions_the_strategies_generate_none_of_them(message):
    dumped = json.dumps(message.model_dump())
    for key in (
        '"cache_control"',
        '"is_error"',
        '"video_url"',
        '"format": "image',
        '"format": "video',
        '"video_metadata"',
        '"annotations"',
    ):
        assert key not in dumped
    assert not any(isinstance(p, ImagePart) and isinstance(p.image_url, str) for p in _parts(message))
