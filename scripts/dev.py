#!/usr/bin/env python3
"""Set up the project's virtual environment and run the main job, the tests or the benchmarks.

    python3 scripts/dev.py run      # the example bot, offline (a loopback stand-in provider)
    python3 scripts/dev.py test     # ruff, mypy and the whole test suite
    python3 scripts/dev.py bench    # the benchmarks, printing ratios against baselines
    python3 scripts/dev.py conformance  # providers x hard cases, litellm alone and with the profiles

Each command creates `.venv` if it is missing and installs what it needs into it, pinned by
`constraints.txt`; a stamp file skips the install when nothing it depends on changed. Extra arguments
after the command go to the program it runs (`dev.py test -k roundtrip`, `dev.py run --model ...`).
Only the Python standard library is used here, so a fresh machine needs nothing but Python 3.11+.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV = Path(os.environ.get("MESSAGES_VENV", ROOT / ".venv"))
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PYTHON = BIN / ("python.exe" if os.name == "nt" else "python")

EXTRAS = {"run": "", "test": "[dev]", "bench": "[dev]", "conformance": "[dev]"}
# Offline by default: no model cost map from GitHub, no tokenizer downloads (litellm-notes.md).
OFFLINE = {"LITELLM_LOCAL_MODEL_COST_MAP": "True", "HF_HUB_OFFLINE": "1", "LITELLM_LOG": "ERROR"}


def _say(text: str) -> None:
    print(f"[dev] {text}", file=sys.stderr, flush=True)


def _run(*argv: str | Path, env: dict[str, str] | None = None) -> int:
    return subprocess.call([str(a) for a in argv], cwd=ROOT, env=env)


def ensure_venv(extras: str) -> None:
    """Create `.venv` and install the package (editable) with `extras`, unless already done."""
    if sys.version_info < (3, 11):  # noqa: UP036 - this script runs on whatever python3 the user has
        sys.exit(f"Python 3.11 or newer is needed; this is {sys.version.split()[0]}")
    digest = hashlib.sha256()
    for name in ("pyproject.toml", "constraints.txt"):
        digest.update((ROOT / name).read_bytes())
    label = extras.strip("[]") or "base"
    stamp = VENV / f".installed-{label}-{digest.hexdigest()[:16]}"
    if stamp.exists():
        return
    if not PYTHON.exists():
        _say(f"creating the virtual environment {VENV}")
        venv.EnvBuilder(with_pip=True, clear=False).create(VENV)
    _say(f"installing llm-messages{extras} (pinned by constraints.txt); this takes a few minutes once")
    pip: list[str | Path] = [PYTHON, "-m", "pip", "install", "--disable-pip-version-check", "-q"]
    code = _run(*pip, "-c", "constraints.txt", "-e", f".{extras}")
    if code != 0:
        sys.exit(f"installing the package failed (pip exit status {code})")
    for old in VENV.glob(f".installed-{label}-*"):
        old.unlink()
    stamp.touch()


def _env() -> dict[str, str]:
    env = dict(os.environ)
    for key, value in OFFLINE.items():
        env.setdefault(key, value)
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    env["VIRTUAL_ENV"] = str(VENV)
    return env


def run(args: list[str]) -> int:
    ensure_venv(EXTRAS["run"])
    return _run(PYTHON, "examples/tool_loop.py", *args, env=_env())


def test(args: list[str]) -> int:
    ensure_venv(EXTRAS["test"])
    env = _env()
    steps: list[tuple[str, list[str | Path]]] = [
        ("ruff check", [PYTHON, "-m", "ruff", "check", "."]),
        ("ruff format --check", [PYTHON, "-m", "ruff", "format", "--check", "."]),
        ("mypy (strict)", [PYTHON, "-m", "mypy"]),
        ("pytest", [PYTHON, "-m", "pytest", *args]),
    ]
    for title, argv in steps:
        _say(title)
        code = _run(*argv, env=env)
        if code != 0:
            _say(f"{title} failed (exit status {code})")
            return code
    return 0


def bench(args: list[str]) -> int:
    ensure_venv(EXTRAS["bench"])
    return _run(PYTHON, "-m", "benchmarks", *args, env=_env())


def conformance(args: list[str]) -> int:
    ensure_venv(EXTRAS["conformance"])
    return _run(PYTHON, "-m", "tests.conformance.table", *args, env=_env())


COMMANDS = {"run": run, "test": test, "bench": bench, "conformance": conformance}


def main() -> int:
    if len(sys.argv) < 2 or sys.argv[1] not in COMMANDS:
        print(__doc__, file=sys.stderr)
        return 2
    return COMMANDS[sys.argv[1]](sys.argv[2:])


if __name__ == "__main__":
    sys.exit(main())
