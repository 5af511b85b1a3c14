"""Mistral La Plateforme (``mistral/...``, ``codestral/...``; bare ``mistral-...``, ``codestral-...`` names).

Mistral's API validates messages strictly, and litellm's Mistral route changes its behaviour when an image
is present (it then skips dropping ``name``, empty messages and ``None`` values), so the profile does not
rely on it.

Implements (quirks, ``messages quirks N``):

* 30: tool-call ids of exactly 9 letters or digits, the same new id on the call and its result;
* 31: an assistant turn between tool results and a following user or system message ("Unexpected role
  'user' after role 'tool'"); a final assistant text is marked ``prefix: true``; an empty tool result says
  so (litellm drops a tool message whose content is ``""``, leaving "Not the same number of function calls
  and responses"); a conversation ending on a system message gets a user turn after it ("Expected last
  role User or Tool"); images in tool results are moved to a user message, before the bridge is placed
  (quirk 7: litellm would put that user message right after the results);
* 32: no empty assistant turn, and no text beside tool calls that is empty;
* 33: only known keys, and ``name`` only on tool results ("Extra inputs are not permitted");
* 80: a system message right after an assistant turn or a tool result is sent as a user message
  ("Unexpected role 'system' after role 'assistant'");
* 81: a conversation whose first message is an assistant turn gets a user turn first ("Conversation must
  start with a user message or system message"; its calls are not counted otherwise: "Not the same number
  of function calls and responses");
* 82: a tool name outside ``[a-zA-Z0-9_-]{1,64}`` is reported, not fixable (the name links the call to its
  tool's definition in ``tools=``).

* 67, 77, 72, 85 (the table, ``MISTRAL_PARTS``): audio parts are refused (litellm's route flattens the
  content of a conversation without images or files to text, and drops them), as are media in assistant
  turns (mistral-common refuses them), video, and anything but text in a system message.

Left to litellm: flattening text-only content lists, rebuilding tool calls without their provider fields.
"""

from __future__ import annotations

from messages.profiles._ids import IdRule
from messages.profiles._parts import SYSTEM_TEXT, Accepts, PartTable
from messages.profiles._profile import Profile
from messages.profiles.rules import (
    BlankToolResults,
    BridgeToolResults,
    CallTurnContent,
    DropBlank,
    EmptyArguments,
    ForeignPayloads,
    KnownKeys,
    Names,
    Prefix,
    Refusal,
    SystemAfterReply,
    ToolCallIds,
    ToolMedia,
    ToolNames,
    TurnAfterSystem,
    UserBeforeReply,
)

__all__ = ["ALIASES", "MISTRAL_IDS", "MISTRAL_PARTS", "MISTRAL_RULES", "PROFILE"]

ALIASES = ("codestral",)
"""litellm's ``codestral/`` prefix: Mistral's Codestral endpoint, through the same Mistral transformation."""

_MEDIA = frozenset({"text", "image_url", "file", "file_id"})

MISTRAL_PARTS = PartTable(
    system=SYSTEM_TEXT,
    user=Accepts(
        _MEDIA,
        row=67,
        source="mistral-common's user chunks (text, image_url; Mistral's API reads files as document "
        "chunks: litellm sends them); litellm drops audio",
    ),
    assistant=Accepts(frozenset({"text"}), row=77, source="mistral-common: an assistant's content is text"),
    tool=Accepts(
        _MEDIA,
        row=67,
        source="moved to a user message after the results (quirk 7)",
        via=dict.fromkeys(("image_url", "file", "file_id"), "tool-media"),
    ),
)
"""What Mistral takes, role by role, wherever its models are served through litellm's Mistral route."""

MISTRAL_IDS = IdRule(alphabet="a-zA-Z0-9", min_length=9, max_length=9)
"""Mistral's tool-call ids: exactly 9 letters or digits (quirk 30)."""

MISTRAL_RULES = (
    ForeignPayloads(),
    Refusal(),
    Names(kept_on=frozenset({"tool"}), row=33),
    KnownKeys(row=33),
    EmptyArguments(),
    ToolCallIds(ids=MISTRAL_IDS, row=30),
    ToolNames(row=82),
    DropBlank(row=32),
    CallTurnContent(value="null", row=32),
    BlankToolResults(row=31),
    ToolMedia(row=7),
    SystemAfterReply(row=80),
    BridgeToolResults(row=31),
    UserBeforeReply(row=81),
    TurnAfterSystem(row=31),
    Prefix(row=31),
)
"""Mistral's rules, wherever its models are served (La Plateforme, Vertex AI)."""

PROFILE = Profile("mistral", MISTRAL_RULES, parts=MISTRAL_PARTS)
"""The ``mistral`` profile: its rules and its table of parts, registered by ``messages.profiles``."""
