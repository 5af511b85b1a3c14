"""The repository as a clone gives it: no tracked file that only works on one machine."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def tracked_symlinks() -> list[tuple[str, str]]:
    """Every tracked symlink, with its target as git stores it (``git ls-files -s``: mode 120000)."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout (an sdist, say): no tracked files to look at")
    listing = subprocess.run(
        ["git", "ls-files", "-s", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout.decode()
    links = []
    for entry in filter(None, listing.split("\0")):
        meta, path = entry.split("\t", 1)
        mode, blob, _stage = meta.split()
        if mode == "120000":
            target = subprocess.run(
                ["git", "cat-file", "blob", blob], cwd=ROOT, capture_output=True, check=True
            ).stdout.decode()
            links.append((path, target))
    return links


def leaves_the_repository(path: str, target: str) -> bool:
    if os.path.isabs(target):
        return True
    resolved = os.path.normpath(os.path.join(os.path.dirname(path), target))
    return resolved == ".." or resolved.startswith(".." + os.sep)


def test_no_tracked_symlink_leaves_the_repository():
    # A `.venv-main -> /work/main/.venv` link was tracked once: it pointed into one machine's disk.
    links = tracked_symlinks()
    leaving = [f"{path} -> {target}" for path, target in links if leaves_the_repository(path, target)]
    assert leaving == [], f"tracked symlinks that point outside the repository: {leaving}"


@pytest.mark.parametrize(
    ("path", "target", "expected"),
    [
        (".venv-main", "/work/main/.venv", True),
        ("docs/x", "../../elsewhere", True),
        ("docs/x", "../README.md", False),
        ("x", "..", True),
        ("a/b/c", "../../d", False),
    ],
)
def test_what_counts_as_leaving_the_repository(path, target, expected):
    assert leaves_the_repository(path, target) is expected
