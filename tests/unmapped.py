"""Whether a converter's ``ConversionError`` is the guard's refusal of a field the library cannot hold
(``messages.convert._guard``), and the message it names really holds that field."""

from __future__ import annotations

from messages import ConversionError, Message
from messages.convert._guard import _unmapped_part
from messages.models import AIMessage


def refused_by_guard(
    conversation: list[Message],
    error: ConversionError,
    *,
    text_cache_control: bool = False,
    image_format: bool = False,
) -> bool:
    """Whether ``error`` is the guard's refusal, for a library that holds a text part's cache_control
    (``text_cache_control``) or an image's format (``image_format``), or not."""
    if error.index is None:
        return False
    message = conversation[error.index]
    if error.part == "cache_control":
        return message.cache_control is not None
    if error.part == "is_error":
        return getattr(message, "is_error", None) is False
    if error.part in ("annotations", "images", "audio"):
        return isinstance(message, AIMessage) and getattr(message, str(error.part)) is not None
    if isinstance(error.part, int) and isinstance(message.content, list) and "has no place for" in str(error):
        part = message.content[error.part]
        assistant = isinstance(message, AIMessage)
        return bool(
            _unmapped_part(part, assistant, text_cache_control=text_cache_control, image_format=image_format)
        )
    return False
