"""What content a provider takes, role by role: the table a profile's part screen is compiled from.

A content part is of one kind (``part_kind``): ``text``, ``image_url``, ``input_audio``, ``file`` (inline,
its bytes in ``file_data``), ``file_id`` (a ``file`` part that names an uploaded file or a URI instead),
``video_url`` or ``refusal``; anything else (another ``type``, a part that is not an object) is a kind no
provider takes. A ``PartTable`` says, for each role, which kinds the profile takes (``Accepts``), with the
quirk catalog row that says why the others are not taken and where that was read; and, for each kind, the
keys its payload may have (``image_url.url``...). ``Profile.parts`` holds the table; the profile compiles it
into one rule (``rules.UnsupportedParts``) that reports every other part as not fixable, so a gap never
depends on someone remembering to write a rule for it.

"Takes" means what reaches the provider in a form it accepts once the profile has done its work: a kind
that a rule of the profile makes acceptable (Gemini's video parts, sent as file parts; images in tool
results, moved to a user message) is taken, and the cell names that rule (``Accepts.via``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Final

__all__ = [
    "ALL_KINDS",
    "ANY_PARTS",
    "KIND_ROWS",
    "PART_KEYS",
    "SYSTEM_TEXT",
    "Accepts",
    "PartTable",
    "part_kind",
    "system_as_user",
]

ALL_KINDS: Final = frozenset({"text", "image_url", "input_audio", "file", "file_id", "video_url", "refusal"})
"""Every kind of content part this package knows (``part_kind``)."""

PART_KEYS: Final[Mapping[str, tuple[str, frozenset[str]]]] = {
    "text": ("text", frozenset()),
    "refusal": ("refusal", frozenset()),
    "image_url": ("image_url", frozenset({"url", "detail", "format"})),
    "input_audio": ("input_audio", frozenset({"data", "format"})),
    "file": ("file", frozenset({"file_data", "file_id", "filename", "format", "detail", "video_metadata"})),
    "file_id": (
        "file",
        frozenset({"file_data", "file_id", "filename", "format", "detail", "video_metadata"}),
    ),
    "video_url": ("video_url", frozenset({"url", "detail"})),
}
"""For each kind: the key that holds its payload, and the keys that payload may have (litellm's types:
``litellm/types/llms/openai.py``). Beside ``type`` and the payload, any part may carry ``cache_control``
(the cache-control rule decides where it goes)."""

KIND_ROWS: Final[Mapping[str, int]] = {"video_url": 72, "refusal": 5}
"""The row a kind not taken is reported under wherever a cell gives it none of its own: video parts (quirk
72: litellm drops them on every route but Gemini's), refusals (quirk 5: a refusal is an assistant's, and
reaches the model as text)."""

_PART_EXTRA: Final = frozenset({"type", "cache_control"})


def part_kind(part: Any) -> str:
    """The kind of a content part (see the module docstring); ``"?"`` for what is not a part at all.

    Args:
        part: a content part, as dumped.

    Returns:
        Its kind (``"text"``, ``"image"``, ``"audio"``, ``"file"``, ...).

    Raises nothing.
    """
    if type(part) is not dict:
        return "?"
    kind = part.get("type")
    if kind == "file":
        ref = part.get("file")
        if type(ref) is dict and ref.get("file_data") is None and ref.get("file_id") is not None:
            return "file_id"
        return "file"
    return kind if type(kind) is str else "?"


def odd_keys(part: dict[str, Any], kind: str, allowed: Mapping[str, frozenset[str]]) -> list[str]:
    """The keys of ``part`` (``kind``, a known one) that no provider reads: beside ``type``, its payload and
    ``cache_control`` at the top, and in its payload those ``allowed`` has for the kind (``payload.key``)."""
    payload_key, _ = PART_KEYS[kind]
    found = [k for k in part if k not in _PART_EXTRA and k != payload_key]
    payload = part.get(payload_key)
    if type(payload) is dict:
        keys = allowed.get(kind, PART_KEYS[kind][1])
        found.extend(f"{payload_key}.{k}" for k in payload if k not in keys)
    return found


@dataclass(frozen=True)
class Accepts:
    """The kinds of part one role's content may hold for a provider, and why no other."""

    kinds: frozenset[str]
    """The kinds taken (``ALL_KINDS`` names them); ``text`` is always among them."""
    row: int | None
    """The quirk catalog row that says what the provider takes in this role and what happens to the rest
    (``messages quirks N``); ``None`` when every kind not taken has a row of its own (``rows``,
    ``KIND_ROWS``)."""
    source: str = ""
    """Where that was read or measured: the provider SDK's type, a test of this repository."""
    via: Mapping[str, str] = field(default_factory=dict, hash=False)
    """The kinds taken only because a rule of the profile makes them acceptable, with that rule's id
    (``{"video_url": "video-part"}``: Gemini's video parts are sent as file parts)."""
    rows: Mapping[str, int] = field(default_factory=dict, hash=False)
    """A row of its own for some kinds not taken, where it is neither ``row`` nor ``KIND_ROWS``'s."""

    def __post_init__(self) -> None:
        kinds = frozenset(self.kinds) | {"text"}
        object.__setattr__(self, "kinds", kinds)
        unknown = sorted(kinds - ALL_KINDS)
        if unknown:
            raise ValueError(f"unknown part kinds {unknown}; the kinds are {sorted(ALL_KINDS)}")
        if not set(self.via) <= kinds:
            raise ValueError(f"via names kinds that are not taken: {sorted(set(self.via) - kinds)}")
        if self.row is None and any(k not in self.rows and k not in KIND_ROWS for k in ALL_KINDS - kinds):
            raise ValueError("a role that does not take every kind of part needs the row that says why")

    def row_for(self, kind: str) -> int | None:
        """The row a part of ``kind`` not taken here is reported under.

        Args:
            kind: a part kind (``"image"``, ``"audio"``, ...).

        Returns:
            The quirk row, or ``None``.

        Raises nothing.
        """
        return self.rows.get(kind, KIND_ROWS.get(kind, self.row))


_EVERY = Accepts(ALL_KINDS, row=None, source="no screen: every part is sent as it is")


@dataclass(frozen=True)
class PartTable:
    """For each role, the content a profile takes (``Accepts``); ``developer`` messages are ``system``
    ones. The default of every field takes everything: no part is refused."""

    system: Accepts = _EVERY
    """What system messages (and ``developer``) may hold. Default: every part."""
    user: Accepts = _EVERY
    """What user messages may hold. Default: every part."""
    assistant: Accepts = _EVERY
    """What assistant messages may hold. Default: every part."""
    tool: Accepts = _EVERY
    """What tool messages may hold. Default: every part."""
    keys: Mapping[str, frozenset[str]] = field(default_factory=dict, hash=False)
    """For some kinds, the keys their payload may have, where fewer than ``PART_KEYS`` says."""

    def role(self, role: Any) -> Accepts | None:
        """The cell of ``role`` (``developer`` reads ``system``'s); ``None`` for a role with no content
        parts.

        Args:
            role: a message role.

        Returns:
            What messages of that role may hold, or ``None``.

        Raises nothing.
        """
        if role == "user":
            return self.user
        if role == "assistant":
            return self.assistant
        if role == "tool":
            return self.tool
        if role in ("system", "developer"):
            return self.system
        return None

    @property
    def screens(self) -> bool:
        """Whether some part may be refused (a kind not taken in some role, or fewer keys than litellm's)."""
        cells = (self.system, self.user, self.assistant, self.tool)
        return any(cell.kinds != ALL_KINDS for cell in cells) or bool(self.keys)

    def rows(self) -> frozenset[int]:
        """Every row the table cites.

        Returns:
            The quirk catalog rows of every refusal the table holds.

        Raises nothing.
        """
        found: set[int] = set()
        for cell in (self.system, self.user, self.assistant, self.tool):
            for kind in ALL_KINDS - cell.kinds:
                row = cell.row_for(kind)
                if row is not None:
                    found.add(row)
        return frozenset(found)


SYSTEM_TEXT: Final = Accepts(
    frozenset({"text"}),
    row=85,
    source="openai-python ChatCompletionSystemMessageParam, anthropic's system (TextBlockParam), "
    "google-genai's system_instruction as litellm fills it, cohere SystemChatMessageV2: text only",
)
"""What a system (or developer) message takes on every provider: text (quirk 85)."""


def system_as_user(table: PartTable) -> PartTable:
    """``table`` for a model whose system messages are sent as user messages (the system-role rule with
    ``to="user"``): a system message takes what a user turn takes."""
    user = table.user
    return replace(
        table,
        system=Accepts(
            user.kinds,
            row=user.row,
            source=f"sent as a user message (the system-role rule); {user.source}",
            via=dict.fromkeys(user.kinds - {"text"}, "system-role"),
            rows=user.rows,
        ),
    )


ANY_PARTS: Final = PartTable()
"""The table that takes every part in every role: ``Profile.parts``'s default (a profile of your own
screens nothing unless you give it a table)."""
