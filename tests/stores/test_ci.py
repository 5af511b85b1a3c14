"""How CI makes sure the PostgreSQL store tests ran: .ci/check_junit.py fails a run whose server started but
whose PostgreSQL tests skipped; the skip reason says why no server could start; scripts/postgres.sh leaves
no server running when its start fails half-way."""

from __future__ import annotations

import glob
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.stores._backends import UNAVAILABLE_VARIABLE, no_server_reason

ROOT = Path(__file__).resolve().parents[2]


def junit(tmp_path: Path, cases: list[tuple[str, str | None]], status: str | None = None) -> Path:
    """A JUnit report of ``(name, skip message or None)`` test cases, with the run's ``postgres_status``."""
    body = (
        ""
        if status is None
        else (f'<properties><property name="postgres_status" value="{status}"/></properties>')
    )
    body += "".join(
        f'<testcase classname="tests.stores.test_contract" name="{name}">'
        + ("" if skip is None else f'<skipped type="pytest.skip" message="{skip}"/>')
        + "</testcase>"
        for name, skip in cases
    )
    path = tmp_path / "junit.xml"
    path.write_text(f'<testsuites><testsuite name="pytest">{body}</testsuite></testsuites>')
    return path


def check(report: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(ROOT / ".ci" / "check_junit.py"), str(report), *flags],
        capture_output=True,
        text=True,
        check=False,
    )


def test_the_junit_check_fails_when_the_server_started_but_a_postgres_test_skipped(tmp_path):
    report = junit(
        tmp_path,
        [("test_a[memory]", None), ("test_a[sqlite]", None), ("test_a[postgres]", "no PostgreSQL server")],
    )
    result = check(report, "--postgres-started")
    assert result.returncode == 1
    assert "PostgreSQL store tests: 0 of 1 ran" in result.stdout
    assert "test_a[postgres] was skipped (no PostgreSQL server)" in result.stderr
    # Without a server, the same report passes: the skips say why.
    assert check(report).returncode == 0


@pytest.mark.parametrize("status", ["started", "configured"])
def test_the_junit_check_reads_from_the_report_that_a_server_was_up(tmp_path, status):
    report = junit(tmp_path, [("test_a[sqlite]", None), ("test_a[postgres]", "no PostgreSQL server")], status)
    result = check(report)
    assert result.returncode == 1
    assert f"PostgreSQL server for this run: {status}" in result.stdout
    assert "test_a[postgres] was skipped (no PostgreSQL server)" in result.stderr


@pytest.mark.parametrize("status", ["unavailable", "not started", "unknown"])
def test_the_junit_check_lets_postgres_tests_skip_when_no_server_was_up(tmp_path, status):
    report = junit(tmp_path, [("test_a[sqlite]", None), ("test_a[postgres]", "no PostgreSQL server")], status)
    result = check(report)
    assert result.returncode == 0, result.stderr


def test_the_junit_check_fails_a_run_where_no_test_of_a_required_package_ran(tmp_path):
    # The floor's leg is the one environment with llamabot: its tests skipping there (llamabot missing)
    # must fail CI, not pass as skips.
    cases = "".join(
        f'<testcase classname="{classname}" name="test_{n}">{skip}</testcase>'
        for n, (classname, skip) in enumerate(
            [
                ("tests.test_models", ""),
                ("tests.llamabot.test_bots", '<skipped message="llamabot is not installed"/>'),
            ]
        )
    )
    report = tmp_path / "junit.xml"
    report.write_text(f'<testsuites><testsuite name="pytest">{cases}</testsuite></testsuites>')
    result = check(report, "--ran", "tests.llamabot")
    assert result.returncode == 1
    assert "tests.llamabot: 0 of 1 ran" in result.stdout
    assert "no test of tests.llamabot ran (1 collected, all skipped)" in result.stderr
    report.write_text(report.read_text().replace('<skipped message="llamabot is not installed"/>', ""))
    assert check(report, "--ran", "tests.llamabot").returncode == 0
    assert check(report, "--ran", "tests.nothing").returncode == 1


def test_a_run_records_the_postgres_status_dev_py_gave_it_in_its_junit_report(tmp_path):
    report = tmp_path / "junit.xml"
    env = {**os.environ, "MESSAGES_POSTGRES_STATUS": "started"}
    test = "tests/stores/test_ci.py::test_the_skip_reason_says_why_no_server_could_start"
    subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", test, f"--junitxml={report}"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        check=True,
        timeout=300,
    )
    properties = {p.get("name"): p.get("value") for p in ET.parse(report).getroot().iter("property")}
    assert properties["postgres_status"] == "started"
    # And the check reads it: a server was up, so the report must hold a PostgreSQL test that ran.
    result = check(report)
    assert "PostgreSQL server for this run: started" in result.stdout
    assert "no PostgreSQL test was collected" in result.stderr


def load_dev_py():
    spec = importlib.util.spec_from_file_location("dev", ROOT / "scripts" / "dev.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ([], True),
        (["-q", "-k", "roundtrip"], True),
        (["tests"], True),
        (["tests/stores/test_contract.py::test_append", "-x"], True),
        (["tests/test_models.py"], False),
        (["-q", "tests/test_models.py", "tests/test_context.py"], False),
        (["tests/test_models.py", "tests/stores"], True),
    ],
)
def test_dev_py_starts_postgres_only_when_the_tests_asked_for_may_use_it(args, expected):
    assert load_dev_py()._selects_store_tests(args) is expected


def test_the_junit_check_passes_when_every_postgres_test_ran(tmp_path):
    report = junit(tmp_path, [("test_a[sqlite]", None), ("test_a[postgres]", None), ("test_b", "other")])
    result = check(report, "--postgres-started")
    assert result.returncode == 0, result.stderr
    assert "PostgreSQL store tests: 1 of 1 ran" in result.stdout


def test_the_junit_check_fails_when_no_test_ran_or_no_postgres_test_was_collected(tmp_path):
    assert check(junit(tmp_path, [("test_a[sqlite]", "skipped")])).returncode == 1
    result = check(junit(tmp_path, [("test_a[sqlite]", None)]), "--postgres-started")
    assert result.returncode == 1
    assert "no PostgreSQL test was collected" in result.stderr


def test_the_skip_reason_says_why_no_server_could_start(monkeypatch):
    monkeypatch.delenv(UNAVAILABLE_VARIABLE, raising=False)
    assert no_server_reason().startswith("no PostgreSQL server configured: set MESSAGES_TEST_POSTGRES_DSN")
    monkeypatch.setenv(UNAVAILABLE_VARIABLE, "[postgres] initdb failed:\n  disk full ")
    assert no_server_reason() == (
        "no PostgreSQL server: scripts/postgres.sh could not start one ([postgres] initdb failed: disk full)"
    )


def server_binaries() -> bool:
    if shutil.which("pg_ctl") and shutil.which("initdb"):
        return True
    return any(os.access(f"{d}/pg_ctl", os.X_OK) for d in glob.glob("/usr/lib/postgresql/*/bin"))


@pytest.mark.skipif(not server_binaries(), reason="no PostgreSQL server binaries (initdb, pg_ctl) here")
def test_postgres_sh_stops_its_server_when_createdb_fails():
    # The database "postgres" exists in every new cluster: createdb of it fails after the server started.
    # The script's directory goes in one the server's user can reach (as root it runs as `postgres`).
    tmp_path = Path(tempfile.mkdtemp(prefix="messages-test-"))
    tmp_path.chmod(0o755)
    try:
        check_createdb_failure(tmp_path)
    finally:
        shutil.rmtree(tmp_path, ignore_errors=True)


def check_createdb_failure(tmp_path: Path) -> None:
    env = {**os.environ, "TMPDIR": str(tmp_path), "MESSAGES_POSTGRES_DB": "postgres"}
    result = subprocess.run(
        ["bash", str(ROOT / "scripts" / "postgres.sh"), "start"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert result.returncode != 0
    assert "createdb postgres failed" in result.stderr
    assert "export" not in result.stdout
    assert list(tmp_path.glob("messages-pg.*")) == []  # stopped and removed
    servers = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True, check=True).stdout
    assert str(tmp_path) not in servers
