"""The provider SDKs' own request types, used as structural oracles.

They validate lazily and ignore unknown keys by default (docs/litellm.md, 'The SDK request types are
lenient by default'), so each oracle forbids extra keys and materializes every nested iterable before it
says yes.
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


# --- Mistral: mistral-common, the request validator and tokenizer of its own serving stack ---------------

MISTRAL_COMMON_ADAPTATIONS = {
    "prefix": "mistral-common's from_openai drops `prefix`: a final assistant message marked prefix: true is "
    "passed as continue_final_message=True (which sets it again); a prefix on any other message is refused "
    "here with the validator's own words",
    "image": "the v7 tokenizer has no image encoder (the multimodal v7m1 needs opencv): each image_url part "
    "of a user message is checked as an ImageURLChunk, then encoded as a text chunk in its place",
    "file": "mistral-common has no `file` chunk type (Mistral's API takes uploaded documents as file parts): "
    "each file part of a user message is encoded as a text chunk in its place",
}
"""Each way the body litellm sends to Mistral is adapted before mistral-common judges it, and why: what
mistral-common does not model, not what Mistral would refuse. Nothing else is changed."""


@cache
def _mistral_tokenizer() -> Any:
    from mistral_common.protocol.instruct.validator import ValidationMode
    from mistral_common.tokens.tokenizers.mistral import MistralTokenizer

    # v7() validates in "test" mode, which lets calls go unanswered at the end; Mistral's API serves in
    # "serving" mode, the same tokenizer file with the stricter validator.
    path = MistralTokenizer.v7().instruct_tokenizer.tokenizer.file_path
    return MistralTokenizer.from_file(path, mode=ValidationMode.serving)


def _for_mistral_common(messages: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], bool]:
    """``messages`` with the ``MISTRAL_COMMON_ADAPTATIONS`` made, and whether the last one is a prefix."""
    from mistral_common.protocol.instruct.chunk import ImageURLChunk

    adapted: list[dict[str, Any]] = []
    last = len(messages) - 1
    prefix = False
    for index, message in enumerate(messages):
        if "prefix" in message:  # adaptation "prefix"
            if message.get("prefix") and index != last:
                raise AssertionError(
                    f"messages[{index}]: Assistant message with prefix True must be last message"
                )
            prefix = index == last and message.get("role") == "assistant" and message["prefix"] is True
            message = {k: v for k, v in message.items() if k != "prefix"}
        content = message.get("content")
        if message.get("role") == "user" and isinstance(content, list):
            parts = []
            for part in content:
                kind = part.get("type") if isinstance(part, dict) else None
                if kind == "image_url":  # adaptation "image"
                    ImageURLChunk.model_validate(part)
                    parts.append({"type": "text", "text": "[image]"})
                elif kind == "file":  # adaptation "file"
                    parts.append({"type": "text", "text": "[file]"})
                else:
                    parts.append(part)
            message = {**message, "content": parts}
        adapted.append(message)
    return adapted, prefix


def mistral_common_accepts(body: dict[str, Any]) -> None:
    """Judge a ``/v1/chat/completions`` body sent to Mistral with mistral-common (1.13): its
    ``ChatCompletionRequest.from_openai`` and the v7 tokenizer's ``encode_chat_completion``, which runs
    Mistral's request validator in serving mode and builds the prompt. Raises its exception when it
    refuses the body (``InvalidMessageStructureException: Unexpected role 'system' after role
    'assistant'``...). The body is adapted first, as ``MISTRAL_COMMON_ADAPTATIONS`` says."""
    from mistral_common.protocol.instruct.request import ChatCompletionRequest

    messages, prefix = _for_mistral_common(list(body.get("messages") or []))
    request = ChatCompletionRequest.from_openai(
        messages, tools=body.get("tools"), continue_final_message=prefix, model=body.get("model") or "mistral"
    )
    _mistral_tokenizer().encode_chat_completion(request)
