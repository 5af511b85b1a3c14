"""The quirk catalog: what in a message list each provider (or litellm's route to it) rejects or changes.

Every provider rule of this package cites a row here ("quirk 30"): its ``Rule.row``, the
``Violation.row`` that ``Profile.check`` reports, the ``[rule, quirk N]`` tags of ``messages check``.
``messages quirks`` lists the rows, ``messages quirks 30`` prints one in full and ``messages quirks
mistral`` prints those of one provider (a litellm provider name, or a profile name such as
``bedrock:claude``); the documentation site has a page entry for each (``quirk_url``).

A row (``Quirk``) says, in this package's words, what breaks and where; the provider's error text where
one was found (verbatim, so that a user can search for what they saw); the sources it was read from (issue
and pull-request threads, as ``owner/repo#N``, or URLs); what litellm does about it; and, found in the
registered profiles when asked (``implementations``), the profiles and rules that handle it.

The rows are data: ``messages/quirks.toml``, shipped with the package and read (``tomllib``) the first
time ``ROWS`` or ``QUIRKS`` is used, so that importing this module costs no parsing. Rows are numbered for
good: a number is never given to another quirk, since docstrings, tests and users' notes cite it. Rows 1
to 61 come from the research notes the profiles were built from; 62 and later were added for rules that
had no row. Adding a row: a ``[[quirk]]`` table in the file, in number order, with a number never used
(``tests/test_quirks.py`` checks the schema and the order, and that every number the package cites is
there).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal

from messages._docs import DOCS_URL, quirk_url

__all__ = [
    "DOCS_URL",
    "QUIRKS",
    "ROWS",
    "Quirk",
    "canonical_name",
    "get_quirk",
    "implementations",
    "quirk_url",
    "quirks_for",
    "source_url",
]


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
    """What litellm does about it, in the versions read (1.106 and earlier, and 1.110)."""
    also: str = ""
    """Where the package handles it outside the provider profiles (the protocol check, a model field)."""
    evidence: Evidence = "verified"
    """How sure the row is (``Evidence``)."""


_REF: Final = re.compile(r"([\w.-]+/[\w.-]+)#(\d+)")

ROWS: tuple[Quirk, ...]
"""Every row, in number order (read from ``quirks.toml`` the first time it is used)."""

QUIRKS: Mapping[int, Quirk]
"""The rows, by number (read with ``ROWS``)."""


def __getattr__(name: str) -> Any:
    """``ROWS`` and ``QUIRKS``: the data file is read when one of them is first asked for (PEP 562); both
    are plain module attributes from then on."""
    if name in ("ROWS", "QUIRKS"):
        return _catalog()[0 if name == "ROWS" else 1]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _catalog() -> tuple[tuple[Quirk, ...], Mapping[int, Quirk]]:
    """``ROWS`` and ``QUIRKS``, read once (this module's own functions call it: a module's ``__getattr__``
    serves only attribute access from outside)."""
    namespace = globals()
    if "ROWS" not in namespace:
        rows = tuple(_read())
        namespace["QUIRKS"] = {q.number: q for q in rows}
        namespace["ROWS"] = rows
    return namespace["ROWS"], namespace["QUIRKS"]


def _read() -> list[Quirk]:
    """The rows of ``quirks.toml`` as the file has them (tests/test_quirks.py checks its schema)."""
    import tomllib
    from importlib.resources import files

    data = tomllib.loads(files("messages").joinpath("quirks.toml").read_text(encoding="utf-8"))
    tables: list[dict[str, Any]] = data["quirk"]
    rows = []
    for table in tables:
        fields: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in table.items()}
        rows.append(Quirk(**fields))
    return rows


def source_url(source: str) -> str:
    """A source as a URL: ``owner/repo#N`` becomes its GitHub thread (issue or pull request alike: GitHub
    redirects one to the other); a URL is returned as it is.

    Args:
        source: ``owner/repo#N`` or a URL.

    Returns:
        The URL.

    Raises nothing.
    """
    found = _REF.fullmatch(source)
    return f"https://github.com/{found[1]}/issues/{found[2]}" if found else source


def get_quirk(number: int) -> Quirk:
    """Row ``number``; a ``KeyError`` that names the rows there are if there is none.

    Args:
        number: the row's number, as the profiles cite it (``quirk 30``).

    Returns:
        The row: its title, providers, constraint, the providers' error texts and the sources.

    Raises:
        KeyError: there is no row ``number`` (the rows there are named).

    Examples:
        ```python
        from messages.quirks import get_quirk, quirk_url

        quirk = get_quirk(30)
        assert "mistral" in quirk.providers
        print(quirk.title)  # what breaks, in one line
        print(quirk.errors[0])  # the provider's error text
        print(quirk_url(30))  # its entry on this site
        ```
    """
    quirks = _catalog()[1]
    try:
        return quirks[number]
    except KeyError:
        raise KeyError(
            f"there is no quirk {number}; the catalog has rows 1 to {max(quirks)} "
            "(`messages quirks` lists them)"
        ) from None


def implementations(number: int | None = None) -> dict[int, list[tuple[str, str]]]:
    """The (profile name, rule id) pairs of the registered profiles that cite each row (or row
    ``number`` only), each pair once, in profile order. Reads the profiles (``messages.profiles``).

    Args:
        number: one row; ``None`` for every row.

    Returns:
        By row number, the (profile name, rule id) pairs.

    Raises nothing.
    """
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
        for row in sorted(rule.cited_rows()):
            yield rule.id, row
        for name in _row_names(type(rule)):
            value = getattr(rule, name)
            if isinstance(value, int):
                yield (rule.reports[0] if rule.reports else rule.id), value


def _row_names(kind: type) -> tuple[str, ...]:
    """The attributes of a rule class, besides ``row``, that name a row it cites (``duplicate_row``...);
    found once per class (``dir`` is the slow part of ``implementations``)."""
    names = _ROW_NAMES.get(kind)
    if names is None:
        names = _ROW_NAMES[kind] = tuple(n for n in dir(kind) if n.endswith("_row") and n != "row")
    return names


_ROW_NAMES: dict[type, tuple[str, ...]] = {}


def canonical_name(name: str) -> str:
    """A provider or profile name as the registry spells it: lowercase, an alias replaced by its provider
    (``"bedrock_converse:Claude"`` -> ``"bedrock:claude"``).

    Args:
        name: a provider or profile name (``"Bedrock_Converse"``, ``"openai:o1-mini"``).

    Returns:
        The name as the registry spells it.

    Raises nothing.
    """
    from messages.profiles._registry import _canonical

    provider, colon, family = name.strip().lower().partition(":")
    return f"{_canonical(provider) or provider}{colon}{family}"


def quirks_for(name: str) -> list[Quirk]:
    """The rows about one provider or profile, in order: ``name`` is a litellm provider name
    (``"anthropic"``, an alias such as ``"bedrock_converse"``) or a profile name (``"bedrock:claude"``). A
    row is about it when it names the provider, or when a rule of its profiles (for a provider: its own and
    its families') cites it. A ``KeyError`` names the known providers if ``name`` is none of them.

    Args:
        name: a provider name, an alias of one, or a profile name.

    Returns:
        The rows, in number order.

    Raises:
        KeyError: no profile or row is about ``name`` (the known providers named).
    """
    from messages.profiles import registered_profiles

    rows, quirks = _catalog()
    wanted = canonical_name(name)
    provider, _, family = wanted.partition(":")
    profiles = [
        p for p in registered_profiles() if p.provider == provider and (not family or p.name == wanted)
    ]
    named = {q.number for q in rows if provider in q.providers}
    if not profiles and not named:
        known = sorted(
            {p.provider for p in registered_profiles()} | {n for q in rows for n in q.providers} - {"*"}
        )
        raise KeyError(f"no profile or quirk is about {name!r}; known providers: {', '.join(known)}")
    numbers = named | {q.number for q in rows if "*" in q.providers}
    for p in profiles:
        numbers.update(row for _, row in _cited(p))
    return [quirks[n] for n in sorted(numbers) if n in quirks]
