"""Provider profiles: one conversation, adjusted so that every provider litellm reaches accepts it.

``dump_messages(conversation, model="gemini/gemini-2.5-flash")`` dumps the typed messages to the OpenAI
shape and applies the profile of that model's provider; ``get_profile(model).apply(dicts)`` does the same
for callers who hold dicts, and ``get_profile(model).check(dicts)`` lists what that provider (or
litellm's route to it) would reject or silently change, each violation citing its quirk (the package's
quirk catalog: ``messages quirks N``).

A profile is a provider name, its rules (``Profile``, ``messages.profiles.rules``: each rule is one
quirk, with its detection, its fix and its quirk row) and its table of the content parts the provider takes,
role by role (``Profile.parts``, a ``PartTable``). ``apply`` is pure and idempotent and keeps every
non-empty text and every tool result; it works on top of what litellm already does to the list, fixing
what litellm leaves broken and leaving alone what it does right. What it cannot fix it refuses to send:
``UnfixableError``, listing each message, part and quirk, unless ``on_unfixable="send"``.

Adding a quirk: a ``Rule`` in ``messages/profiles/rules/`` (or a parameter of one that exists), its row
in the quirk catalog, and one line in the provider file of each profile that needs it.

Adding a provider:

1. Write ``messages/profiles/<provider>.py``, named after litellm's provider name. Its docstring lists the
   quirks it implements and those it leaves to litellm (say why). It defines
   ``PROFILE = Profile("<provider>", (rule, ...), parts=...)`` (the parts it takes, from the provider's own
   request types and what litellm sends), and, if it has any, ``FAMILIES`` (model-family rules:
   ``{key: PROFILE.with_family(key, rule, ...)}``, keys lowercase with version dots as dashes) and
   ``ALIASES`` (other litellm provider names for the same API).
2. Add one line, the module name, to ``BUILTIN_MODULES`` in ``messages/profiles/_registry.py``.
3. Regenerate the snapshot (``make snapshots``) and read its diff: it shows the new profile applied to the
   canonical conversation. The property tests run every registered profile, and a test fails if a module
   of this package is not registered.

A profile of your own, at run time: ``register_profile(Profile("my_proxy", (...)))``, or one derived from a
built-in profile: ``register_profile(get_profile("openai").with_rules(..., without=(...)))``.
"""

from __future__ import annotations

from messages.profiles._ids import SIGNATURE_SEPARATOR, IdRule
from messages.profiles._parts import ALL_KINDS, ANY_PARTS, Accepts, PartTable, part_kind
from messages.profiles._profile import UNIVERSAL_RULES, OnUnfixable, Profile
from messages.profiles._registry import (
    BUILTIN_MODULES,
    DEFAULT_PROVIDER,
    get_profile,
    normalize_model,
    provider_of,
    register_profile,
    registered_profiles,
)
from messages.profiles._rule import Note, Rule, Shape, Violation

__all__ = [
    "ALL_KINDS",
    "ANY_PARTS",
    "BUILTIN_MODULES",
    "DEFAULT_PROVIDER",
    "SIGNATURE_SEPARATOR",
    "UNIVERSAL_RULES",
    "Accepts",
    "IdRule",
    "Note",
    "OnUnfixable",
    "PartTable",
    "Profile",
    "Rule",
    "Shape",
    "Violation",
    "get_profile",
    "normalize_model",
    "part_kind",
    "provider_of",
    "register_profile",
    "registered_profiles",
]
