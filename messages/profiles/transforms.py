"""The small pure functions profiles are made of: ``list[dict] -> list[dict]``, over OpenAI-shape messages.

Every function here:

* never mutates its input: a message that changes is a new dict (copied down to the level that changes),
  a message that does not is passed on as the same object;
* is idempotent: applying it to its own output changes nothing;
* keeps content: it may re-encode or move a user, assistant or tool text or a tool result, never drop a
  text that has more than whitespace in it (the only messages dropped are blank ones, by
  ``drop_blank_text`` and ``drop_blank_system_messages``).

Each docstring names the rows of provider-quirks.md the function exists for. ``Profile.apply`` reads the
profile's fields and calls these in a fixed order; nothing here knows which provider it is working for.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any, Literal

from messages.profiles._ids import IdRule, tool_call_id_map

__all__ = [
    "BRIDGE_TEXT",
    "CONTINUE_TEXT",
    "EMPTY_RESULT_TEXT",
    "Messages",
    "blank",
    "bridge_tool_results",
    "drop_blank_system_messages",
    "drop_blank_text",
    "drop_foreign_reasoning",
    "drop_keys",
    "drop_names",
    "ensure_a_turn",
    "ensure_user_first",
    "ensure_user_last",
    "fill_blank_tool_results",
    "fill_reasoning_content",
    "flatten_text_content",
    "fold_refusal",
    "is_system",
    "keep_known_keys",
    "mark_final_prefix",
    "merge_consecutive_roles",
    "move_late_system_messages",
    "move_tool_media",
    "normalize_empty_arguments",
    "render_tool_exchanges_as_text",
    "rewrite_tool_call_ids",
    "sanitize_names",
    "set_call_turn_content",
    "set_system_role",
    "space_empty_text",
    "text_of",
]

Messages = list[dict[str, Any]]
"""A conversation in the OpenAI Chat Completions shape."""

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


def _changed(
    messages: Sequence[dict[str, Any]], fn: Callable[[dict[str, Any]], dict[str, Any] | None]
) -> Messages:
    """``fn`` over each message; ``fn`` returns a new dict, or ``None`` to keep the message as it is."""
    out: Messages = []
    for message in messages:
        new = fn(message)
        out.append(message if new is None else new)
    return out


# --- keys --------------------------------------------------------------------------------------------


def drop_foreign_reasoning(
    messages: Sequence[dict[str, Any]], provider: str, *, thinking_blocks: bool, provider_fields: bool
) -> Messages:
    """Keep signed reasoning payloads only for the provider that signed them (rows 18, 25, 48, 56).

    ``thinking_blocks`` (Anthropic, Bedrock) and ``provider_specific_fields`` (Gemini thought signatures,
    on the message and on each tool call) stay when the profile sends that kind back and the message's
    ``provider`` is ``provider`` (or unknown: a payload nobody recorded the origin of is assumed to be the
    target's own). The ``provider`` key itself, which only says where payloads came from, always goes.
    """

    def fix(m: dict[str, Any]) -> dict[str, Any] | None:
        if m.get("role") != "assistant":
            return None
        origin = m.get("provider")
        own = origin is None or origin == provider
        keep_blocks = thinking_blocks and own
        keep_fields = provider_fields and own
        calls = m.get("tool_calls")
        call_fields = (
            not keep_fields
            and isinstance(calls, list)
            and any(isinstance(c, dict) and "provider_specific_fields" in c for c in calls)
        )
        if not (
            "provider" in m
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

    return _changed(messages, fix)


def keep_known_keys(
    messages: Sequence[dict[str, Any]],
    keys: Mapping[str, Collection[str]],
    call_keys: Collection[str],
) -> Messages:
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

    return _changed(messages, fix)


_FUNCTION_KEYS = frozenset({"name", "arguments"})


def _known_call(call: Any, call_keys: Collection[str]) -> Any:
    if not isinstance(call, dict):
        return call
    new = {k: v for k, v in call.items() if k in call_keys}
    function = new.get("function")
    if isinstance(function, dict):
        new["function"] = {k: v for k, v in function.items() if k in _FUNCTION_KEYS}
    return new


def drop_keys(messages: Sequence[dict[str, Any]], keys: Collection[str]) -> Messages:
    """Drop ``keys`` from every message (the extension keys a converting route would misread)."""
    return _changed(
        messages,
        lambda m: {k: v for k, v in m.items() if k not in keys} if any(k in m for k in keys) else None,
    )


def fold_refusal(messages: Sequence[dict[str, Any]], *, keep_key: bool) -> Messages:
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

    return _changed(messages, fix)


def _append_text(content: Any, text: str) -> Any:
    if content is None or content == "":
        return text
    if isinstance(content, list):
        return [*content, {"type": "text", "text": text}]
    return f"{content}\n\n{text}"


def drop_names(messages: Sequence[dict[str, Any]], keep_roles: Collection[str]) -> Messages:
    """Drop ``name`` from messages whose role is not in ``keep_roles`` (rows 4, 33, 55, 57, 59)."""
    return _changed(
        messages,
        lambda m: (
            {k: v for k, v in m.items() if k != "name"}
            if "name" in m and m.get("role") not in keep_roles
            else None
        ),
    )


def sanitize_names(messages: Sequence[dict[str, Any]], allowed: str, *, max_length: int = 64) -> Messages:
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

    return _changed(messages, fix)


# --- tool calls --------------------------------------------------------------------------------------


def normalize_empty_arguments(messages: Sequence[dict[str, Any]]) -> Messages:
    """Send ``"{}"`` for a call made without arguments (``""``, streamed no-arg calls) (rows 49, 53, 58):
    litellm's Anthropic, Bedrock, Gemini and Ollama converters and vLLM ``json.loads`` the arguments."""

    def empty(call: Any) -> bool:
        function = call.get("function") if isinstance(call, dict) else None
        arguments = function.get("arguments") if isinstance(function, dict) else None
        return isinstance(arguments, str) and not arguments.strip()

    def fix(m: dict[str, Any]) -> dict[str, Any] | None:
        calls = m.get("tool_calls")
        if not isinstance(calls, list) or not any(empty(c) for c in calls):
            return None
        return {
            **m,
            "tool_calls": [
                {**c, "function": {**c["function"], "arguments": "{}"}} if empty(c) else c for c in calls
            ],
        }

    return _changed(messages, fix)


def rewrite_tool_call_ids(messages: Sequence[dict[str, Any]], rule: IdRule) -> Messages:
    """Give every tool call whose id ``rule`` rejects (or that collides with another once litellm has cut
    its Gemini signature) a new id, on the call and on its result alike (rows 3, 17, 25, 30, 45).

    Deterministic and collision-free (see ``messages.profiles._ids``); ids the provider accepts are kept.
    """
    ids: list[str] = []
    for m in messages:
        calls = m.get("tool_calls")
        if isinstance(calls, list):
            ids.extend(c["id"] for c in calls if isinstance(c, dict) and isinstance(c.get("id"), str))
        call_id = m.get("tool_call_id")
        if isinstance(call_id, str):
            ids.append(call_id)
    if all(rule.accepts(i) for i in ids) and len(set(map(rule.sent_as, ids))) == len(set(ids)):
        return list(messages)
    mapping = tool_call_id_map(ids, rule)
    if not mapping:
        return list(messages)

    def fix(m: dict[str, Any]) -> dict[str, Any] | None:
        calls = m.get("tool_calls")
        if isinstance(calls, list) and any(isinstance(c, dict) and c.get("id") in mapping for c in calls):
            return {
                **m,
                "tool_calls": [
                    {**c, "id": mapping[c["id"]]} if isinstance(c, dict) and c.get("id") in mapping else c
                    for c in calls
                ],
            }
        call_id = m.get("tool_call_id")
        if isinstance(call_id, str) and call_id in mapping:
            return {**m, "tool_call_id": mapping[call_id]}
        return None

    return _changed(messages, fix)


def _call_names(messages: Sequence[dict[str, Any]]) -> dict[str, str]:
    names: dict[str, str] = {}
    for m in messages:
        for c in m.get("tool_calls") or ():
            function = c.get("function") if isinstance(c, dict) else None
            if isinstance(function, dict) and isinstance(c.get("id"), str):
                names[c["id"]] = str(function.get("name", ""))
    return names


def render_tool_exchanges_as_text(messages: Sequence[dict[str, Any]]) -> Messages:
    """Turn tool calls and results into plain turns, for a provider without tools (row 61, Perplexity).

    An assistant turn's calls become lines of its text (``Called tool get_weather with {...} (call
    call_1).``) and each result becomes a user message that says which call it answers and carries the
    result unchanged (text, or its parts). Nothing is dropped; ``merge_consecutive_roles`` then restores
    the alternation such a provider needs.
    """
    if not any(m.get("role") == "tool" or m.get("tool_calls") for m in messages):
        return list(messages)
    names = _call_names(messages)
    out: Messages = []
    for m in messages:
        calls = m.get("tool_calls")
        if m.get("role") == "assistant" and calls:
            lines = []
            for c in calls:
                function = c.get("function") or {}
                arguments = function.get("arguments") or "{}"
                lines.append(f"Called tool {function.get('name')} with {arguments} (call {c.get('id')}).")
            new = {k: v for k, v in m.items() if k != "tool_calls"}
            content = m.get("content")
            said = "\n".join(lines)
            new["content"] = said if blank(content, whitespace=False) else _append_text(content, said)
            out.append(new)
        elif m.get("role") == "tool":
            call_id = m.get("tool_call_id")
            name = names.get(call_id) if isinstance(call_id, str) else None
            header = f"Result of tool call {call_id}" + (f" ({name})" if name else "") + ":"
            content = m.get("content")
            body: Any
            if isinstance(content, list):
                body = [{"type": "text", "text": header}, *content]
            else:
                body = f"{header}\n{content if isinstance(content, str) else ''}"
            out.append({"role": "user", "content": body})
        else:
            out.append(m)
    return out


# --- roles -------------------------------------------------------------------------------------------


def set_system_role(messages: Sequence[dict[str, Any]], role: Literal["system", "user"]) -> Messages:
    """Send system and developer messages as ``role`` (rows 8, 9, 27): ``"system"`` where ``developer``
    is rejected, ``"user"`` for models without a system role (o1-mini, Gemma)."""
    return _changed(
        messages, lambda m: {**m, "role": role} if is_system(m) and m.get("role") != role else None
    )


def move_late_system_messages(messages: Sequence[dict[str, Any]]) -> Messages:
    """Send a system message that comes after the conversation has started as a user message (row 57:
    Perplexity allows system messages only before the first user or assistant turn)."""
    out: Messages = []
    started = False
    for m in messages:
        if is_system(m):
            out.append({**m, "role": "user"} if started else m)
        else:
            started = True
            out.append(m)
    return out


def flatten_text_content(messages: Sequence[dict[str, Any]], roles: Collection[str]) -> Messages:
    """Send a content made only of text parts as one string, for messages of ``roles`` (rows 38, 54):
    Groq wants system content as a string, and self-hosted servers may garble tool results given as parts.
    The parts are joined with newlines; a list holding anything but text is left alone."""

    def fix(m: dict[str, Any]) -> dict[str, Any] | None:
        content = m.get("content")
        if m.get("role") not in roles or not isinstance(content, list) or not content:
            return None
        if not all(_is_text_part(p) for p in content):
            return None
        return {**m, "content": "\n".join(str(p.get("text") or "") for p in content)}

    return _changed(messages, fix)


def move_tool_media(messages: Sequence[dict[str, Any]]) -> Messages:
    """Move images (and audio and files) out of tool results into a user message after them (row 7).

    Providers that take only text in a tool result reject the rest or silently drop it (litellm's
    DeepSeek route flattens tool content to text; the Ollama templates render images of user turns).
    Each such result keeps its text plus a note saying where its media went; one user message right
    after the run of results carries every moved part, each group labelled with the call it came from.
    """
    if not any(m.get("role") == "tool" and _media(m.get("content")) for m in messages):
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


def _media(content: Any) -> list[Any]:
    if not isinstance(content, list):
        return []
    return [p for p in content if isinstance(p, dict) and not _is_text_part(p)]


def _count(media: list[Any]) -> str:
    return "1 attachment" if len(media) == 1 else f"{len(media)} attachments"


# --- empty content -----------------------------------------------------------------------------------


def drop_blank_system_messages(messages: Sequence[dict[str, Any]], *, whitespace: bool) -> Messages:
    """Drop system messages with no text (rows 23, 27): a blank instruction says nothing, and Gemini
    rejects an empty text part even in its system instruction."""
    if not any(is_system(m) and blank(m.get("content"), whitespace=whitespace) for m in messages):
        return list(messages)
    return [m for m in messages if not (is_system(m) and blank(m.get("content"), whitespace=whitespace))]


def _blank_turn(m: Mapping[str, Any], whitespace: bool) -> bool:
    """A user message, or an assistant message without tool calls, that has nothing to say."""
    role = m.get("role")
    if role == "user":
        return blank(m.get("content"), whitespace=whitespace)
    if role == "assistant" and not m.get("tool_calls"):
        return blank(m.get("content"), whitespace=whitespace)
    return False


def drop_blank_text(messages: Sequence[dict[str, Any]], *, whitespace: bool) -> Messages:
    """Drop blank text where the provider rejects it or litellm would replace it (rows 13, 32, 40, 43, 61).

    A user message, or an assistant message without tool calls, with no text is dropped (Anthropic gets
    litellm's "[System: Empty message content sanitised ...]" in its place, Bedrock and xAI answer 400,
    litellm drops it for Mistral anyway); a blank text part beside other parts is removed from its list.
    Tool results and the text of tool-call turns are left to ``fill_blank_tool_results`` and
    ``set_call_turn_content``. The ends of the conversation are repaired afterwards (``ensure_user_first``,
    ``ensure_user_last``) where the provider needs it.
    """
    out: Messages = []
    for m in messages:
        if _blank_turn(m, whitespace):
            continue
        content = m.get("content")
        if (
            m.get("role") in ("user", "assistant")
            and isinstance(content, list)
            and any(_is_text_part(p) and _blank_text(p.get("text"), whitespace) for p in content)
            and not blank(content, whitespace=whitespace)
        ):
            m = {
                **m,
                "content": [
                    p for p in content if not (_is_text_part(p) and _blank_text(p.get("text"), whitespace))
                ],
            }
        out.append(m)
    return out


def space_empty_text(messages: Sequence[dict[str, Any]]) -> Messages:
    """Send ``" "`` for an empty user or assistant text (row 23): Gemini rejects an empty text part, and
    dropping the turn instead can leave a function call without the user turn it must follow (row 24).
    Whitespace is already accepted and left alone; tool-call turns are left to ``set_call_turn_content``."""

    def fix(m: dict[str, Any]) -> dict[str, Any] | None:
        if m.get("role") not in ("user", "assistant") or m.get("tool_calls"):
            return None
        content = m.get("content")
        if content == "":
            return {**m, "content": " "}
        if isinstance(content, list) and any(_is_text_part(p) and p.get("text") == "" for p in content):
            return {
                **m,
                "content": [
                    {**p, "text": " "} if _is_text_part(p) and p.get("text") == "" else p for p in content
                ],
            }
        return None

    return _changed(messages, fix)


def set_call_turn_content(
    messages: Sequence[dict[str, Any]], value: Literal["null", "empty_string"], *, whitespace: bool
) -> Messages:
    """The content of an assistant turn that calls tools and says nothing (rows 5, 13, 29, 32, 40, 50, 53).

    ``"null"``: no text at all (litellm then sends no ``content`` key); Anthropic would get litellm's
    placeholder text for ``""``, Gemini an empty text part. ``"empty_string"``: ``""``, for servers that
    reject a missing or null content (xAI, llama.cpp, LM Studio, chat templates that concatenate it).
    """

    def fix(m: dict[str, Any]) -> dict[str, Any] | None:
        if m.get("role") != "assistant" or not m.get("tool_calls"):
            return None
        content = m.get("content")
        if not blank(content, whitespace=whitespace):
            return None
        if value == "null":
            return None if content is None else {**m, "content": None}
        return None if content == "" else {**m, "content": ""}

    return _changed(messages, fix)


def fill_blank_tool_results(messages: Sequence[dict[str, Any]], text: str, *, whitespace: bool) -> Messages:
    """Send ``text`` as the content of a tool result that has none (rows 31, 40, 43, 55).

    Bedrock rejects a blank text block, xAI an empty message, and litellm's Mistral route drops a message
    whose content is ``""`` (tool results included), which leaves the call unanswered.
    """
    return _changed(
        messages,
        lambda m: (
            {**m, "content": text}
            if m.get("role") == "tool" and blank(m.get("content"), whitespace=whitespace)
            else None
        ),
    )


def fill_reasoning_content(messages: Sequence[dict[str, Any]], text: str = " ") -> Messages:
    """Give every assistant turn a ``reasoning_content`` (row 34): DeepSeek's thinking models answer 400
    when a turn lacks it. A turn made elsewhere gets ``text`` (``" "``, the least the API takes and what
    litellm itself sends when ``thinking`` is enabled)."""
    return _changed(
        messages,
        lambda m: (
            {**m, "reasoning_content": text}
            if m.get("role") == "assistant" and not m.get("reasoning_content")
            else None
        ),
    )


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


def _merge(first: dict[str, Any], second: dict[str, Any]) -> dict[str, Any]:
    merged = dict(first)
    for key, value in second.items():
        merged.setdefault(key, value)
    if "content" in first or "content" in second:
        merged["content"] = _merge_content(first.get("content"), second.get("content"))
    if first.get("tool_calls") or second.get("tool_calls"):
        merged["tool_calls"] = [*(first.get("tool_calls") or []), *(second.get("tool_calls") or [])]
    if first.get("reasoning_content") and second.get("reasoning_content"):
        merged["reasoning_content"] = f"{first['reasoning_content']}\n\n{second['reasoning_content']}"
    if first.get("name") != second.get("name"):
        merged.pop("name", None)
    return merged


def merge_consecutive_roles(messages: Sequence[dict[str, Any]]) -> Messages:
    """Merge runs of user messages, and runs of assistant messages, into one message each (rows 20, 53,
    57): Perplexity, DeepSeek's reasoner and many chat templates need user and assistant turns to
    alternate. Texts are joined with a blank line (parts are concatenated), tool calls are kept in order,
    and a ``name`` that differs between the merged messages is dropped."""
    out: Messages = []
    for m in messages:
        previous = out[-1] if out else None
        if (
            previous is not None
            and m.get("role") in ("user", "assistant")
            and previous.get("role") == m.get("role")
            and not previous.get("tool_calls")
        ):
            out[-1] = _merge(previous, m)
        else:
            out.append(m)
    return out


def bridge_tool_results(messages: Sequence[dict[str, Any]], text: str) -> Messages:
    """Put an assistant turn saying ``text`` between tool results and a user or system message that
    follows them (rows 31, 44): Mistral rejects "Unexpected role 'user' after role 'tool'", and Bedrock
    "Conversation blocks and tool result blocks cannot be provided in the same turn"."""
    out: Messages = []
    for index, m in enumerate(messages):
        out.append(m)
        after = messages[index + 1] if index + 1 < len(messages) else None
        if (
            m.get("role") == "tool"
            and after is not None
            and (after.get("role") == "user" or is_system(after))
        ):
            out.append({"role": "assistant", "content": text})
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
    last = len(messages) - 1
    final = _is_final_assistant(messages)

    def fix(index: int, m: dict[str, Any]) -> dict[str, Any]:
        if index == last and final:
            return m if m.get("prefix") is True else {**m, "prefix": True}
        if "prefix" in m:
            return {k: v for k, v in m.items() if k != "prefix"}
        return m

    return [fix(index, m) for index, m in enumerate(messages)]
