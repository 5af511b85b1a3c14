"""Tool-call id rules and the collision-free, deterministic rewriting of ids that break them.

Providers disagree on what a tool-call id may look like (quirks 3, 17, 30, 45): OpenAI
takes at most 40 characters, Anthropic ``[a-zA-Z0-9_-]``, Bedrock the same in at most 64, Mistral exactly 9
letters or digits, and Gemini ignores ids. litellm hides Gemini thought signatures inside ids
(``<id>__thought__<signature>``, quirk 25) and cuts them off again for every other provider, so two ids that
differ only in their signatures reach that provider as one id.

``IdRule`` says what one provider accepts; ``tool_call_id_map`` maps every id that breaks the rule (or
that would collide with another once litellm has cut its signature) to a new one, and leaves every other
id alone. The map is a pure function of the ids in order: the same conversation always gets the same ids,
and the call and its result get the same new id because both are looked up by the old one.
"""

from __future__ import annotations

import base64
import hashlib
import re
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache
from typing import Any

__all__ = ["SIGNATURE_SEPARATOR", "IdRule", "tool_call_id_map"]

SIGNATURE_SEPARATOR = "__thought__"
"""What litellm puts between a tool-call id and the Gemini thought signature it carries."""

_LETTERS_AND_DIGITS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
_SUFFIX = 8  # base32 characters of hash in a rewritten id: 32**8 ~ 1e12, collisions are checked anyway


@cache
def _charset(alphabet: str) -> re.Pattern[str]:
    return re.compile(f"[{alphabet}]+")


@cache
def _invalid(alphabet: str) -> re.Pattern[str]:
    return re.compile(f"[^{alphabet}]")


def _digest(call_id: str, attempt: int) -> str:
    """A hash of the id in letters and digits only (base32: A-Z and 2-7), 32 characters."""
    data = hashlib.sha256(f"{call_id}\x00{attempt}".encode()).digest()[:20]
    return base64.b32encode(data).decode("ascii")


@cache
def _pattern(rule: IdRule) -> re.Pattern[str]:
    """One regex for the whole rule, so that checking an id is one call into the regex engine."""
    chars = r"[\s\S]" if rule.alphabet is None else f"[{rule.alphabet}]"
    size = f"{{{rule.min_length},{'' if rule.max_length is None else rule.max_length}}}"
    guard = "" if rule.keeps_signatures else f"(?!.*{re.escape(SIGNATURE_SEPARATOR)})"
    return re.compile(f"{guard}{chars}{size}", re.DOTALL)


@cache
def _acceptor(rule: IdRule) -> Callable[[str], object]:
    """``rule`` as a predicate (true when an id is accepted) that gives what its regex gives, with string
    methods where the rule allows it: ``dump_messages(model=...)`` asks it about every id, and a regex
    call costs several times more than a length check and a substring search."""
    low, high = rule.min_length, rule.max_length if rule.max_length is not None else sys.maxsize
    if rule.alphabet is None:
        if rule.keeps_signatures:
            return lambda call_id: low <= len(call_id) <= high
        return lambda call_id: low <= len(call_id) <= high and SIGNATURE_SEPARATOR not in call_id
    if rule.alphabet in _ASCII_ALPHANUMERIC:  # no "_" allowed: no signature can be in the id
        return lambda call_id: low <= len(call_id) <= high and call_id.isascii() and call_id.isalnum()
    return _pattern(rule).fullmatch  # a match (true) or None


_ASCII_ALPHANUMERIC = frozenset({"a-zA-Z0-9", "A-Za-z0-9", "0-9a-zA-Z"})


@dataclass(frozen=True, slots=True)
class IdRule:
    """What a provider accepts as a tool-call id."""

    alphabet: str | None = None
    """The characters allowed, as the body of a regex character class (``"a-zA-Z0-9_-"``); ``None``:
    any character. It must allow letters and digits, which rewritten ids are made of."""
    min_length: int = 1
    """The shortest id accepted."""
    max_length: int | None = None
    """The longest id accepted; ``None``: no limit."""
    keeps_signatures: bool = False
    """Whether ids may carry litellm's Gemini thought signature (``__thought__``): only for Gemini models,
    the one target litellm does not cut it off for."""

    def __post_init__(self) -> None:
        if self.alphabet is not None and not _charset(self.alphabet).fullmatch(_LETTERS_AND_DIGITS):
            raise ValueError(f"an id alphabet must allow letters and digits; {self.alphabet!r} does not")
        if self.max_length is not None and self.max_length < max(self.min_length, 1):
            raise ValueError(f"max_length {self.max_length} is shorter than min_length {self.min_length}")

    def sent_as(self, call_id: str) -> str:
        """The id as litellm sends it to this provider: without a Gemini signature unless kept.

        Args:
            call_id: a tool-call id as stored.

        Returns:
            The id litellm puts on the wire.

        Raises nothing.
        """
        if self.keeps_signatures:
            return call_id
        return call_id.split(SIGNATURE_SEPARATOR, 1)[0]

    def accepts(self, call_id: str) -> bool:
        """Whether the provider accepts ``call_id`` exactly as written (no signature to cut).

        Args:
            call_id: a tool-call id.

        Returns:
            ``True`` when the provider takes it as it is.

        Raises nothing.
        """
        return bool(_acceptor(self)(call_id))

    @property
    def acceptor(self) -> Callable[[str], object]:
        """``accepts`` as a function to call many times (cached per rule); its result is true or false,
        not always a ``bool``."""
        return _acceptor(self)

    @property
    def pattern(self) -> re.Pattern[str]:
        """The rule as one regex: an id is accepted when the whole of it matches."""
        return _pattern(self)

    def first_rewriter(self) -> Callable[[str], str]:
        """``rewrite(call_id)`` (the first attempt), as a function with its cache at hand.

        Returns:
            A function from a call id to its first rewrite.

        Raises nothing.
        """
        cache = _FIRST_REWRITES.setdefault(self, {})

        def first(call_id: str) -> str:
            found = cache.get(call_id)
            if found is None:
                if len(cache) >= _CACHE_LIMIT:
                    cache.clear()
                found = cache[call_id] = self._rewrite(call_id, 0)
            return found

        return first

    def verdicts(self) -> tuple[dict[str, str], Callable[[str], str]]:
        """``(known, judge)``: ``judge(call_id)`` is ``""`` when the rule accepts the id, else the first new
        id proposed for it (``rewrite(call_id)``); ``known`` holds the verdicts given so far (per rule, kept
        between calls and bounded), so that a conversation dumped again each turn looks each id up once.

        Returns:
            The verdicts so far, and the function that gives one (and records it).

        Raises nothing.
        """
        known = _VERDICTS.setdefault(self, {})
        accepts, first = _acceptor(self), self.first_rewriter()

        def judge(call_id: str) -> str:
            if len(known) >= _CACHE_LIMIT:
                known.clear()
            verdict = known[call_id] = "" if accepts(call_id) else first(call_id)
            return verdict

        return known, judge

    def accepts_all(self, call_ids: Iterable[str]) -> bool:
        """Whether the provider accepts every one of ``call_ids`` as written.

        Args:
            call_ids: tool-call ids.

        Returns:
            ``True`` when the provider takes each as it is.

        Raises nothing.
        """
        return all(map(_acceptor(self), call_ids))

    def accepts_every(self, call_ids: list[Any]) -> bool:
        """``accepts_all`` for a list that may hold anything, checked in bulk: lengths by ``map``, the
        characters and litellm's signature separator on the ids joined (by a character no id rule allows).
        A non-string is not accepted.

        Args:
            call_ids: the ids, of any type.

        Returns:
            ``True`` when each is a string the provider takes as it is.

        Raises nothing.
        """
        if not call_ids:
            return True
        try:
            joined = "\x00".join(call_ids)
        except TypeError:  # not all strings
            return False
        sizes = list(map(len, call_ids))
        if min(sizes) < self.min_length or (self.max_length is not None and max(sizes) > self.max_length):
            return False
        if not self.keeps_signatures and SIGNATURE_SEPARATOR in joined:
            return False
        if self.alphabet is None:
            return True
        if joined.count("\x00") != len(call_ids) - 1:  # an id holding the joining character itself
            return False
        return _charset(self.alphabet).fullmatch(joined.replace("\x00", "")) is not None

    def fits(self, call_id: str) -> bool:
        """Whether ``call_id`` has the length and characters the provider accepts (signatures aside).

        Args:
            call_id: a tool-call id.

        Returns:
            ``True`` when its length and characters are the provider's.

        Raises nothing.
        """
        size = len(call_id)
        if size < self.min_length or (self.max_length is not None and size > self.max_length):
            return False
        return self.alphabet is None or _charset(self.alphabet).fullmatch(call_id) is not None

    def describe(self) -> str:
        """The rule in words, for error messages.

        Returns:
            The length and characters the rule allows (``"at most 40 characters, any characters"``).

        Raises nothing.
        """
        if self.max_length is not None and self.min_length == self.max_length:
            size = f"exactly {self.max_length} characters"
        elif self.max_length is not None:
            size = f"at most {self.max_length} characters"
        else:
            size = "any length"
        chars = "any characters" if self.alphabet is None else f"only [{self.alphabet}]"
        return f"{size}, {chars}"

    def rewrite(self, call_id: str, attempt: int = 0) -> str:
        """A new id that this rule accepts, derived from ``call_id`` (``attempt`` > 0 after a collision).

        The first attempt keeps the id without its signature when that is enough; otherwise the id keeps
        a readable head (invalid characters replaced, cut to fit) and gets a hash of the whole original.
        First attempts are cached: a conversation dumped again each turn pays for its ids once.

        Args:
            call_id: the id to rewrite.
            attempt: 0 first; 1, 2, ... after the id made before collided with another.

        Returns:
            An id the provider takes.

        Raises nothing.
        """
        if attempt == 0:
            return _first_rewrite(self, call_id)
        return self._rewrite(call_id, attempt)

    def _rewrite(self, call_id: str, attempt: int) -> str:
        base = call_id.split(SIGNATURE_SEPARATOR, 1)[0]
        if attempt == 0 and self.accepts(base):
            return base
        digest = _digest(call_id, attempt)
        if self.max_length is not None and self.max_length <= _SUFFIX + 1:
            return digest[: self.max_length].rjust(self.min_length, "0")
        underscore = self.alphabet is None or _charset(self.alphabet).fullmatch("_") is not None
        head = base if self.alphabet is None else _invalid(self.alphabet).sub("_" if underscore else "", base)
        suffix = ("_" if underscore else "") + digest[:_SUFFIX]
        limit = (self.max_length if self.max_length is not None else 64) - len(suffix)
        candidate = head[:limit] + suffix
        if len(candidate) < self.min_length:
            candidate = (candidate + digest)[: max(self.min_length, len(candidate))]
        return candidate


_FIRST_REWRITES: dict[IdRule, dict[str, str]] = {}
_VERDICTS: dict[IdRule, dict[str, str]] = {}
_CACHE_LIMIT = 1 << 16


def _first_rewrite(rule: IdRule, call_id: str) -> str:
    """``rule``'s first attempt at a new id for ``call_id``, cached (a pure function of the two)."""
    return rule.first_rewriter()(call_id)


def tool_call_id_map(ids: Iterable[str], rule: IdRule) -> dict[str, str]:
    """New ids for the ``ids`` (calls and results, in order) that ``rule`` rejects or that collide.

    An id the provider accepts is kept (it has no signature for litellm to cut, so it reaches the
    provider as it is); every other id gets ``rule.rewrite(...)``, retried until it is unique among all
    the ids. The result maps only the ids that change.
    """
    fullmatch = _acceptor(rule)
    ordered = dict.fromkeys(ids)
    kept = {call_id for call_id in ordered if fullmatch(call_id)}
    taken = set(kept)
    cache = _FIRST_REWRITES.setdefault(rule, {})
    if len(cache) >= _CACHE_LIMIT:
        cache.clear()
    mapping: dict[str, str] = {}
    for call_id in ordered:
        if call_id in kept:
            continue
        candidate = cache.get(call_id)
        if candidate is None:
            candidate = cache[call_id] = rule._rewrite(call_id, 0)
        attempt = 0
        while candidate in taken or not fullmatch(candidate):
            attempt += 1
            candidate = rule._rewrite(call_id, attempt)
        taken.add(candidate)
        mapping[call_id] = candidate
    return mapping
