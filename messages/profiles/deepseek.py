"""DeepSeek (``deepseek/deepseek-chat``, ``deepseek/deepseek-reasoner``, ...).

Implements (quirks, ``messages quirks N``):

* 85 (the table of parts, with 36): text in system messages;
* 36: content is sent as a string: text parts are joined with newlines (litellm joins them only when
  their text is not empty, and leaves a list DeepSeek rejects: "invalid type: sequence, expected a
  string"); images, audio and files are refused (the table, ``PARTS``: litellm's route drops them
  silently; not fixable), and a turn holding them, sent anyway, gets a text note saying how many parts the
  model is not shown, so that an image-only turn is not sent as a list; families ``deepseek-v4-flash`` and
  ``deepseek-flash`` take images in user turns;
* 7 and 36: images in tool results are moved to a user message after them (the route flattens tool
  content to text, dropping them even for vision models);
* 34, family ``deepseek-reasoner`` (thinking mode): every assistant turn carries ``reasoning_content``,
  its own or ``" "`` ("Missing `reasoning_content` field in the assistant message"); litellm fills it only
  when ``thinking={"type": "enabled"}`` is passed, which the reasoner does not need;
* 20, family ``deepseek-reasoner``: user and assistant turns alternate ("does not support successive user
  or assistant messages");
* 34: ``reasoning_content`` that DeepSeek wrote (the turn's ``provider`` is ``deepseek``) is sent back:
  a turn made in thinking mode must carry it; reasoning another provider wrote is dropped (quirk 35, the
  R1-era rule that rejected it in input, is superseded by 34);
* only known keys are sent.

Left to litellm: 36 (dropping the parts the model does not take), 25 (signatures cut off ids).
"""

from __future__ import annotations

from messages.profiles._parts import SYSTEM_TEXT, Accepts, PartTable
from messages.profiles._profile import Profile
from messages.profiles.rules import (
    Alternation,
    EmptyArguments,
    ForeignPayloads,
    KnownKeys,
    Names,
    ReasoningContent,
    Refusal,
    TextOnly,
    ToolCallIds,
    ToolMedia,
)

__all__ = ["FAMILIES", "PARTS", "PROFILE", "VISION_PARTS"]


def _table(kinds: frozenset[str], source: str) -> PartTable:
    takes = Accepts(kinds, row=36, source=source)
    moved = Accepts(kinds, row=36, source=source, via=dict.fromkeys(kinds - {"text"}, "tool-media"))
    return PartTable(
        system=SYSTEM_TEXT,
        user=takes,
        assistant=Accepts(frozenset({"text"}), row=36, source=source),
        tool=moved,
    )


PARTS = _table(frozenset({"text"}), "DeepSeek's chat models take text only; litellm drops other parts (36)")
"""DeepSeek's text models: text only (quirk 36)."""

VISION_PARTS = _table(
    frozenset({"text", "image_url"}), "DeepSeek's vision models take images in user turns (quirk 36)"
)
"""DeepSeek's vision models: text, and images in user turns (and tool results, moved to one)."""

PROFILE = Profile(
    "deepseek",
    (
        ForeignPayloads(own_reasoning_content=True, row=34),
        Refusal(),
        Names(kept_on=frozenset({"system", "developer", "user", "assistant"})),  # DeepSeek documents them
        KnownKeys(),
        EmptyArguments(),
        ToolCallIds(),
        TextOnly(row=36),
        ToolMedia(row=36),
    ),
    parts=PARTS,
)
"""The ``deepseek`` profile: its rules and its table of parts, registered by ``messages.profiles``."""

FAMILIES = {
    "deepseek-reasoner": PROFILE.with_family(
        "deepseek-reasoner",
        ForeignPayloads(row=34),
        ReasoningContent(row=34),
        Alternation(row=20),
    ),
    **{
        family: PROFILE.with_family(family, parts=VISION_PARTS)
        for family in ("deepseek-v4-flash", "deepseek-flash")
    },
}
"""The profiles of model families with rules of their own, by family key (``get_profile`` takes the
longest key a model name matches)."""
