"""Cohere (``cohere/...`` and ``cohere_chat/...``: litellm sends both through its v2 chat transformation,
unless the model name says ``v1/``; the v2 API takes OpenAI-shaped messages).

Implements (quirks, ``messages quirks N``):

* 55: no ``name`` on any message, only known keys (the compatibility API answers 422 to what it does not
  know); no empty turn ("message must be at least 1 token long or tool results must be specified"): a user
  or assistant turn with no text (whitespace only counts as none: litellm sends it as it is) is dropped, a
  tool-call turn sends no blank text, and an empty tool result says so.

* 84, 85 (the table, ``PARTS``): Cohere's v2 chat takes text and images in user turns and text in every
  other role (its SDK's ``ChatMessageV2`` types); litellm sends every part as it is, so audio, files, video,
  and media in assistant turns and tool results are refused.

Family ``v1`` (``cohere/v1/...``, ``cohere_chat/v1/...``: litellm's v1 chat transformation): 87, litellm
sends the last message only, so any longer conversation is refused (use the v2 route), and a lone system
message goes as the message itself (no user turn is added after it).

Left to litellm: 25 (signatures cut off ids).
"""

from __future__ import annotations

from messages.profiles._parts import SYSTEM_TEXT, Accepts, PartTable
from messages.profiles._profile import Profile
from messages.profiles.rules import (
    BlankToolResults,
    CallTurnContent,
    DropBlank,
    EmptyArguments,
    ForeignPayloads,
    KnownKeys,
    LastMessageOnly,
    Names,
    Refusal,
    ToolCallIds,
)

__all__ = ["ALIASES", "FAMILIES", "PARTS", "PROFILE"]

ALIASES = ("cohere_chat",)
"""litellm's other Cohere chat prefix: ``CohereModelInfo.get_cohere_route`` sends it through the same v2
transformation as ``cohere/`` unless the model name says ``v1/`` (``tests/conformance/test_litellm_routes.py``
pins it)."""

_SDK = "cohere 7.3 (v2): "

PARTS = PartTable(
    system=SYSTEM_TEXT,
    user=Accepts(
        frozenset({"text", "image_url"}), row=84, source=_SDK + "UserChatMessageV2: text, image_url"
    ),
    assistant=Accepts(frozenset({"text"}), row=84, source=_SDK + "AssistantChatMessageV2: text"),
    tool=Accepts(frozenset({"text"}), row=84, source=_SDK + "ToolChatMessageV2: text (and Cohere documents)"),
)
"""What Cohere's v2 chat takes, role by role (quirk 84)."""

PROFILE = Profile(
    "cohere",
    (
        ForeignPayloads(),
        Refusal(),
        Names(kept_on=frozenset(), row=55),
        KnownKeys(row=55),
        EmptyArguments(),
        ToolCallIds(),
        # Whitespace says nothing either: litellm sends it as it is (issue 13).
        DropBlank(whitespace=True, row=55),
        CallTurnContent(value="null", whitespace=True, row=55),
        BlankToolResults(row=55),
    ),
    parts=PARTS,
)
"""The ``cohere`` profile: its rules and its table of parts, registered by ``messages.profiles``."""

FAMILIES = {
    "v1": PROFILE.with_family(
        "v1", LastMessageOnly(row=87), DropBlank(whitespace=True, row=55, after_system=False)
    )
}
"""The v1 route (the model name says ``v1/``): litellm sends the last message only (quirk 87), so a lone
system message is sent as the message, with no turn added after it (that turn would push it out)."""
