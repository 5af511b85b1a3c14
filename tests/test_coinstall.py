"""The package's wheel resolves beside every framework that ships litellm (issue 37).

A framework's users add this package to a project that already pins the framework: if the two ranges of
litellm (or of pydantic, or of anything else) do not meet, pip refuses the pair and those users cannot
have the package at all. Each case asks pip itself (``pip install --dry-run --ignore-installed``, the
resolver users run, not a rule of ours) to resolve the wheel built from this tree beside one framework,
from the package index, and fails naming the framework and pip's own explanation when it cannot. The
resolutions run in parallel (each takes some seconds: pip fetches the candidates' metadata).
"""

from __future__ import annotations

import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet

from tests.test_wheel import ROOT, Installed

pytestmark = pytest.mark.slow

FRAMEWORKS = {
    # llamabot's issue #275 is where this package began; 0.19.16 pins litellm >=1.71.0,<1.82.7.
    "llamabot": "llamabot==0.19.16",
    # google-adk 2.13's [extensions] pins litellm >=1.84,<1.106.3.
    "google-adk": "google-adk[extensions]==2.13.*",
    "crewai": "crewai[litellm]",
    "openai-agents": "openai-agents[litellm]",
    "dspy": "dspy",
    "smolagents": "smolagents[litellm]",
}
"""The frameworks the package must install beside, as their users install them."""


def resolve(wheel: Path, requirement: str, report: Path) -> subprocess.CompletedProcess[str]:
    """pip's resolution of ``wheel`` beside ``requirement`` (nothing installed), its report in ``report``."""
    return subprocess.run(
        [
            *(sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed", "--quiet"),
            *("--disable-pip-version-check", "--report", str(report), str(wheel), requirement),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def declared(name: str) -> SpecifierSet:
    """The range the package declares for ``name`` (pyproject.toml's dependencies)."""
    import tomllib

    dependencies = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    (found,) = (Requirement(d) for d in dependencies if Requirement(d).name == name)
    return found.specifier


def test_the_wheel_resolves_beside_every_framework_that_ships_litellm(installed: Installed, tmp_path):
    reports = {name: tmp_path / f"{name}.json" for name in FRAMEWORKS}
    with ThreadPoolExecutor(max_workers=len(FRAMEWORKS)) as pool:
        results = dict(
            zip(
                FRAMEWORKS,
                pool.map(lambda n: resolve(installed.wheel, FRAMEWORKS[n], reports[n]), FRAMEWORKS),
                strict=True,
            )
        )
    refused = {
        name: (result.stderr.strip().splitlines() or ["(no output)"])[-12:]
        for name, result in results.items()
        if result.returncode != 0
    }
    assert not refused, "pip cannot install the package beside: " + "; ".join(
        f"{FRAMEWORKS[name]} ({' / '.join(lines)})" for name, lines in refused.items()
    )
    for name in FRAMEWORKS:
        chosen = {
            item["metadata"]["name"].lower(): item["metadata"]["version"]
            for item in json.loads(reports[name].read_text())["install"]
        }
        assert "llm-messages" in chosen, name
        assert chosen["litellm"] in declared("litellm"), (name, chosen["litellm"])
        assert chosen["pydantic"] in declared("pydantic"), (name, chosen["pydantic"])
