#!/usr/bin/env python3
"""Set up the project's virtual environment and run the main job, the tests or the benchmarks.

    python3 scripts/dev.py run      # the example bot, offline (a loopback stand-in provider)
    python3 scripts/dev.py test     # ruff, mypy and the whole test suite (PostgreSQL tests included)
    python3 scripts/dev.py test --quick  # the one-minute loop for a change (see `quick` below)
    python3 scripts/dev.py floor    # the core, profiles, conformance, streaming and stores at the oldest
                                    # litellm and pydantic supported (.venv-floor, constraints-floor.txt)
    python3 scripts/dev.py bench    # the benchmarks, printing ratios against baselines
    python3 scripts/dev.py conformance  # providers x hard cases, litellm alone and with the profiles
    python3 scripts/dev.py docs     # the documentation site, built strictly into site/ (--serve serves it)

Each command creates `.venv` if it is missing and installs what it needs into it, pinned by
`constraints.txt`; a stamp file skips the install when nothing it depends on changed. Extra arguments
after the command go to the program it runs (`dev.py test -k roundtrip`, `dev.py run --model ...`).
Only the Python standard library is used here, so a fresh machine needs nothing but Python 3.11+.

`test` starts a throwaway PostgreSQL server for the PostgreSQL store tests (scripts/postgres.sh, which
installs the server with apt-get when it can), unless MESSAGES_TEST_POSTGRES_DSN already names one or the
tests asked for leave out tests/stores; when none can start, it says why in one line and those tests skip,
giving the same reason. pytest gets MESSAGES_POSTGRES_STATUS (`started`, `configured`, `unavailable` or
`not started`), which the JUnit report records and .ci/check_junit.py reads: with a server up, no
PostgreSQL test may skip.

`test` also builds the documentation site with `mkdocs build --strict` (a broken link or reference fails
it) beside mypy, before pytest, whose docs tests read the built site (MESSAGES_DOCS_SITE; a run of other
tests only, `dev.py test tests/stores`, skips the build); and it installs
Debian's chromium for the site's browser tests (scripts/chromium.sh, in the background from the start,
beside the set-up), or says in one line why it could not and those tests skip (under CI=1 they fail).

`test` runs pytest on every core (pytest-xdist) and mypy beside it, and ends with one line giving the test
count and the wall time. `test --quick` is the loop for a change: the same checks and every test file, but
each property test at the quick profile's 10 examples (its own `@settings` capped too, tests/conftest.py)
and without the tests marked `slow` (other processes: the examples, the benchmarks' smoke runs, the wheel,
the multi-process and server-kill store tests). It answers in about a minute; the full command is what
CI runs and what a change must pass.
"""

from __future__ import annotations

import hashlib
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import venv
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parent.parent
VENV = Path(os.environ.get("MESSAGES_VENV", ROOT / ".venv"))
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PYTHON = BIN / ("python.exe" if os.name == "nt" else "python")

EXTRAS = {"run": "", "test": "[dev]", "bench": "[dev]", "conformance": "[dev]", "docs": "[docs]"}
# Offline by default: no model cost map from GitHub, no tokenizer downloads (docs/litellm.md, 'import
# litellm fetches the model cost map' and 'token_counter looks for Hugging Face tokenizers').
OFFLINE = {"LITELLM_LOCAL_MODEL_COST_MAP": "True", "HF_HUB_OFFLINE": "1", "LITELLM_LOG": "ERROR"}


def _say(text: str) -> None:
    print(f"[dev] {text}", file=sys.stderr, flush=True)


def _run(*argv: str | Path, env: dict[str, str] | None = None) -> int:
    return subprocess.call([str(a) for a in argv], cwd=ROOT, env=env)


class Environment(NamedTuple):
    """A virtual environment of the project and the constraints file it is installed with."""

    venv: Path
    constraints: str
    also: tuple[str, ...] = ()
    """Packages installed beside the package and its extras (pinned by ``constraints`` too)."""

    @property
    def bin(self) -> Path:
        return self.venv / ("Scripts" if os.name == "nt" else "bin")

    @property
    def python(self) -> Path:
        return self.bin / ("python.exe" if os.name == "nt" else "python")


MAIN = Environment(VENV, "constraints.txt")
FLOOR = Environment(
    Path(os.environ.get("MESSAGES_FLOOR_VENV", ROOT / ".venv-floor")),
    "constraints-floor.txt",
    # litellm before 1.106 imports it (`vertexai`) for Claude and the other partner models on Vertex AI.
    ("google-cloud-aiplatform",),
)
"""The floor's environment: the oldest litellm and pydantic the package supports (``floor``)."""


def ensure_venv(extras: str, environment: Environment = MAIN) -> None:
    """Create the environment's virtual environment (`.venv`) and install the package (editable) with
    `extras`, unless already done."""
    if sys.version_info < (3, 11):  # noqa: UP036 - this script runs on whatever python3 the user has
        sys.exit(f"Python 3.11 or newer is needed; this is {sys.version.split()[0]}")
    digest = hashlib.sha256()
    for name in ("pyproject.toml", environment.constraints):
        digest.update((ROOT / name).read_bytes())
    label = extras.strip("[]") or "base"
    stamp = environment.venv / f".installed-{label}-{digest.hexdigest()[:16]}"
    if stamp.exists():
        return
    python = environment.python
    if not python.exists():
        _say(f"creating the virtual environment {environment.venv}")
        venv.EnvBuilder(with_pip=True, clear=False).create(environment.venv)
    pinned_by = environment.constraints
    _say(f"installing llm-messages{extras} (pinned by {pinned_by}); this takes a minute or two once")
    code = _install_with_uv(extras, environment)
    if code != 0:
        _say(f"uv could not install it (exit status {code}); installing with pip instead")
        pip: list[str | Path] = [python, "-m", "pip", "install", "--disable-pip-version-check", "-q"]
        code = _run(*pip, "-c", environment.constraints, "-e", f".{extras}", *environment.also)
    if code != 0:
        sys.exit(f"installing the package failed (pip exit status {code})")
    for old in environment.venv.glob(f".installed-{label}-*"):
        old.unlink()
    stamp.touch()


def _install_with_uv(extras: str, environment: Environment) -> int:
    """Install with uv (the version the constraints file pins, itself installed by pip): the same resolution
    under the same constraints, in less than half of pip's time (a clean clone's `[dev]` install, bytecode
    compiled: 48 s of CPU against pip's 113 s on a 2-core machine)."""
    python = environment.python
    pinned = [
        line.strip()
        for line in (ROOT / environment.constraints).read_text().splitlines()
        if line.strip().lower().startswith("uv==")
    ]
    pip: list[str | Path] = [python, "-m", "pip", "install", "--disable-pip-version-check", "-q"]
    code = _run(*pip, *(pinned or ["uv"]))
    if code != 0:
        return code
    # --compile-bytecode, as pip does by default: without .pyc files every process compiles what it imports
    # again wherever PYTHONDONTWRITEBYTECODE is set (it is on the CI machines), and `import litellm` then
    # takes 9 s of CPU instead of 2.5 s in each of the suite's many processes.
    uv: list[str | Path] = [python, "-m", "uv", "pip", "install", "-q", "--compile-bytecode"]
    return _run(*uv, "--python", python, "-c", environment.constraints, "-e", f".{extras}", *environment.also)


def _env(environment: Environment = MAIN) -> dict[str, str]:
    env = dict(os.environ)
    for key, value in OFFLINE.items():
        env.setdefault(key, value)
    env["PATH"] = f"{environment.bin}{os.pathsep}{env.get('PATH', '')}"
    env["VIRTUAL_ENV"] = str(environment.venv)
    return env


def run(args: list[str]) -> int:
    ensure_venv(EXTRAS["run"])
    return _run(PYTHON, "examples/tool_loop.py", *args, env=_env())


DSN_VARIABLE = "MESSAGES_TEST_POSTGRES_DSN"
STATUS_VARIABLE = "MESSAGES_POSTGRES_STATUS"
UNAVAILABLE_VARIABLE = "MESSAGES_TEST_POSTGRES_UNAVAILABLE"
STORE_TESTS = ROOT / "tests" / "stores"


def _selects_store_tests(args: list[str]) -> bool:
    """Whether the pytest arguments may run tests/stores (``_selects``)."""
    return _selects(args, STORE_TESTS)


def _selects(args: list[str], tests: Path) -> bool:
    """Whether the pytest arguments may run ``tests`` (a file or a folder): no path given (the whole
    suite), or a path that holds it or lies inside it."""
    paths = [ROOT / arg.split("::")[0] for arg in args if not arg.startswith("-")]
    paths = [path.resolve() for path in paths if path.exists()]
    if not paths:
        return True
    return any(path == tests or path in tests.parents or tests in path.parents for path in paths)


def _postgres_exports(out: str) -> dict[str, str]:
    """The values of the ``export`` lines ``scripts/postgres.sh start`` printed."""
    return {
        name: shlex.split(value)[0]
        for name, value in (
            line.removeprefix("export ").split("=", 1)
            for line in out.splitlines()
            if line.startswith("export ")
        )
    }


class _Script:
    """A script of scripts/ run with bash in the background (when ``wanted`` and bash is here), its answer
    read once: its output and the non-blank lines of its stderr."""

    def __init__(self, name: str, *argv: str, wanted: bool) -> None:
        self.name = name
        self.bash = shutil.which("bash")
        self.process: subprocess.Popen[str] | None = None
        if wanted and self.bash is not None and os.name != "nt":
            self.process = subprocess.Popen(
                [self.bash, str(ROOT / "scripts" / name), *argv],
                cwd=ROOT,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
        self._answer: tuple[str, list[str]] | None = None

    def answer(self) -> tuple[str, list[str]] | None:
        """Once the script has ended: ``(stdout, stderr's non-blank lines)`` if it succeeded, else ``None``
        (``why`` says why)."""
        if self.process is None:
            return None
        if self._answer is None:
            out, err = self.process.communicate()
            self._answer = (out, [line.strip() for line in err.splitlines() if line.strip()])
        return self._answer if self.process.returncode == 0 else None

    def why(self) -> str:
        """Why ``answer`` is ``None``: no bash, or the end of what the script said when it failed."""
        if self.process is None or self._answer is None:
            return f"no bash here to run scripts/{self.name}"
        status = self.process.returncode
        return " ".join(self._answer[1][-3:]) or f"scripts/{self.name} failed (exit status {status})"

    def kill(self) -> None:
        """Stop the script if it is still running."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()


@contextmanager
def postgres_server(args: list[str]) -> Iterator[Callable[[dict[str, str]], None]]:
    """A throwaway PostgreSQL server for the duration, started in the background at once (on a fresh
    machine scripts/postgres.sh installs the server first, beside the virtual environment's set-up and
    chromium's install); the function given waits for it and puts its DSN in ``env``, or, when none is
    started, the reason (and one line on stderr). ``env[STATUS_VARIABLE]`` says which. The server is
    stopped when the block ends, whether it was waited for or not."""
    wanted = not os.environ.get(DSN_VARIABLE) and _selects_store_tests(args)
    script = _Script("postgres.sh", "start", wanted=wanted)

    def wait(env: dict[str, str]) -> None:
        if env.get(DSN_VARIABLE):
            env[STATUS_VARIABLE] = "configured"
            _say(f"PostgreSQL: the server at {DSN_VARIABLE} (set by you)")
            return
        if not wanted:
            env[STATUS_VARIABLE] = "not started"
            return
        answer = script.answer()
        if answer is not None:
            out, lines = answer
            exports = _postgres_exports(out)
            env[DSN_VARIABLE] = exports[DSN_VARIABLE]
            env[STATUS_VARIABLE] = "started"
            where = lines[-1] if lines else exports["MESSAGES_POSTGRES_DIR"]
            _say(f"PostgreSQL: a throwaway server for the store tests ({where})")
            return
        why = script.why()
        env[STATUS_VARIABLE] = "unavailable"
        env[UNAVAILABLE_VARIABLE] = why
        _say(f"PostgreSQL: no server, so the PostgreSQL store tests skip: {why}")

    try:
        yield wait
    finally:
        answer = script.answer()
        directory = _postgres_exports(answer[0]).get("MESSAGES_POSTGRES_DIR") if answer else None
        if directory and script.bash is not None:
            subprocess.run(
                [script.bash, str(ROOT / "scripts" / "postgres.sh"), "stop", directory],
                cwd=ROOT,
                capture_output=True,
                check=False,
            )


def _parallel(args: list[str]) -> list[str]:
    """pytest-xdist's options for the run: one worker per core, unless the arguments choose (``-n 0`` runs
    in one process, as ``--pdb`` needs). Work-stealing: the conformance and property tests vary from
    milliseconds to seconds each, and an idle worker takes from a busy one's queue."""
    chosen = any(a in ("-n", "--numprocesses") or a.startswith(("-n", "--numprocesses=")) for a in args)
    if chosen or "no:xdist" in args:
        return []
    return ["-n", str(max(os.cpu_count() or 1, 1)), "--dist", "worksteal"]


def _junit_counts(report: Path) -> str:
    """``"2,160 tests: 2,140 passed, 3 skipped, ..."`` from a JUnit report."""
    import xml.etree.ElementTree as ET

    try:
        cases = list(ET.parse(report).getroot().iter("testcase"))
    except (OSError, ET.ParseError):
        return "no test report"
    outcomes = {"failed": 0, "error": 0, "skipped": 0}
    for case in cases:
        for outcome in ("failure", "error", "skipped"):
            if case.find(outcome) is not None:
                outcomes["failed" if outcome == "failure" else outcome] += 1
                break
    passed = len(cases) - sum(outcomes.values())
    rest = ", ".join(f"{n:,} {name}" for name, n in outcomes.items() if n)
    return f"{len(cases):,} tests: {passed:,} passed" + (f", {rest}" if rest else "")


SITE_VARIABLE = "MESSAGES_DOCS_SITE"
CHROMIUM_VARIABLE = "MESSAGES_TEST_CHROMIUM"
CHROMIUM_UNAVAILABLE_VARIABLE = "MESSAGES_TEST_CHROMIUM_UNAVAILABLE"
BROWSER_TESTS = ROOT / "tests" / "docs" / "test_browser.py"
SITE_TESTS = (ROOT / "tests" / "docs", ROOT / "tests" / "test_readme.py")
"""The tests that read the built site: the test command builds it when the tests asked for include them
(always, for the whole suite)."""


def docs(args: list[str]) -> int:
    """Build the site strictly into site/ (``--serve``: serve it on 127.0.0.1:8000, rebuilding on change)."""
    ensure_venv(EXTRAS["docs"])
    env = _env()
    env.setdefault("NO_MKDOCS_2_WARNING", "1")  # Material's notice about MkDocs 2, printed at every build
    if "--serve" in args:
        rest = [a for a in args if a != "--serve"]
        return _run(PYTHON, "-m", "mkdocs", "serve", "--strict", *rest, env=env)
    started = time.monotonic()
    code = _run(PYTHON, "-m", "mkdocs", "build", "--strict", *args, env=env)
    if code == 0:
        _say(f"docs: built into site/ in {time.monotonic() - started:.1f} s")
    return code


@contextmanager
def chromium_install(args: list[str]) -> Iterator[Callable[[dict[str, str]], None]]:
    """Start scripts/chromium.sh in the background (when the browser tests are selected); the function
    given waits for it and puts its answer in ``env``: chromium's path, or the reason there is none."""
    wanted = _selects(args, BROWSER_TESTS)
    script = _Script("chromium.sh", wanted=wanted)

    def wait(env: dict[str, str]) -> None:
        if not wanted:
            return
        answer = script.answer()
        if answer is not None and answer[0].strip():
            out, lines = answer
            env[CHROMIUM_VARIABLE] = out.strip()
            installed = [line for line in lines if "installed" in line]
            _say(f"chromium: {out.strip()}{f' ({installed[-1]})' if installed else ''}")
            return
        why = script.why()
        env[CHROMIUM_UNAVAILABLE_VARIABLE] = why
        _say(f"chromium: none, so the browser tests of the site skip: {why}")

    try:
        yield wait
    finally:
        script.kill()


def _minutes(seconds: float) -> str:
    return f"{int(seconds // 60)} m {seconds % 60:04.1f} s"


def test(args: list[str]) -> int:
    """ruff, then mypy beside pytest (mypy takes a core for a minute on a clean clone, pytest every core);
    the wall time and the test count at the end, so that a slowdown is seen the day it comes."""
    started = time.monotonic()
    quick = "--quick" in args
    args = [a for a in args if a != "--quick"]
    with chromium_install(args) as chromium, postgres_server(args) as postgres:
        ensure_venv(EXTRAS["test"])
        installed = time.monotonic()
        return _test(args, quick, started, installed, chromium, postgres)


def _test(
    args: list[str],
    quick: bool,
    started: float,
    installed: float,
    chromium: Callable[[dict[str, str]], None],
    postgres: Callable[[dict[str, str]], None],
) -> int:
    env = _env()
    if quick:
        env["HYPOTHESIS_PROFILE"] = "quick"
        if not any(a == "-m" or a.startswith("-m") for a in args):
            args = ["-m", "not slow", *args]
    checks: list[tuple[str, list[str | Path]]] = [
        ("ruff check", [PYTHON, "-m", "ruff", "check", "."]),
        ("ruff format --check", [PYTHON, "-m", "ruff", "format", "--check", "."]),
    ]
    for title, argv in checks:
        _say(title)
        code = _run(*argv, env=env)
        if code != 0:
            _say(f"{title} failed (exit status {code})")
            return code
    _say("mypy (strict), beside the site's build and pytest; its verdict comes after pytest's")
    with tempfile.TemporaryFile("w+") as mypy_log, tempfile.TemporaryDirectory() as scratch:
        mypy = subprocess.Popen(
            [str(PYTHON), "-m", "mypy"], cwd=ROOT, env=env, stdout=mypy_log, stderr=subprocess.STDOUT
        )
        code = _build_site(env, Path(scratch) / "site") if any(_selects(args, t) for t in SITE_TESTS) else 0
        if code != 0:
            mypy.kill()
            mypy.wait()
            return code
        chromium(env)
        given = next((a.split("=", 1)[1] for a in args if a.startswith("--junitxml=")), None)
        report = Path(given) if given else Path(scratch) / "junit.xml"
        extra = [] if given else [f"--junitxml={report}"]
        postgres(env)
        _say("pytest")
        code = _run(PYTHON, "-m", "pytest", *_parallel(args), *extra, *args, env=env)
        if code != 0:
            _say(f"pytest failed (exit status {code})")
        mypy_code = mypy.wait()
        _say(f"mypy (strict): {'passed' if mypy_code == 0 else f'failed (exit status {mypy_code})'}")
        if mypy_code != 0:
            mypy_log.seek(0)
            print(mypy_log.read(), end="", file=sys.stderr)
        counts = _junit_counts(ROOT / report)
    done = time.monotonic()
    _say(
        f"test: {counts}; {_minutes(done - started)} in all (set-up {_minutes(installed - started)}, "
        f"checks and tests {_minutes(done - installed)})"
    )
    return code or mypy_code


def _build_site(env: dict[str, str], site: Path) -> int:
    """``mkdocs build --strict`` into ``site``, its path given to pytest (MESSAGES_DOCS_SITE); the time it
    took is said, and its output only when it fails."""
    _say("docs: mkdocs build --strict")
    started = time.monotonic()
    build_env = {**env, "NO_MKDOCS_2_WARNING": "1"}
    built = subprocess.run(
        [str(PYTHON), "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT,
        env=build_env,
        capture_output=True,
        text=True,
        check=False,
    )
    if built.returncode != 0:
        print(built.stdout + built.stderr, end="", file=sys.stderr)
        _say(f"docs: the site's strict build failed (exit status {built.returncode})")
        return built.returncode
    env[SITE_VARIABLE] = str(site)
    _say(f"docs: built in {time.monotonic() - started:.1f} s")
    return 0


def bench(args: list[str]) -> int:
    ensure_venv(EXTRAS["bench"])
    return _run(PYTHON, "-m", "benchmarks", *args, env=_env())


FLOOR_TESTS = (
    # the core: messages, replies read back, the protocol, windows and their token counts, threads,
    # compaction's summarizer through litellm, and what differs between litellm releases
    "tests/test_models.py",
    "tests/test_roundtrip.py",
    "tests/test_load.py",
    "tests/test_fields.py",
    "tests/test_from_litellm.py",
    "tests/test_reply_fields.py",
    "tests/test_litellm_wire.py",
    "tests/test_protocol.py",
    "tests/test_protocol_properties.py",
    "tests/test_context.py",
    "tests/test_context_litellm.py",
    "tests/test_tokens.py",
    "tests/test_threads.py",
    "tests/test_compaction_litellm.py",
    "tests/test_litellm_changes.py",
    # the profiles, and conformance through the real litellm transformation
    "tests/test_profiles.py",
    "tests/test_rules.py",
    "tests/test_profile_properties.py",
    "tests/test_profile_litellm.py",
    "tests/test_profile_snapshot.py",
    "tests/test_oracles.py",
    "tests/test_extension_wire.py",
    "tests/conformance",
    # the streaming assembly
    "tests/test_streaming.py",
    # the stores
    "tests/stores",
    # inside llamabot (issue 39): llamabot 0.19 pins litellm below 1.82.7, so only this environment has it
    "tests/llamabot",
)
"""What ``floor`` runs: the suites the issue of the supported range names (issue 37)."""

FLOOR_LEAVES_OUT = (
    # The store suites of the database and the operating system failing: partitions and bounds, a crashed
    # server, a full disk, killed and concurrent processes, a lock held elsewhere, CI's own check of the
    # PostgreSQL run. They drive psycopg, sqlite3 and the store's error handling, which no litellm or
    # pydantic release changes, with messages the rest of the store suite already writes and reads at the
    # floor; at about a minute of the floor's three they ran twice for nothing, and kept .ci/run past its
    # eight minutes. The test command runs them, at the newest releases.
    "tests/stores/test_bounds.py",
    "tests/stores/test_outages.py",
    "tests/stores/test_processes.py",
    "tests/stores/test_failures.py",
    "tests/stores/test_ci.py",
)
"""What ``floor`` leaves out of ``FLOOR_TESTS`` (not when tests are named)."""


def floor(args: list[str]) -> int:
    """The core, the profiles and conformance, the streaming assembly and the stores (``FLOOR_TESTS`` but
    ``FLOOR_LEAVES_OUT``, or the tests named in ``args``) with litellm and pydantic at the oldest releases
    the package supports, in ``.venv-floor`` pinned by constraints-floor.txt, with a throwaway PostgreSQL
    server as ``test`` starts one. No ruff, mypy or site build: the code is the same as ``test`` checks.
    Ends with one line: the releases, the test count and the wall time."""
    started = time.monotonic()
    named = [a for a in args if not a.startswith("-") and (ROOT / a.split("::")[0]).exists()]
    selected = args if named else [*FLOOR_TESTS, *(f"--ignore={path}" for path in FLOOR_LEAVES_OUT), *args]
    with postgres_server(selected) as postgres:
        ensure_venv("[test,llamabot]", FLOOR)
        installed = time.monotonic()
        env = _env(FLOOR)
        postgres(env)
        with tempfile.TemporaryDirectory() as scratch:
            given = next((a.split("=", 1)[1] for a in args if a.startswith("--junitxml=")), None)
            report = Path(given) if given else Path(scratch) / "junit.xml"
            extra = [] if given else [f"--junitxml={report}"]
            _say(f"pytest, in {FLOOR.venv.name}")
            code = _run(FLOOR.python, "-m", "pytest", *_parallel(selected), *extra, *selected, env=env)
            counts = _junit_counts(ROOT / report)
    pins = (ROOT / FLOOR.constraints).read_text(encoding="utf-8").splitlines()
    releases = ", ".join(line for line in pins if line.startswith(("litellm==", "pydantic==")))
    done = time.monotonic()
    _say(
        f"floor ({releases}): {counts}; {_minutes(done - started)} in all (set-up "
        f"{_minutes(installed - started)}, tests {_minutes(done - installed)})"
    )
    return code


def conformance(args: list[str]) -> int:
    ensure_venv(EXTRAS["conformance"])
    return _run(PYTHON, "-m", "tests.conformance.table", *args, env=_env())


COMMANDS = {
    "run": run,
    "test": test,
    "floor": floor,
    "bench": bench,
    "conformance": conformance,
    "docs": docs,
}


def main() -> int:
    if len(sys.argv) < 2 or sys.argv[1] not in COMMANDS:
        print(__doc__, file=sys.stderr)
        return 2
    return COMMANDS[sys.argv[1]](sys.argv[2:])


if __name__ == "__main__":
    sys.exit(main())
