"""Generated conversations through the real litellm, with the profiles, for every provider (issue 24): each
one counted as accepted, refused before sending, or sent and rejected.

* refused before sending: ``dump_messages(conversation, model=...)`` raised ``UnfixableError`` (the profile
  found what it cannot fix, and said what), or litellm itself raised before any request left (a file by id
  whose media type it cannot tell, say);
* sent and rejected: a body reached the stand-in and the judges refuse it: the provider's own request types
  (``tests/oracles.py``: OpenAI's, Anthropic's, google-genai's with the Gemini API's or Vertex AI's request
  builder, botocore's Converse model with its constraints, Cohere's v2 types read strictly), mistral-common
  for Mistral, the family's rule checker, and the content checks (a text, a tool result or a media part
  missing from the body, another provider's reasoning payload in it);
* accepted: the body passed them all.

The conversations are ``messages.strategies.conversations()`` as drawn, audio, files, video and media in
assistant turns included; two adaptations for this machine only: an image by http(s) URL is sent inline
(litellm fetches such URLs itself for Anthropic, Gemini, Vertex AI and Bedrock, and there is no network
here), and for ``ollama/`` (the generate route) every image is a real PNG (litellm re-encodes other images
there with Pillow, which this project does not install).

    python3 scripts/dev.py conformance --outcomes 200   # or: python -m tests.conformance.table --outcomes 200
"""

from __future__ import annotations

import copy
from collections import Counter
from dataclasses import dataclass, field
from types import ModuleType

from messages import Message, UnfixableError, dump_messages
from messages.testing import StandInServer
from tests.conformance.content import lost_media
from tests.conformance.harness import _png_only, evaluate, offline_images, tools_for
from tests.conformance.providers import Provider

__all__ = ["MUST_NOT_REJECT", "Tally", "judge", "tally"]

MUST_NOT_REJECT = (
    "mistral",
    "cohere",
    "bedrock",
    "bedrock-llama",
    "anthropic",
    "anthropic-4.6",
    "gemini",
    "gemma",
    "vertex_ai",
)
"""The providers whose "sent and rejected" count must be 0 (issue 24): Mistral (judged by mistral-common),
Cohere, Bedrock, Anthropic, Gemini and Vertex AI, with their model families."""


@dataclass
class Tally:
    """The counts of one provider."""

    accepted: int = 0
    refused_by_profile: int = 0
    refused_by_litellm: int = 0
    rejected: int = 0
    why_refused: Counter[str] = field(default_factory=Counter)
    """The rule ids the profile refused under (one count per conversation and rule)."""
    why_rejected: Counter[str] = field(default_factory=Counter)
    """The judges' rule ids behind each rejection."""
    examples: list[str] = field(default_factory=list)
    """The first few rejections, in full."""


def _as_sent(conversation: list[Message], provider: Provider) -> list[Message]:
    """The machine-only adaptations of the module docstring."""
    if provider.family == "openai":
        return conversation
    inline = offline_images(conversation)
    return _png_only(inline) if provider.family == "ollama_generate" else inline


def judge(
    litellm: ModuleType, server: StandInServer, provider: Provider, conversation: list[Message]
) -> tuple[str, list[str], str]:
    """One conversation on one provider: its outcome (``accepted``, ``refused by the profile``, ``refused
    by litellm``, ``rejected``), the rule ids behind it, and a report."""
    conversation = _as_sent(conversation, provider)
    try:
        messages = dump_messages(conversation, model=provider.model)
    except UnfixableError as error:
        return "refused by the profile", sorted({v.rule for v in error.violations}), str(error)
    seen = len(server.requests)
    raised: Exception | None = None
    try:
        litellm.completion(
            model=provider.model,
            messages=copy.deepcopy(messages),
            tools=tools_for(conversation) if provider.has_tools else None,
            **provider.kwargs(server),
        )
    except Exception as exc:  # litellm's own exception classes
        raised = exc
    sent = [r.body for r in server.requests[seen:] if r.route not in ("oauth", "")]
    body = sent[-1] if sent and isinstance(sent[-1], dict) else None
    if body is None:
        return "refused by litellm", [type(raised).__name__], f"{type(raised).__name__}: {str(raised)[:300]}"
    found = evaluate(provider, conversation, body) + lost_media(conversation, body)
    if found:
        return "rejected", sorted({v.rule for v in found}), "\n".join(str(v) for v in found)
    return "accepted", [], ""


def tally(
    litellm: ModuleType, server: StandInServer, provider: Provider, conversations: list[list[Message]]
) -> Tally:
    """Every conversation judged on ``provider``, counted."""
    counts = Tally()
    for number, conversation in enumerate(conversations, 1):
        outcome, rules, report = judge(litellm, server, provider, conversation)
        if outcome == "accepted":
            counts.accepted += 1
        elif outcome == "refused by the profile":
            counts.refused_by_profile += 1
            counts.why_refused.update(rules)
        elif outcome == "refused by litellm":
            counts.refused_by_litellm += 1
            counts.why_refused.update(f"litellm:{r}" for r in rules)
        else:
            counts.rejected += 1
            counts.why_rejected.update(rules)
            if len(counts.examples) < 3:
                counts.examples.append(f"generated {number}:\n  " + report.replace("\n", "\n  "))
    return counts


def print_table(rows: list[tuple[str, Tally]], examples: int, seed: int, elapsed: float) -> None:
    """The table of ``python -m tests.conformance.table --outcomes N``."""
    header = [
        "provider",
        "accepted",
        "refused before sending",
        "sent and rejected",
        "refused for",
        "rejected for",
    ]
    lines = []
    for key, t in rows:
        refused = t.refused_by_profile + t.refused_by_litellm
        by = f"{refused} ({t.refused_by_profile} profile, {t.refused_by_litellm} litellm)"
        mark = " !" if key in MUST_NOT_REJECT and t.rejected else ""
        reasons = ", ".join(f"{r} {n}" for r, n in t.why_refused.most_common(4)) or "-"
        rejected = ", ".join(f"{r} {n}" for r, n in t.why_rejected.most_common(4)) or "-"
        lines.append([key, str(t.accepted), by, f"{t.rejected}{mark}", reasons, rejected])
    widths = [max(len(r[i]) for r in [header, *lines]) for i in range(len(header))]
    print(
        f"\n## {examples} generated conversations per provider (seed {seed}) through the real litellm, "
        "with the profiles\n"
    )
    print(" | ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)))
    print("-|-".join("-" * w for w in widths))
    for line in lines:
        print(" | ".join(c.ljust(w) for c, w in zip(line, widths, strict=True)))
    bad = [key for key, t in rows if key in MUST_NOT_REJECT and t.rejected]
    print(
        f"\nsent and rejected must be 0 for {', '.join(MUST_NOT_REJECT)}: "
        + ("met" if not bad else f"missed for {', '.join(bad)} (marked !)")
        + f"; {elapsed:.1f} s"
    )
    for key, t in rows:
        for example in t.examples:
            print(f"\n[{key}] {example}")


def run_outcomes(
    litellm: ModuleType, providers: list[Provider], conversations: list[list[Message]]
) -> list[tuple[str, Tally]]:
    """Every provider over the same conversations."""
    with StandInServer() as server:
        return [(p.key, tally(litellm, server, p, conversations)) for p in providers]
