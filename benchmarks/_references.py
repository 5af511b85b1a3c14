"""Reference models of the message schema that loading and dumping are measured against.

* ``msgspec`` Structs: a tagged union of the four roles (tag ``role``), content parts (tag ``type``) and
  tool calls, with the same fields as the package's classes and unknown keys refused. The fastest
  validated Python message model there is: its decode builds typed objects straight from JSON bytes.
* The pydantic floor: plain ``BaseModel`` classes with the same fields, frozen, unknown keys refused,
  discriminated by ``role`` and ``type``, with no validator, no custom ``__init__`` and no serializer.
  No pydantic message model can load faster than this one; the gap between it and ``msgspec`` is what
  building pydantic models costs, and the gap between it and ``load_messages`` is what this package adds.

Both read exactly the JSON that ``dump_messages`` writes for the benchmark conversations
(``check_references`` proves it on each run).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

__all__ = ["MSGSPEC_DECODER", "MSGSPEC_ENCODER", "PYDANTIC_FLOOR", "check_references"]


# --- msgspec --------------------------------------------------------------------------------------------


class _Struct(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True):
    pass


class MText(_Struct, tag_field="type", tag="text"):
    text: str


class MImageURL(_Struct):
    url: str
    detail: Literal["auto", "low", "high"] | None = None


class MImage(_Struct, tag_field="type", tag="image_url"):
    image_url: MImageURL


class MInputAudio(_Struct):
    data: str
    format: str


class MAudio(_Struct, tag_field="type", tag="input_audio"):
    input_audio: MInputAudio


class MFileRef(_Struct):
    file_data: str | None = None
    file_id: str | None = None
    filename: str | None = None


class MFile(_Struct, tag_field="type", tag="file"):
    file: MFileRef


MPart = MText | MImage | MAudio | MFile


class MFunction(_Struct):
    name: str
    arguments: str


class MToolCall(_Struct, tag_field="type", tag="function"):
    id: str
    function: MFunction
    provider_specific_fields: dict[str, Any] | None = None


class MSystem(_Struct, tag_field="role", tag="system"):
    content: str | list[MText]
    name: str | None = None


class MUser(_Struct, tag_field="role", tag="user"):
    content: str | list[MPart]
    name: str | None = None


class MAssistant(_Struct, tag_field="role", tag="assistant"):
    content: str | list[MText] | None  # always written, ``null`` on a tool-call-only turn
    tool_calls: list[MToolCall] | None = None
    name: str | None = None
    refusal: str | None = None
    reasoning_content: str | None = None
    thinking_blocks: list[dict[str, Any]] | None = None
    provider_specific_fields: dict[str, Any] | None = None
    provider: str | None = None


class MTool(_Struct, tag_field="role", tag="tool"):
    tool_call_id: str
    content: str | list[MPart]
    name: str | None = None


MSGSPEC_DECODER = msgspec.json.Decoder(list[MSystem | MUser | MAssistant | MTool])
MSGSPEC_ENCODER = msgspec.json.Encoder()


# --- the pydantic floor ---------------------------------------------------------------------------------


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class PText(_Model):
    type: Literal["text"]
    text: str


class PImageURL(_Model):
    url: str
    detail: Literal["auto", "low", "high"] | None = None


class PImage(_Model):
    type: Literal["image_url"]
    image_url: PImageURL


class PInputAudio(_Model):
    data: str
    format: str


class PAudio(_Model):
    type: Literal["input_audio"]
    input_audio: PInputAudio


class PFileRef(_Model):
    file_data: str | None = None
    file_id: str | None = None
    filename: str | None = None


class PFile(_Model):
    type: Literal["file"]
    file: PFileRef


PPart = Annotated[PText | PImage | PAudio | PFile, Field(discriminator="type")]


class PFunction(_Model):
    name: str
    arguments: str


class PToolCall(_Model):
    id: str
    function: PFunction
    type: Literal["function"] = "function"
    provider_specific_fields: dict[str, Any] | None = None


class PSystem(_Model):
    role: Literal["system", "developer"]
    content: str | list[PText]
    name: str | None = None


class PUser(_Model):
    role: Literal["user"]
    content: str | list[PPart]
    name: str | None = None


class PAssistant(_Model):
    role: Literal["assistant"]
    content: str | list[PText] | None = None
    tool_calls: list[PToolCall] | None = None
    name: str | None = None
    refusal: str | None = None
    reasoning_content: str | None = None
    thinking_blocks: list[dict[str, Any]] | None = None
    provider_specific_fields: dict[str, Any] | None = None
    provider: str | None = None


class PTool(_Model):
    role: Literal["tool"]
    tool_call_id: str
    content: str | list[PPart]
    name: str | None = None


PYDANTIC_FLOOR: TypeAdapter[list[Any]] = TypeAdapter(
    list[Annotated[PSystem | PUser | PAssistant | PTool, Field(discriminator="role")]]
)


def check_references(dumped: list[dict[str, Any]], text: bytes) -> None:
    """Both references read ``text`` (the JSON of ``dumped``) whole, and msgspec writes it back equal."""
    structs = MSGSPEC_DECODER.decode(text)
    assert msgspec.to_builtins(structs) == dumped, "msgspec must read and write the same dicts"
    assert len(PYDANTIC_FLOOR.validate_json(text)) == len(dumped)
