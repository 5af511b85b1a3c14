"""Content parts of a message, mirroring OpenAI's Chat Completions content parts.

==============  =============================================================================
class           wire shape
==============  =============================================================================
``TextPart``    ``{"type": "text", "text": ...}``
``ImagePart``   ``{"type": "image_url", "image_url": {"url": ..., "detail": ...}}``
``AudioPart``   ``{"type": "input_audio", "input_audio": {"data": <base64>, "format": ...}}``
``FilePart``    ``{"type": "file", "file": {"file_data": <data URL>, "file_id": ..., "filename": ...}}``
``VideoPart``   ``{"type": "video_url", "video_url": {"url": ..., "detail": ...}}`` (or a bare URL string)
==============  =============================================================================

litellm's own extensions of these shapes (``litellm/types/llms/openai.py``) are fields too, unset by
default and then absent from the dump: ``cache_control`` on a text part (``CacheControl``, Anthropic prompt
caching), ``image_url`` given as a bare string (kept a string), ``image_url.format``, ``file.format``,
``file.detail`` and ``file.video_metadata``. OpenAI itself rejects them; the provider profiles remove or
report them where a route cannot carry them.

Each part is built with flat keywords (``ImagePart(url=..., detail="high")``) and read back from the wire
shape with ``model_validate``. Reprs never print whole base64 payloads.
"""

from __future__ import annotations

import base64
import mimetypes
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, Self

from pydantic import AfterValidator, Field, model_validator

from messages._wire import WireModel, check_string_keys, flat_init, short_repr

__all__ = [
    "AssistantPart",
    "AudioPart",
    "CacheControl",
    "CacheTTL",
    "ContentPart",
    "FilePart",
    "FileRef",
    "ImageDetail",
    "ImagePart",
    "ImageURL",
    "InputAudio",
    "TextPart",
    "VideoPart",
    "VideoURL",
]

ImageDetail = Literal["auto", "low", "high"]
"""How closely the model looks at an image (OpenAI's ``detail``)."""


CacheTTL = Literal["5m", "1h"]
"""How long Anthropic keeps a cache entry: ``"5m"`` (the default) or ``"1h"``."""


class CacheControl(WireModel):
    """A prompt-cache breakpoint, litellm's ``ChatCompletionCachedContent``: ``{"type": "ephemeral"}``,
    with an optional ``ttl``.

    Anthropic caches the request prefix up to and including the block that carries it; litellm carries it
    to Anthropic, Bedrock and Vertex AI Claude (``messages.caching`` places breakpoints for you).
    """

    type: Literal["ephemeral"] = "ephemeral"
    """Always ``"ephemeral"`` (the only kind Anthropic has)."""
    ttl: CacheTTL | None = None
    """``"5m"`` or ``"1h"``; unset means Anthropic's default, five minutes."""


def _data_url(data: bytes, media_type: str) -> str:
    return f"data:{media_type};base64,{base64.b64encode(data).decode('ascii')}"


def _payload_not_empty(url: str) -> str:
    """A ``data:`` URL must carry something after its comma: no provider takes a 0-byte image, audio clip
    or file (botocore's Converse model says ``min: 1`` for image and document bytes; litellm sends an empty
    payload as it is). Any other URL passes unchanged."""
    if url[:5].lower() == "data:" and not url.partition(",")[2].strip():
        raise ValueError(
            f"the data URL {url[:40]!r} has an empty payload (nothing after the comma): no provider takes an "
            "empty image, audio clip or file; give the bytes (ImagePart.from_bytes, FilePart.from_bytes), or "
            "leave the part out"
        )
    return url


def _base64_not_empty(data: str) -> str:
    if not data.strip():
        raise ValueError(
            "the base64 audio data is empty: no provider takes an empty clip; give the bytes "
            "(AudioPart.from_bytes), or leave the part out"
        )
    return data


DataURL = Annotated[str, Field(min_length=1), AfterValidator(_payload_not_empty)]
"""An URL (``https://...``, ``gs://...``) or a base64 ``data:`` URL whose payload is not empty."""


def _guess_media_type(path: Path, default: str) -> str:
    guessed, _ = mimetypes.guess_type(path.name)
    return guessed or default


class TextPart(WireModel):
    """A piece of text."""

    type: Literal["text"] = "text"
    """Always ``"text"``."""
    text: str
    """The text; may be empty (provider profiles decide what an empty text becomes)."""
    cache_control: CacheControl | None = None
    """A prompt-cache breakpoint after this text (Anthropic through litellm); unset: none."""


class ImageURL(WireModel):
    """Where an image is: an http(s) URL or a base64 ``data:`` URL."""

    url: DataURL
    """An ``https://`` URL or a ``data:image/...;base64,...`` URL (whose payload is not empty)."""
    detail: ImageDetail | None = None
    """``"auto"``, ``"low"`` or ``"high"``; unset means the provider's default."""
    format: str | None = None
    """The image's media type (``"image/png"``), for an URL that does not say it (litellm's
    ``image_url.format``, read by its Gemini and Bedrock routes)."""

    def __repr_args__(self) -> Any:
        yield "url", short_repr(self.url)
        if self.detail is not None:
            yield "detail", self.detail
        if self.format is not None:
            yield "format", self.format


class ImagePart(WireModel):
    """An image, by URL or inline as a base64 data URL.

    Args:
        url: an ``https://`` URL, or a base64 ``data:image/...`` URL.
        detail: ``"auto"``, ``"low"`` or ``"high"``; unset, the provider's default.
        format: the image's media type (``"image/png"``), for an URL that does not say it.
        image_url: ``{"url": ..., "detail": ...}`` as on the wire (or the URL alone), instead of the
            keywords above.
        type: always ``"image_url"``.

    Raises:
        pydantic.ValidationError: no URL, or a field of the wrong type or value.

    Examples:
        ```python
        from messages import ImagePart, TextPart, UserMessage

        photo = ImagePart(url="https://example.com/cat.png", detail="low")
        png = bytes.fromhex("89504e470d0a1a0a") + bytes(64)  # a PNG file's bytes
        inline = ImagePart.from_bytes(png, media_type="image/png")
        assert inline.url.startswith("data:image/png;base64,")
        question = UserMessage(content=[TextPart(text="Which is nicer?"), photo, inline])
        ```
    """

    type: Literal["image_url"] = "image_url"
    """Always ``"image_url"``."""
    image_url: ImageURL | DataURL
    """The URL and detail level, nested as on the wire; or the URL alone, as a string (litellm accepts
    both, and a string given is dumped as a string)."""

    if not TYPE_CHECKING:  # the runtime constructor; the flat keywords below are for readers
        __init__ = flat_init("image_url", ("url", "detail", "format"), "ImagePart")

    else:  # the flat keywords, for type checkers and the reference

        def __init__(
            self,
            *,
            url: str | None = None,
            detail: ImageDetail | None = None,
            format: str | None = None,
            image_url: ImageURL | Mapping[str, Any] | str | None = None,
            type: Literal["image_url"] = "image_url",
        ) -> None: ...

    @property
    def url(self) -> str:
        """The image URL (``https://...`` or ``data:...``)."""
        image = self.image_url
        return image if isinstance(image, str) else image.url

    @property
    def detail(self) -> ImageDetail | None:
        """The detail level, if set."""
        image = self.image_url
        return None if isinstance(image, str) else image.detail

    @classmethod
    def from_bytes(
        cls, data: bytes, media_type: str = "image/png", *, detail: ImageDetail | None = None
    ) -> Self:
        """An inline image from raw bytes (base64-encoded into a data URL).

        Args:
            data: the image file's bytes.
            media_type: its media type.
            detail: ``"auto"``, ``"low"`` or ``"high"``.

        Returns:
            The image part, inline.

        Raises nothing.
        """
        return cls(url=_data_url(data, media_type), detail=detail)

    @classmethod
    def from_path(cls, path: str | Path, *, detail: ImageDetail | None = None) -> Self:
        """An inline image read from a file; the media type is guessed from the file name.

        Args:
            path: the image file.
            detail: ``"auto"``, ``"low"`` or ``"high"``.

        Returns:
            The image part, inline.

        Raises:
            OSError: the file cannot be read.
        """
        path = Path(path)
        return cls.from_bytes(path.read_bytes(), _guess_media_type(path, "image/png"), detail=detail)

    def __repr_args__(self) -> Any:
        yield "url", short_repr(self.url)
        if self.detail is not None:
            yield "detail", self.detail
        if not isinstance(self.image_url, str) and self.image_url.format is not None:
            yield "format", self.image_url.format


class InputAudio(WireModel):
    """Base64 audio and its format."""

    data: Annotated[str, AfterValidator(_base64_not_empty)]
    """Base64-encoded audio bytes (no ``data:`` prefix); not empty."""
    format: str = Field(min_length=1)
    """The audio format; OpenAI accepts ``"wav"`` and ``"mp3"``, other providers more."""

    def __repr_args__(self) -> Any:
        yield "data", short_repr(self.data)
        yield "format", self.format


class AudioPart(WireModel):
    """Inline audio input.

    Args:
        data: the audio, base64-encoded (no ``data:`` prefix).
        format: ``"wav"``, ``"mp3"``, or another format the provider takes.
        input_audio: ``{"data": ..., "format": ...}`` as on the wire, instead of ``data`` and ``format``.
        type: always ``"input_audio"``.

    Raises:
        pydantic.ValidationError: a field of the wrong type or value.
    """

    type: Literal["input_audio"] = "input_audio"
    """Always ``"input_audio"``."""
    input_audio: InputAudio
    """The data and format, nested as on the wire."""

    if not TYPE_CHECKING:  # the runtime constructor; the flat keywords below are for readers
        __init__ = flat_init("input_audio", ("data", "format"), "AudioPart")

    else:  # the flat keywords, for type checkers and the reference

        def __init__(
            self,
            *,
            data: str | None = None,
            format: str | None = None,
            input_audio: InputAudio | Mapping[str, Any] | None = None,
            type: Literal["input_audio"] = "input_audio",
        ) -> None: ...

    @property
    def data(self) -> str:
        """Base64-encoded audio."""
        return self.input_audio.data

    @property
    def format(self) -> str:
        """The audio format (``"wav"``, ``"mp3"``, ...)."""
        return self.input_audio.format

    @classmethod
    def from_bytes(cls, data: bytes, format: str = "wav") -> Self:
        """Inline audio from raw bytes.

        Args:
            data: the audio file's bytes.
            format: its format (``"wav"``, ``"mp3"``).

        Returns:
            The audio part.

        Raises nothing.
        """
        return cls(data=base64.b64encode(data).decode("ascii"), format=format)

    def __repr_args__(self) -> Any:
        yield "data", short_repr(self.data)
        yield "format", self.format


class FileRef(WireModel):
    """A file given inline (``file_data``, a base64 data URL) or by an uploaded ``file_id``."""

    file_data: DataURL | None = None
    """A ``data:<media type>;base64,...`` URL holding the whole file (its payload not empty)."""
    file_id: str | None = None
    """The id of a file uploaded to the provider beforehand."""
    filename: str | None = None
    """The file name; required with ``file_data`` (OpenAI rejects inline files without one)."""
    format: str | None = None
    """The file's media type (``"application/pdf"``, ``"video/mp4"``), for a ``file_id`` or URL that does
    not say it (litellm's ``file.format``, read by its Gemini, Vertex AI and Bedrock routes)."""
    detail: str | None = None
    """Resolution for video and images (``"low"``, ``"medium"``, ``"high"``, ``"ultra_high"``; Gemini's
    media resolution through litellm)."""
    video_metadata: Annotated[dict[str, Any], AfterValidator(check_string_keys)] | None = None
    """Video clipping and sampling (``{"fps": ..., "start_offset": ..., "end_offset": ...}``; Gemini)."""

    @model_validator(mode="after")
    def _check_source(self) -> Self:
        if self.file_data is None and self.file_id is None:
            raise ValueError("a file part needs file_data (a base64 data URL) or file_id; it has neither")
        if self.file_data is not None and not self.filename:
            # quirk 11: OpenAI answers "Missing required parameter ... file_id" without it,
            # and litellm silently invents "my_file.pdf" (measured on litellm 1.106.2 and 1.110.2).
            raise ValueError("a file part with file_data needs a filename, e.g. filename='report.pdf'")
        return self

    def __repr_args__(self) -> Any:
        if self.file_data is not None:
            yield "file_data", short_repr(self.file_data)
        if self.file_id is not None:
            yield "file_id", self.file_id
        if self.filename is not None:
            yield "filename", self.filename
        for name in ("format", "detail", "video_metadata"):
            value = getattr(self, name)
            if value is not None:
                yield name, value


class FilePart(WireModel):
    """A document (PDF and the like), inline or by file id.

    Args:
        file_data: the whole file as a ``data:<media type>;base64,...`` URL.
        file_id: the id of a file uploaded to the provider, instead of ``file_data``.
        filename: the file's name; required with ``file_data``.
        format: the file's media type, for a ``file_id`` that does not say it.
        detail: resolution for video and images (Gemini's media resolution).
        video_metadata: video clipping and sampling (``{"fps": ..., "start_offset": ...}``; Gemini).
        file: ``{"file_data": ..., "filename": ...}`` as on the wire, instead of the keywords above.
        type: always ``"file"``.

    Raises:
        pydantic.ValidationError: neither ``file_data`` nor ``file_id`` is given, ``file_data`` without a
            ``filename``, or a field of the wrong type.
    """

    type: Literal["file"] = "file"
    """Always ``"file"``."""
    file: FileRef
    """The file reference, nested as on the wire."""

    if not TYPE_CHECKING:  # the runtime constructor; the flat keywords below are for readers
        __init__ = flat_init(
            "file", ("file_data", "file_id", "filename", "format", "detail", "video_metadata"), "FilePart"
        )

    else:  # the flat keywords, for type checkers and the reference

        def __init__(
            self,
            *,
            file_data: str | None = None,
            file_id: str | None = None,
            filename: str | None = None,
            format: str | None = None,
            detail: str | None = None,
            video_metadata: Mapping[str, Any] | None = None,
            file: FileRef | Mapping[str, Any] | None = None,
            type: Literal["file"] = "file",
        ) -> None: ...

    @property
    def file_data(self) -> str | None:
        """The inline data URL, if any."""
        return self.file.file_data

    @property
    def file_id(self) -> str | None:
        """The uploaded file id, if any."""
        return self.file.file_id

    @property
    def filename(self) -> str | None:
        """The file name, if any."""
        return self.file.filename

    @classmethod
    def from_bytes(cls, data: bytes, filename: str, media_type: str = "application/pdf") -> Self:
        """An inline file from raw bytes.

        Args:
            data: the file's bytes.
            filename: its name (OpenAI rejects an inline file without one).
            media_type: its media type.

        Returns:
            The file part, inline.

        Raises nothing.
        """
        return cls(file_data=_data_url(data, media_type), filename=filename)

    @classmethod
    def from_path(cls, path: str | Path) -> Self:
        """An inline file read from disk; the media type is guessed from the file name.

        Args:
            path: the file.

        Returns:
            The file part, inline, named after the file.

        Raises:
            OSError: the file cannot be read.
        """
        path = Path(path)
        return cls.from_bytes(
            path.read_bytes(), path.name, _guess_media_type(path, "application/octet-stream")
        )

    def __repr_args__(self) -> Any:
        yield "file", self.file


class VideoURL(WireModel):
    """Where a video is: an URL (``https://``, ``gs://``, a YouTube link) or a base64 ``data:`` URL."""

    url: DataURL
    """The video's URL (a ``data:`` URL's payload not empty)."""
    detail: str | None = None
    """Resolution hint (litellm passes it on to Gemini); unset means the provider's default."""

    def __repr_args__(self) -> Any:
        yield "url", short_repr(self.url)
        if self.detail is not None:
            yield "detail", self.detail


class VideoPart(WireModel):
    """A video by URL (litellm's ``video_url`` part; Gemini and Vertex AI read it, most routes do not).

    Args:
        url: the video's URL.
        detail: resolution (Gemini's media resolution).
        video_url: ``{"url": ..., "detail": ...}`` as on the wire (or the URL alone), instead of ``url``
            and ``detail``.
        type: always ``"video_url"``.

    Raises:
        pydantic.ValidationError: no URL, or a field of the wrong type or value.
    """

    type: Literal["video_url"] = "video_url"
    """Always ``"video_url"``."""
    video_url: VideoURL | DataURL
    """The URL and detail, nested as on the wire; or the URL alone, as a string (kept a string)."""

    if not TYPE_CHECKING:  # the runtime constructor; the flat keywords below are for readers
        __init__ = flat_init("video_url", ("url", "detail"), "VideoPart")

    else:  # the flat keywords, for type checkers and the reference

        def __init__(
            self,
            *,
            url: str | None = None,
            detail: str | None = None,
            video_url: VideoURL | Mapping[str, Any] | str | None = None,
            type: Literal["video_url"] = "video_url",
        ) -> None: ...

    @property
    def url(self) -> str:
        """The video URL."""
        video = self.video_url
        return video if isinstance(video, str) else video.url

    def __repr_args__(self) -> Any:
        yield "url", short_repr(self.url)
        if not isinstance(self.video_url, str) and self.video_url.detail is not None:
            yield "detail", self.video_url.detail


ContentPart = Annotated[TextPart | ImagePart | AudioPart | FilePart | VideoPart, Field(discriminator="type")]
"""Any content part, told apart by its ``type``."""

AssistantPart = Annotated[TextPart | ImagePart | AudioPart | FilePart, Field(discriminator="type")]
"""A part of an assistant turn's content (litellm allows text, image, audio and file parts there)."""
