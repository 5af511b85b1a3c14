"""A PostgreSQL server of a test's own, which the test may crash and start again.

Started by ``scripts/postgres.sh start`` (the throwaway server the other tests use, on a free port, run as
an unprivileged user when we are root), then driven with its own ``pg_ctl``: ``crash()`` is ``pg_ctl -m
immediate stop`` (every server process quits at once, without a checkpoint, as on a power cut of the
server alone), ``shut_down()`` is ``pg_ctl -m fast stop`` (the first half of a restart), ``start()``
starts it again on the same port with the same options, and it recovers from its WAL. ``stop()`` hands it
back to ``scripts/postgres.sh stop``.
"""

from __future__ import annotations

import shlex
import subprocess
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "postgres.sh"


class ServerUnavailableError(Exception):
    """``scripts/postgres.sh start`` failed; the message is what it said."""


@dataclass
class Server:
    dsn: str
    directory: Path
    log: Path
    """Where pg_ctl's own output goes (the server's log is ``directory / "server.log"``)."""
    _bindir: str
    _user: str
    _options: str

    @classmethod
    def start_new(cls, log: Path) -> Server:
        result = subprocess.run(
            ["bash", str(SCRIPT), "start"], capture_output=True, text=True, timeout=300, check=False
        )
        if result.returncode != 0:
            raise ServerUnavailableError(" ".join(result.stderr.split()[-40:]))
        exports = dict(
            line.removeprefix("export ").split("=", 1) for line in result.stdout.splitlines() if "=" in line
        )
        dsn = shlex.split(exports["MESSAGES_TEST_POSTGRES_DSN"])[0]
        directory = Path(shlex.split(exports["MESSAGES_POSTGRES_DIR"])[0])
        bindir, user = [*(directory / "owner").read_text().splitlines(), ""][:2]
        # The options the script started it with (port, socket directory, listen address), minus the
        # data directory, which pg_ctl passes itself.
        argv = shlex.split((directory / "data" / "postmaster.opts").read_text())[1:]
        options = []
        while argv:
            word = argv.pop(0)
            if word == "-D":
                argv.pop(0)
            else:
                options.append(word)
        return cls(dsn, directory, log, bindir, user, shlex.join(options))

    def _pg_ctl(self, *args: str) -> None:
        runas = ["runuser", "-u", self._user, "--"] if self._user else []
        with self.log.open("ab") as out:
            # Output to a file, not a pipe: the server started by pg_ctl would hold a pipe open.
            subprocess.run(
                [*runas, f"{self._bindir}/pg_ctl", "-D", str(self.directory / "data"), *args],
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=out,
                timeout=180,  # beyond pg_ctl's own -t 120 (start), and its 60 s default (stop)
                check=True,
            )

    def crash(self) -> None:
        """Stop the server in immediate mode: its processes quit at once, connections drop mid-statement."""
        self._pg_ctl("-m", "immediate", "-w", "stop")

    def shut_down(self) -> None:
        """Stop the server in fast mode, as a restart does: it ends every session (sending each client a
        FATAL message), then shuts down cleanly."""
        self._pg_ctl("-m", "fast", "-w", "stop")

    def start(self) -> None:
        """Start it again, on the same port, once it has recovered and accepts connections."""
        log = str(self.directory / "server.log")
        # Up to 120 s (pg_ctl's default is 60) for crash recovery and start-up on a busy machine.
        self._pg_ctl("-w", "-t", "120", "-l", log, "-o", self._options, "start")

    def stop(self) -> None:
        subprocess.run(
            ["bash", str(SCRIPT), "stop", str(self.directory)], capture_output=True, timeout=120, check=False
        )
