"""Ollama's native chat API (``ollama_chat/...``, ``/api/chat``).

litellm builds each Ollama message from known keys (content, images, tool calls with their arguments
decoded, ``tool_call_id``, reasoning as ``thinking``), so other keys never reach Ollama.

Implements (provider-quirks.md rows):

* 49 and 58: arguments ``""`` sent as ``"{}"`` (litellm ``json.loads`` them into the object Ollama wants,
  and ``""`` raises); arguments that are not a JSON object are reported;
* 51: images given by http(s) URL are reported (litellm sends the URL where Ollama wants base64; not
  fixable without downloading it);
* 7: images in tool results are moved to a user message after them (Ollama's chat templates render the
  images of user turns).

Audio and file parts are reported: litellm's route keeps only the text and the images of a message.

Left to litellm: 49 (decoding arguments into objects), 51 (stripping the ``data:`` prefix of inline
images). Not fixable through the OpenAI-shape list: 52 (litellm drops call ids and sends no
``tool_name``, so results are matched by position).
"""

from __future__ import annotations

from messages.profiles._profile import Profile

__all__ = ["PROFILE"]

_ALL_ROLES = frozenset({"system", "developer", "user", "assistant", "tool"})

PROFILE = Profile(
    provider="ollama_chat",
    rejects_unknown_keys=False,
    accepts_names_on=_ALL_ROLES,  # litellm builds Ollama's messages without them
    decodes_arguments=True,
    accepts_parts=frozenset({"text", "image_url"}),  # litellm keeps the text and the images, nothing else
    moves_tool_media=True,
    accepts_image_urls=False,
    rows={"empty-arguments": 49, "invalid-arguments": 49, "tool-media": 7, "image-url": 51},
)
