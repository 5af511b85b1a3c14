"""Failures the suite knows about, each pinned by a named hard case that is a strict xfail (so that a fix
shows up as an XPASS, and the entry must then go): what litellm itself breaks on a route, which no profile
can fix, and what the profiles do not fix yet. A violation is excused only where its entry says: in the
entry's own hard cases, or (``anywhere``) in every conversation, the generated and handoff ones included;
matched by provider, rule and place, and nothing else."""

from __future__ import annotations

import re
from dataclasses import dataclass

from messages import ToolMessage
from tests.conformance.cases import CASES
from tests.conformance.rules import Violation

__all__ = ["KNOWN", "Known", "known_reason", "unexplained"]


@dataclass(frozen=True)
class Known:
    """One known failure: who breaks which rule where, why, and the hard cases that pin it."""

    providers: frozenset[str]
    rule: str
    where: str
    """A regular expression that the violation's place must match in full."""
    message: str
    cases: tuple[str, ...]
    reason: str
    anywhere: bool = False
    """Whether the failure is expected in any conversation (it follows from the route, whatever the
    conversation says), not only in ``cases``."""

    def covers(self, provider: str, violation: Violation, case: str | None = None) -> bool:
        """Whether this entry excuses ``violation`` on ``provider`` in the hard case ``case`` (``None``: a
        generated or handoff conversation)."""
        return (
            provider in self.providers
            and (self.anywhere or case in self.cases)
            and violation.rule == self.rule
            and re.fullmatch(self.where, violation.where) is not None
            and re.search(self.message, violation.message) is not None
        )


_WITH_TOOL_RESULTS = tuple(
    name for name, build in CASES.items() if any(isinstance(m, ToolMessage) for m in build())
)

KNOWN = [
    Known(
        frozenset({"ollama_chat"}),
        "r52",
        r"messages\[\d+\]",
        "",
        _WITH_TOOL_RESULTS,
        "litellm breaks it, no profile can fix it (quirk 52): litellm 1.106.2 and 1.110.2 build each "
        "Ollama message from fixed keys (ollama/chat/transformation.py transform_request), so a tool result "
        "never carries `tool_name` whatever the list says, and the call ids it keeps are not sent on calls; "
        "a profile could only write the tool's name into the result's text, which changes the result",
        anywhere=True,
    ),
]


def known_reason(provider: str, case: str) -> str | None:
    """Why the hard case ``case`` fails on ``provider``, when it is a known failure."""
    reasons = [k.reason for k in KNOWN if provider in k.providers and case in k.cases]
    return "; ".join(reasons) or None


def unexplained(provider: str, violations: list[Violation], case: str | None = None) -> list[Violation]:
    """The violations no known failure covers, in the hard case ``case`` (``None``: any other
    conversation, where only the entries that hold ``anywhere`` excuse a violation)."""
    return [v for v in violations if not any(k.covers(provider, v, case) for k in KNOWN)]
