"""Hypothesis strategies for every message kind, for property-testing bots built on this package.

Install the extra (``pip install 'llm-messages[hypothesis]'``), then:

```python
from hypothesis import given
from messages import strategies as ms, validate_conversation
from messages.context import BufferedContext


@given(ms.conversations())
def test_a_window_keeps_the_protocol(conversation):
    window = BufferedContext(10, initial_messages=conversation)
    validate_conversation(window.get_messages())


test_a_window_keeps_the_protocol()  # pytest calls it for you
```

``conversations()`` follows the tool-call protocol (every call answered right after its turn, ids distinct
within a turn and now and then used again by a later turn, as Kimi K2 and local servers mint them), with
parallel calls, results in any order, multimodal parts, unicode and empty strings, and tool-call ids
in the shapes real providers mint (OpenAI, Anthropic, Gemini with thought signatures, Mistral, UUIDs,
Kimi's ``functions.name:0``, and ids that are long or odd). ``extensions=False`` keeps to what the OpenAI
Chat Completions API itself accepts: no ``reasoning_content``, ``thinking_blocks``, provider fields, tool
``name`` or non-text tool results, and none of litellm's own keys (``cache_control`` on messages, text parts
and thinking blocks; a tool result's ``is_error``; video parts; an image URL given as a bare string;
``image_url.format``; ``file.format``, ``file.detail`` and ``file.video_metadata``; image, audio and file
parts in an assistant turn).

``broken_conversations()`` takes such a conversation and breaks it the ways real histories break (see
``BREAKAGES``), to test that a bot checks or repairs what it sends.
"""

from __future__ import annotations

import base64
import functools
import json
import string
from collections.abc import Sequence
from typing import Any, Literal, NamedTuple, get_args

from hypothesis import reject
from hypothesis import strategies as st

from messages.models import AIMessage, Message, SystemMessage, ToolCall, ToolMessage, UserMessage
from messages.parts import AudioPart, CacheControl, FilePart, ImagePart, TextPart, VideoPart

__all__ = [
    "BREAKAGES",
    "Breakage",
    "ai_messages",
    "arguments",
    "audio_parts",
    "broken_conversations",
    "cache_controls",
    "content_parts",
    "conversations",
    "file_parts",
    "image_parts",
    "messages",
    "participant_names",
    "system_messages",
    "text_parts",
    "texts",
    "tool_call_ids",
    "tool_calls",
    "tool_messages",
    "tool_names",
    "user_messages",
    "video_parts",
]

_ALNUM = string.ascii_letters + string.digits
_HEX = "0123456789abcdef"

# Every strategy tree is built once per set of arguments (``functools.cache`` on the builders below) and
# shared: Hypothesis validates a new strategy object, and works out its recursive properties, the first
# time it draws from it, which for a tree as deep as a conversation cost more than the drawing itself
# (160 ms a conversation when the composites built their parts anew at every draw; see the CHANGELOG).
# Strategies are immutable values, so sharing one changes nothing of what it generates.
_built = functools.cache


def texts(*, min_size: int = 0, max_size: int = 200) -> st.SearchStrategy[str]:
    """Text as users and models write it: unicode (emoji, CJK, RTL, combining marks), whitespace, empty.

    Args:
        min_size: the fewest characters.
        max_size: the most characters.

    Returns:
        A strategy of strings.

    Raises nothing; a strategy of hypothesis (``pip install 'llm-messages[hypothesis]'``).
    """
    return _texts(min_size, max_size)


@_built
def _texts(min_size: int, max_size: int) -> st.SearchStrategy[str]:
    return st.one_of(
        st.text(min_size=min_size, max_size=max_size),
        st.sampled_from(
            ["", " ", "\n", "Hello!", "¿Qué tal?", "東京の天気", "مرحبا", "e\u0301", "🙂👍🏽"]
        ).filter(lambda s: min_size <= len(s) <= max_size),
    )


@_built
def participant_names() -> st.SearchStrategy[str]:
    """``name`` values that OpenAI's strictest documented pattern accepts (quirk 4).

    Returns:
        A strategy of names (1 to 64 letters, digits, ``_`` and ``-``).

    Raises nothing; a strategy of hypothesis (``pip install 'llm-messages[hypothesis]'``).
    """
    return st.text(alphabet=_ALNUM + "_-", min_size=1, max_size=64)


@_built
def tool_names() -> st.SearchStrategy[str]:
    """Function names as tool schemas declare them.

    Returns:
        A strategy of names.

    Raises nothing; a strategy of hypothesis (``pip install 'llm-messages[hypothesis]'``).
    """
    return st.builds(
        lambda head, tail: head + tail,
        st.sampled_from(string.ascii_letters + "_"),
        st.text(alphabet=_ALNUM + "_-", max_size=40),
    )


@_built
def _chars(alphabet: str, size: int) -> st.SearchStrategy[str]:
    return st.text(alphabet=alphabet, min_size=size, max_size=size)


@_built
def tool_call_ids() -> st.SearchStrategy[str]:
    """Tool-call ids in the shapes providers mint, and long or odd ones that break other providers' rules.

    Returns:
        A strategy of ids.

    Raises nothing; a strategy of hypothesis (``pip install 'llm-messages[hypothesis]'``).
    """
    return st.one_of(
        _chars(_ALNUM, 24).map(lambda s: f"call_{s}"),  # OpenAI
        _chars(_ALNUM, 24).map(lambda s: f"toolu_{s}"),  # Anthropic
        _chars(_ALNUM, 22).map(lambda s: f"tooluse_{s}"),  # Bedrock converse
        _chars(_HEX, 32).map(lambda s: f"call_{s}"),  # litellm's ids for Gemini (37 chars)
        # litellm's id for a signed Gemini call: the signature is real base64 (Gemini refuses anything else)
        st.tuples(_chars(_HEX, 32), _signature()).map(lambda t: f"call_{t[0]}__thought__{t[1]}"),
        _chars(_ALNUM, 9),  # Mistral
        st.uuids().map(str),  # Ollama
        st.tuples(tool_names(), st.integers(0, 9)).map(lambda t: f"functions.{t[0]}:{t[1]}"),  # Kimi
        st.text(alphabet=_ALNUM + "-_", min_size=41, max_size=200),  # longer than OpenAI's 40
        st.text(min_size=1, max_size=30).filter(lambda s: s.strip() != ""),  # anything at all
    )


def arguments(*, valid_json: bool = True) -> st.SearchStrategy[str]:
    """Tool-call argument strings: JSON objects (compact or spaced), ``""`` for none; with
    ``valid_json=False`` also text that is not JSON, as models sometimes emit.

    Args:
        valid_json: only JSON objects (and ``""``); ``False`` adds text that is not JSON.

    Returns:
        A strategy of argument strings.

    Raises nothing; a strategy of hypothesis (``pip install 'llm-messages[hypothesis]'``).
    """
    return _arguments(valid_json)


@_built
def _arguments(valid_json: bool) -> st.SearchStrategy[str]:
    scalars = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-(10**12), 10**12),
        st.floats(allow_nan=False, allow_infinity=False),
        texts(max_size=30),
    )
    values = st.recursive(
        scalars,
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(texts(max_size=10), inner, max_size=3),
        max_leaves=8,
    )
    objects = st.dictionaries(st.text(max_size=12), values, max_size=4)
    encoded = st.one_of(
        objects.map(lambda d: json.dumps(d, ensure_ascii=False, separators=(",", ":"))),
        objects.map(lambda d: json.dumps(d)),
        st.just(""),
        st.just("{}"),
    )
    if valid_json:
        return encoded
    return st.one_of(encoded, st.sampled_from(['{"city": "Par', "{'a': 1}", "null", "[1, 2]", "not json"]))


@_built
def _signature() -> st.SearchStrategy[str]:
    return st.binary(min_size=8, max_size=48).map(lambda b: base64.b64encode(b).decode("ascii"))


def tool_calls(
    *,
    extensions: bool = True,
    ids: st.SearchStrategy[str] | None = None,
    invalid_arguments: bool = False,
) -> st.SearchStrategy[ToolCall]:
    """One tool call; with ``extensions`` it may carry a Gemini thought signature in its provider fields,
    with ``invalid_arguments`` its arguments may be text that is not a JSON object.

    Args:
        extensions: also draw what litellm's messages can carry beyond the core (reasoning,
            provider fields, cache marks, litellm's extra keys and parts); off for the core shape only.
        ids: the strategy of the calls' ids (default: ids in the shapes real providers mint).
        invalid_arguments: sometimes arguments that are not a JSON object.

    Returns:
        A strategy of ``ToolCall``.

    Raises nothing; a strategy of hypothesis (``pip install 'llm-messages[hypothesis]'``).
    """
    if ids is None:
        return _tool_calls(extensions, invalid_arguments)
    return st.tuples(ids, _call_bodies(extensions, invalid_arguments)).map(lambda t: _call(t[0], t[1]))


@_built
def _tool_calls(extensions: bool, invalid_arguments: bool) -> st.SearchStrategy[ToolCall]:
    return st.tuples(tool_call_ids(), _call_bodies(extensions, invalid_arguments)).map(
        lambda t: _call(t[0], t[1])
    )


_CallBody = tuple[str, str, dict[str, Any] | None]
"""A tool call without its id: name, arguments and provider fields."""


@_built
def _call_bodies(extensions: bool, invalid_arguments: bool) -> st.SearchStrategy[_CallBody]:
    fields: st.SearchStrategy[dict[str, Any] | None] = st.none()
    if extensions:
        fields = st.one_of(st.none(), _signature().map(lambda s: {"thought_signature": s}))
    return st.tuples(tool_names(), arguments(valid_json=not invalid_arguments), fields)


def _call(call_id: str, body: _CallBody) -> ToolCall:
    name, args, extra = body
    return ToolCall(id=call_id, name=name, arguments=args, provider_specific_fields=extra)


@_built
def cache_controls() -> st.SearchStrategy[CacheControl]:
    """A prompt-cache breakpoint: ``{"type": "ephemeral"}``, with or without a ``ttl``.

    Returns:
        A strategy of ``CacheControl``.

    Raises nothing; a strategy of hypothesis (``pip install 'llm-messages[hypothesis]'``).
    """
    return st.builds(CacheControl, ttl=st.sampled_from([None, None, "5m", "1h"]))


@_built
def _sometimes_cached(extensions: bool) -> st.SearchStrategy[CacheControl | None]:
    """Mostly no breakpoint; with ``extensions``, one now and then."""
    if not extensions:
        return st.none()
    return st.one_of(st.none(), st.none(), st.none(), cache_controls())


def text_parts(*, extensions: bool = True) -> st.SearchStrategy[TextPart]:
    """A text part (possibly empty); with ``extensions``, sometimes a cache breakpoint on it.

    Args:
        extensions: also draw what litellm's messages can carry beyond the core (reasoning,
            provider fields, cache marks, litellm's extra keys and parts); off for the core shape only.

    Returns:
        A strategy of ``TextPart``.

    Raises nothing; a strategy of hypothesis (``pip install 'llm-messages[hypothesis]'``).
    """
    return _text_parts(extensions)


@_built
def _text_parts(extensions: bool) -> st.SearchStrategy[TextPart]:
    return st.builds(TextPart, text=texts(), cache_control=_sometimes_cached(extensions))


@_built
def _media_types(kind: str) -> st.SearchStrategy[str]:
    return st.sampled_from([f"{kind}/png", f"{kind}/jpeg"] if kind == "image" else [f"{kind}/mp4"])


def image_parts(*, extensions: bool = True) -> st.SearchStrategy[ImagePart]:
    """An image by https URL or as a small base64 data URL, with or without ``detail``; with
    ``extensions``, also an URL given as a bare string, and litellm's ``format``.

    Args:
        extensions: also draw what litellm's messages can carry beyond the core (reasoning,
            provider fields, cache marks, litellm's extra keys and parts); off for the core shape only.

    Returns:
        A strategy of ``ImagePart``.

    Raises nothing; a strategy of hypothesis (``pip install 'llm-messages[hypothesis]'``).
    """
    return _image_parts(extensions)


@_built
def _image_parts(extensions: bool) -> st.SearchStrategy[ImagePart]:
    urls = st.one_of(
        st.text(alphabet=_ALNUM, min_size=1, max_size=20).map(lambda s: f"https://example.com/{s}.png"),
        st.tuples(
            st.sampled_from(["image/png", "image/jpeg", "image/webp", "image/gif"]),
            st.binary(min_size=1, max_size=64),
        ).map(lambda t: f"data:{t[0]};base64,{base64.b64encode(t[1]).decode('ascii')}"),
    )
    nested = st.builds(
        lambda url, detail, fmt: ImagePart(url=url, detail=detail, format=fmt),
        urls,
        st.one_of(st.none(), st.sampled_from(["auto", "low", "high"])),
        st.one_of(st.none(), st.none(), _media_types("image")) if extensions else st.none(),
    )
    if not extensions:
        return nested
    return st.one_of(nested, nested, urls.map(lambda url: ImagePart(image_url=url)))


@_built
def video_parts() -> st.SearchStrategy[VideoPart]:
    """A video by URL (a litellm extension: only some providers read it), nested or as a bare string.

    Returns:
        A strategy of ``VideoPart``.

    Raises nothing; a strategy of hypothesis (``pip install 'llm-messages[hypothesis]'``).
    """
    urls = st.one_of(
        st.text(alphabet=_ALNUM, min_size=1, max_size=20).map(lambda s: f"https://example.com/{s}.mp4"),
        st.text(alphabet=_ALNUM, min_size=1, max_size=11).map(lambda s: f"https://youtu.be/{s}"),
        st.text(alphabet=_ALNUM, min_size=1, max_size=20).map(lambda s: f"gs://bucket/{s}.mp4"),
    )
    return st.one_of(
        st.builds(
            lambda url, detail: VideoPart(url=url, detail=detail),
            urls,
            st.one_of(st.none(), st.sampled_from(["low", "high"])),
        ),
        urls.map(lambda url: VideoPart(video_url=url)),
    )


@_built
def audio_parts() -> st.SearchStrategy[AudioPart]:
    """A short base64 audio clip in a format OpenAI accepts (wav or mp3).

    Returns:
        A strategy of ``AudioPart``.

    Raises nothing; a strategy of hypothesis (``pip install 'llm-messages[hypothesis]'``).
    """
    return st.builds(
        lambda data, fmt: AudioPart.from_bytes(data, format=fmt),
        st.binary(min_size=1, max_size=64),
        st.sampled_from(["wav", "mp3"]),
    )


def file_parts(*, extensions: bool = True) -> st.SearchStrategy[FilePart]:
    """A file, inline (a data URL with a filename) or by uploaded file id; with ``extensions``, sometimes
    with litellm's ``format``, ``detail`` and ``video_metadata``.

    Args:
        extensions: also draw what litellm's messages can carry beyond the core (reasoning,
            provider fields, cache marks, litellm's extra keys and parts); off for the core shape only.

    Returns:
        A strategy of ``FilePart``.

    Raises nothing; a strategy of hypothesis (``pip install 'llm-messages[hypothesis]'``).
    """
    return _file_parts(extensions)


@_built
def _file_parts(extensions: bool) -> st.SearchStrategy[FilePart]:
    inline = st.builds(
        lambda data, name: FilePart.from_bytes(data, filename=f"{name}.pdf"),
        st.binary(min_size=1, max_size=64),
        st.text(alphabet=_ALNUM + "-_", min_size=1, max_size=20),
    )
    by_id = st.text(alphabet=_ALNUM, min_size=4, max_size=24).map(lambda s: FilePart(file_id=f"file-{s}"))
    plain = st.one_of(inline, by_id)
    if not extensions:
        return plain
    video = st.builds(
        lambda name, fmt, detail, metadata: FilePart(
            file_id=f"gs://bucket/{name}.mp4", format=fmt, detail=detail, video_metadata=metadata
        ),
        st.text(alphabet=_ALNUM, min_size=1, max_size=20),
        st.one_of(st.none(), _media_types("video")),
        st.one_of(st.none(), st.sampled_from(["low", "medium", "high", "ultra_high"])),
        st.one_of(
            st.none(),
            st.fixed_dictionaries(
                {"fps": st.integers(1, 30)},
                optional={"start_offset": st.just("1s"), "end_offset": st.just("9s")},
            ),
        ),
    )
    return st.one_of(plain, plain, video)


def content_parts(
    *, extensions: bool = True
) -> st.SearchStrategy[TextPart | ImagePart | AudioPart | FilePart | VideoPart]:
    """Any content part, text most often; with ``extensions``, video parts and litellm's keys too.

    Args:
        extensions: also draw what litellm's messages can carry beyond the core (reasoning,
            provider fields, cache marks, litellm's extra keys and parts); off for the core shape only.

    Returns:
        A strategy of content parts.

    Raises nothing; a strategy of hypothesis (``pip install 'llm-messages[hypothesis]'``).
    """
    return _content_parts(extensions)


@_built
def _content_parts(
    extensions: bool,
) -> st.SearchStrategy[TextPart | ImagePart | AudioPart | FilePart | VideoPart]:
    parts: list[st.SearchStrategy[Any]] = [
        text_parts(extensions=extensions),
        text_parts(extensions=extensions),
        image_parts(extensions=extensions),
        audio_parts(),
        file_parts(extensions=extensions),
    ]
    if extensions:
        parts.append(video_parts())
    return st.one_of(*parts)


def system_messages(*, extensions: bool = True) -> st.SearchStrategy[SystemMessage]:
    """A system (or developer) message, as a string or text parts, sometimes named; with ``extensions``,
    sometimes a cache breakpoint on it or on its parts.

    Args:
        extensions: also draw what litellm's messages can carry beyond the core (reasoning,
            provider fields, cache marks, litellm's extra keys and parts); off for the core shape only.

    Returns:
        A strategy of ``SystemMessage``.

    Raises nothing; a strategy of hypothesis (``pip install 'llm-messages[hypothesis]'``).
    """
    return _system_messages(extensions)


@_built
def _system_messages(extensions: bool) -> st.SearchStrategy[SystemMessage]:
    return st.builds(
        SystemMessage,
        role=st.sampled_from(["system", "system", "developer"]),
        content=st.one_of(texts(), st.lists(text_parts(extensions=extensions), min_size=1, max_size=3)),
        name=st.one_of(st.none(), participant_names()),
        cache_control=_sometimes_cached(extensions),
    )


def user_messages(*, extensions: bool = True) -> st.SearchStrategy[UserMessage]:
    """A user message: text, or a list of text, image, audio and file parts (and video, with
    ``extensions``); sometimes named; with ``extensions``, sometimes a cache breakpoint.

    Args:
        extensions: also draw what litellm's messages can carry beyond the core (reasoning,
            provider fields, cache marks, litellm's extra keys and parts); off for the core shape only.

    Returns:
        A strategy of ``UserMessage``.

    Raises nothing; a strategy of hypothesis (``pip install 'llm-messages[hypothesis]'``).
    """
    return _user_messages(extensions)


@_built
def _user_messages(extensions: bool) -> st.SearchStrategy[UserMessage]:
    return st.builds(
        UserMessage,
        content=st.one_of(texts(), st.lists(content_parts(extensions=extensions), min_size=1, max_size=4)),
        name=st.one_of(st.none(), participant_names()),
        cache_control=_sometimes_cached(extensions),
    )


@_built
def _thinking_blocks() -> st.SearchStrategy[list[dict[str, Any]]]:
    thinking = st.builds(
        lambda text, sig, cached: (
            {"type": "thinking", "thinking": text, "signature": sig}
            | ({} if cached is None else {"cache_control": cached.model_dump()})
        ),
        texts(min_size=1),
        _signature(),
        _sometimes_cached(True),
    )
    redacted = _signature().map(lambda data: {"type": "redacted_thinking", "data": data})
    return st.lists(st.one_of(thinking, redacted), min_size=1, max_size=2)


@_built
def _message_fields() -> st.SearchStrategy[dict[str, Any]]:
    """Message-level provider fields as litellm reads them: Gemini text thought signatures, Anthropic
    citations."""
    signatures = st.lists(_signature(), min_size=1, max_size=2).map(lambda s: {"thought_signatures": s})
    citations = st.lists(
        st.builds(
            lambda text, index: {"type": "char_location", "cited_text": text, "document_index": index},
            texts(max_size=40),
            st.integers(0, 3),
        ),
        min_size=1,
        max_size=2,
    ).map(lambda c: {"citations": [c]})
    return st.one_of(signatures, citations)


@st.composite
def ai_messages(
    draw: st.DrawFn, *, extensions: bool = True, calls: list[ToolCall] | None = None
) -> AIMessage:
    """An assistant message: text, tool calls (``calls`` if given, else drawn), or both, and sometimes a
    refusal (alone, or beside text, as OpenAI may send it); with ``extensions``, reasoning text, signed
    thinking blocks, message-level provider fields and the provider that produced them.

    Args:
        extensions: also draw what litellm's messages can carry beyond the core (reasoning,
            provider fields, cache marks, litellm's extra keys and parts); off for the core shape only.
        calls: the tool calls the message makes (default: drawn).

    Returns:
        A strategy of ``AIMessage``.

    Raises nothing; a strategy of hypothesis (``pip install 'llm-messages[hypothesis]'``).
    """
    return _draw_reply(draw, extensions, calls)


def _draw_reply(draw: st.DrawFn, extensions: bool, calls: list[ToolCall] | None) -> AIMessage:
    """The body of ``ai_messages``, which ``_draw_exchange`` also calls with its own ``draw`` (a composite
    strategy made anew for each exchange would be validated anew)."""
    pieces = _reply_pieces(extensions)
    if calls is None:
        calls = draw(pieces.calls)
    content = draw(pieces.content_beside_calls if calls else pieces.content)
    fields: dict[str, Any] = {"content": content, "tool_calls": calls}
    if content is None and not calls:
        fields["refusal"] = draw(pieces.some_text)  # an empty turn needs something: the refusal
    else:
        fields["refusal"] = draw(pieces.refusal)
    fields["name"] = draw(pieces.name)
    if extensions:
        fields["reasoning_content"] = draw(pieces.reasoning)
        blocks = draw(pieces.thinking_blocks)
        fields["thinking_blocks"] = blocks
        extra = draw(pieces.provider_fields)
        fields["provider_specific_fields"] = extra
        bound = blocks is not None or extra is not None or any(c.provider_specific_fields for c in calls)
        if bound:
            fields["provider"] = draw(pieces.provider)
        fields["cache_control"] = draw(_sometimes_cached(extensions))
        reply = draw(pieces.reply_kind)
        if reply == "annotations":
            fields["annotations"] = draw(pieces.annotations)
        elif reply == "images":
            fields["images"] = draw(pieces.images)
        elif reply == "audio":
            fields["audio"] = {"id": draw(pieces.audio_id)}
    return AIMessage(**fields)


class _ReplyPieces(NamedTuple):
    """The strategies ``ai_messages`` draws its fields from, built once per ``extensions``."""

    calls: st.SearchStrategy[list[ToolCall]]
    content: st.SearchStrategy[Any]
    content_beside_calls: st.SearchStrategy[Any]
    some_text: st.SearchStrategy[str]
    refusal: st.SearchStrategy[str | None]
    name: st.SearchStrategy[str | None]
    reasoning: st.SearchStrategy[str | None]
    thinking_blocks: st.SearchStrategy[list[dict[str, Any]] | None]
    provider_fields: st.SearchStrategy[dict[str, Any] | None]
    provider: st.SearchStrategy[str]
    reply_kind: st.SearchStrategy[str]
    annotations: st.SearchStrategy[list[dict[str, Any]]]
    images: st.SearchStrategy[list[dict[str, Any]]]
    audio_id: st.SearchStrategy[str]


@_built
def _reply_pieces(extensions: bool) -> _ReplyPieces:
    parts: st.SearchStrategy[Any] = text_parts(extensions=extensions)
    if extensions:  # litellm allows image, audio and file parts in an assistant turn; OpenAI does not
        parts = st.one_of(
            parts, parts, parts, image_parts(), audio_parts(), file_parts(extensions=extensions)
        )
    text = st.one_of(texts(), st.lists(parts, min_size=1, max_size=2))
    return _ReplyPieces(
        calls=st.lists(tool_calls(extensions=extensions), max_size=3, unique_by=lambda c: c.id),
        content=st.one_of(text, st.none()),
        content_beside_calls=st.one_of(st.none(), st.just(""), text),
        some_text=texts(min_size=1),
        refusal=st.one_of(st.none(), st.none(), st.none(), texts(min_size=1)),
        name=st.one_of(st.none(), participant_names()),
        reasoning=st.one_of(st.none(), texts(min_size=1)),
        thinking_blocks=st.one_of(st.none(), _thinking_blocks()),
        provider_fields=st.one_of(st.none(), st.none(), _message_fields()),
        provider=st.sampled_from(["anthropic", "gemini", "vertex_ai", "bedrock"]),
        reply_kind=st.sampled_from(["plain", "plain", "plain", "annotations", "images", "audio"]),
        annotations=st.lists(_url_citations(), min_size=1, max_size=2),
        images=st.lists(_generated_images(), min_size=1, max_size=2),
        audio_id=_chars(_ALNUM, 16).map(lambda s: f"audio_{s}"),
    )


@_built
def _url_citations() -> st.SearchStrategy[dict[str, Any]]:
    """An OpenAI web-search citation, as a reply carries it."""
    return st.builds(
        lambda start, length, title, path: {
            "type": "url_citation",
            "url_citation": {
                "start_index": start,
                "end_index": start + length,
                "title": title,
                "url": f"https://example.com/{path}",
            },
        },
        st.integers(0, 500),
        st.integers(0, 80),
        texts(max_size=30),
        st.text(alphabet=_ALNUM, max_size=12),
    )


@_built
def _generated_images() -> st.SearchStrategy[dict[str, Any]]:
    """An image a model generated (Gemini image output, as litellm reads it)."""
    return st.binary(min_size=1, max_size=48).map(
        lambda data: {
            "type": "image_url",
            "image_url": {"url": f"data:image/png;base64,{base64.b64encode(data).decode('ascii')}"},
            "index": 0,
        }
    )


def tool_messages(
    *, extensions: bool = True, tool_call_id: str | None = None
) -> st.SearchStrategy[ToolMessage]:
    """A tool result: JSON, plain or empty text, text parts; with ``extensions`` also images, the tool's
    ``name``, ``is_error`` and a cache breakpoint.

    Args:
        extensions: also draw what litellm's messages can carry beyond the core (reasoning,
            provider fields, cache marks, litellm's extra keys and parts); off for the core shape only.
        tool_call_id: the id of the call it answers (default: drawn).

    Returns:
        A strategy of ``ToolMessage``.

    Raises nothing; a strategy of hypothesis (``pip install 'llm-messages[hypothesis]'``).
    """
    if tool_call_id is None:
        return _tool_messages(extensions)
    return _result_fields(extensions).map(lambda fields: ToolMessage(tool_call_id=tool_call_id, **fields))


@_built
def _tool_messages(extensions: bool) -> st.SearchStrategy[ToolMessage]:
    return st.tuples(tool_call_ids(), _result_fields(extensions)).map(
        lambda t: ToolMessage(tool_call_id=t[0], **t[1])
    )


@_built
def _result_fields(extensions: bool) -> st.SearchStrategy[dict[str, Any]]:
    """A tool result's fields but its ``tool_call_id``."""
    parts: st.SearchStrategy[Any] = text_parts(extensions=extensions)
    if extensions:
        parts = st.one_of(text_parts(), image_parts())
    content = st.one_of(
        texts(),
        arguments().filter(bool),
        st.lists(parts, min_size=1, max_size=3),
    )
    return st.fixed_dictionaries(
        {
            "content": content,
            "name": st.one_of(st.none(), tool_names()) if extensions else st.none(),
            "cache_control": _sometimes_cached(extensions),
            "is_error": st.one_of(st.none(), st.none(), st.booleans()) if extensions else st.none(),
        }
    )


def messages(*, extensions: bool = True) -> st.SearchStrategy[Message]:
    """Any single message (not necessarily a valid conversation on its own).

    Args:
        extensions: also draw what litellm's messages can carry beyond the core (reasoning,
            provider fields, cache marks, litellm's extra keys and parts); off for the core shape only.

    Returns:
        A strategy of messages of every role.

    Raises nothing; a strategy of hypothesis (``pip install 'llm-messages[hypothesis]'``).
    """
    return _messages(extensions)


@_built
def _messages(extensions: bool) -> st.SearchStrategy[Message]:
    return st.one_of(
        system_messages(extensions=extensions),
        user_messages(extensions=extensions),
        ai_messages(extensions=extensions),
        tool_messages(extensions=extensions),
    )


def _draw_exchange(draw: st.DrawFn, ids: list[str], *, extensions: bool) -> list[Message]:
    """An assistant turn calling ``ids`` (in parallel if several), and one result per call in any order."""
    bodies = _call_bodies(extensions, False)
    calls = [_call(call_id, draw(bodies)) for call_id in ids]
    turn: list[Message] = [_draw_reply(draw, extensions, calls)]
    results = _result_fields(extensions)
    for call_id in draw(st.permutations(ids)):
        turn.append(ToolMessage(tool_call_id=call_id, **draw(results)))
    return turn


@st.composite
def conversations(
    draw: st.DrawFn,
    *,
    min_turns: int = 1,
    max_turns: int = 8,
    max_parallel_calls: int = 4,
    extensions: bool = True,
    reused_ids: bool = True,
) -> list[Message]:
    """A whole conversation that follows the tool-call protocol.

    It may open with system messages, then has ``min_turns`` to ``max_turns`` turns: user messages,
    assistant text, tool exchanges (an assistant turn with up to ``max_parallel_calls`` calls, answered
    in any order), and now and then a system message mid-way or two turns of the same role in a row.
    The calls of one turn have distinct ids; with ``reused_ids`` (the default) a later turn may use an id
    of an earlier turn again, as Kimi K2 (``functions.NAME:0``) and local servers (``call_0``) mint them
    and as the protocol allows (quirk 17): ``reused_ids=False`` keeps every id of the conversation unique.

    Args:
        min_turns: the fewest turns.
        max_turns: the most turns.
        max_parallel_calls: the most calls in one assistant turn.
        extensions: also draw what litellm's messages can carry beyond the core (reasoning,
            provider fields, cache marks, litellm's extra keys and parts); off for the core shape only.
        reused_ids: let a later turn use a call id of an earlier one again.

    Returns:
        A strategy of conversations (lists of messages) that pass ``validate_conversation``.

    Raises nothing; a strategy of hypothesis (``pip install 'llm-messages[hypothesis]'``).

    Examples:
        ```python
        from hypothesis import given
        from messages import validate_conversation
        from messages.strategies import conversations


        @given(conversations(max_turns=4))
        def test_every_generated_conversation_is_valid(conversation):
            validate_conversation(conversation)


        test_every_generated_conversation_is_valid()  # pytest calls it for you
        ```
    """
    conversation: list[Message] = list(draw(_openings(extensions)))
    kinds = draw(_turn_kinds(min_turns, max_turns))
    used: set[str] = set()
    for kind in kinds:
        if kind == "user":
            conversation.append(draw(user_messages(extensions=extensions)))
        elif kind == "assistant":
            conversation.append(draw(_texts_only(extensions)))
        elif kind == "system":
            conversation.append(draw(system_messages(extensions=extensions)))
        else:
            count = draw(st.integers(1, max_parallel_calls))
            ids = _draw_turn_ids(draw, count, used, reuse=reused_ids)
            used.update(ids)
            conversation.extend(_draw_exchange(draw, ids, extensions=extensions))
    if not conversation:
        conversation.append(draw(user_messages(extensions=extensions)))
    return conversation


_COIN = st.booleans()


def _draw_turn_ids(draw: st.DrawFn, count: int, used: set[str], *, reuse: bool) -> list[str]:
    """``count`` distinct ids for the calls of one turn: each a fresh id (none of ``used``) or, with
    ``reuse``, as often as not one of ``used`` again.

    Drawn one by one from the shared id strategy rather than from a list strategy made for the turn
    (see ``_built``); a fresh id that is taken is drawn again, as ``filter`` would."""
    ids: list[str] = []
    for _ in range(count):
        again = sorted(used.difference(ids)) if reuse else []
        take_again: bool = bool(again) and draw(_COIN)
        if take_again:
            ids.append(draw(st.sampled_from(again)))
            continue
        for _attempt in range(_ATTEMPTS):
            candidate = draw(tool_call_ids())
            if candidate not in used and candidate not in ids:
                ids.append(candidate)
                break
        else:
            reject()  # as a filter that never passes: this example is left out
    return ids


_ATTEMPTS = 50
"""How many ids a turn draws for one call before giving the example up (ids collide rarely)."""


@_built
def _openings(extensions: bool) -> st.SearchStrategy[list[SystemMessage]]:
    return st.lists(system_messages(extensions=extensions), max_size=2)


@_built
def _turn_kinds(min_turns: int, max_turns: int) -> st.SearchStrategy[list[str]]:
    return st.lists(
        st.sampled_from(["user", "user", "assistant", "tools", "tools", "system"]),
        min_size=min_turns,
        max_size=max_turns,
    )


@_built
def _texts_only(extensions: bool) -> st.SearchStrategy[AIMessage]:
    """An assistant turn without tool calls."""
    return ai_messages(extensions=extensions, calls=[])


Breakage = Literal[
    "trim", "drop_call", "lose_results", "inject_message", "duplicate_id", "answer_twice", "empty"
]
"""One way a real history breaks the tool-call protocol:

* ``"trim"``: a window that cut the conversation at any message, keeping the leading system messages or
  not, so that it may start with tool results whose call was cut (LangChain #33245);
* ``"drop_call"``: an assistant turn with tool calls removed from the middle, its results kept (AutoGen
  #7955, a token-limited context that pops the middle message);
* ``"lose_results"``: an interrupted run that lost some results of a turn, or stopped right after the
  calls or part-way through the results (a bot still in its tool loop, or killed in it);
* ``"inject_message"``: a user (sometimes system or assistant) message filed between a call and its
  results;
* ``"duplicate_id"``: a call given the id of an earlier call of the same turn, with its results renamed
  alike (a server that numbers every call ``call_0``); a turn with one call gets a second call first. An
  id used again in a later turn is no breakage: ids are scoped to their turn;
* ``"answer_twice"``: a tool result filed a second time (a retried tool, a replayed event), right after the
  first or later on;
* ``"empty"``: no messages at all.
"""

BREAKAGES: tuple[Breakage, ...] = get_args(Breakage)
"""Every ``Breakage``, in the order documented there."""

_NEEDS_TOOLS = frozenset({"drop_call", "lose_results", "inject_message", "duplicate_id", "answer_twice"})


def _turn_indexes(conversation: Sequence[Message]) -> list[int]:
    return [i for i, m in enumerate(conversation) if isinstance(m, AIMessage) and m.tool_calls]


def _result_indexes(conversation: Sequence[Message], turn: int) -> list[int]:
    """The positions of the tool results that directly follow the assistant turn at ``turn``."""
    end = turn + 1
    while end < len(conversation) and isinstance(conversation[end], ToolMessage):
        end += 1
    return list(range(turn + 1, end))


def _draw_break(draw: st.DrawFn, conversation: list[Message], kind: Breakage, *, extensions: bool) -> None:
    """Apply one breakage of ``kind`` to ``conversation`` in place."""
    turns = _turn_indexes(conversation)
    if kind == "trim":
        if len(conversation) < 2:
            return
        lead = 0
        while lead < len(conversation) and isinstance(conversation[lead], SystemMessage):
            lead += 1
        keep_system = lead < len(conversation) - 1 and draw(st.booleans())
        cut = draw(st.integers(lead if keep_system else 1, len(conversation) - 1))
        conversation[:] = conversation[:lead] + conversation[cut:] if keep_system else conversation[cut:]
    elif kind == "drop_call":
        del conversation[draw(st.sampled_from(turns))]
    elif kind == "lose_results":
        turn = draw(st.sampled_from(turns))
        results = _result_indexes(conversation, turn)
        if draw(st.booleans()):  # the run stopped here: nothing after the calls and some of the results
            del conversation[turn + 1 + draw(st.integers(0, max(len(results) - 1, 0))) :]
        elif results:
            lost = draw(st.lists(st.sampled_from(results), min_size=1, unique=True))
            for index in sorted(lost, reverse=True):
                del conversation[index]
    elif kind == "inject_message":
        turn = draw(st.sampled_from(turns))
        results = _result_indexes(conversation, turn)
        position = draw(st.integers(turn + 1, results[-1] if results else turn + 1))
        injected = draw(_injected(extensions))
        conversation.insert(position, injected)
    elif kind == "duplicate_id":
        turn = draw(st.sampled_from(turns))
        message = _as_ai(conversation[turn])
        if len(message.tool_calls) < 2:
            extra = draw(tool_calls())
            while extra.id == message.tool_calls[0].id:
                extra = extra.model_copy(update={"id": extra.id + "x"})
            message = message.model_copy(update={"tool_calls": [*message.tool_calls, extra]})
        first, position = sorted(
            draw(
                st.lists(st.sampled_from(range(len(message.tool_calls))), min_size=2, max_size=2, unique=True)
            )
        )
        reused = message.tool_calls[first].id
        old = message.tool_calls[position].id
        renamed = [
            call.model_copy(update={"id": reused}) if k == position else call
            for k, call in enumerate(message.tool_calls)
        ]
        conversation[turn] = message.model_copy(update={"tool_calls": renamed})
        for index in _result_indexes(conversation, turn):
            result = conversation[index]
            if isinstance(result, ToolMessage) and result.tool_call_id == old:
                conversation[index] = result.model_copy(update={"tool_call_id": reused})
    elif kind == "answer_twice":
        answered = [i for turn in turns for i in _result_indexes(conversation, turn)]
        if not answered:
            return
        index = draw(st.sampled_from(answered))
        original = conversation[index]
        assert isinstance(original, ToolMessage)
        again = draw(
            st.one_of(
                st.just(original),
                tool_messages(extensions=extensions, tool_call_id=original.tool_call_id),
            )
        )
        conversation.insert(draw(st.integers(index + 1, len(conversation))), again)
    else:  # "empty"
        conversation.clear()


@_built
def _injected(extensions: bool) -> st.SearchStrategy[Message]:
    """What a breakage files between a call and its results: mostly a user message."""
    return st.one_of(
        user_messages(extensions=extensions),
        user_messages(extensions=extensions),
        system_messages(extensions=extensions),
        _texts_only(extensions),
    )


@_built
def _whole(
    max_turns: int, max_parallel_calls: int, extensions: bool, reused_ids: bool
) -> st.SearchStrategy[list[Message]]:
    """The conversation a breakage starts from."""
    return conversations(
        max_turns=max_turns,
        max_parallel_calls=max_parallel_calls,
        extensions=extensions,
        reused_ids=reused_ids,
    )


def _as_ai(message: Message) -> AIMessage:
    assert isinstance(message, AIMessage)
    return message


def broken_conversations(
    *,
    kinds: Sequence[Breakage] = BREAKAGES,
    max_breaks: int = 3,
    max_turns: int = 8,
    max_parallel_calls: int = 4,
    extensions: bool = True,
    reused_ids: bool = True,
) -> st.SearchStrategy[list[Message]]:
    """A conversation from ``conversations()`` broken by one to ``max_breaks`` breakages of ``kinds``.

    Most results break the protocol, but not every one does: a trim can fall between two exchanges, and
    a later breakage can undo an earlier one (a trim that cuts away the turn given a duplicate id). Tell
    them apart with ``protocol_errors``; ``validate_conversation`` should reject exactly the broken ones.
    A breakage that needs a tool exchange adds one when the conversation has none. ``"empty"`` gives
    ``[]`` and is drawn rarely.

    Args:
        kinds: the breakages to draw from (``Breakage``: a trimmed history, a call dropped, results lost,
            a message between a call and its results, an id used twice, a call answered twice).
        max_breaks: the most breakages applied to one conversation.
        max_turns: the most turns of the conversation broken.
        max_parallel_calls: the most calls in one assistant turn.
        extensions: also draw what litellm's messages can carry beyond the core (reasoning,
            provider fields, cache marks, litellm's extra keys and parts); off for the core shape only.
        reused_ids: let a later turn use a call id of an earlier one again.

    Returns:
        A strategy of conversations, most of them broken.

    Raises:
        ValueError: ``kinds`` is empty or names a breakage not in ``BREAKAGES``, or ``max_breaks`` is less
            than 1.
    """
    if not kinds or set(kinds) - set(BREAKAGES):
        raise ValueError(f"kinds must be a non-empty selection of {BREAKAGES}; got {list(kinds)!r}")
    if max_breaks < 1:
        raise ValueError(f"max_breaks must be at least 1; got {max_breaks}")
    return _broken(
        tuple(kinds),
        max_breaks=max_breaks,
        max_turns=max_turns,
        max_parallel_calls=max_parallel_calls,
        extensions=extensions,
        reused_ids=reused_ids,
    )


@st.composite
def _broken(
    draw: st.DrawFn,
    kinds: tuple[Breakage, ...],
    *,
    max_breaks: int,
    max_turns: int,
    max_parallel_calls: int,
    extensions: bool,
    reused_ids: bool,
) -> list[Message]:
    options = [k for k in kinds if k != "empty"]
    if "empty" in kinds and (not options or draw(st.integers(0, 19)) == 0):
        return []
    conversation = draw(_whole(max_turns, max_parallel_calls, extensions, reused_ids))
    for _ in range(draw(st.integers(1, max_breaks))):
        kind = draw(st.sampled_from(options))
        if kind in _NEEDS_TOOLS and not _turn_indexes(conversation):
            used = {call.id for m in conversation if isinstance(m, AIMessage) for call in m.tool_calls}
            used |= {m.tool_call_id for m in conversation if isinstance(m, ToolMessage)}
            ids = _draw_turn_ids(draw, draw(st.integers(1, max_parallel_calls)), used, reuse=False)
            conversation.extend(_draw_exchange(draw, ids, extensions=extensions))
        _draw_break(draw, conversation, kind, extensions=extensions)
    return conversation
