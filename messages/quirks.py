"""The quirk catalog: what in a message list each provider (or litellm's route to it) rejects or changes.

Every provider rule of this package cites a row here ("quirk 30"): its ``Rule.row``, the
``Violation.row`` that ``Profile.check`` reports, the ``[rule, quirk N]`` tags of ``messages check``.
``messages quirks`` lists the rows, ``messages quirks 30`` prints one in full and ``messages quirks
mistral`` prints those of one provider (a litellm provider name, or a profile name such as
``bedrock:claude``).

A row (``Quirk``) says, in this package's words, what breaks and where; the provider's error text where
one was found (verbatim, so that a user can search for what they saw); the sources it was read from (issue
and pull-request threads, as ``owner/repo#N``, or URLs); what litellm does about it; and, found in the
registered profiles when asked (``implementations``), the profiles and rules that handle it.

Rows are numbered for good: a number is never given to another quirk, since docstrings, tests and
users' notes cite it. Rows 1 to 61 come from the research notes the profiles were built from; 62 and
later were added for rules that had no row. Adding a row: a ``Quirk`` at the end of ``ROWS`` with the next
free number (``tests/test_quirks.py`` checks that the numbers run without a gap and that every number the
package cites is here).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Final, Literal

__all__ = ["QUIRKS", "ROWS", "Quirk", "get_quirk", "implementations", "quirks_for", "source_url"]

Evidence = Literal["verified", "reported", "conflicting", "unknown", "superseded"]
"""How sure the row is: ``verified`` (an error text or a maintainer's word read in a source), ``reported``
(users report it, unconfirmed), ``conflicting`` (sources disagree), ``unknown`` (no evidence of the
failure found; the rule is a precaution), ``superseded`` (the provider no longer behaves so)."""


@dataclass(frozen=True, slots=True)
class Quirk:
    """One row of the catalog."""

    number: int
    """The row number the package cites (``quirk 30``)."""
    providers: tuple[str, ...]
    """The litellm provider names it concerns (``"mistral"``, ``"bedrock"``...), ``"*"`` for every one."""
    title: str
    """One line: what breaks."""
    constraint: str
    """What the provider wants, what happens otherwise, and when it matters."""
    errors: tuple[str, ...] = ()
    """The provider's error texts, verbatim (``...`` where a source cut them or an id varies)."""
    sources: tuple[str, ...] = ()
    """Where it was read: ``owner/repo#N`` (an issue or a pull request: ``source_url`` makes a link), or
    a URL."""
    litellm: str = ""
    """What litellm does about it, in the versions read (1.106 and earlier)."""
    also: str = ""
    """Where the package handles it outside the provider profiles (the protocol check, a model field)."""
    evidence: Evidence = "verified"
    """How sure the row is (``Evidence``)."""


_REF: Final = re.compile(r"([\w.-]+/[\w.-]+)#(\d+)")


def source_url(source: str) -> str:
    """A source as a URL: ``owner/repo#N`` becomes its GitHub thread (issue or pull request alike: GitHub
    redirects one to the other); a URL is returned as it is."""
    found = _REF.fullmatch(source)
    return f"https://github.com/{found[1]}/issues/{found[2]}" if found else source


ROWS: tuple[Quirk, ...] = ()
"""Every row, by number."""

QUIRKS: Mapping[int, Quirk] = {q.number: q for q in ROWS}
"""The rows, by number."""


def get_quirk(number: int) -> Quirk:
    """Row ``number``; a ``KeyError`` that names the rows there are if there is none."""
    try:
        return QUIRKS[number]
    except KeyError:
        raise KeyError(
            f"there is no quirk {number}; the catalog has rows 1 to {max(QUIRKS)} (`messages quirks` lists them)"
        ) from None


def implementations(number: int | None = None) -> dict[int, list[tuple[str, str]]]:
    """The (profile name, rule id) pairs of the registered profiles that cite each row (or row
    ``number`` only), each pair once, in profile order. Reads the profiles (``messages.profiles``)."""
    from messages.profiles import registered_profiles

    found: dict[int, dict[tuple[str, str], None]] = {}
    for profile in registered_profiles():
        for rule_id, row in _cited(profile):
            if number is None or row == number:
                found.setdefault(row, {})[(profile.name, rule_id)] = None
    return {row: list(pairs) for row, pairs in sorted(found.items())}


def _cited(profile: object) -> Iterable[tuple[str, int]]:
    """The (rule id, row) pairs a profile's rules cite: each rule's own row, and the rows it cites for
    findings it reports under another id (``duplicate_row`` and the like)."""
    from messages.profiles import Profile

    assert isinstance(profile, Profile)
    for rule in profile._plan.rules:
        if rule.row is not None:
            yield rule.id, rule.row
        for name in dir(type(rule)):
            if name.endswith("_row") and name != "row":
                value = getattr(rule, name)
                if isinstance(value, int):
                    yield (rule.reports[0] if rule.reports else rule.id), value


def quirks_for(name: str) -> list[Quirk]:
    """The rows about one provider or profile, in order: ``name`` is a litellm provider name
    (``"anthropic"``, an alias such as ``"bedrock_converse"``) or a profile name (``"bedrock:claude"``). A
    row is about it when it names the provider, or when a rule of its profiles (for a provider: its own and
    its families') cites it. A ``KeyError`` names the known providers if ``name`` is none of them."""
    from messages.profiles import registered_profiles
    from messages.profiles._registry import _canonical

    wanted = name.strip().lower()
    provider, _, family = wanted.partition(":")
    provider = _canonical(provider) or provider
    profiles = [p for p in registered_profiles() if p.provider == provider and (not family or p.name == wanted)]
    named = {q.number for q in ROWS if provider in q.providers}
    if not profiles and not named:
        known = sorted({p.provider for p in registered_profiles()} | {n for q in ROWS for n in q.providers} - {"*"})
        raise KeyError(f"no profile or quirk is about {name!r}; known providers: {', '.join(known)}")
    numbers = named | {q.number for q in ROWS if "*" in q.providers}
    for p in profiles:
        numbers.update(row for _, row in _cited(p))
    return [QUIRKS[n] for n in sorted(numbers) if n in QUIRKS]
