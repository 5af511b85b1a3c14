"""Reading OpenAI-shape message lists in tests, independently of the code under test.

Nothing here imports ``messages.profiles``: the content a profile must keep, the media it may move, and the
tool-call pairing it must preserve are read straight from the dicts.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

Msgs = Sequence[Mapping[str, Any]]


def _texts_of(content: Any) -> list[str]:
    if isinstance(content, str):
        return [content]
    if isinstance(content, list):
        return [p["text"] for p in content if isinstance(p, Mapping) and p.get("type") == "text"]
    return []


def kept_texts(messages: Msgs) -> list[str]:
    """Every text a profile must keep: each non-blank string content and text part of a user, assistant or
    tool message, and each refusal."""
    found: list[str] = []
    for m in messages:
        if m.get("role") not in ("user", "assistant", "tool"):
            continue
        found.extend(_texts_of(m.get("content")))
        if isinstance(m.get("refusal"), str):
            found.append(m["refusal"])
    return [text for text in found if text.strip()]


def all_strings(messages: Msgs) -> list[str]:
    """Every string content, text part and refusal of every message, whatever its role."""
    found: list[str] = []
    for m in messages:
        found.extend(_texts_of(m.get("content")))
        if isinstance(m.get("refusal"), str):
            found.append(m["refusal"])
    return found


def missing_texts(before: Msgs, after: Msgs) -> list[str]:
    """The texts of ``before`` that are not in the strings of ``after`` as many times as ``before`` has
    them (merging and re-encoding may wrap a text, but each copy must still be there whole: one of two
    equal texts lost is a text lost)."""
    haystack = all_strings(after)
    wanted: Counter[str] = Counter()
    missing = []
    for text in kept_texts(before):
        wanted[text] += 1
        if sum(s.count(text) for s in haystack) < wanted[text]:
            missing.append(text)
    return missing


def media(messages: Msgs, types: Iterable[str] = ("image_url", "input_audio", "file")) -> list[str]:
    """Every image URL, audio payload and file reference (of the part ``types`` given), in order."""
    wanted = set(types) - {"text"}
    if "file" in wanted:
        wanted.add("video_url")  # litellm's vLLM route sends a video file as a video_url part
    found: list[str] = []
    for m in messages:
        content = m.get("content")
        if not isinstance(content, list):
            continue
        for p in content:
            if not isinstance(p, Mapping) or p.get("type") not in wanted:
                continue
            if p["type"] == "video_url":
                video = p["video_url"]
                found.append(video["url"] if isinstance(video, Mapping) else video)
            elif p["type"] == "image_url":
                image = p["image_url"]
                found.append(image["url"] if isinstance(image, Mapping) else image)
            elif p["type"] == "input_audio":
                found.append(p["input_audio"]["data"])
            else:
                ref = p.get("file") or p  # litellm's Mistral route lifts file_id out of "file"
                found.append(ref.get("file_data") or ref.get("file_id"))
    return found


def tool_results(messages: Msgs) -> list[Mapping[str, Any]]:
    """The tool messages, in order."""
    return [m for m in messages if m.get("role") == "tool"]


def calls(messages: Msgs) -> list[tuple[int, Mapping[str, Any]]]:
    """Every tool call, with the index of its message, in order."""
    return [(i, c) for i, m in enumerate(messages) for c in (m.get("tool_calls") or [])]


def pairing(messages: Msgs) -> list[int]:
    """For each tool result, in order, the position (among all calls) of the call it answers: the nearest
    call before it with its id, since a later turn may use an id again (quirk 17); -1 when it answers none.
    Ids are compared within the list itself, so two lists with different ids pair alike."""
    latest: dict[Any, int] = {}  # for each id, the position of its latest call so far
    count = 0
    found: list[int] = []
    for m in messages:
        for c in m.get("tool_calls") or []:
            latest[c["id"]] = count
            count += 1
        if m.get("role") == "tool":
            found.append(latest.get(m.get("tool_call_id"), -1))
    return found


def calls_answered(messages: Msgs) -> list[tuple[Any, Any] | None]:
    """For each tool result, in order, the tool and arguments of the nearest call before it with its id (a
    later turn may use an id again, quirk 17; arguments ``""`` as the ``"{}"`` they may become, quirk 58):
    the pairing that survives new ids and a repeated call moved to a turn of its own (quirk 24)."""
    latest: dict[Any, tuple[Any, Any]] = {}
    found: list[tuple[Any, Any] | None] = []
    for m in messages:
        for c in m.get("tool_calls") or []:
            latest[c["id"]] = (c["function"]["name"], c["function"]["arguments"].strip() or "{}")
        if m.get("role") == "tool":
            found.append(latest.get(m.get("tool_call_id")))
    return found


def unique_ids(profile: Any) -> bool:
    """Whether ``profile`` wants every tool-call id once in a request (quirk 17)."""
    return bool(getattr(profile.rule("tool-call-id"), "unique", False))


def protocol_problems(messages: Msgs) -> list[str]:
    """The tool-call protocol checked on dicts: each call answered once, by results right after its turn."""
    problems: list[str] = []
    pending: set[str] = set()
    for index, m in enumerate(messages):
        if m.get("role") == "tool":
            if m.get("tool_call_id") not in pending:
                problems.append(f"message {index} answers {m.get('tool_call_id')!r}, which is not pending")
            pending.discard(m.get("tool_call_id"))
            continue
        if pending:
            problems.append(f"message {index} comes before the results of {sorted(pending)}")
            pending = set()
        ids = [c["id"] for c in m.get("tool_calls") or []]
        if len(set(ids)) != len(ids):
            problems.append(f"message {index} repeats a call id")
        pending = set(ids)
    if pending:
        problems.append(f"the conversation ends before the results of {sorted(pending)}")
    return problems


def roles(messages: Iterable[Mapping[str, Any]]) -> list[str]:
    """The roles, in order."""
    return [m["role"] for m in messages]
