"""Ollama's generate route (``ollama/...``): litellm flattens the whole chat into one prompt.

Implements (quirks, ``messages quirks N``):

* 68, 85 and 77 (the table of parts): text and images in user turns and tool results; text in system
  messages and assistant turns (the generate route renders no image of an assistant's);
* 49: arguments ``""`` sent as ``"{}"``, and arguments that are not a JSON object reported (litellm
  decodes them into the prompt);
* 68: parts other than text and images are reported: litellm keeps the text and the images, nothing
  else.

Left to litellm: everything else; the prompt has no place for names or keys.
"""

from __future__ import annotations

from messages.profiles._parts import SYSTEM_TEXT, Accepts, PartTable
from messages.profiles._profile import Profile
from messages.profiles.rules import (
    EmptyArguments,
    ExtensionKeys,
    ForeignPayloads,
    InvalidArguments,
    Refusal,
    ToolCallIds,
)

__all__ = ["OLLAMA_PARTS", "OLLAMA_RULES", "PROFILE"]

_IMAGES = frozenset({"text", "image_url"})
_SOURCE = "Ollama's API has text and images only; litellm keeps those and leaves the rest out (quirk 68)"

OLLAMA_PARTS = PartTable(
    system=SYSTEM_TEXT,
    user=Accepts(_IMAGES, row=68, source=_SOURCE),
    assistant=Accepts(
        frozenset({"text"}), row=77, source="litellm's generate route renders an assistant turn's text only"
    ),
    tool=Accepts(_IMAGES, row=68, source=_SOURCE),
)
"""What Ollama's generate route takes: text and images (quirk 68), and text only in an assistant turn."""

OLLAMA_RULES = (
    ForeignPayloads(),
    Refusal(),
    ExtensionKeys(),
    EmptyArguments(row=49),
    InvalidArguments(row=49),
    ToolCallIds(),
)
"""The rules of both Ollama routes."""

PROFILE = Profile("ollama", OLLAMA_RULES, parts=OLLAMA_PARTS)
"""The ``ollama`` profile: its rules and its table of parts, registered by ``messages.profiles``."""
