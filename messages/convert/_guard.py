"""What a converter's target library has no place for, refused before converting (never dropped).

The fields of litellm's message types that LangChain and pydantic-ai messages do not hold (issue 12:
prompt-caching marks, reply annotations, images and audio, video parts, litellm's own part keys, media in
an assistant turn) raise a ``ConversionError`` naming the message and the field or part. A converter
whose library holds a text part's ``cache_control`` (LangChain, on the text block) says so with
``text_cache_control=True``.
"""

from __future__ import annotations

from collections.abc import Sequence

from messages.errors import ConversionError
from messages.models import AIMessage, Message, ToolMessage
from messages.parts import FilePart, ImagePart, TextPart, VideoPart

__all__ = ["article", "refuse_unmapped"]

_REPLY_FIELDS = ("annotations", "images", "audio")


def article(word: str) -> str:
    """The article for ``word`` in an error text ("an 'input_audio' part")."""
    return "an" if word[:1] in "aeiou" else "a"


def refuse_unmapped(
    messages: Sequence[Message],
    library: str,
    *,
    text_cache_control: bool = False,
    is_error_false: bool = False,
    image_format: bool = False,
) -> None:
    """Raise ``ConversionError`` for the first field or part of ``messages`` that ``library`` cannot hold;
    with ``text_cache_control``, a text part's ``cache_control`` is not refused (the library holds it);
    with ``is_error_false``, nor is a tool result's explicit ``is_error=False`` (the library holds it apart
    from unset, as AutoGen's ``FunctionExecutionResult.is_error`` does); with ``image_format``, nor is an
    image's ``format`` (the library keeps a media type beside an image, as Agent Framework does)."""
    for index, message in enumerate(messages):
        if message.cache_control is not None:
            where = (
                " (it holds one on a text block: put the mark on the last text part)"
                if text_cache_control
                else ""
            )
            raise ConversionError(
                f"message {index}: {library} has no place for a message-level cache_control mark{where}",
                index=index,
                part="cache_control",
            )
        if isinstance(message, ToolMessage) and message.is_error is False and not is_error_false:
            raise ConversionError(
                f"message {index}: {library} holds a tool result as failed or not, so an explicit "
                "is_error=False would come back unset; leave it unset",
                index=index,
                part="is_error",
            )
        if isinstance(message, AIMessage):
            for field in _REPLY_FIELDS:
                if getattr(message, field) is not None:
                    raise ConversionError(
                        f"message {index}: {library} has no place for a reply's {field}",
                        index=index,
                        part=field,
                    )
        if not isinstance(message.content, list):
            continue
        for position, part in enumerate(message.content):
            what = _unmapped_part(
                part,
                isinstance(message, AIMessage),
                text_cache_control=text_cache_control,
                image_format=image_format,
            )
            if what:
                raise ConversionError(
                    f"message {index}, content part {position}: {library} has no place for {what}",
                    index=index,
                    part=position,
                )


def _unmapped_part(
    part: object, assistant: bool, *, text_cache_control: bool = False, image_format: bool = False
) -> str:
    if assistant and not isinstance(part, TextPart):
        return "media in an assistant turn"
    if isinstance(part, TextPart) and part.cache_control is not None and not text_cache_control:
        return "a cache_control mark on a text part"
    if isinstance(part, VideoPart):
        return "a video part"
    if isinstance(part, ImagePart) and isinstance(part.image_url, str):
        return (
            "an image given as a bare string"
            if image_format
            else "an image given as a bare string or with a format"
        )
    if isinstance(part, ImagePart) and part.image_url.format is not None and not image_format:
        return "an image given as a bare string or with a format"
    if isinstance(part, FilePart) and any(
        getattr(part.file, name) is not None for name in ("format", "detail", "video_metadata")
    ):
        return "file.format, file.detail or file.video_metadata"
    return ""
