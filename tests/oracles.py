"""The provider SDKs' own request types, used as oracles of the bodies litellm sends.

They validate lazily and ignore unknown keys by default (docs/litellm.md, 'The SDK request types are
lenient by default'), so each oracle forbids extra keys and materializes every nested iterable before it
says yes; where a type carries its own config that ignores extra keys (some of anthropic's TypedDicts) or
allows them (Cohere's Fern models), the keys it did not keep are counted by hand. Each oracle raises,
naming the spot (``messages[2].content[0].source.foo``), when it refuses a body:

* OpenAI: ``openai.types.chat.ChatCompletionMessageParam``;
* Anthropic: ``anthropic.types.MessageCreateParams``, the whole ``/v1/messages`` body;
* Gemini and Vertex AI: ``google.genai.types.Content`` (extra keys forbidden) and the SDK's own request
  builders for each backend (``_Content_to_mldev``, ``_Content_to_vertex``...), which refuse a field the
  backend does not support;
* Bedrock: botocore's ``bedrock-runtime`` service model for ``Converse``, with ``ParamValidator`` and the
  ``max``, ``pattern`` and ``enum`` constraints the model declares (which ``ParamValidator`` leaves out);
* Cohere: the v2 chat types of Cohere's SDK (``ChatMessageV2``, ``ToolV2``), read strictly, and the
  parameters of its ``V2Client.chat``;
* Mistral: mistral-common's request validator and tokenizer.
"""

from __future__ import annotations

import base64
import inspect
import re
from collections.abc import Iterable, Mapping
from functools import cache
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError


def materialize(value: Any, path: tuple[Any, ...] = ()) -> Any:
    """Walk ``value``, consuming the lazy iterators pydantic returns for ``Iterable[...]`` fields. A failure
    found on the way (pydantic reports it relative to the iterable) is raised as an ``AssertionError``
    that names the spot from the top (``messages[2].content[0].tool_use_id: Field required``)."""
    if isinstance(value, Mapping):
        return {k: materialize(v, (*path, k)) for k, v in value.items()}
    if isinstance(value, BaseModel):
        raise AssertionError(
            f"{_spot(path)}: the oracle turned a request part into a response model: {value!r}"
        )
    if isinstance(value, (str, bytes)):
        return value
    if isinstance(value, Iterable):
        items: list[Any] = []
        iterator = iter(value)
        while True:
            try:
                item = next(iterator)
            except StopIteration:
                return items
            except ValidationError as error:
                raise AssertionError(_explained(error, (*path, len(items)))) from None
            items.append(materialize(item, (*path, len(items))))
    return value


def _explained(error: ValidationError, path: tuple[Any, ...]) -> str:
    """One line per complaint of the union member that matches the item's own ``type`` (pydantic reports
    every member's), at its spot from the top; every complaint when no member matches."""
    errors = error.errors()
    item = next(
        (e["input"] for e in errors if isinstance(e.get("input"), Mapping) and "type" in e["input"]), None
    )
    kind = item.get("type") if isinstance(item, Mapping) else None
    member = "".join(word.title() for word in str(kind).split("_")) if kind else None
    own = [e for e in errors if member and any(str(step).startswith(member) for step in e["loc"])]
    lines = []
    for e in own or errors[:3]:
        steps = [s for s in e["loc"][1:] if not (isinstance(s, str) and s[:1].isupper())]
        lines.append(f"{_spot((*path, *steps))}: {e['msg']}")
    return "; ".join(lines)


@cache
def _openai_messages() -> TypeAdapter[Any]:
    from openai.types.chat import ChatCompletionMessageParam

    return TypeAdapter(list[ChatCompletionMessageParam], config=ConfigDict(extra="forbid"))


def _spot(path: Iterable[Any]) -> str:
    """``messages[2].content[0].text`` from a location's steps."""
    out = ""
    for step in path:
        out += f"[{step}]" if isinstance(step, int) else (f".{step}" if out else str(step))
    return out


def ignored_keys(given: Any, kept: Any, path: tuple[Any, ...] = ()) -> list[str]:
    """The keys of ``given`` that validation did not keep in ``kept`` (a TypedDict whose own config ignores
    extra keys drops them without a word), each as the spot it was at."""
    found: list[str] = []
    if isinstance(given, Mapping) and isinstance(kept, Mapping):
        for key, value in given.items():
            if key not in kept:
                found.append(_spot((*path, key)))
            else:
                found.extend(ignored_keys(value, kept[key], (*path, key)))
    elif isinstance(given, list) and isinstance(kept, list) and len(given) == len(kept):
        for index, (one, other) in enumerate(zip(given, kept, strict=True)):
            found.extend(ignored_keys(one, other, (*path, index)))
    return found


def openai_accepts(messages: list[dict[str, Any]]) -> list[Any]:
    """Validate a message list against ``openai.types.chat.ChatCompletionMessageParam``; raise if it fails."""
    kept = materialize(_openai_messages().validate_python(messages), ("messages",))
    dropped = ignored_keys(messages, kept, ("messages",))
    if dropped:
        raise AssertionError(f"keys openai's types do not keep: {', '.join(dropped)}")
    return kept  # type: ignore[no-any-return]


@cache
def _anthropic_request() -> TypeAdapter[Any]:
    from anthropic.types.message_create_params import MessageCreateParams

    return TypeAdapter(list[MessageCreateParams], config=ConfigDict(extra="forbid"))


def anthropic_accepts(body: dict[str, Any]) -> dict[str, Any]:
    """Validate a whole ``/v1/messages`` body against ``anthropic.types.MessageCreateParams``; raise if it
    fails. A content block that only validates as a response model (``TextBlock`` allows extra keys) is a
    failure too: ``materialize`` refuses any model in the output. So is a key that a TypedDict with its own
    config (``anthropic_ignoring_types``) ignores instead of refusing: ``ignored_keys`` finds it."""
    kept = materialize(_anthropic_request().validate_python([body])[0])
    dropped = ignored_keys(body, kept)
    if dropped:
        raise AssertionError(f"keys anthropic's types ignore: {', '.join(dropped)}")
    return kept  # type: ignore[no-any-return]


def anthropic_ignoring_types() -> dict[str, dict[str, Any]]:
    """The TypedDicts of ``anthropic.types`` (beta included) that carry a pydantic config of their own,
    which the ``extra="forbid"`` of the oracle does not reach: by ``module.name``, their config."""
    import importlib
    import pkgutil

    import anthropic.types
    from typing_extensions import is_typeddict

    found: dict[str, dict[str, Any]] = {}
    for info in pkgutil.walk_packages(anthropic.types.__path__, "anthropic.types."):
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if isinstance(value, type) and is_typeddict(value) and "__pydantic_config__" in vars(value):
                found[f"{value.__module__}.{name}"] = dict(value.__pydantic_config__)
    return found


@cache
def _gemini_content() -> TypeAdapter[Any]:
    from google.genai import types

    return TypeAdapter(list[types.Content])


Backend = Literal["gemini", "vertex_ai"]


def gemini_accepts(body: dict[str, Any], backend: Backend = "gemini") -> list[Any]:
    """Validate the ``contents``, ``system_instruction`` and ``tools`` of a generateContent body against
    ``google.genai.types`` (pydantic models with extra keys forbidden), then build each the way the SDK
    builds its request for ``backend`` (the Gemini API, ``_Content_to_mldev``, or Vertex AI,
    ``_Content_to_vertex``), which refuses what that backend does not support; raise if either fails,
    naming the content and the field."""
    from google.genai import models, types

    contents = list(body.get("contents") or [])
    system = body.get("system_instruction", body.get("systemInstruction"))
    if system is not None:
        contents.append(system)
    validated = _gemini_content().validate_python(contents)
    suffix = "mldev" if backend == "gemini" else "vertex"
    build_content = getattr(models, f"_Content_to_{suffix}")
    for index, content in enumerate(validated):
        where = (
            "system_instruction"
            if system is not None and index == len(validated) - 1
            else f"contents[{index}]"
        )
        try:
            build_content(content)
        except ValueError as error:
            raise AssertionError(f"{where}: {error}") from None
    build_tool = getattr(models, f"_Tool_to_{suffix}")
    for index, tool in enumerate(body.get("tools") or []):
        try:
            build_tool(types.Tool.model_validate(tool))
        except ValueError as error:
            raise AssertionError(f"tools[{index}]: {error}") from None
    return validated  # type: ignore[no-any-return]


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
    """Validate a ``/model/<id>/converse`` body against botocore's own ``Converse`` input shape: botocore's
    ``ParamValidator`` (unknown keys, types, required members, tagged unions, ``min``), then the ``max``,
    ``pattern`` and ``enum`` constraints of the same model, which ``ParamValidator`` leaves to the service
    (``converse_constraints``); raise ``AssertionError`` naming each spot if it fails."""
    from botocore.validate import ParamValidator

    params = {"modelId": model_id, **_decode_blobs(body)}
    report = ParamValidator().validate(params, _converse_shape())
    if report.has_errors():
        raise AssertionError(report.generate_report())
    broken = converse_constraints(params, _converse_shape())
    if broken:
        raise AssertionError("; ".join(broken))


def converse_constraints(value: Any, shape: Any, path: str = "") -> list[str]:
    """Every ``min``, ``max``, ``pattern`` and ``enum`` of the botocore shape ``shape`` that ``value``
    breaks, each as ``spot: what``. A pattern must match the whole value, as the service applies it ("Member
    must satisfy regular expression pattern: [a-zA-Z0-9_-]+", quirk 45); a document (a tool's input) is
    free-form and not looked into."""
    found: list[str] = []
    meta = shape.metadata
    kind = shape.type_name
    where = path or shape.name
    if kind in ("string", "blob", "list", "map"):
        size = len(value) if isinstance(value, (str, bytes, list, dict)) else None
        if size is not None and "min" in meta and size < meta["min"]:
            found.append(f"{where}: length {size} is under the min of {meta['min']}")
        if size is not None and "max" in meta and size > meta["max"]:
            found.append(f"{where}: length {size} is over the max of {meta['max']}")
    if kind in ("integer", "long", "float", "double") and isinstance(value, (int, float)):
        if "min" in meta and value < meta["min"]:
            found.append(f"{where}: {value} is under the min of {meta['min']}")
        if "max" in meta and value > meta["max"]:
            found.append(f"{where}: {value} is over the max of {meta['max']}")
    if kind == "string" and isinstance(value, str):
        enum = getattr(shape, "enum", None)
        if enum and value not in enum:
            found.append(f"{where}: {value!r} is not one of {enum}")
        pattern = meta.get("pattern")
        if pattern and re.fullmatch(pattern, value) is None:
            found.append(f"{where}: {value[:40]!r} does not match the pattern {pattern}")
    if kind == "structure" and isinstance(value, Mapping) and not meta.get("document"):
        for key, member in shape.members.items():
            if key in value:
                found.extend(converse_constraints(value[key], member, f"{where}.{key}" if path else key))
    elif kind == "list" and isinstance(value, list):
        for index, item in enumerate(value):
            found.extend(converse_constraints(item, shape.member, f"{where}[{index}]"))
    elif kind == "map" and isinstance(value, Mapping):
        for key, item in value.items():
            found.extend(converse_constraints(item, shape.value, f"{where}.{key}"))
    return found


# --- Cohere: the v2 chat types of Cohere's SDK, read strictly ------------------------------------------

_COHERE_ROLES = {
    "system": "SystemChatMessageV2",
    "user": "UserChatMessageV2",
    "assistant": "AssistantChatMessageV2",
    "tool": "ToolChatMessageV2",
}


def _extra_keys(model: Any, path: str) -> list[str]:
    """The keys a Fern model (``extra="allow"``) kept without declaring them, anywhere inside it."""
    from pydantic import BaseModel

    found: list[str] = []
    if isinstance(model, BaseModel):
        found.extend(f"{path}.{key}" for key in (model.model_extra or {}))
        for name in type(model).model_fields:
            found.extend(_extra_keys(getattr(model, name), f"{path}.{name}"))
    elif isinstance(model, list):
        for index, item in enumerate(model):
            found.extend(_extra_keys(item, f"{path}[{index}]"))
    elif isinstance(model, dict):
        for key, item in model.items():
            found.extend(_extra_keys(item, f"{path}.{key}"))
    return found


@cache
def _cohere_chat_parameters() -> frozenset[str]:
    from cohere.v2.client import V2Client

    return frozenset(inspect.signature(V2Client.chat).parameters) - {"self", "request_options"}


def cohere_accepts(body: dict[str, Any]) -> None:
    """Judge a ``/v2/chat`` body with the v2 types of Cohere's own SDK (``cohere``): each message against the
    class of its role (``UserChatMessageV2``...), each tool against ``ToolV2``, and the body's keys against
    the parameters of ``cohere.v2.client.V2Client.chat``. The Fern models allow extra keys, so the keys they
    keep without declaring them are counted as refusals here (Cohere's API answers 422 to what it does not
    know, quirk 55). Raise ``AssertionError`` naming each spot."""
    from cohere import types
    from pydantic import ValidationError

    problems = [
        f"{key}: not a parameter of V2Client.chat" for key in body if key not in _cohere_chat_parameters()
    ]
    for index, message in enumerate(body.get("messages") or []):
        where = f"messages[{index}]"
        role = message.get("role") if isinstance(message, dict) else None
        if role not in _COHERE_ROLES:
            problems.append(f"{where}.role: {role!r} is not a v2 chat role")
            continue
        try:
            model = getattr(types, _COHERE_ROLES[role]).model_validate(message)
        except ValidationError as error:
            first = error.errors()[0]
            problems.append(f"{where}.{_spot(first['loc'])}: {first['msg']}")
            continue
        problems.extend(f"{spot}: a key the v2 types do not declare" for spot in _extra_keys(model, where))
    for index, tool in enumerate(body.get("tools") or []):
        where = f"tools[{index}]"
        try:
            model = types.ToolV2.model_validate(tool)
        except ValidationError as error:
            first = error.errors()[0]
            problems.append(f"{where}.{_spot(first['loc'])}: {first['msg']}")
            continue
        # A tool's parameters are a JSON schema: free-form, as the type says.
        extras = [s for s in _extra_keys(model, where) if ".parameters." not in s]
        problems.extend(f"{spot}: a key ToolV2 does not declare" for spot in extras)
    if problems:
        raise AssertionError("; ".join(problems))


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


def _no_unknown_keys(messages: list[Any]) -> None:
    """mistral-common's ``from_openai`` picks the keys it knows and drops the rest; its message models
    forbid extra keys (``ChatCompletionRequest.model_validate`` says "Extra inputs are not permitted", as
    Mistral's API does, quirk 33): each message's keys are held to its role's model here."""
    from mistral_common.protocol.instruct import messages as types

    models = {
        "system": types.SystemMessage,
        "user": types.UserMessage,
        "assistant": types.AssistantMessage,
        "tool": types.ToolMessage,
    }
    for index, message in enumerate(messages):
        model = models.get(message.get("role")) if isinstance(message, dict) else None
        if model is None:
            continue
        known = set(model.model_fields) | {"prefix"}  # prefix: the adaptation below
        extra = sorted(set(message) - known)
        if extra:
            raise AssertionError(f"messages[{index}].{extra[0]}: Extra inputs are not permitted")


def mistral_common_accepts(body: dict[str, Any]) -> None:
    """Judge a ``/v1/chat/completions`` body sent to Mistral with mistral-common (1.13): its
    ``ChatCompletionRequest.from_openai`` and the v7 tokenizer's ``encode_chat_completion``, which runs
    Mistral's request validator in serving mode and builds the prompt. Raises its exception when it
    refuses the body (``InvalidMessageStructureException: Unexpected role 'system' after role
    'assistant'``...). The body is adapted first, as ``MISTRAL_COMMON_ADAPTATIONS`` says."""
    from mistral_common.protocol.instruct.request import ChatCompletionRequest

    _no_unknown_keys(list(body.get("messages") or []))
    messages, prefix = _for_mistral_common(list(body.get("messages") or []))
    request = ChatCompletionRequest.from_openai(
        messages, tools=body.get("tools"), continue_final_message=prefix, model=body.get("model") or "mistral"
    )
    _mistral_tokenizer().encode_chat_completion(request)
