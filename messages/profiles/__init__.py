"""Provider profiles: one conversation, adjusted so that every provider litellm reaches accepts it.

``dump_messages(conversation, model="gemini/gemini-2.5-flash")`` dumps the typed messages to the OpenAI
shape and applies the profile of that model's provider; ``get_profile(model).apply(dicts)`` does the same
for callers who hold dicts, and ``get_profile(model).check(dicts)`` lists what that provider (or
litellm's route to it) would reject or silently change, each violation citing its row of
provider-quirks.md.

A profile is data (``Profile``): each field names one known difference between providers. ``apply`` is
pure and idempotent and keeps every non-empty text and every tool result; it works on top of what litellm
already does to the list, fixing what litellm leaves broken and leaving alone what it does right.

Adding a provider:

1. Write ``messages/profiles/<provider>.py``, named after litellm's provider name. Its docstring lists the
   provider-quirks.md rows it implements and the rows it leaves to litellm (say why). It defines
   ``PROFILE = Profile(provider="<provider>", ..., rows={rule id: row})``, and, if it has any, ``FAMILIES``
   (model-family rules: ``{key: PROFILE.with_family(key, ...)}``, keys lowercase with version dots as
   dashes) and ``ALIASES`` (other litellm provider names for the same API).
2. Add one line, the module name, to ``BUILTIN_MODULES`` in ``messages/profiles/_registry.py``.
3. Regenerate the snapshot (``make snapshots``) and read its diff: it shows the new profile applied to the
   canonical conversation. The property tests run every registered profile, and a test fails if a module
   of this package is not registered.

A profile of your own, at run time: ``register_profile(Profile(provider="my_proxy", ...))``.
"""

from __future__ import annotations

from messages.profiles._ids import SIGNATURE_SEPARATOR, IdRule
from messages.profiles._profile import Profile, Violation
from messages.profiles._registry import (
    BUILTIN_MODULES,
    DEFAULT_PROVIDER,
    get_profile,
    normalize_model,
    provider_of,
    register_profile,
    registered_profiles,
)

__all__ = [
    "BUILTIN_MODULES",
    "DEFAULT_PROVIDER",
    "SIGNATURE_SEPARATOR",
    "IdRule",
    "Profile",
    "Violation",
    "get_profile",
    "normalize_model",
    "provider_of",
    "register_profile",
    "registered_profiles",
]
