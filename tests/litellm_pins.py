"""The two litellm releases the suite is run with: the newest (``constraints.txt``, the main environment)
and the floor (``constraints-floor.txt``, ``python3 scripts/dev.py floor``).

Most tests read what the installed litellm does, or ask ``messages._litellm`` as the package does. A few
hold a table of litellm's own behaviour that only a run of litellm can give (its routing table, what it
alone sends for the conformance cases, the profiles' snapshot): those hold one table per pin, and fail on
any other release, naming the command that writes its table.
"""

from __future__ import annotations

import importlib.metadata
import re
from pathlib import Path
from typing import Literal

import pytest

ROOT = Path(__file__).resolve().parent.parent

Pin = Literal["newest", "floor"]


def pinned(constraints: str) -> str:
    """The litellm release a constraints file of the repository pins."""
    text = (ROOT / constraints).read_text(encoding="utf-8")
    found = re.search(r"^litellm==(\S+)$", text, flags=re.MULTILINE)
    assert found is not None, f"{constraints} pins no litellm"
    return found[1]


NEWEST = pinned("constraints.txt")
"""The release the main environment runs."""
FLOOR = pinned("constraints-floor.txt")
"""The oldest release the package supports, which the floor's environment runs."""


def installed() -> str:
    """The installed litellm's version."""
    return importlib.metadata.version("litellm")


def pin(what: str) -> Pin:
    """Which pin is installed; a test failure saying so on another release (``what`` names the table and
    how to write one for this release)."""
    version = installed()
    if version == NEWEST:
        return "newest"
    if version == FLOOR:
        return "floor"
    pytest.fail(
        f"litellm {version} is installed; {what} is measured on {NEWEST} (constraints.txt) and {FLOOR} "
        "(constraints-floor.txt) only"
    )
