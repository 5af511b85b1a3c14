"""Ollama's generate API (``ollama/...``, ``/api/generate``): litellm flattens the chat into one prompt.

Implements (provider-quirks.md rows):

* 49 and 58: arguments ``""`` sent as ``"{}"`` (litellm's prompt builder ``json.loads`` them);
  arguments that are not a JSON object are reported.

Audio and file parts are reported: litellm's route keeps only the text and the images of a message.

Left to litellm: everything else. It renders every message into a ``### System/### User/### Assistant``
prompt, drops empty ones, and sends images as the request's top-level ``images``; no key, id or role rule
of the chat APIs applies.
"""

from __future__ import annotations

from messages.profiles._profile import Profile

__all__ = ["PROFILE"]

_ALL_ROLES = frozenset({"system", "developer", "user", "assistant", "tool"})

PROFILE = Profile(
    provider="ollama",
    rejects_unknown_keys=False,
    accepts_names_on=_ALL_ROLES,  # the prompt has no place for them; litellm ignores them
    decodes_arguments=True,
    accepts_parts=frozenset({"text", "image_url"}),  # litellm keeps the text and the images, nothing else
    rows={"empty-arguments": 49, "invalid-arguments": 49},
)
