"""Run a Python program as ``python PATH ARGS`` would, in a process forked from one that has already
imported litellm and the package (a zygote), instead of a new interpreter that imports them again.

Each run is still a process of its own: it gets the environment, the working directory and the arguments
it is given, its own standard output and error, and its exit status; nothing it does reaches the zygote or
the next run. What it saves is the start-up: importing litellm takes seconds of CPU in every new
interpreter (docs/litellm.md, 'import litellm fetches the model cost map'), and the examples' tests start
a dozen of them. A program that reads what it imports from the environment at import time sees the
environment the zygote was started with: the suite's own (tests/conftest.py sets the offline variables
before anything imports litellm), which is also what a new interpreter started by a test inherits.

    zygote = Zygote.start(preload=["litellm", "messages"])
    done = zygote.run("examples/tool_loop.py", ["--model", "..."], env=..., cwd=..., timeout=300)
    done.returncode, done.stdout, done.stderr

Run as ``python -m tests._zygote MODULE...``, it is the zygote itself: it imports the modules, then reads
one JSON request per line on its standard input and answers each with one JSON line once the run ended.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

ROOT = Path(__file__).resolve().parent.parent


@dataclass
class Zygote:
    """A running zygote; ``run`` forks one program from it at a time."""

    process: subprocess.Popen[str]

    @classmethod
    def start(cls, preload: Iterable[str]) -> Zygote:
        process = subprocess.Popen(
            [sys.executable, "-m", "tests._zygote", *preload],
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert process.stdout is not None
        ready = process.stdout.readline()
        if ready.strip() != "ready":
            raise RuntimeError(f"the zygote did not start (it said {ready!r}, exit status {process.poll()})")
        return cls(process)

    def run(
        self,
        path: str | os.PathLike[str],
        args: list[str],
        *,
        env: Mapping[str, str],
        cwd: str | os.PathLike[str] | None = None,
        timeout: float = 300,
    ) -> subprocess.CompletedProcess[str]:
        """``python PATH ARGS`` with ``env`` as its whole environment, in ``cwd``; killed after
        ``timeout`` seconds (exit status -9, as ``subprocess.run`` would leave it)."""
        assert self.process.stdin is not None
        assert self.process.stdout is not None
        request = {
            "path": str(path),
            "args": args,
            "env": dict(env),
            "cwd": str(cwd or os.getcwd()),
            "timeout": timeout,
        }
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        answer = self.process.stdout.readline()
        if not answer:
            raise RuntimeError(f"the zygote ended (exit status {self.process.wait()}) during {path}")
        done = json.loads(answer)
        return subprocess.CompletedProcess(
            [sys.executable, str(path), *args], done["returncode"], done["stdout"], done["stderr"]
        )

    def close(self) -> None:
        if self.process.poll() is None:
            assert self.process.stdin is not None
            self.process.stdin.close()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()


# -- the zygote's side ----------------------------------------------------------------------------------


def _serve(preload: list[str], requests: IO[str], answers: IO[str]) -> None:
    for name in preload:
        importlib.import_module(name)
    answers.write("ready\n")
    answers.flush()
    for line in requests:
        answers.write(json.dumps(_fork_and_wait(json.loads(line))) + "\n")
        answers.flush()


def _fork_and_wait(request: dict[str, Any]) -> dict[str, Any]:
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        pid = os.fork()
        if pid == 0:  # the program's own process
            _become(request, out.fileno(), err.fileno())
        deadline = time.monotonic() + float(request["timeout"])
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                code = os.waitstatus_to_exitcode(status)
                break
            if time.monotonic() > deadline:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                code = -signal.SIGKILL
                break
            time.sleep(0.005)
        out.seek(0)
        err.seek(0)
        return {
            "returncode": code,
            "stdout": out.read().decode("utf-8", "replace"),
            "stderr": err.read().decode("utf-8", "replace"),
        }


def _become(request: dict[str, Any], out: int, err: int) -> None:
    """In the forked child: take the program's environment, directory, arguments and streams, run it as
    ``__main__``, and end with its exit status (never returning into the zygote's loop)."""
    code = 1
    try:
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.dup2(out, 1)
        os.dup2(err, 2)
        sys.stdin = open(0, closefd=False)  # noqa: SIM115 - the process's own stdin, for its lifetime
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        path = os.path.abspath(request["path"])
        sys.argv = [path, *request["args"]]
        sys.path[0] = os.path.dirname(path)  # as `python PATH` puts the script's folder first
        import runpy

        try:
            runpy.run_path(path, run_name="__main__")
            code = 0
        except SystemExit as exit_:
            code = _exit_status(exit_.code)
        except BaseException:
            import traceback

            traceback.print_exc()
            code = 1
        try:
            import atexit

            atexit._run_exitfuncs()
        except BaseException:  # as the interpreter does, an exit function's failure is only reported
            import traceback

            traceback.print_exc()
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(BaseException):
                stream.flush()
        os._exit(code)


def _exit_status(code: object) -> int:
    """The status ``sys.exit(code)`` gives a process: 0 for None, the int, or 1 after printing a message."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


if __name__ == "__main__":
    _serve(sys.argv[1:], sys.stdin, sys.stdout)
