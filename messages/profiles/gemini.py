"""Google Gemini API (``gemini/...``); the Gemini rules are shared with Vertex AI.

litellm builds the ``generateContent`` request from the OpenAI-shape list (system hoisted into
``system_instruction``, results matched to calls by name), so unknown keys and ``name`` never reach Gemini.

Implements (quirks, ``messages quirks N``):

* 23: no empty text part: an empty user or assistant text is sent as ``" "`` (litellm sends
  ``{"text": ""}``, rejected), a tool-call turn sends no text (and none of its empty text parts, when its
  parts say something), an empty system message is dropped;
* 24: the first turn after the system messages is a user turn ("function call turn comes immediately
  after a user turn or after a function response turn"); a turn that calls one tool twice with equal
  arguments is split into one turn per repeat, each followed by its results;
* 25: Gemini thought signatures (in ``provider_specific_fields`` and in litellm's ``__thought__`` ids) go
  back to Gemini only; ids keep them;
* 27, family ``gemma`` (not ``gemma-4``): no system instruction, so system messages are sent as user turns;
* 58: arguments ``""`` sent as ``"{}"``; arguments that are not JSON are reported;
* 72: a ``video_url`` part is sent as the ``file`` part litellm reads (it drops ``video_url`` silently);
* 85, 77 (the table, ``GEMINI_PARTS``): system messages take text; assistant turns text, images, audio and
  inline files (litellm sends them from 1.109; a file by id there it refuses; with earlier releases,
  which drop them silently, assistant turns take text only: flag ``GEMINI_MODEL_MEDIA``); user
  turns and tool results every kind of part;
* 7 and 24: images, audio and files of tool results are moved to a user message right after the results:
  litellm 1.110.2 sends them as parts beside the ``functionResponse`` parts of the turn, one part more than
  there are calls ("Please ensure that the number of function response parts is equal to the number of
  function call parts"; 1.106.2 nested them in ``functionResponse.parts``).

Left to litellm: 19 and 26 (system-only requests), 24 (grouping the results of parallel calls), 25 (a
dummy signature for calls made by another provider), 28 (``functionResponse`` shape, names), 20 (merging
consecutive turns).
"""

from __future__ import annotations

from messages._litellm import GEMINI_MODEL_MEDIA
from messages.profiles._ids import IdRule
from messages.profiles._parts import SYSTEM_TEXT, Accepts, PartTable, system_as_user
from messages.profiles._profile import Profile
from messages.profiles.rules import (
    CallTurnContent,
    EmptyArguments,
    ExtensionKeys,
    ForeignPayloads,
    IdenticalCalls,
    InvalidArguments,
    Refusal,
    SpaceEmptyText,
    SystemRole,
    ToolCallIds,
    ToolMedia,
    UserFirst,
    VideoParts,
)

__all__ = ["FAMILIES", "GEMINI_PARTS", "GEMINI_RULES", "PROFILE", "gemma_families"]

_MEDIA = frozenset({"text", "image_url", "input_audio", "file", "file_id", "video_url"})

GEMINI_PARTS = PartTable(
    system=SYSTEM_TEXT,
    user=Accepts(
        _MEDIA,
        row=None,
        source="google-genai Part: text, inline_data, file_data; litellm reads video from file parts only",
        via={"video_url": "video-part"},
    ),
    assistant=Accepts(
        frozenset({"text", "image_url", "input_audio", "file"})
        if GEMINI_MODEL_MEDIA.holds()
        else frozenset({"text"}),
        row=77,
        source="litellm sends a model turn's inline media from 1.109 (earlier releases drop them: "
        "GEMINI_MODEL_MEDIA); it refuses a file by id there ('Invalid image received')",
    ),
    tool=Accepts(
        _MEDIA,
        row=None,
        source="moved to a user message after the results (quirk 7): Gemini 2.x counts media beside the "
        "function responses against the calls",
        via={
            "image_url": "tool-media",
            "input_audio": "tool-media",
            "file": "tool-media",
            "file_id": "tool-media",
            "video_url": "video-part",
        },
    ),
)
"""What Gemini takes, role by role (the Gemini API and Vertex AI alike)."""

GEMINI_RULES = (
    VideoParts(),
    ForeignPayloads(provider_fields=True, row=25),
    Refusal(),
    ExtensionKeys(),
    EmptyArguments(),
    InvalidArguments(),
    ToolCallIds(ids=IdRule(keeps_signatures=True), row=25),
    SpaceEmptyText(row=23),
    CallTurnContent(value="null", row=23),
    IdenticalCalls(row=24),
    UserFirst(row=24),
    ToolMedia(row=7),
)
"""The rules every Gemini profile shares."""


def gemma_families(profile: Profile) -> dict[str, Profile]:
    """Gemma on the Gemini API: no system instruction before Gemma 4 (quirk 27).

    Args:
        profile: the provider's profile, which the families build on.

    Returns:
        The family profiles, by family name.

    Raises nothing.
    """
    no_system = SystemRole(to="user", row=27)
    parts = system_as_user(profile.parts)
    return {
        "gemma": profile.with_family("gemma", no_system, parts=parts),
        "gemini-gemma": profile.with_family("gemini-gemma", no_system, parts=parts),
        "gemma-4": profile.with_family("gemma-4"),
    }


PROFILE = Profile("gemini", GEMINI_RULES, parts=GEMINI_PARTS)
"""The ``gemini`` profile: its rules and its table of parts, registered by ``messages.profiles``."""

FAMILIES = gemma_families(PROFILE)
"""The profiles of model families with rules of their own, by family key (``get_profile`` takes the
longest key a model name matches)."""
