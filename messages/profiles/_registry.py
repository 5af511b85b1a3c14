"""The registry of profiles, and how a litellm model string resolves to one.

Resolution: the provider first, then the longest model-family rule of that provider matching the model.

* The provider: a registered provider name given alone (``"mistral"``); else the prefix of
  ``provider/model`` when it is a registered provider (this is what litellm answers for prefixed names,
  without importing it); else litellm's own ``get_llm_provider`` (imported lazily); else, when litellm is
  not installed or does not know the name, a plain table of name prefixes that gives the answers litellm
  gives where it has one (a bare ``"gemini-2.5-flash"`` is Vertex AI) and a sensible one where it raises
  (``"claude-3-5-sonnet-20241022"`` is Anthropic).
* The family: family keys are matched against the model name, lowercase, with version dots written as
  dashes (``claude-opus-4.6`` -> ``claude-opus-4-6``), at its start or after any of ``/ . : @`` (so
  ``bedrock/converse/us.anthropic.claude-opus-4-6-v1:0`` matches ``claude-opus-4-6``), and ending where
  the name ends or before a character that is not a letter or digit (``claude-opus-4-60`` does not match
  ``claude-opus-4-6``, ``claude-opus-4-6-20260101`` does). The longest key that matches wins.
* A provider with no profile gets the OpenAI-compatible default (``is_default`` is True), with the
  default's own family rules.

Resolutions are cached; registering a profile clears the cache.
"""

from __future__ import annotations

import importlib
import re
import threading
from collections.abc import Iterable
from dataclasses import replace
from functools import lru_cache
from typing import Any

from messages.errors import UnknownProfileError
from messages.profiles._profile import Profile

__all__ = [
    "BUILTIN_MODULES",
    "DEFAULT_PROVIDER",
    "get_profile",
    "normalize_model",
    "provider_of",
    "register_profile",
    "registered_profiles",
]

# One line per provider module of this package (each defines PROFILE, and FAMILIES and ALIASES if it has
# any): adding a provider is a file plus a line here. tests/test_profiles.py fails on a module left out.
BUILTIN_MODULES: tuple[str, ...] = (
    "anthropic",
    "azure",
    "bedrock",
    "cohere",
    "deepseek",
    "default",
    "fireworks_ai",
    "gemini",
    "groq",
    "mistral",
    "ollama",
    "ollama_chat",
    "openai",
    "openrouter",
    "perplexity",
    "together_ai",
    "vertex_ai",
    "xai",
)
"""The provider modules of ``messages.profiles`` whose profiles are registered when the registry is first
used (each defines ``PROFILE``, and ``FAMILIES`` and ``ALIASES`` if it has any)."""

DEFAULT_PROVIDER = "openai_compatible"
"""The provider name of the OpenAI-compatible default profile (vLLM, llama.cpp, LM Studio, ...)."""

# Bare model names litellm cannot place (or when litellm is not installed), by prefix; where litellm does
# answer, these agree with it (tests/test_profiles.py holds them to that).
_BARE_PREFIXES: tuple[tuple[str, str], ...] = (
    ("gpt-", "openai"),
    ("chatgpt-", "openai"),
    ("o1", "openai"),
    ("o3", "openai"),
    ("o4", "openai"),
    ("claude", "anthropic"),
    ("gemini", "vertex_ai"),  # litellm sends bare Gemini names to Vertex AI, not to the Gemini API
    ("anthropic.", "bedrock"),
    ("amazon.", "bedrock"),
    ("mistral", "mistral"),
    ("open-mistral", "mistral"),
    ("open-mixtral", "mistral"),
    ("codestral", "mistral"),
    ("devstral", "mistral"),
    ("magistral", "mistral"),
    ("ministral", "mistral"),
    ("pixtral", "mistral"),
    ("deepseek", "deepseek"),
    ("grok", "xai"),
    ("command", "cohere"),
    ("sonar", "perplexity"),
)

_VERSION_DOT = re.compile(r"(?<=\d)\.(?=\d)")
_BOUNDARY = re.compile(r"[/.:@]")

_lock = threading.RLock()
_profiles: dict[str, Profile] = {}
_families: dict[str, dict[str, Profile]] = {}
_aliases: dict[str, str] = {}
_loaded = threading.Event()


def normalize_model(model: str) -> str:
    """A model name as family keys are written: lowercase, version dots as dashes.

    Args:
        model: a model name (``"Claude-Opus-4.6"``).

    Returns:
        The name as family keys write it (``"claude-opus-4-6"``).

    Raises nothing.
    """
    return _VERSION_DOT.sub("-", model.strip().lower())


def _load_builtins() -> None:
    if _loaded.is_set():
        return
    with _lock:
        if _loaded.is_set():
            return
        for name in BUILTIN_MODULES:
            module = importlib.import_module(f"messages.profiles.{name}")
            profile: Profile = module.PROFILE
            _add(profile, getattr(module, "ALIASES", ()))
            for family in getattr(module, "FAMILIES", {}).values():
                _add(family, ())
        _loaded.set()


def _add(profile: Profile, aliases: Iterable[str]) -> None:
    provider = profile.provider.lower()
    if profile.family is None:
        _profiles[provider] = profile
        for alias in aliases:
            _aliases[alias.lower()] = provider
    else:
        _families.setdefault(provider, {})[normalize_model(profile.family)] = profile


def register_profile(profile: Profile, *, aliases: Iterable[str] = ()) -> None:
    """Register ``profile``: for its provider, or, when it has a ``family``, for that provider's models whose
    name matches the family. It replaces a profile registered for the same provider and family.

    ``aliases`` are other litellm provider names that use the same profile (``"bedrock_converse"``).

    Args:
        profile: the profile to use for its provider (or family).
        aliases: other provider names that take the same profile.

    Examples:
        ```python
        from messages.profiles import Profile, get_profile, register_profile
        from messages.profiles.rules import Names

        # A provider of your own: the OpenAI-compatible rules, and names of 32 characters.
        mine = get_profile("openai").with_rules(Names(max_length=32))
        register_profile(Profile(provider="my_gateway", rules=mine.rules))
        assert get_profile("my_gateway/some-model").rule("name").max_length == 32
        ```

    Raises:
        TypeError: ``profile`` is not a ``Profile``.
    """
    if not isinstance(profile, Profile):
        raise TypeError(f"register_profile takes a Profile, not a {type(profile).__name__}")
    _load_builtins()
    with _lock:
        _add(profile, aliases)
        _resolve.cache_clear()


def registered_profiles() -> list[Profile]:
    """Every registered profile: each provider's own, then its family rules, sorted by name.

    Returns:
        The profiles, sorted by provider and family.

    Raises nothing.
    """
    _load_builtins()
    with _lock:
        found = list(_profiles.values()) + [p for families in _families.values() for p in families.values()]
    return sorted(found, key=lambda p: (p.provider, p.family or ""))


def get_profile(model_or_provider: str, *, strict: bool = False) -> Profile:
    """The profile for a litellm model string (``"gemini/gemini-2.5-flash"``) or a provider name.

    A provider with no profile gets the OpenAI-compatible default, whose ``is_default`` is True; with
    ``strict`` it raises ``UnknownProfileError`` instead. Answers are cached.

    Args:
        model_or_provider: a litellm model string (``"mistral/mistral-large-latest"``,
            ``"bedrock/converse/..."``) or a provider name (``"anthropic"``).
        strict: raise for a provider with no profile instead of giving the default.

    Returns:
        The provider's profile, or its model family's (``o1-mini``, ``gemma``, ...).

    Raises:
        TypeError: ``model_or_provider`` is not a string.
        ValueError: it is an empty string.
        UnknownProfileError: with ``strict=True``, no profile is registered for the provider.

    Examples:
        ```python
        from messages.profiles import get_profile

        profile = get_profile("gemini/gemini-2.5-flash")
        assert profile.provider == "gemini" and not profile.is_default
        assert get_profile("my-local-server/llama").is_default  # OpenAI-compatible
        ```
    """
    if not isinstance(model_or_provider, str):
        raise TypeError(
            f"get_profile takes a model string or provider name, not a {type(model_or_provider).__name__}"
        )
    if not model_or_provider.strip():
        raise ValueError("get_profile needs a model string or provider name; got an empty string")
    _load_builtins()
    return _resolve(model_or_provider.strip(), strict)


@lru_cache(maxsize=1024)
def _resolve(name: str, strict: bool) -> Profile:
    lowered = name.lower()
    if "/" not in name and (lowered in _profiles or lowered in _aliases):
        return _profiles[_aliases.get(lowered, lowered)]
    provider, model = provider_of(name)
    base = _profiles.get(provider)
    if base is None:
        if strict:
            known = ", ".join(sorted(_profiles))
            raise UnknownProfileError(
                f"no profile is registered for provider {provider!r} (from {name!r}); registered: {known}. "
                "Register one with register_profile(Profile(provider=...)), or drop strict=True to use "
                "the OpenAI-compatible default"
            )
        base = _profiles[DEFAULT_PROVIDER]
    profile = _family(base, model)
    if profile.provider != provider and profile.is_default:
        profile = replace(profile, provider=provider)
    return profile


def _family(base: Profile, model: str) -> Profile:
    families = _families.get(base.provider)
    if not families:
        return base
    name = normalize_model(model)
    starts = [0] + [m.end() for m in _BOUNDARY.finditer(name)]
    best: str | None = None
    for key in families:
        if (best is None or len(key) > len(best)) and any(_matches_at(name, key, i) for i in starts):
            best = key
    return base if best is None else families[best]


def _matches_at(name: str, key: str, start: int) -> bool:
    """Whether family ``key`` is in ``name`` at ``start``, ending where the name does or before a character
    that is neither a letter nor a digit (``claude-opus-4-6`` is not ``claude-opus-4-60``)."""
    if not name.startswith(key, start):
        return False
    end = start + len(key)
    return end == len(name) or not name[end].isalnum() or not key[-1:].isalnum()


def provider_of(model: str) -> tuple[str, str]:
    """The litellm provider of a model string, and the model name without the provider prefix.

    Args:
        model: a litellm model string.

    Returns:
        ``(provider, model name)``: ``("gemini", "gemini-2.5-flash")``.

    Raises nothing.
    """
    _load_builtins()
    prefix, slash, rest = model.partition("/")
    canonical = _canonical(prefix)
    if slash and canonical is not None:
        return canonical, rest
    found = _ask_litellm(model)
    if found is not None:
        provider, bare = found
        return _canonical(provider) or provider.lower(), bare
    if slash:
        return prefix.lower(), rest
    return _bare_provider(model), model


def _canonical(provider: str) -> str | None:
    lowered = provider.lower()
    if lowered in _profiles:
        return lowered
    return _aliases.get(lowered)


def _bare_provider(model: str) -> str:
    lowered = model.lower()
    for prefix, provider in _BARE_PREFIXES:
        if lowered.startswith(prefix):
            return provider
    return DEFAULT_PROVIDER


def _ask_litellm(model: str) -> tuple[str, str] | None:
    """litellm's ``get_llm_provider``, or ``None`` when litellm is missing or does not know the model."""
    try:
        from litellm import get_llm_provider
    except ImportError:  # litellm is a dependency, but the profiles work without it
        return None
    import litellm

    prefix, slash, rest = model.partition("/")
    if slash and prefix.lower() in _litellm_prefixes(litellm):
        # A prefix litellm knows is the provider, as get_llm_provider would say; asking it would also run
        # that provider's set-up, which for some means network (GitHub Copilot starts a device login).
        return prefix.lower(), rest
    # On a model it does not know, litellm prints a "Provider List" banner to stdout before raising, which
    # would corrupt the output of a caller (`messages check --format json`); its own switch silences it.
    quiet, litellm.suppress_debug_info = litellm.suppress_debug_info, True
    try:
        bare, provider, _, _ = get_llm_provider(model=model)
    except Exception:  # litellm raises BadRequestError ("LLM Provider NOT provided") and others
        return None
    finally:
        litellm.suppress_debug_info = quiet
    if not isinstance(provider, str) or not provider:
        return None
    return provider, bare if isinstance(bare, str) else model


@lru_cache(maxsize=1)
def _litellm_prefixes(litellm: Any) -> frozenset[str]:
    """Every provider prefix litellm knows (``litellm.provider_list``), lowercase."""
    return frozenset(str(getattr(p, "value", p)).lower() for p in litellm.provider_list)
