"""The small pure functions profiles are made of, over OpenAI-shape message lists.

Two kinds:

* fixers, for what concerns one message at a time: a ``Fixer`` takes a message and returns a new dict, or
  ``None`` when the message needs no change. The parameterized ones are built by a function of the same
  name (``keep_known_keys(keys, call_keys)`` returns the fixer); ``each(messages, *fixers)`` applies them
  to a list. ``Profile.apply`` runs a profile's fixers over each message in one pass.
* list steps, for what depends on a message's neighbours (ids shared by a call and its result, turns that
  must alternate, the first and last turn): ``list[dict] -> list[dict]``.

Every function here:

* never mutates its input: a message that changes is a new dict (copied down to the level that changes),
  a message that does not is passed on as the same object;
* is idempotent: applying it to its own output changes nothing;
* keeps content: it may re-encode or move a user, assistant or tool text or a tool result, never drop a
  text that has more than whitespace in it (the only messages dropped are blank ones, by
  ``drop_blank_messages``).

Each docstring names the rows of provider-quirks.md the function exists for. ``Profile.apply`` reads the
profile's fields and calls these in a fixed order; nothing here knows which provider it is working for.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any, Literal

from messages.profiles._ids import SIGNATURE_SEPARATOR, IdRule, tool_call_id_map

__all__ = [
    "BRIDGE_TEXT",
    "CONTINUE_TEXT",
    "EMPTY_RESULT_TEXT",
    "Fixer",
    "Messages",
    "ToolTurnRenderer",
    "blank",
    "blank_message",
    "bridge_tool_results",
    "drop_blank_messages",
    "drop_blank_parts",
    "drop_final_thinking",
    "drop_foreign_reasoning",
    "drop_keys",
    "drop_names",
    "each",
    "ensure_a_turn",
    "ensure_turn_after_system",
    "ensure_user_first",
    "ensure_user_last",
    "fill_blank_tool_results",
    "fill_reasoning_content",
    "flatten_text_content",
    "fold_refusal",
    "identical_call_groups",
    "is_system",
    "keep_known_keys",
    "mark_final_prefix",
    "merge_consecutive_roles",
    "merge_thinking_turns",
    "merge_two",
    "move_late_system_messages",
    "move_tool_media",
    "normalize_empty_arguments",
    "note_unseen_parts",
    "render_tool_exchanges_as_text",
    "repeats_a_call",
    "rewrite_tool_call_ids",
    "sanitize_names",
    "send_null_turns_as_empty_text",
    "set_call_turn_content",
    "set_system_role",
    "space_empty_text",
    "split_identical_calls",
    "text_of",
    "tool_turn_renderer",
]

Messages = list[dict[str, Any]]
"""A conversation in the OpenAI Chat Completions shape."""

Fixer = Callable[[dict[str, Any]], "dict[str, Any] | None"]
"""A change to one message: the new message, or ``None`` when it needs none."""

CONTINUE_TEXT = "Continue."
"""The user turn added where a provider needs one and the conversation has none (a conversation that must
end, or start, on the user)."""

BRIDGE_TEXT = "OK."
"""The assistant turn put between tool results and a following user message where a provider forbids a
user message right after tool results."""

EMPTY_RESULT_TEXT = "(no output)"
"""What an empty tool result says where a provider rejects or drops an empty one."""

_SYSTEM_ROLES = frozenset({"system", "developer"})


def is_system(message: Mapping[str, Any]) -> bool:
    """Whether ``message`` is a system or developer message."""
    return message.get("role") in _SYSTEM_ROLES


def text_of(content: Any) -> str:
    """The text of a message content: the string itself, or the text parts joined."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            p.get("text") or "" for p in content if isinstance(p, dict) and p.get("type") == "text"
        )
    return ""


def _is_text_part(part: Any) -> bool:
    return isinstance(part, dict) and part.get("type") == "text"


def _blank_text_part(part: Any, whitespace: bool) -> bool:
    """Whether ``part`` is a text part that says nothing."""
    return _is_text_part(part) and _blank_text(part.get("text"), whitespace)


def _blank_text(text: Any, whitespace: bool) -> bool:
    if not isinstance(text, str):
        return True
    return not text.strip() if whitespace else text == ""


def blank(content: Any, *, whitespace: bool = True) -> bool:
    """Whether a content carries nothing: ``None``, an empty (or, with ``whitespace``, a whitespace-only)
    string, or a list of such text parts only."""
    if content is None:
        return True
    if isinstance(content, str):
        return _blank_text(content, whitespace)
    if isinstance(content, list):
        return all(_is_text_part(p) and _blank_text(p.get("text"), whitespace) for p in content)
    return False


def each(messages: Sequence[dict[str, Any]], *fixers: Fixer) -> Messages:
    """``fixers`` applied in order to every message of ``messages``: a new list, the input untouched."""
    out: Messages = []
    for message in messages:
        for fix in fixers:
            new = fix(message)
            if new is not None:
                message = new
        out.append(message)
    return out


# --- fixers: keys ------------------------------------------------------------------------------------


def drop_foreign_reasoning(
    provider: str, *, thinking_blocks: bool, provider_fields: bool, own_reasoning_content: bool = False
) -> Fixer:
    """Keep signed reasoning payloads only for the provider that signed them (rows 18, 25, 34, 48, 56).

    ``thinking_blocks`` (Anthropic, Bedrock) and ``provider_specific_fields`` (Gemini thought signatures,
    on the message and on each tool call) stay when the profile sends that kind back and the message's
    ``provider`` is ``provider`` (or unknown: a payload nobody recorded the origin of is assumed to be the
    target's own, which also keeps this idempotent once the ``provider`` key is gone). With
    ``own_reasoning_content``, ``reasoning_content`` is held to the same rule (DeepSeek, row 34). The
    ``provider`` key itself, which only says where payloads came from, always goes.
    """

    def fix(m: dict[str, Any]) -> dict[str, Any] | None:
        if m.get("role") != "assistant":
            return None
        origin = m.get("provider")
        own = origin is None or origin == provider
        keep_blocks = thinking_blocks and own
        keep_fields = provider_fields and own
        drop_reasoning = own_reasoning_content and not own and "reasoning_content" in m
        calls = m.get("tool_calls")
        call_fields = (
            not keep_fields
            and isinstance(calls, list)
            and any(isinstance(c, dict) and "provider_specific_fields" in c for c in calls)
        )
        if not (
            "provider" in m
            or drop_reasoning
            or ("thinking_blocks" in m and not keep_blocks)
            or ("provider_specific_fields" in m and not keep_fields)
            or call_fields
        ):
            return None
        new = {
            k: v
            for k, v in m.items()
            if not (
                k == "provider"
                or (k == "reasoning_content" and drop_reasoning)
                or (k == "thinking_blocks" and not keep_blocks)
                or (k == "provider_specific_fields" and not keep_fields)
            )
        }
        if call_fields and isinstance(calls, list):
            new["tool_calls"] = [
                {k: v for k, v in c.items() if k != "provider_specific_fields"} if isinstance(c, dict) else c
                for c in calls
            ]
        return new

    return fix


_FUNCTION_KEYS = frozenset({"name", "arguments"})


def _known_call(call: Any, call_keys: Collection[str]) -> Any:
    if not isinstance(call, dict):
        return call
    new = {k: v for k, v in call.items() if k in call_keys}
    function = new.get("function")
    if isinstance(function, dict):
        new["function"] = {k: v for k, v in function.items() if k in _FUNCTION_KEYS}
    return new


def keep_known_keys(keys: Mapping[str, Collection[str]], call_keys: Collection[str]) -> Fixer:
    """Drop every key a strict provider does not know (rows 33, 37, 60; litellm-notes.md TL;DR 7).

    ``keys`` gives the keys each role may carry, ``call_keys`` those of a tool call (a tool call's
    ``function`` keeps ``name`` and ``arguments``). Messages of a role ``keys`` does not list are left as
    they are. Content-bearing keys must be in ``keys`` (a refusal is folded into the content first).
    """

    def fix(m: dict[str, Any]) -> dict[str, Any] | None:
        role = m.get("role")
        allowed = keys.get(role) if isinstance(role, str) else None
        if allowed is None:
            return None
        calls = m.get("tool_calls")
        bad_calls = isinstance(calls, list) and any(
            isinstance(c, dict)
            and (
                any(k not in call_keys for k in c)
                or (
                    isinstance(c.get("function"), dict)
                    and any(k not in _FUNCTION_KEYS for k in c["function"])
                )
            )
            for c in calls
        )
        if not bad_calls and all(k in allowed for k in m):
            return None
        new = {k: v for k, v in m.items() if k in allowed}
        if bad_calls and isinstance(calls, list) and "tool_calls" in new:
            new["tool_calls"] = [_known_call(c, call_keys) for c in calls]
        return new

    return fix


def drop_keys(keys: Collection[str]) -> Fixer:
    """Drop ``keys`` from every message (the extension keys a converting route would misread)."""

    def fix(m: dict[str, Any]) -> dict[str, Any] | None:
        if not any(k in m for k in keys):
            return None
        return {k: v for k, v in m.items() if k not in keys}

    return fix


def _append_text(content: Any, text: str) -> Any:
    if content is None or content == "":
        return text
    if isinstance(content, list):
        return [*content, {"type": "text", "text": text}]
    return f"{content}\n\n{text}"


def fold_refusal(*, keep_key: bool) -> Fixer:
    """Make sure a refusal reaches the model as text (row 5).

    An assistant turn with a ``refusal`` but no text and no tool calls gets the refusal as its content
    (OpenAI allows ``content: null`` only beside tool calls, and every other provider would see an empty
    turn). Without ``keep_key`` (providers that do not know ``refusal``) the key goes, and a refusal
    beside other text or tool calls is appended to the text, so that no refusal text is lost.
    """

    def fix(m: dict[str, Any]) -> dict[str, Any] | None:
        if m.get("role") != "assistant" or "refusal" not in m:
            return None
        refusal = m["refusal"]
        content = m.get("content")
        said = isinstance(refusal, str) and refusal != ""
        if keep_key:
            if said and blank(content, whitespace=False) and not m.get("tool_calls"):
                return {**m, "content": refusal}
            return None
        new = {k: v for k, v in m.items() if k != "refusal"}
        if said:
            new["content"] = _append_text(None if blank(content, whitespace=False) else content, refusal)
        return new

    return fix


def drop_names(keep_roles: Collection[str]) -> Fixer:
    """Drop ``name`` from messages whose role is not in ``keep_roles`` (rows 4, 33, 55, 57, 59)."""

    def fix(m: dict[str, Any]) -> dict[str, Any] | None:
        if "name" not in m or m.get("role") in keep_roles:
            return None
        return {k: v for k, v in m.items() if k != "name"}

    return fix


def sanitize_names(allowed: str, *, max_length: int = 64) -> Fixer:
    """Rewrite each ``name`` to match the provider's pattern (row 4): a character that ``allowed`` (a regex
    for one character) does not match becomes ``_``, and the name is cut to ``max_length``."""
    char = re.compile(allowed)

    def fix(m: dict[str, Any]) -> dict[str, Any] | None:
        name = m.get("name")
        if not isinstance(name, str) or (
            0 < len(name) <= max_length and all(char.fullmatch(c) for c in name)
        ):
            return None
        cleaned = "".join(c if char.fullmatch(c) else "_" for c in name)[:max_length]
        new = {k: v for k, v in m.items() if k != "name"}
        if cleaned:
            new["name"] = cleaned
        return new

    return fix


# --- fixers: content ---------------------------------------------------------------------------------


def _empty_arguments(call: Any) -> bool:
    function = call.get("function") if isinstance(call, dict) else None
    arguments = function.get("arguments") if isinstance(function, dict) else None
    return isinstance(arguments, str) and not arguments.strip()


def normalize_empty_arguments(m: dict[str, Any]) -> dict[str, Any] | None:
    """Send ``"{}"`` for a call made without arguments (``""``, streamed no-arg calls) (rows 49, 53, 58):
    litellm's Anthropic, Bedrock, Gemini and Ollama converters and vLLM ``json.loads`` the arguments."""
    calls = m.get("tool_calls")
    if not isinstance(calls, list):
        return None
    for c in calls:
        if _empty_arguments(c):
            break
    else:
        return None
    return {
        **m,
        "tool_calls": [
            {**c, "function": {**c["function"], "arguments": "{}"}} if _empty_arguments(c) else c
            for c in calls
        ],
    }


_PART_ROLES = frozenset({"user", "assistant", "system", "developer"})


def drop_blank_parts(*, whitespace: bool) -> Fixer:
    """Remove blank text parts that sit beside other parts of a user, assistant or system message (rows 13,
    43): Anthropic and Bedrock reject a blank text block (in ``system`` too), and a system message half-way
    reaches Anthropic as a user turn with litellm's placeholder text for each. A message with nothing else
    is left to ``drop_blank_messages``."""

    def fix(m: dict[str, Any]) -> dict[str, Any] | None:
        content = m.get("content")
        if m.get("role") not in _PART_ROLES or not isinstance(content, list):
            return None
        if not any(_blank_text_part(p, whitespace) for p in content):
            return None  # the common case, found without building a list
        kept = [p for p in content if not _blank_text_part(p, whitespace)]
        if not kept:
            return None
        return {**m, "content": kept}

    return fix


def set_system_role(role: Literal["system", "user"]) -> Fixer:
    """Send system and developer messages as ``role`` (rows 8, 9, 27): ``"system"`` where ``developer``
    is rejected, ``"user"`` for models without a system role (o1-mini, Gemma)."""

    def fix(m: dict[str, Any]) -> dict[str, Any] | None:
        return {**m, "role": role} if is_system(m) and m.get("role") != role else None

    return fix


def flatten_text_content(roles: Collection[str]) -> Fixer:
    """Send a content made only of text parts as one string, for messages of ``roles`` (rows 36, 38, 54):
    Groq wants system content as a string, DeepSeek every content, and self-hosted servers may garble tool
    results given as parts. The parts are joined with newlines, and no parts at all are ``""`` (litellm
    would send ``[]``); a list holding anything but text is left alone."""

    def fix(m: dict[str, Any]) -> dict[str, Any] | None:
        content = m.get("content")
        if m.get("role") not in roles or not isinstance(content, list):
            return None
        if not all(_is_text_part(p) for p in content):
            return None
        return {**m, "content": "\n".join(str(p.get("text") or "") for p in content)}

    return fix


def space_empty_text(m: dict[str, Any]) -> dict[str, Any] | None:
    """Send ``" "`` for an empty user or assistant text (row 23): Gemini rejects an empty text part, and
    dropping the turn instead can leave a function call without the user turn it must follow (row 24).
    No parts at all (``[]``) count as empty text: litellm drops such a turn. Whitespace is already
    accepted and left alone; tool-call turns are left to ``set_call_turn_content``."""
    if m.get("role") not in ("user", "assistant") or m.get("tool_calls"):
        return None
    content = m.get("content")
    if content == "" or content == []:
        return {**m, "content": " "}
    if isinstance(content, list) and any(_is_text_part(p) and p.get("text") == "" for p in content):
        spaced = [{**p, "text": " "} if _is_text_part(p) and p.get("text") == "" else p for p in content]
        return {**m, "content": spaced}
    return None


def set_call_turn_content(value: Literal["null", "empty_string"], *, whitespace: bool) -> Fixer:
    """The content of an assistant turn that calls tools and says nothing (rows 5, 13, 29, 32, 40, 50, 53).

    ``"null"``: no text at all (litellm then sends no ``content`` key); Anthropic would get litellm's
    placeholder text for ``""``, Gemini an empty text part. ``"empty_string"``: ``""``, for servers that
    reject a missing or null content (xAI, llama.cpp, LM Studio, chat templates that concatenate it).
    Content given as parts that says something keeps its parts, less the blank ones (Gemini answers 400 for
    the ``{"text": ""}`` litellm would send for an empty part beside the calls, row 23).
    """

    def fix(m: dict[str, Any]) -> dict[str, Any] | None:
        if m.get("role") != "assistant" or not m.get("tool_calls"):
            return None
        content = m.get("content")
        if not blank(content, whitespace=whitespace):
            if not isinstance(content, list):
                return None
            # Blank parts beside text that says something (row 23: Gemini rejects {"text": ""}).
            kept = [p for p in content if not (_is_text_part(p) and _blank_text(p.get("text"), whitespace))]
            return None if len(kept) == len(content) else {**m, "content": kept}
        if value == "null":
            return None if content is None else {**m, "content": None}
        return None if content == "" else {**m, "content": ""}

    return fix


def send_null_turns_as_empty_text(m: dict[str, Any]) -> dict[str, Any] | None:
    """Send ``""`` as the content of an assistant turn with neither text nor tool calls (an ``AIMessage``
    after a reasoning-only reply) where ``null`` is rejected (rows 5, 53): OpenAI allows ``content: null``
    only beside tool calls, and chat templates need a string. The turn is kept: it may carry reasoning,
    and dropping it could make two user turns meet."""
    if m.get("role") != "assistant" or m.get("content") is not None or m.get("tool_calls"):
        return None
    return {**m, "content": ""}


def fill_blank_tool_results(text: str, *, whitespace: bool) -> Fixer:
    """Send ``text`` as the content of a tool result that has none, and no blank text part beside other
    parts (rows 31, 40, 43, 55).

    Bedrock rejects a blank text block, xAI an empty message, and litellm's Mistral route drops a message
    whose content is ``""`` (tool results included), which leaves the call unanswered. A blank text part
    beside an image would be left alone in the result once litellm moves the image out.
    """

    def blank_part(p: Any) -> bool:
        return _is_text_part(p) and _blank_text(p.get("text"), whitespace)

    def fix(m: dict[str, Any]) -> dict[str, Any] | None:
        if m.get("role") != "tool":
            return None
        content = m.get("content")
        if blank(content, whitespace=whitespace):
            return {**m, "content": text}
        if isinstance(content, list) and any(blank_part(p) for p in content):
            return {**m, "content": [p for p in content if not blank_part(p)]}
        return None

    return fix


def fill_reasoning_content(text: str = " ") -> Fixer:
    """Give every assistant turn a ``reasoning_content`` (row 34): DeepSeek's thinking models answer 400
    when a turn lacks it. A turn made elsewhere gets ``text`` (``" "``, the least the API takes and what
    litellm itself sends when ``thinking`` is enabled)."""

    def fix(m: dict[str, Any]) -> dict[str, Any] | None:
        if m.get("role") != "assistant" or m.get("reasoning_content"):
            return None
        return {**m, "reasoning_content": text}

    return fix


_UNSEEN_NOTE = re.compile(r"\[\d+ attachments? not shown: this model takes no [\w, ]+ parts\]")


def note_unseen_parts(accepted: Collection[str]) -> Fixer:
    """Say in the text of a message that it holds parts the model cannot take (row 36).

    litellm's DeepSeek route sends content as one string: it joins the text parts and drops images, audio
    and files silently, and a content with no text at all stays a list, which DeepSeek rejects ("invalid
    type: sequence, expected a string"). A text part saying how many parts the model is not shown is
    appended, so that every such turn has text and the model knows something was there. The parts
    themselves stay (``Profile.check`` reports them, as nothing here can make a text model see them).
    """
    accepted = frozenset(accepted)

    def fix(m: dict[str, Any]) -> dict[str, Any] | None:
        content = m.get("content")
        if not isinstance(content, list):
            return None
        unseen = [p for p in content if isinstance(p, dict) and p.get("type") not in accepted]
        if not unseen:
            return None
        # Noted already (apply is idempotent), also where turns were merged after the note was added.
        if any(_is_text_part(p) and _UNSEEN_NOTE.fullmatch(str(p.get("text"))) for p in content):
            return None
        kinds = ", ".join(sorted({str(p.get("type")) for p in unseen}))
        note = {"type": "text", "text": f"[{_count(unseen)} not shown: this model takes no {kinds} parts]"}
        return {**m, "content": [*content, note]}

    return fix


# --- list steps --------------------------------------------------------------------------------------


def _tool_call_ids(messages: Sequence[dict[str, Any]]) -> list[str]:
    ids: list[str] = []
    for m in messages:
        calls = m.get("tool_calls")
        if calls:
            ids.extend(c["id"] for c in calls if isinstance(c, dict) and isinstance(c.get("id"), str))
        elif m.get("role") == "tool":
            call_id = m.get("tool_call_id")
            if isinstance(call_id, str):
                ids.append(call_id)
    return ids


def rewrite_tool_call_ids(messages: Sequence[dict[str, Any]], rule: IdRule) -> Messages:
    """Give every tool call whose id ``rule`` rejects (or that collides with another once litellm has cut
    its Gemini signature) a new id, on the call and on its result alike (rows 3, 17, 25, 30, 45).

    Deterministic and collision-free (see ``messages.profiles._ids``); ids the provider accepts are kept.
    """
    ids = _tool_call_ids(messages)
    if rule.accepts_all(ids):
        return list(messages)
    mapping = tool_call_id_map(ids, rule)
    get = mapping.get
    out: Messages = []
    for m in messages:
        calls = m.get("tool_calls")
        if calls and isinstance(calls, list):
            changed = False
            new_calls = []
            for c in calls:
                old_id = c.get("id") if isinstance(c, dict) else None
                new_id = get(old_id) if isinstance(old_id, str) else None
                if new_id is None:
                    new_calls.append(c)
                else:
                    new_calls.append({**c, "id": new_id})
                    changed = True
            out.append({**m, "tool_calls": new_calls} if changed else m)
            continue
        call_id = m.get("tool_call_id")
        new_id = get(call_id) if isinstance(call_id, str) else None
        out.append(m if new_id is None else {**m, "tool_call_id": new_id})
    return out


def _plain_id(call_id: Any) -> str:
    """An id as a reader sees it: without litellm's Gemini signature, a payload for Gemini only."""
    text = call_id if type(call_id) is str else str(call_id)
    return text.partition(SIGNATURE_SEPARATOR)[0] if SIGNATURE_SEPARATOR in text else text


def render_tool_exchanges_as_text(messages: Sequence[Mapping[str, Any]]) -> Messages:
    """Turn tool calls and results into plain turns, for a provider without tools (row 61, Perplexity).

    An assistant turn's calls become lines of its text (``Called tool get_weather with {...} (call
    call_1).``) and each result becomes a user message that says which call it answers and carries the
    result unchanged (text, or its parts). Nothing is dropped; ``merge_consecutive_roles`` then restores
    the alternation such a provider needs.
    """
    render = tool_turn_renderer()
    return [render(m) for m in messages]


def tool_turn_renderer() -> ToolTurnRenderer:
    """``render(message)``: one message of ``render_tool_exchanges_as_text``, for a pass over a whole
    conversation in order (it remembers which tool each call called, to name it in the result)."""
    return ToolTurnRenderer()


class ToolTurnRenderer:
    """``render_tool_exchanges_as_text`` one message at a time (see ``tool_turn_renderer``)."""

    __slots__ = ("names",)

    def __init__(self) -> None:
        self.names: dict[str, str] = {}
        """The tool each call id called: a result comes after its call."""

    def result_text(self, m: Mapping[str, Any]) -> str | None:
        """The text of the user message a tool result becomes, or ``None`` where it keeps parts."""
        call_id = m.get("tool_call_id")
        if type(call_id) is str:
            name = self.names.get(call_id)
            plain = call_id if SIGNATURE_SEPARATOR not in call_id else _plain_id(call_id)
        else:
            name, plain = None, _plain_id(call_id)
        content = m.get("content")
        if type(content) is list:
            return None
        text = content if type(content) is str else ""
        if name:
            return f"Result of tool call {plain} ({name}):\n{text}"
        return f"Result of tool call {plain}:\n{text}"

    def __call__(self, m: Mapping[str, Any]) -> dict[str, Any]:
        role = m.get("role")
        if role == "tool":
            said = self.result_text(m)
            if said is not None:
                return {"role": "user", "content": said}
            call_id = m.get("tool_call_id")
            name = self.names.get(call_id) if type(call_id) is str else None
            plain = _plain_id(call_id)
            header = f"Result of tool call {plain} ({name}):" if name else f"Result of tool call {plain}:"
            return {"role": "user", "content": [{"type": "text", "text": header}, *m["content"]]}
        calls = m.get("tool_calls")
        if role != "assistant" or not calls:
            return m if type(m) is dict else dict(m)
        names = self.names
        lines = []
        for c in calls:
            function = c.get("function") or {}
            call_id = c.get("id")
            name = function.get("name")
            if type(call_id) is str:
                names[call_id] = name if type(name) is str else str(function.get("name", ""))
                plain = call_id if SIGNATURE_SEPARATOR not in call_id else _plain_id(call_id)
            else:
                plain = _plain_id(call_id)
            arguments = function.get("arguments") or "{}"
            lines.append(f"Called tool {name} with {arguments} (call {plain}).")
        said = "\n".join(lines)
        content = m.get("content")
        if content is None and len(m) == 3 and "content" in m:  # a call turn and nothing else
            return {"role": role, "content": said}
        new = dict(m)
        del new["tool_calls"]
        new["content"] = said if blank(content, whitespace=False) else _append_text(content, said)
        return new


def move_late_system_messages(messages: Sequence[dict[str, Any]]) -> Messages:
    """Send a system message that comes after the conversation has started as a user message (row 57:
    Perplexity allows system messages only before the first user or assistant turn)."""
    roles = [m.get("role") for m in messages]
    start = next((i for i, role in enumerate(roles) if role not in _SYSTEM_ROLES), len(roles))
    if not any(role in _SYSTEM_ROLES for role in roles[start:]):
        return list(messages)
    out: Messages = []
    started = False
    for m in messages:
        if is_system(m):
            out.append({**m, "role": "user"} if started else m)
        else:
            started = True
            out.append(m)
    return out


def _media(content: Any) -> list[Any]:
    if not isinstance(content, list):
        return []
    return [p for p in content if isinstance(p, dict) and not _is_text_part(p)]


def _count(media: list[Any]) -> str:
    return "1 attachment" if len(media) == 1 else f"{len(media)} attachments"


def move_tool_media(messages: Sequence[dict[str, Any]]) -> Messages:
    """Move images (and audio and files) out of tool results into a user message after them (row 7).

    Providers that take only text in a tool result reject the rest or silently drop it (litellm's
    DeepSeek route flattens tool content to text; the Ollama templates render images of user turns).
    Each such result keeps its text plus a note saying where its media went; one user message right
    after the run of results carries every moved part, each group labelled with the call it came from.
    """
    if not any(
        m.get("role") == "tool" and isinstance(m.get("content"), list) and _media(m["content"])
        for m in messages
    ):
        return list(messages)
    out: Messages = []
    moved: list[Any] = []
    for m in messages:
        if m.get("role") != "tool" and moved:
            out.append({"role": "user", "content": moved})
            moved = []
        media = _media(m.get("content")) if m.get("role") == "tool" else []
        if not media:
            out.append(m)
            continue
        content = m["content"]
        texts = [p for p in content if _is_text_part(p)]
        note = {"type": "text", "text": f"[{_count(media)} of this result moved to the next user message]"}
        out.append({**m, "content": [*texts, note]})
        moved.append({"type": "text", "text": f"Attachments returned by tool call {m.get('tool_call_id')}:"})
        moved.extend(media)
    if moved:
        out.append({"role": "user", "content": moved})
    return out


def blank_message(m: Mapping[str, Any], *, whitespace: bool, turns: bool) -> bool:
    """Whether ``drop_blank_messages`` drops ``m``: a system message with no text, or (with ``turns``) a
    user message, or an assistant message without tool calls, with no text."""
    role = m.get("role")
    if role in _SYSTEM_ROLES:
        return blank(m.get("content"), whitespace=whitespace)
    if not turns or role not in ("user", "assistant") or (role == "assistant" and m.get("tool_calls")):
        return False
    return blank(m.get("content"), whitespace=whitespace)


def drop_blank_messages(messages: Sequence[dict[str, Any]], *, whitespace: bool, turns: bool) -> Messages:
    """Drop messages that have nothing to say where the provider rejects them or litellm would replace
    them (rows 13, 23, 27, 32, 40, 43, 61).

    A blank system message says nothing (and Gemini rejects even an empty system instruction). With
    ``turns``, also a user message, or an assistant message without tool calls, with no text: Anthropic
    gets litellm's "[System: Empty message content sanitised ...]" in its place, Bedrock and xAI answer
    400, and litellm drops it for Mistral anyway. Tool results and tool-call turns are never dropped. The
    ends of the conversation are repaired afterwards (``ensure_a_turn``, ``ensure_user_first``,
    ``ensure_user_last``) where the provider needs it.
    """
    return [m for m in messages if not blank_message(m, whitespace=whitespace, turns=turns)]


# --- order -------------------------------------------------------------------------------------------


def _parts(content: Any) -> list[Any]:
    if isinstance(content, list):
        return list(content)
    if isinstance(content, str) and content:
        return [{"type": "text", "text": content}]
    return []


def _merge_content(first: Any, second: Any) -> Any:
    if first is None or first == "":
        return second
    if second is None or second == "":
        return first
    if isinstance(first, str) and isinstance(second, str):
        return f"{first}\n\n{second}"
    return _parts(first) + _parts(second)


def merge_two(first: dict[str, Any], second: dict[str, Any]) -> dict[str, Any]:
    """Two consecutive turns of one role as one (see ``merge_consecutive_roles``); neither is changed."""
    a, b = first.get("content"), second.get("content")
    if len(first) == 2 and len(second) == 2 and type(a) is str and type(b) is str and a and b:
        return {"role": first["role"], "content": f"{a}\n\n{b}"}  # two plain texts: the common case
    merged = dict(first)
    for key, value in second.items():
        merged.setdefault(key, value)
    if "content" in first or "content" in second:
        merged["content"] = _merge_content(first.get("content"), second.get("content"))
    if first.get("tool_calls") or second.get("tool_calls"):
        merged["tool_calls"] = [*(first.get("tool_calls") or []), *(second.get("tool_calls") or [])]
    reasoning = [r for r in (first.get("reasoning_content"), second.get("reasoning_content")) if r]
    if len(reasoning) == 2:
        # A turn made elsewhere carries " " (fill_reasoning_content): keep the reasoning that says something.
        said = [r for r in reasoning if r.strip()]
        merged["reasoning_content"] = "\n\n".join(said) if said else reasoning[0]
    blocks = [b for b in (first.get("thinking_blocks"), second.get("thinking_blocks")) if b]
    if len(blocks) == 2 and all(isinstance(b, list) for b in blocks):
        merged["thinking_blocks"] = [*blocks[0], *blocks[1]]  # each turn's signed reasoning, in order
    refusals = [r for r in (first.get("refusal"), second.get("refusal")) if r]
    if len(refusals) == 2:
        merged["refusal"] = "\n\n".join(refusals)
    if first.get("name") != second.get("name"):
        merged.pop("name", None)
    return merged


def merge_consecutive_roles(messages: Sequence[dict[str, Any]], *, then: Fixer | None = None) -> Messages:
    """Merge runs of user messages, and runs of assistant messages, into one message each (rows 20, 53,
    57): Perplexity, DeepSeek's reasoner and many chat templates need user and assistant turns to
    alternate. Texts (and refusals, and reasoning) are joined with a blank line (parts are concatenated),
    tool calls are kept in order, and a ``name`` that differs between the merged messages is dropped.
    ``then`` is applied to each message a merge made (merging can change what a content fixer sees)."""
    roles = [m.get("role") for m in messages]
    joins = [
        index
        for index in range(1, len(roles))
        if roles[index] == roles[index - 1]
        and roles[index] in ("user", "assistant")
        and not messages[index - 1].get("tool_calls")
    ]
    out: Messages = []
    start = 0
    for index in joins:  # copy the stretch up to each join, then merge into the message before it
        out.extend(messages[start:index])
        merged = merge_two(out[-1], messages[index])
        if then is not None:
            merged = then(merged) or merged
        out[-1] = merged
        start = index + 1
    out.extend(messages[start:])
    return out


_AFTER_TOOL = frozenset({"user", "system", "developer"})


def bridge_tool_results(messages: Sequence[dict[str, Any]], text: str) -> Messages:
    """Put an assistant turn saying ``text`` between tool results and a user or system message that
    follows them (rows 31, 44): Mistral rejects "Unexpected role 'user' after role 'tool'", and Bedrock
    "Conversation blocks and tool result blocks cannot be provided in the same turn"."""
    roles = [m.get("role") for m in messages]
    gaps = [
        index for index in range(1, len(roles)) if roles[index - 1] == "tool" and roles[index] in _AFTER_TOOL
    ]
    out: Messages = []
    start = 0
    for index in gaps:
        out.extend(messages[start:index])
        out.append({"role": "assistant", "content": text})
        start = index
    out.extend(messages[start:])
    return out


_DECODED: dict[str, Any] = {}
_DECODED_LIMIT = 1 << 16
_UNDECODABLE = object()


def _decoded(arguments: str) -> Any:
    """``json.loads(arguments)`` (``_UNDECODABLE`` when it is not JSON; ``""`` as the ``"{}"`` it is sent
    as, row 58), cached: a conversation dumped again each turn decodes each call's arguments once. The
    values are only compared, never handed out."""
    found = _DECODED.get(arguments, _DECODED)
    if found is _DECODED:
        if len(_DECODED) >= _DECODED_LIMIT:
            _DECODED.clear()
        try:
            found = json.loads(arguments if arguments.strip() else "{}")
        except ValueError:
            found = _UNDECODABLE
        _DECODED[arguments] = found
    return found


def _call_as_sent(call: Any) -> tuple[Any, Any]:
    """A call as litellm's Gemini converter compares it: its name and its decoded arguments."""
    function = call.get("function") if isinstance(call, dict) else None
    if not isinstance(function, dict):
        return None, call
    arguments = function.get("arguments")
    if isinstance(arguments, str):
        decoded = _DECODED.get(arguments, _DECODED)
        if decoded is _DECODED:
            decoded = _decoded(arguments)
        return function.get("name"), arguments if decoded is _UNDECODABLE else decoded
    return function.get("name"), arguments


def repeats_a_call(calls: Sequence[Any]) -> bool:
    """Whether a call of ``calls`` is identical to an earlier one (``identical_call_groups`` would make
    more than one group). ``Profile.apply`` asks it of every turn with parallel calls: written for speed,
    it gives what comparing ``_call_as_sent`` of each call gives."""
    seen: list[tuple[Any, Any]] = []
    known = _DECODED
    for call in calls:
        function = call.get("function") if type(call) is dict else None
        arguments = function.get("arguments") if type(function) is dict else None
        if type(arguments) is str:
            decoded = known.get(arguments, known)
            if decoded is known:
                decoded = _decoded(arguments)
            sent = (function.get("name"), arguments if decoded is _UNDECODABLE else decoded)  # type: ignore[union-attr]
        else:
            sent = _call_as_sent(call)
        if sent in seen:
            return True
        seen.append(sent)
    return False


def identical_call_groups(calls: Sequence[Any]) -> list[list[int]]:
    """The calls of one turn (by index) in groups with no two identical calls (same tool, equal decoded
    arguments): each call goes to the first group without one like it, so the first group holds every
    first occurrence. One group when no call repeats another."""
    sent = [_call_as_sent(c) for c in calls]
    groups: list[list[int]] = []
    for index, call in enumerate(sent):
        for group in groups:
            if all(sent[other] != call for other in group):
                group.append(index)
                break
        else:
            groups.append([index])
    return groups


def split_identical_calls(messages: Sequence[dict[str, Any]]) -> Messages:
    """Split an assistant turn that calls one tool twice with equal arguments into turns that call it
    once each, each followed by the results of its own calls (row 24).

    litellm's Gemini converter sends such calls as one ``functionCall`` part (it skips a part equal to one
    already in the turn) but sends every ``functionResponse``, and Gemini rejects a response turn whose
    parts do not match the call turn's. ``[assistant(c1, c2)] [tool r1] [tool r2]`` becomes
    ``[assistant(c1)] [tool r1] [assistant(c2)] [tool r2]``. The results keep their order: a new turn
    starts at the first result whose call repeats one of the current turn; each turn holds the calls its
    results answer, in their order in the original turn. Ids, arguments and results are kept. The first
    turn keeps the text and every other key; the turns added carry only their calls. A call no result
    answers joins the first turn that has no call like it.
    """
    out: Messages = []
    index, count = 0, len(messages)
    while index < count:
        m = messages[index]
        index += 1
        calls = m.get("tool_calls")
        if (
            m.get("role") != "assistant"
            or not isinstance(calls, list)
            or len(calls) < 2
            or not repeats_a_call(calls)
        ):
            out.append(m)
            continue
        results = []
        while index < count and messages[index].get("role") == "tool":
            results.append(messages[index])
            index += 1
        sent = [_call_as_sent(c) for c in calls]
        position: dict[str, int] = {}
        for number, c in enumerate(calls):
            if isinstance(c, dict) and isinstance(c.get("id"), str):
                position.setdefault(c["id"], number)
        groups: list[tuple[list[int], list[dict[str, Any]]]] = [([], [])]
        for result in results:
            call_id = result.get("tool_call_id")
            answering = position.get(call_id) if isinstance(call_id, str) else None
            own, answers = groups[-1]
            if answering is not None and (answering in own or any(sent[o] == sent[answering] for o in own)):
                groups.append(([], []))
                own, answers = groups[-1]
            if answering is not None and answering not in own:
                own.append(answering)
            answers.append(result)
        answered = {n for own, _ in groups for n in own}
        for number in range(len(calls)):
            if number in answered:
                continue
            for own, _ in groups:
                if all(sent[o] != sent[number] for o in own):
                    own.append(number)
                    break
            else:
                groups.append(([number], []))
        kept: list[tuple[list[int], list[dict[str, Any]]]] = []
        orphans: list[dict[str, Any]] = []  # results that answer no call of the turn go with the next turn
        for own, answers in groups:
            if own:
                kept.append((own, [*orphans, *answers]))
                orphans = []
            else:
                orphans.extend(answers)
        kept[-1][1].extend(orphans)
        for turn, (own, answers) in enumerate(kept):
            own_calls = [calls[n] for n in sorted(own)]
            out.append(
                {**m, "tool_calls": own_calls}
                if turn == 0
                else {"role": "assistant", "content": None, "tool_calls": own_calls}
            )
            out.extend(answers)
    return out


def ensure_user_first(messages: Sequence[dict[str, Any]], text: str) -> Messages:
    """Open the conversation with a user turn saying ``text`` when the first turn after the system
    messages is not one, or when there is none (rows 19, 24, 41): Bedrock wants a user message first,
    Gemini a user turn before a function call, Anthropic at least one message besides the system ones."""
    for index, m in enumerate(messages):
        if is_system(m):
            continue
        if m.get("role") == "user":
            return list(messages)
        return [*messages[:index], {"role": "user", "content": text}, *messages[index:]]
    return [*messages, {"role": "user", "content": text}]


def ensure_a_turn(messages: Sequence[dict[str, Any]], text: str) -> Messages:
    """Add a user turn saying ``text`` when no user, assistant or tool message is left (rows 12, 19): after
    blank turns are dropped, a conversation that had nothing to say must still say something."""
    if any(not is_system(m) for m in messages):
        return list(messages)
    return [*messages, {"role": "user", "content": text}]


def _is_final_assistant(messages: Sequence[dict[str, Any]]) -> bool:
    return bool(messages) and messages[-1].get("role") == "assistant" and not messages[-1].get("tool_calls")


def ensure_user_last(messages: Sequence[dict[str, Any]], text: str) -> Messages:
    """End with a user turn saying ``text`` when the conversation ends on an assistant text (rows 15, 47,
    61): Claude 4.6 and later answer "This model does not support assistant message prefill", as do some
    Bedrock models and Perplexity. An assistant turn that calls tools is left to the protocol check."""
    if _is_final_assistant(messages):
        return [*messages, {"role": "user", "content": text}]
    return list(messages)


def mark_final_prefix(messages: Sequence[dict[str, Any]]) -> Messages:
    """Mark a final assistant text as a prefix to continue, and no other message (row 31): Mistral wants
    the last message to be a user or tool message, "or Assistant with prefix True"."""
    out = list(messages)
    for index, m in enumerate(out[:-1]):
        if "prefix" in m:
            out[index] = {k: v for k, v in m.items() if k != "prefix"}
    if _is_final_assistant(out) and out[-1].get("prefix") is not True:
        out[-1] = {**out[-1], "prefix": True}
    return out


def merge_thinking_turns(messages: Sequence[dict[str, Any]]) -> Messages:
    """Merge an assistant turn that carries ``thinking_blocks`` into the assistant turn right before it
    (row 18; rows 16 and 20 for the merge).

    litellm's Anthropic converter merges consecutive assistant turns into one message and puts each turn's
    thinking blocks first in its own part, so the second turn's thinking lands after the first turn's text:
    "thinking blocks must come before the other blocks". Merged here (texts joined, calls kept in order,
    every turn's thinking blocks kept, in order), litellm puts all of them first.
    """
    out: Messages = []
    for m in messages:
        out.append(m)
        # A merged turn carries thinking, so the assistant turn before it (if any) is merged too.
        while (
            len(out) > 1
            and out[-1].get("role") == "assistant"
            and out[-1].get("thinking_blocks")
            and out[-2].get("role") == "assistant"
            and not out[-2].get("tool_calls")
        ):
            second = out.pop()
            out[-1] = merge_two(out[-1], second)
    return out


def drop_final_thinking(messages: Sequence[dict[str, Any]]) -> Messages:
    """Send no thinking blocks on a final assistant text (row 18).

    Anthropic answers "When thinking is disabled, an assistant message in the final position cannot contain
    thinking", and with thinking enabled it refuses a prefilled final assistant turn altogether, so the
    blocks can never go there. They are the model's signed reasoning, not text of the conversation (the
    API removes earlier turns' thinking from the context anyway); the turn's text, the prefill, is kept.
    """
    if _is_final_assistant(messages) and "thinking_blocks" in messages[-1]:
        last = {k: v for k, v in messages[-1].items() if k != "thinking_blocks"}
        return [*messages[:-1], last]
    return list(messages)


def ensure_turn_after_system(messages: Sequence[dict[str, Any]], text: str) -> Messages:
    """Add a user turn saying ``text`` after a system message that ends the conversation (row 31): Mistral
    wants the last message to be a user or tool message ("Expected last role User or Tool (or Assistant
    with prefix True)"). The system message keeps its role and its place."""
    if messages and is_system(messages[-1]):
        return [*messages, {"role": "user", "content": text}]
    return list(messages)
