"""Ollama's chat route (``ollama_chat/...``): litellm builds ``/api/chat`` messages from fixed keys.

Implements (quirks, ``messages quirks N``):

* 68, 85 and 77 (the table of parts): text and images, in user and assistant turns and tool results;
  text in system messages;
* 49: arguments ``""`` sent as ``"{}"``, and arguments that are not a JSON object reported (litellm
  decodes them into objects, as Ollama wants);
* 51: images by URL are reported (Ollama takes base64 only; not fixable here);
* 7: images in tool results are moved to a user message (Ollama's templates render a user turn's images);
* 68: parts other than text and images are reported: litellm keeps the text and the images, nothing
  else.

Left to litellm: 51 (the ``data:`` prefix cut off inline images). Not fixable by any list: 52 (litellm
sends no ``tool_name`` on tool results).
"""

from __future__ import annotations

from dataclasses import replace

from messages.profiles._parts import Accepts
from messages.profiles._profile import Profile
from messages.profiles.ollama import OLLAMA_PARTS, OLLAMA_RULES
from messages.profiles.rules import InlineImages, ToolMedia

__all__ = ["PROFILE"]

PARTS = replace(
    OLLAMA_PARTS,
    assistant=Accepts(
        frozenset({"text", "image_url"}),
        row=77,
        source="litellm's chat route keeps an assistant turn's images",
    ),
    tool=Accepts(
        frozenset({"text", "image_url"}),
        row=68,
        source="Ollama's templates render a user turn's images only: moved there (quirk 7)",
        via={"image_url": "tool-media"},
    ),
)
"""Ollama's parts, the images of tool results moved to a user message."""

PROFILE = Profile("ollama_chat", (*OLLAMA_RULES, ToolMedia(row=7), InlineImages(row=51)), parts=PARTS)
"""The ``ollama_chat`` profile: its rules and its table of parts, registered by ``messages.profiles``."""
