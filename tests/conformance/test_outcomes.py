"""Issue 24, judged on a few generated conversations: for Mistral, Cohere, Bedrock, Anthropic, Gemini and
Vertex AI, each conversation is either accepted by every judge or refused before sending; none is sent and
then rejected. ``python3 scripts/dev.py conformance --outcomes 200`` runs many more, on every provider
(``tests/conformance/outcomes.py``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings

from messages import strategies as ms
from messages.testing import StandInServer
from tests.conformance.outcomes import judge
from tests.conformance.providers import BY_KEY

pytestmark = pytest.mark.litellm


@pytest.fixture(scope="module")
def server() -> Iterator[StandInServer]:
    with StandInServer() as running:
        yield running


@pytest.mark.parametrize("key", ["mistral", "cohere", "bedrock", "anthropic", "gemini", "vertex_ai"])
def test_no_generated_conversation_is_sent_and_then_rejected(litellm, server, key):
    provider = BY_KEY[key]

    @settings(
        max_examples=5,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        phases=[Phase.explicit, Phase.reuse, Phase.generate],
    )
    @given(ms.conversations(max_turns=6))
    def check(conversation: list[Any]) -> None:
        outcome, rules, report = judge(litellm, server, provider, conversation)
        assert outcome != "rejected", report
        if outcome == "refused by the profile":
            assert rules, report  # it says why

    check()


def test_a_refusal_and_an_acceptance_are_told_apart(litellm, server):
    # The judge itself: content Cohere has no form for is refused before sending, naming the part; the same
    # conversation without it is sent and accepted.
    from messages import AudioPart, TextPart, UserMessage

    audio = [UserMessage(content=[TextPart(text="Listen."), AudioPart(data="UklGRg==", format="wav")])]
    outcome, rules, report = judge(litellm, server, BY_KEY["cohere"], audio)
    assert (outcome, rules) == ("refused by the profile", ["unsupported-part"])
    assert "message 0: part 1 is an audio clip" in report
    outcome, rules, _ = judge(litellm, server, BY_KEY["cohere"], [UserMessage(content="Listen.")])
    assert (outcome, rules) == ("accepted", [])
