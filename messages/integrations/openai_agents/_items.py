"""The OpenAI Agents SDK's session items, without the SDK and without I/O: what each item is, where a window
of items may start without cutting an exchange, and the message of this package that stands for each item
in the store.

**Items.** A session holds Responses API input items as JSON dicts (``TResponseInputItem``): input
messages (``{"role": "user", "content": ...}``, or ``{"type": "message", "role": ...}``), the model's
output (assistant messages, ``reasoning``, ``function_call`` and the other calls, hosted calls such as
``web_search_call`` or ``mcp_call``), the outputs of the calls run locally (``function_call_output``, ...,
``mcp_approval_response``), and items this module does not know (``item_reference``, ``compaction``, an
``EncryptedSession`` envelope), which stand alone.

**Exchanges** (``window_start``). A window of the newest items cuts nothing when no item in it answers a
call before it, and when it does not start right after a ``reasoning`` item or inside a run of the model's
output items (a ``reasoning`` item and what follows it, parallel calls, a message and the calls made with
it: OpenAI refuses a message or a call without the reasoning item it came with, and a result without its
call). ``window_start`` moves a window's start back until it cuts nothing: to the call, the reasoning item
or the input message that opens the exchange.

**Messages** (``typed_messages``). Each item is stored as one message of this package, so that a thread
counts what the session counts; the item itself rides in the message's envelope, exactly. The message is
the item's typed form where the package has one: a ``UserMessage`` or ``SystemMessage`` for an input
message, a ``ToolMessage`` for the output of a call. A run of the model's output items written together
(one model response: reasoning, text, parallel calls) is one assistant turn: its text, its calls as
``ToolCall``s (a function call as it is; a custom tool's input as its arguments; a computer, shell or
patch call, or an MCP approval request, under its type's name with what it asks as JSON) and its
reasoning summaries as ``reasoning_content`` make one ``AIMessage``, stored at the run's last item, right
before the results that answer it; the run's other items, and the items with no typed form (an item
reference, a compaction item, an encrypted envelope), are empty ``AIMessage``s, which carry the item and
say nothing. So the thread's messages are a conversation that windows, compaction,
``validate_conversation`` and ``dump_messages`` read as the model saw it (the hosted calls' results are
in their items only). A model response split over two ``add_items`` calls is typed as two turns, the first
with its calls unanswered: the Runner writes each response whole.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import ValidationError

from messages.models import AIMessage, Message, SystemMessage, ToolCall, ToolMessage, UserMessage
from messages.parts import AudioPart, ContentPart, FilePart, ImagePart, TextPart

__all__ = [
    "CALL_OUTPUTS",
    "MODEL_ITEM_TYPES",
    "Kind",
    "kind_of",
    "typed_messages",
    "window_start",
]

CALL_OUTPUTS: Mapping[str, str] = {
    "function_call": "function_call_output",
    "custom_tool_call": "custom_tool_call_output",
    "computer_call": "computer_call_output",
    "local_shell_call": "local_shell_call_output",
    "shell_call": "shell_call_output",
    "apply_patch_call": "apply_patch_call_output",
    "tool_search_call": "tool_search_output",
    "program": "program_output",
}
"""Each call item run locally, and the item type of its output; an output answers the call with its
``call_id``."""

_OUTPUT_TYPES = frozenset(CALL_OUTPUTS.values())

MODEL_ITEM_TYPES = frozenset(
    {
        *CALL_OUTPUTS,
        "reasoning",
        "web_search_call",
        "file_search_call",
        "code_interpreter_call",
        "image_generation_call",
        "mcp_call",
        "mcp_list_tools",
        "mcp_approval_request",
        "hosted_tool_call",
    }
)
"""The item types a model response holds (besides assistant messages): a run of them stays whole."""

_INPUT_ROLES = frozenset({"user", "system", "developer"})

_NOTHING = AIMessage()
"""The message of an item that says nothing (messages are frozen values: one serves them all)."""

Role = Literal["input", "model", "output", "other"]


@dataclass(frozen=True, slots=True)
class Kind:
    """What an item is, as far as windows need to know."""

    role: Role
    """``input`` (a user, system or developer message), ``model`` (an item of a model response), ``output``
    (the output of a call run locally, or an MCP approval's response), ``other`` (an item that stands
    alone)."""
    reasoning: bool = False
    """A ``reasoning`` item: the item after it belongs with it."""
    calls: tuple[str, str] | None = None
    """For a call: the output type and the id its output answers it by."""
    answers: tuple[str, str] | None = None
    """For an output: the output type and the id of the call it answers."""


_INPUT = Kind("input")
_MODEL = Kind("model")
_OTHER = Kind("other")
_REASONING = Kind("model", reasoning=True)


def kind_of(item: Mapping[str, Any]) -> Kind:
    """What ``item`` (an SDK session item, a JSON dict) is.

    Raises nothing: an item of a shape this module does not know is ``other``.
    """
    kind = item.get("type")
    role = item.get("role")
    if kind is None or kind == "message":
        if role in _INPUT_ROLES:
            return _INPUT
        if role == "assistant":
            return _MODEL
        return _OTHER
    if kind == "reasoning":
        return _REASONING
    if not isinstance(kind, str):
        return _OTHER
    output = CALL_OUTPUTS.get(kind)
    if output is not None:
        call_id = item.get("call_id")
        return Kind("model", calls=(output, call_id)) if isinstance(call_id, str) else _MODEL
    if kind == "mcp_approval_request":
        request_id = item.get("id")
        return (
            Kind("model", calls=("mcp_approval_response", request_id))
            if isinstance(request_id, str)
            else _MODEL
        )
    if kind in MODEL_ITEM_TYPES:
        return _MODEL
    if kind in _OUTPUT_TYPES:
        call_id = item.get("call_id")
        return Kind("output", answers=(kind, call_id)) if isinstance(call_id, str) else _OTHER
    if kind == "mcp_approval_response":
        request_id = item.get("approval_request_id")
        return Kind("output", answers=(kind, request_id)) if isinstance(request_id, str) else _OTHER
    return _OTHER


def _joined(before: Kind, after: Kind) -> bool:
    """Whether ``after`` belongs with the item ``before`` it (no window may start between them)."""
    return before.reasoning or (before.role == "model" and after.role == "model")


def window_start(kinds: Sequence[Kind], want: int, *, complete: bool) -> int | None:
    """Where a window holding ``kinds[want:]`` must start so that it cuts no exchange: ``want``, or before
    it, back to the call, the reasoning item or the run of model items its items belong with.

    ``kinds`` are the kinds of a thread's newest items; ``complete`` says whether they start at the
    thread's first item. ``None`` when the window would have to reach before ``kinds[0]`` (or needs the
    item before it to decide): read more and ask again. A result whose call the whole thread lacks (an
    orphan, in a history written by hand) holds nothing back: once ``kinds`` is the whole thread, such
    results are known, and left out of the reckoning.

    Raises nothing.
    """
    want = max(want, 0)
    if want >= len(kinds):
        return want
    start, missing = _reach(kinds, want, frozenset())
    if start is not None or not complete:
        return start
    if missing:  # the whole thread is here, and lacks these calls: their results are orphans
        start, _ = _reach(kinds, want, missing)
    return 0 if start is None else start


def _reach(
    kinds: Sequence[Kind], want: int, orphans: frozenset[tuple[str, str]]
) -> tuple[int | None, frozenset[tuple[str, str]]]:
    """``window_start``'s walk back from ``want``, the results answering ``orphans`` left out: the start
    found (``None`` when the walk reached ``kinds[0]`` without one), and the calls still looked for then."""
    needed: set[tuple[str, str]] = set()
    made: set[tuple[str, str]] = set()
    for kind in kinds[want:]:
        if kind.calls is not None:
            made.add(kind.calls)
        elif kind.answers is not None and kind.answers not in made and kind.answers not in orphans:
            needed.add(kind.answers)
    start = want
    while start > 0:
        if not needed and not _joined(kinds[start - 1], kinds[start]):
            return start, frozenset()
        start -= 1
        kind = kinds[start]
        if kind.calls is not None:
            needed.discard(kind.calls)
        elif kind.answers is not None and kind.answers not in orphans:
            needed.add(kind.answers)
    return None, frozenset(needed)


# -- the message that stands for each item -----------------------------------------------------------------


def typed_messages(items: Sequence[Mapping[str, Any]]) -> list[Message]:
    """One message of this package per item (see the module docstring): the item's typed form where the
    package has one, the run of model items written together as one ``AIMessage`` at its last item.

    Raises nothing: what no message can hold is left to the item itself, which the store keeps beside.
    """
    kinds = [kind_of(item) for item in items]
    typed: list[Message] = []
    run: list[Mapping[str, Any]] = []
    for index, (item, kind) in enumerate(zip(items, kinds, strict=True)):
        if kind.role == "model":
            run.append(item)
            if index + 1 < len(items) and kinds[index + 1].role == "model":
                typed.append(_NOTHING)
            else:
                typed.append(_assistant_turn(run, kinds[index + 1 - len(run) : index + 1]))
                run = []
        elif kind.role == "input":
            typed.append(_input_message(item))
        elif kind.role == "output":
            typed.append(_tool_result(item, kind) or _NOTHING)
        else:
            typed.append(_NOTHING)
    return typed


def _text(content: object) -> tuple[list[str], list[str]]:
    """The texts and refusals of an assistant message's content (a string, or output parts)."""
    if isinstance(content, str):
        return [content], []
    texts: list[str] = []
    refusals: list[str] = []
    for part in content if isinstance(content, list) else []:
        if not isinstance(part, dict):
            continue
        if part.get("type") == "refusal" and isinstance(part.get("refusal"), str):
            refusals.append(part["refusal"])
        elif isinstance(part.get("text"), str):
            texts.append(part["text"])
    return texts, refusals


def _reasoning(item: Mapping[str, Any]) -> list[str]:
    """A reasoning item's readable text: its summaries, else its reasoning text parts (never its encrypted
    content, which only its provider reads)."""
    for key in ("summary", "content"):
        texts = [
            part["text"]
            for part in item.get(key) or ()
            if isinstance(part, dict) and isinstance(part.get("text"), str) and part["text"]
        ]
        if texts:
            return texts
    return []


def _assistant_turn(run: Sequence[Mapping[str, Any]], kinds: Sequence[Kind]) -> AIMessage:
    """The ``AIMessage`` of a run of model items: its text, refusals, function calls and reasoning."""
    texts: list[str] = []
    refusals: list[str] = []
    reasoning: list[str] = []
    calls: list[ToolCall] = []
    for item, seen in zip(run, kinds, strict=True):
        kind = item.get("type")
        if kind == "reasoning":
            reasoning += _reasoning(item)
        elif seen.calls is not None:
            call = _call(item)
            if call is not None:
                calls.append(call)
        elif kind is None or kind == "message":
            said, refused = _text(item.get("content"))
            texts += said
            refusals += refused
    fields: dict[str, Any] = {"content": "".join(texts) if texts else None, "tool_calls": calls}
    if refusals:
        fields["refusal"] = "".join(refusals)
    if reasoning:
        fields["reasoning_content"] = "\n\n".join(reasoning)
    try:
        return AIMessage(**fields)
    except ValidationError:  # pragma: no cover - every field above is checked first
        return AIMessage()


_BOOKKEEPING = frozenset({"type", "id", "call_id", "status", "name", "provider_data"})
"""The keys of a call item that are not what it asks for (its arguments are the others)."""


def _call(item: Mapping[str, Any]) -> ToolCall | None:
    """A call the SDK runs locally (or an MCP approval request) as a ``ToolCall``: a function call as it is;
    a custom tool's free-text input as its arguments; any other call (computer, shell, patch, approval)
    under its type's name, with what it asks for as JSON arguments."""
    kind = item.get("type")
    call_id = item.get("id") if kind == "mcp_approval_request" else item.get("call_id")
    if not (isinstance(call_id, str) and call_id):
        return None
    name, arguments = item.get("name"), item.get("arguments")
    if kind == "custom_tool_call":
        arguments = item.get("input")
    elif kind not in ("function_call", "mcp_approval_request"):
        name = str(kind).removesuffix("_call")
        arguments = json.dumps(
            {key: value for key, value in item.items() if key not in _BOOKKEEPING}, ensure_ascii=False
        )
    try:
        return ToolCall(
            id=call_id,
            name=name if isinstance(name, str) else str(kind),
            arguments=arguments if isinstance(arguments, str) else "",
        )
    except ValidationError:
        return None


def _input_message(item: Mapping[str, Any]) -> Message:
    role = item.get("role")
    content = item.get("content")
    if role == "user":
        return UserMessage(content=content if isinstance(content, str) else _parts(content))
    texts = (
        content
        if isinstance(content, str)
        else [TextPart(text=part.text) for part in _parts(content) if isinstance(part, TextPart)]
    )
    return SystemMessage(role="developer" if role == "developer" else "system", content=texts)


def _tool_result(item: Mapping[str, Any], kind: Kind) -> ToolMessage | None:
    """The output of a call (or an MCP approval's response) as the ``ToolMessage`` answering its
    ``ToolCall``: text or input parts as they are, anything else as its JSON."""
    assert kind.answers is not None
    if item.get("type") == "mcp_approval_response":
        output: object = "approved" if item.get("approve") else "rejected"
        if item.get("reason"):
            output = f"{output}: {item['reason']}"
    else:
        output = item.get("output")
    if isinstance(output, str):
        content: str | list[ContentPart] = output
    else:
        parts = _parts(output) if isinstance(output, list) else []
        content = parts or json.dumps(output, ensure_ascii=False)
    try:
        return ToolMessage(tool_call_id=kind.answers[1], content=content)
    except ValidationError:  # an empty call id
        return None


def _parts(content: object) -> list[ContentPart]:
    """The parts of this package that the input parts of ``content`` map to; a part none maps to is left
    to the item (the store keeps it exactly)."""
    parts: list[ContentPart] = []
    for part in content if isinstance(content, list) else ():
        if isinstance(part, str):
            parts.append(TextPart(text=part))
        elif isinstance(part, dict):
            made = _part(part)
            if made is not None:
                parts.append(made)
    return parts


def _part(part: Mapping[str, Any]) -> ContentPart | None:
    kind = part.get("type")
    try:
        if kind in ("input_text", "output_text", "text") and isinstance(part.get("text"), str):
            return TextPart(text=part["text"])
        if kind == "input_image" and isinstance(part.get("image_url"), str):
            detail = part.get("detail")
            return ImagePart(
                url=part["image_url"], detail=detail if detail in ("low", "high", "auto") else None
            )
        if kind == "input_file" and (part.get("file_data") or part.get("file_id")):
            return FilePart(
                file_data=part.get("file_data"), file_id=part.get("file_id"), filename=part.get("filename")
            )
        if kind == "input_audio" and isinstance(part.get("input_audio"), dict):
            audio = part["input_audio"]
            return AudioPart(data=audio.get("data"), format=audio.get("format"))
    except ValidationError:
        return None
    return None
