"""Failures the suite knows about, each pinned by a named hard case that is a strict xfail (so that a fix
shows up as an XPASS, and the entry must then go): what litellm itself breaks on a route, which no profile
can fix, and what the profiles do not fix yet. The generated and handoff tests leave out exactly these
violations (matched by provider, rule and place), and nothing else."""

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

    def covers(self, provider: str, violation: Violation) -> bool:
        return (
            provider in self.providers
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
        "litellm breaks it, no profile can fix it (provider-quirks.md row 52): litellm 1.106.2 builds each "
        "Ollama message from fixed keys (ollama/chat/transformation.py transform_request), so a tool result "
        "never carries `tool_name` whatever the list says, and the call ids it keeps are not sent on calls",
    ),
    Known(
        frozenset({"gemini", "gemma", "vertex_ai"}),
        "r24",
        r"contents\[\d+\]",
        "function responses for",
        ("identical parallel calls",),
        "litellm breaks it, no profile can fix it (provider-quirks.md row 24): litellm 1.106.2 sends two "
        "calls of one tool with equal arguments in one turn as a single functionCall part, but both "
        "functionResponse parts, so Gemini sees more responses than calls",
    ),
    Known(
        frozenset({"anthropic", "anthropic-4.6"}),
        "r13",
        r"system\.content\[\d+\]|messages\[\d+\]\.content\[\d+\]\.content\[\d+\]",
        "",
        ("blank text parts",),
        "profile gap, reported to issue-4-profiles (provider-quirks.md row 13): a whitespace-only text part "
        "in the system message or in a tool result is sent as a blank text block",
    ),
    Known(
        frozenset({"anthropic", "anthropic-4.6"}),
        "ph",
        r"messages\[\d+\]\.content\[\d+\]\.text",
        "",
        ("blank text parts",),
        "profile gap, reported to issue-4-profiles (litellm-notes.md TL;DR 5): a whitespace-only text part "
        "of a system message half-way becomes litellm's placeholder text",
    ),
    Known(
        frozenset({"bedrock", "bedrock-llama"}),
        "r43",
        r"system\[\d+\]|messages\[\d+\]\.content\[\d+\]\.toolResult\.content\[\d+\]",
        "",
        ("blank text parts",),
        "profile gap, reported to issue-4-profiles (provider-quirks.md row 43): a whitespace-only text part "
        "in the system message or in a tool result is sent as a blank text block",
    ),
    Known(
        frozenset({"gemini", "gemma", "vertex_ai"}),
        "r23",
        r"contents\[\d+\]\.parts\[\d+\]",
        "in a model turn",
        ("blank text parts",),
        "profile gap, reported to issue-4-profiles (provider-quirks.md row 23): an assistant turn with tool "
        "calls whose content is a list of empty or whitespace text parts is sent with an empty text part",
    ),
    Known(
        frozenset({"deepseek", "deepseek-reasoner"}),
        "r36",
        r"messages\[\d+\]\.content",
        "only empty text parts|no text parts",
        ("blank text parts", "image-only turn"),
        "profile gap, reported to issue-4-profiles (provider-quirks.md row 36): content given as parts with "
        "no non-empty text (all empty text parts, or images only, which DeepSeek cannot read) stays a list "
        "instead of becoming a string or a clear error",
    ),
    Known(
        frozenset({"anthropic"}),
        "r18",
        r"messages\[\d+\]",
        "final assistant turn",
        ("prefill after thinking",),
        "profile gap, reported to issue-4-profiles (provider-quirks.md row 18): a final assistant turn keeps "
        "its thinking blocks, which Anthropic refuses while thinking is off",
    ),
    Known(
        frozenset({"anthropic", "anthropic-4.6"}),
        "r18",
        r"messages\[\d+\]",
        "must come before",
        ("thinking after text",),
        "profile gap, reported to issue-4-profiles (provider-quirks.md rows 18, 20): two assistant turns in "
        "a row, the second with signed thinking, reach litellm unmerged; litellm merges them and the "
        "thinking blocks end up after the first turn's text",
    ),
    Known(
        frozenset({"mistral"}),
        "r31",
        r"messages\[\d+\]",
        "got system",
        ("system at the end",),
        "profile gap, reported to issue-4-profiles (provider-quirks.md row 31): a conversation that ends on "
        "a system message still ends on it; Mistral wants the last role user or tool",
    ),
]


def known_reason(provider: str, case: str) -> str | None:
    """Why the hard case ``case`` fails on ``provider``, when it is a known failure."""
    reasons = [k.reason for k in KNOWN if provider in k.providers and case in k.cases]
    return "; ".join(reasons) or None


def unexplained(provider: str, violations: list[Violation]) -> list[Violation]:
    """The violations no known failure covers."""
    return [v for v in violations if not any(k.covers(provider, v) for k in KNOWN)]
