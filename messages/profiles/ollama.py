"""Ollama's generate route (``ollama/...``): litellm flattens the whole chat into one prompt.

Implements (quirks, ``messages quirks N``):

* 49: arguments ``""`` sent as ``"{}"``, and arguments that are not a JSON object reported (litellm
  decodes them into the prompt);
* 68: parts other than text and images are reported: litellm keeps the text and the images, nothing
  else.

Left to litellm: everything else; the prompt has no place for names or keys.
"""

from __future__ import annotations

from messages.profiles._profile import Profile
from messages.profiles.rules import (
    AssistantMedia,
    EmptyArguments,
    ExtensionKeys,
    ForeignPayloads,
    InvalidArguments,
    Refusal,
    ToolCallIds,
    UnsupportedParts,
)

__all__ = ["OLLAMA_RULES", "PROFILE"]

OLLAMA_RULES = (
    ForeignPayloads(),
    Refusal(),
    ExtensionKeys(),
    EmptyArguments(row=49),
    InvalidArguments(row=49),
    ToolCallIds(),
    UnsupportedParts(accepts=frozenset({"text", "image_url"}), row=68),  # litellm keeps text and images
    AssistantMedia(accepts=frozenset({"image_url"})),  # and images in assistant turns
)
"""The rules of both Ollama routes."""

PROFILE = Profile("ollama", OLLAMA_RULES)
