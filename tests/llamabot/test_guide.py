"""The guide's page on llamabot (docs/guide/llamabot.md) runs, block by block, as tests/docs runs every
other page, with llamabot installed: its providers pointed at a stand-in OpenAI that checks the tool-call
protocol, whose model adds with the add tool (tests/llamabot/_models.arithmetic)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.llamabot._checking import CheckingOpenAIRoute
from tests.llamabot._models import arithmetic
from tests.llamabot._shared import LLAMABOT_WARNINGS, MISSING

pytest.importorskip("llamabot", reason=MISSING)
from messages.testing import StandInServer
from tests.docs.test_examples import RUN_ELSEWHERE, python_blocks, run_blocks

pytestmark = [pytest.mark.litellm, *LLAMABOT_WARNINGS]

PAGE = Path(__file__).resolve().parents[2] / "docs/guide/llamabot.md"


def test_the_page_is_left_to_this_test_by_the_docs_tests():
    assert "docs/guide/llamabot.md" in RUN_ELSEWHERE
    assert len(python_blocks(PAGE)) >= 6


def test_the_python_blocks_of_the_llamabot_page_run(litellm, tmp_path, monkeypatch):
    # The stand-in of tests/docs, but checking the protocol as OpenAI does.
    monkeypatch.setattr(
        "tests.docs.test_examples.StandInServer",
        lambda model: StandInServer(model, routes=[CheckingOpenAIRoute()]),
    )
    run_blocks(PAGE, arithmetic, tmp_path, monkeypatch)
