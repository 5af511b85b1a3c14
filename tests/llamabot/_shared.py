"""Names the llamabot test modules share."""

from __future__ import annotations

import pytest

MISSING = (
    "llamabot is not installed here: the llamabot tests run where it is (pip install "
    "'llm-messages[llamabot]'; llamabot 0.19 allows litellm below 1.82.7 only)"
)
"""Why the llamabot tests skip where llamabot is not installed."""

LLAMABOT_WARNINGS = [
    # llamabot's recorder uses SQLAlchemy's old declarative_base, warned about at its import.
    pytest.mark.filterwarnings("ignore::DeprecationWarning:llamabot.*"),
    # PocketFlow warns when a tool node is wired again: llamabot's @tool makes one node per function, and
    # every AgentBot wires its default tools to its own decide node.
    pytest.mark.filterwarnings("ignore:Overwriting successor for action:UserWarning"),
]
"""The warnings llamabot and PocketFlow raise on their own, which the suite's ``error`` filter would turn
into failures."""
