"""The provider SDKs' own request types, used as structural oracles.

They validate lazily and ignore unknown keys by default (litellm-notes.md section 5), so each oracle forbids
extra keys and materializes every nested iterable before it says yes.
"""

from __future__ import annotations

import base64
from collections.abc import Iterable, Mapping
from functools import cache
from typing import Any

from pydantic import BaseModel, ConfigDict, TypeAdapter


def materialize(value: Any) -> Any:
    """Walk ``value``, consuming the lazy iterators pydantic returns for ``Iterable[...]`` fields."""
    if isinstance(value, Mapping):
        return {k: materialize(v) for k, v in value.items()}
    if isinstance(value, BaseModel):
        raise AssertionError(f"the oracle turned a request part into a response model: {value!r}")
    if isinstance(value, (str, bytes)):
        return value
    if isinstance(value, Iterable):
        return [materialize(v) for v in value]
    return value


@cache
def _openai_messages() -> TypeAdapter[Any]:
    from openai.types.chat import ChatCompletionMessageParam

    return TypeAdapter(list[ChatCompletionMessageParam], config=ConfigDict(extra="forbid"))


def openai_accepts(messages: list[dict[str, Any]]) -> list[Any]:
    """Validate a message list against ``openai.types.chat.ChatCompletionMessageParam``; raise if it fails."""
    return materialize(_openai_messages().validate_python(messages))  # type: ignore[no-any-return]


@cache
def _anthropic_request() -> TypeAdapter[Any]:
    from anthropic.types.message_create_params import MessageCreateParams

    return TypeAdapter(list[MessageCreateParams], config=ConfigDict(extra="forbid"))


def anthropic_accepts(body: dict[str, Any]) -> dict[str, Any]:
    """Validate a whole ``/v1/messages`` body against ``anthropic.types.MessageCreateParams``; raise if it
    fails. A content block that only validates as a response model (``TextBlock`` allows extra keys) is a
    failure too: ``materialize`` refuses any model in the output."""
    return materialize(_anthropic_request().validate_python([body]))[0]  # type: ignore[no-any-return]


@cache
def _gemini_content() -> TypeAdapter[Any]:
    from google.genai import types

    return TypeAdapter(list[types.Content])


def gemini_accepts(body: dict[str, Any]) -> list[Any]:
    """Validate the ``contents`` and ``system_instruction`` of a generateContent body against
    ``google.genai.types.Content`` (a pydantic model with extra keys forbidden); raise if it fails."""
    contents = list(body.get("contents") or [])
    system = body.get("system_instruction", body.get("systemInstruction"))
    if system is not None:
        contents.append(system)
    return _gemini_content().validate_python(contents)  # type: ignore[no-any-return]


@cache
def _converse_shape() -> Any:
    import botocore.session

    model = botocore.session.get_session().get_service_model("bedrock-runtime")
    return model.operation_model("Converse").input_shape


def _decode_blobs(value: Any, key: str = "") -> Any:
    """Wire base64 back to ``bytes`` where the Converse shape has blobs (image, document and video
    ``source.bytes``, ``redactedContent``): botocore validates the Python values, before encoding."""
    if isinstance(value, dict):
        return {k: _decode_blobs(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_decode_blobs(v, key) for v in value]
    if key in ("bytes", "redactedContent") and isinstance(value, str):
        return base64.b64decode(value)
    return value


def bedrock_converse_accepts(body: dict[str, Any], model_id: str) -> None:
    """Validate a ``/model/<id>/converse`` body against botocore's own ``Converse`` input shape (unknown
    keys and wrong tagged unions fail; botocore checks no enums, patterns or minimum lengths); raise
    ``AssertionError`` with botocore's report if it fails."""
    from botocore.validate import ParamValidator

    report = ParamValidator().validate({"modelId": model_id, **_decode_blobs(body)}, _converse_shape())
    if report.has_errors():
        raise AssertionError(report.generate_report())
