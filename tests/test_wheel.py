"""The package as `pip install llm-messages` gives it: the sdist and the wheel built from this tree, the wheel
installed into a fresh virtual environment outside it, and the example bot, `messages check` (and
`messages quirks` where it exists) and every public module run from there.

The build uses `python -m build` with the backend installed in the test environment (`--no-isolation`, so
no build environment is downloaded); the install uses uv, which resolves the wheel's own dependency
metadata like pip does, in seconds rather than over a minute. Every command runs with the temporary folder
as its working directory and no PYTHONPATH, so nothing of the source tree can be imported by accident; a
test checks that `messages` comes from the fresh environment.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tarfile
import zipfile
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet

try:
    import fcntl
except ImportError:  # not POSIX: each worker builds and installs its own
    fcntl = None  # type: ignore[assignment]

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.slow


@dataclass
class Installed:
    wheel: Path
    sdist: Path
    unpacked_sdist: Path
    """The sdist, extracted: the examples run from here, as a user who downloaded it would run them."""
    python: Path
    bin: Path
    work: Path
    """An empty working directory outside the source tree."""

    def env(self) -> dict[str, str]:
        # PYTHONDONTWRITEBYTECODE (set on the CI machines) dropped too: a user's environment writes the
        # byte code of what it imports, as pip compiles it at install, so only the first process here that
        # imports litellm compiles it (13 s), not every one.
        drop = ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME", "PYTHONDONTWRITEBYTECODE")
        env = {k: v for k, v in os.environ.items() if k not in drop and not k.endswith("_API_KEY")}
        env["PATH"] = f"{self.bin}{os.pathsep}{env.get('PATH', '')}"
        env.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        env.setdefault("HF_HUB_OFFLINE", "1")
        return env

    def run(
        self, *argv: str | Path, check: bool = True, stdin: str | None = None
    ) -> subprocess.CompletedProcess[str]:
        result = subprocess.run(
            [str(a) for a in argv],
            cwd=self.work,
            env=self.env(),
            input=stdin,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        if check:
            assert result.returncode == 0, (
                f"{argv} failed ({result.returncode}):\n{result.stdout}\n{result.stderr}"
            )
        return result


def _step(argv: list[str | Path], cwd: Path) -> None:
    result = subprocess.run([str(a) for a in argv], cwd=cwd, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, f"{argv} failed ({result.returncode}):\n{result.stdout}\n{result.stderr}"


def fresh_environment(base: Path, *requirements: str | Path) -> Path:
    """The python of a new virtual environment under ``base`` with ``requirements`` installed by uv, pinned
    by constraints.txt."""
    venv = base / "venv"
    _step([sys.executable, "-m", "venv", "--without-pip", venv], base)
    bin_dir = venv / ("Scripts" if os.name == "nt" else "bin")
    python = bin_dir / ("python.exe" if os.name == "nt" else "python")
    constraints = ROOT / "constraints.txt"
    _step(
        [
            sys.executable,
            "-m",
            "uv",
            "pip",
            "install",
            "-q",
            "--python",
            python,
            "-c",
            constraints,
            *requirements,
        ],
        base,
    )
    return python


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    """An exclusive lock on ``path`` (created) for the block: one process at a time, across the workers."""
    with path.open("a") as handle:
        if fcntl is not None:
            fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            if fcntl is not None:
                fcntl.flock(handle, fcntl.LOCK_UN)


@pytest.fixture(scope="session")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    """The sdist and the wheel, built once per run, and the wheel installed once per run: under
    pytest-xdist the workers share them (the first to come builds, under a lock, in the run's common
    temporary folder), so the wheel is built once and litellm's modules are compiled once, by the first
    process that imports them there. Each worker gets its own empty working directory."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    root = tmp_path_factory.getbasetemp()
    if worker is not None and fcntl is not None:
        root = root.parent  # the run's folder, shared by its workers
    base = root / "wheel"
    assert ROOT not in base.parents
    with _locked(root / "wheel.lock"):
        ready = base / "ready.json"
        if not ready.exists():
            base.mkdir(exist_ok=True)
            dist = base / "dist"
            _step([sys.executable, "-m", "build", "--no-isolation", "--outdir", dist, ROOT], base)
            (wheel,) = dist.glob("*.whl")
            (sdist,) = dist.glob("*.tar.gz")
            with tarfile.open(sdist) as archive:
                archive.extractall(base / "sdist", filter="data")
            (unpacked,) = (base / "sdist").iterdir()
            # The [hypothesis] extra: messages.strategies is a public module, and needs it; so does
            # messages.integrations.autogen, [autogen], and messages.integrations.agent_framework,
            # [agent-framework].
            python = fresh_environment(base, f"{wheel}[hypothesis,autogen,agent-framework]")
            paths = {"wheel": wheel, "sdist": sdist, "unpacked": unpacked, "python": python}
            ready.write_text(json.dumps({k: str(v) for k, v in paths.items()}))
        paths = {k: Path(v) for k, v in json.loads(ready.read_text()).items()}
    work = base / f"work-{worker or 'main'}"
    work.mkdir()
    python = paths["python"]
    return Installed(paths["wheel"], paths["sdist"], paths["unpacked"], python, python.parent, work)


def test_the_wheel_and_the_sdist_hold_the_package(installed):
    with zipfile.ZipFile(installed.wheel) as wheel:
        names = set(wheel.namelist())
    sources = {p.relative_to(ROOT).as_posix() for p in (ROOT / "messages").rglob("*.py")}
    assert sources <= names, f"modules missing from the wheel: {sorted(sources - names)}"
    assert "messages/py.typed" in names  # typed for users' type checkers
    assert "messages/quirks.toml" in names  # the quirk catalog's data (messages.quirks reads it)
    assert any(name.endswith(".dist-info/licenses/LICENSE") for name in names), "no LICENSE in the wheel"
    assert not any(name.startswith(("tests/", "benchmarks/")) for name in names)
    with tarfile.open(installed.sdist) as archive:
        sdist = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    assert {"README.md", "CHANGELOG.md", "LICENSE", "pyproject.toml", "examples/tool_loop.py"} <= sdist
    assert not any(name.startswith(".venv") for name in sdist)


def test_messages_comes_from_the_fresh_environment(installed):
    out = installed.run(
        installed.python, "-c", "import messages, sys; print(messages.__file__); print(sys.prefix)"
    )
    module, prefix = out.stdout.splitlines()
    assert Path(module).is_relative_to(prefix)
    assert not Path(module).is_relative_to(ROOT)


def test_the_example_bot_runs_offline_from_the_installed_wheel(installed):
    example = installed.unpacked_sdist / "examples" / "tool_loop.py"
    out = installed.run(installed.python, example).stdout
    assert "user: What's the weather and the time in Paris and Tokyo?" in out
    assert sum(line.startswith("assistant -> ") for line in out.splitlines()) == 4
    assert "2 requests to the stand-in provider" in out


def test_messages_check_runs_from_the_installed_wheel(installed):
    orphan = [
        {"role": "user", "content": "hi"},
        {"role": "tool", "tool_call_id": "call_1", "content": "42"},
    ]
    broken = installed.work / "broken.json"
    broken.write_text(json.dumps(orphan))
    result = installed.run(
        installed.bin / "messages", "check", "--model", "openai/gpt-4o", broken, check=False
    )
    assert result.returncode == 1, result.stderr
    assert "call_1" in result.stdout
    assert "[1]" in result.stdout or "message 1" in result.stdout
    good = installed.work / "good.json"
    good.write_text(json.dumps(orphan[:1]))
    result = installed.run(installed.bin / "messages", "check", "--model", "openai/gpt-4o", good, check=False)
    assert result.returncode == 0, result.stdout + result.stderr


def test_messages_quirks_runs_from_the_installed_wheel(installed):
    helped = installed.run(installed.bin / "messages", "quirks", "--help", check=False)
    if helped.returncode != 0:
        pytest.skip(
            f"`messages quirks --help` fails in this version (no such subcommand yet): {helped.stderr[-200:]}"
        )
    result = installed.run(installed.bin / "messages", "quirks")
    from messages.quirks import ROWS

    assert len(result.stdout.splitlines()) == len(ROWS) + 1  # a line per row, read from the shipped data


def public_modules() -> list[str]:
    """Every module of the package whose dotted name has no part starting with ``_``."""
    modules = []
    for path in sorted((ROOT / "messages").rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        if not any(part.startswith("_") for part in parts):
            modules.append(".".join(parts))
    return modules


# Installed with its own extra in an environment of its own (test_the_openai_agents_extra_...): the SDK
# depends on mcp, which the main fresh environment checks it does without.
OWN_ENVIRONMENT = {"messages.integrations.openai_agents"}

NOT_INSTALLED = {"messages.integrations.llamabot": "llamabot"}
"""Public modules whose framework the wheel's test environment leaves out: llamabot 0.19 pins litellm below
the newest (tests/llamabot runs them where llamabot is installed)."""


def test_every_public_module_imports_from_the_installed_wheel(installed):
    modules = [name for name in public_modules() if name not in OWN_ENVIRONMENT and name not in NOT_INSTALLED]
    assert {"messages", "messages.cli", "messages.strategies", "messages.stores.sqlite"} <= set(modules)
    code = "import importlib, sys\nprint(len([importlib.import_module(name) for name in sys.argv[1:]]))"
    out = installed.run(installed.python, "-c", code, *modules).stdout
    assert out.strip() == str(len(modules))


def test_a_module_whose_framework_is_not_installed_says_how_to_install_it(installed):
    for module, framework in NOT_INSTALLED.items():
        code = (
            f"import importlib.util; assert importlib.util.find_spec({framework!r}) is None; import {module}"
        )
        result = subprocess.run([installed.python, "-c", code], capture_output=True, text=True, check=False)
        assert result.returncode == 1
        assert f"pip install 'llm-messages[{framework}]'" in result.stderr


_TOOLS_CALL = """
import importlib.util, litellm
from messages import AIMessage, ToolCall
from messages.testing import StandInServer, scripted
assert importlib.util.find_spec("mcp") is None, "mcp is installed here"
tools = [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}]
reply = AIMessage(tool_calls=[ToolCall(id="call_1", name="get_weather", arguments={"city": "Paris"})])
for model in ("openai/gpt-4o-mini", "anthropic/claude-sonnet-4-5", "gemini/gemini-2.5-flash"):
    with StandInServer(scripted(reply)) as server:
        response = litellm.completion(
            model=model, messages=[{"role": "user", "content": "Weather?"}], tools=tools,
            **server.completion_kwargs(model),
        )
        assert server.last_body(), model
    print(model, response.choices[0].message.tool_calls[0].function.name)
"""


def test_litellm_completion_takes_tools_in_the_installed_environment_without_mcp(installed):
    # The package no longer depends on litellm[mcp] (issue 25: its mcp>=2.3 breaks autogen-ext's MCP
    # tools); the fresh environment is resolved from the wheel's own metadata, so mcp is absent here
    # unless something the package needs requires it, and the script checks that it is.
    out = installed.run(installed.python, "-c", _TOOLS_CALL).stdout.splitlines()
    assert out == [
        "openai/gpt-4o-mini get_weather",
        "anthropic/claude-sonnet-4-5 get_weather",
        "gemini/gemini-2.5-flash get_weather",
    ]


def test_the_autogen_extra_installs_beside_autogens_mcp_tools(installed, tmp_path):
    # autogen-ext 0.7.5's MCP tools need mcp 1.x (they fail to import with mcp 2.x, which autogen-ext's own
    # bound admits); with litellm[mcp], which wanted mcp>=2.3, the two could not be installed together.
    python = fresh_environment(tmp_path, f"{installed.wheel}[autogen]", "autogen-ext[mcp]", "mcp<2")
    code = (
        "import importlib.metadata as m, autogen_ext.tools.mcp, messages.integrations.autogen; "
        "print(m.version('mcp').split('.')[0], m.version('autogen-ext'))"
    )
    out = installed.run(python, "-c", code).stdout.split()
    assert out == ["1", "0.7.5"]


_AGENT_FRAMEWORK_HISTORY = """
import asyncio, importlib.metadata as m, sys
from agent_framework import Message
from messages import SQLiteThreadStore
from messages.integrations.agent_framework import ThreadStoreHistoryProvider

async def main():
    provider = ThreadStoreHistoryProvider(SQLiteThreadStore(sys.argv[1]))
    await provider.save_messages("s1", [Message("user", ["hi"]), Message("assistant", ["hello"])])
    print([m.text for m in await provider.get_messages("s1")], m.version("agent-framework-core"))

asyncio.run(main())
"""


def test_the_agent_framework_extra_installs_alone_and_keeps_a_history(installed, tmp_path):
    python = fresh_environment(tmp_path, f"{installed.wheel}[agent-framework]")
    out = installed.run(python, "-c", _AGENT_FRAMEWORK_HISTORY, tmp_path / "history.db").stdout.strip()
    assert out == "['hi', 'hello'] 1.23.0"


_AGENTS_SESSION = """
import asyncio, importlib.metadata as m, sys
from messages import SQLiteThreadStore
from messages.integrations.openai_agents import ThreadStoreSession

async def main():
    session = ThreadStoreSession("s1", SQLiteThreadStore(sys.argv[1]))
    await session.add_items([
        {"role": "user", "content": "hi"},
        {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c1", "output": "ok"},
    ])
    print(len(await session.get_items(limit=1)), (await session.pop_item())["type"])
    print(m.version("openai-agents"), m.version("mcp").split(".")[0])

asyncio.run(main())
"""


def test_the_openai_agents_extra_installs_alone_and_keeps_a_session(installed, tmp_path):
    python = fresh_environment(tmp_path, f"{installed.wheel}[openai-agents]")
    out = installed.run(python, "-c", _AGENTS_SESSION, tmp_path / "sessions.db").stdout.split()
    # The newest item is a result: the limited read reaches back to its call. mcp (the SDK's) is pinned
    # below 2 by constraints.txt, beside autogen-ext's MCP tools.
    assert out == ["2", "function_call_output", "0.24.0", "1"]


# --- beside the frameworks that ship litellm (issue 37) ---------------------------------------------------
#
# A framework's users add this package to a project that already pins the framework: if the two ranges of
# litellm (or of pydantic, or of anything else) do not meet, the installer refuses the pair and those users
# cannot have the package at all. Each case asks a real resolver to resolve the wheel built from this tree
# beside one framework, from the package index, for Python 3.11, and fails naming the framework and the
# resolver's own explanation when it cannot. The resolver is uv's (`uv pip compile`, the same metadata and
# rules as pip's): pip 23.2 backtracked for over ten minutes on google-adk[extensions] here and then tried
# to build an old sdist, where uv answers in seconds. The resolutions run in parallel.

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


def resolve(wheel: Path, requirement: str, folder: Path) -> subprocess.CompletedProcess[str]:
    """The resolution of ``wheel`` beside ``requirement`` (nothing installed): the pinned requirements it
    chose in ``folder / "resolved.txt"``."""
    folder.mkdir()
    (folder / "requirements.in").write_text(f"llm-messages @ {wheel.as_uri()}\n{requirement}\n")
    return subprocess.run(
        [
            *(sys.executable, "-m", "uv", "pip", "compile", "--quiet", "--python-version", "3.11"),
            *("requirements.in", "--output-file", "resolved.txt"),
        ],
        cwd=folder,
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
    folders = {name: tmp_path / name for name in FRAMEWORKS}
    with ThreadPoolExecutor(max_workers=len(FRAMEWORKS)) as pool:
        results = dict(
            zip(
                FRAMEWORKS,
                pool.map(lambda n: resolve(installed.wheel, FRAMEWORKS[n], folders[n]), FRAMEWORKS),
                strict=True,
            )
        )
    refused = {
        name: (result.stderr.strip().splitlines() or ["(no output)"])[-12:]
        for name, result in results.items()
        if result.returncode != 0
    }
    assert not refused, "the package cannot be installed beside: " + "; ".join(
        f"{FRAMEWORKS[name]} ({' / '.join(lines)})" for name, lines in refused.items()
    )
    for name, folder in folders.items():
        resolved = (folder / "resolved.txt").read_text()
        pins = (line.split("==", 1) for line in resolved.splitlines() if "==" in line and line[0] != "#")
        chosen = {key.strip().lower(): value.split()[0] for key, value in pins}
        assert "llm-messages" in resolved, name
        assert chosen["litellm"] in declared("litellm"), (name, chosen["litellm"])
        assert chosen["pydantic"] in declared("pydantic"), (name, chosen["pydantic"])
