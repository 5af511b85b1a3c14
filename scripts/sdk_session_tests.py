"""Run the OpenAI Agents SDK's own session tests against ``ThreadStoreSession``: the SDK's test files for
``SQLiteSession``, session limits, its compaction session and ``EncryptedSession``, first as they are, then
with every ``SQLiteSession`` swapped for ``ThreadStoreSession`` over ``SQLiteThreadStore`` and over
``AsyncSQLiteThreadStore`` (``scripts/sdk_session_adapter.py``), and compare the outcomes test by test.

    python3 scripts/sdk_session_tests.py                  # both store flavours
    python3 scripts/sdk_session_tests.py --store async    # one
    python3 scripts/sdk_session_tests.py -k pop           # pytest's -k, passed on

Not part of ``dev.py test``: the SDK's tests are in its sdist only, so this downloads it (pip, from the
package index) and builds an environment of its own in ``--workdir`` (uv; this package installed editable,
the SDK at the version ``constraints.txt`` pins, and the SDK's own test dependencies), kept for the next
run; about a minute a run after the first. Every test that passes with ``SQLiteSession`` and fails with
ours is printed with the reason ``DIFFERENCES`` gives; a failure it does not explain (or one it explains
that no longer happens) makes the script exit 1. docs/guide/openai-agents.md says what the figures are.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tarfile
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SDK_TESTS = "tests"
"""The SDK's test folder, in its sdist (not this repository's: the paths below are the SDK's)."""
TESTS = [
    f"{SDK_TESTS}/memory/test_session.py",
    f"{SDK_TESTS}/memory/test_session_limit.py",
    f"{SDK_TESTS}/memory/test_openai_responses_compaction_session.py",
    f"{SDK_TESTS}/extensions/memory/test_encrypt_session.py",
]
"""The SDK's test files run: those that test ``SQLiteSession`` and what wraps it."""

# What the SDK's tests need beyond this package and the SDK (its dev group, the part these files import).
TEST_REQUIREMENTS = [
    "pytest",
    "pytest-asyncio",
    "pytest-mock",
    "inline-snapshot",
    "fakeredis",
    "cryptography",
]

INTERNALS = "reaches into SQLiteSession's own sqlite3 connections, locks or tables"
ERROR_TEXT = "expects SQLiteSession's closed-session error (a RuntimeError naming SQLiteSession)"
CORRUPT = (
    "plants a corrupt row through SQLiteSession's connection and expects it skipped (or dropped by a pop); "
    "this session names the damaged position (CorruptDataError) and removes nothing"
)
LIMIT = (
    "expects get_items(limit=2) to cut a function_call_output from its call (openai-agents-python#4322); "
    "this session reaches back to the call"
)
NATIVE = (
    "needs a hook the SDK gives its own SQLiteSession only (type(session) is SQLiteSession, or isinstance): "
    "the compaction snapshot or EncryptedSession's authenticated pop; any other session gets the SDK's "
    "documented fallback"
)

DIFFERENCES: dict[str, str] = {
    # the SDK's memory/test_session.py
    "test_sqlite_session_close_closes_worker_thread_connections": INTERNALS,
    "test_sqlite_session_reaps_connections_from_exited_worker_threads": INTERNALS,
    "test_sqlite_session_closes_retired_connections_before_the_next_allocation": INTERNALS,
    "test_sqlite_session_keeps_connections_of_live_worker_threads": INTERNALS,
    "test_sqlite_session_file_lock_is_shared_across_instances": INTERNALS,
    "test_sqlite_session_failed_add_items_releases_write_lock": INTERNALS,
    "test_sqlite_session_failed_clear_session_rolls_back": INTERNALS,
    "test_sqlite_session_failed_pop_item_releases_write_lock": INTERNALS,
    "test_sqlite_session_rollback_failure_evicts_connection": INTERNALS,
    "test_sqlite_session_close_retries_quarantined_connection": INTERNALS,
    "test_sqlite_session_post_commit_cancellation_propagates_after_known_outcome": INTERNALS,
    "test_sqlite_session_closed_rejects_empty_add_items": ERROR_TEXT,
    "test_sqlite_session_pop_item_skips_corrupt_most_recent": CORRUPT,
    "test_sqlite_session_pop_item_returns_none_after_dropping_only_corrupt_rows": CORRUPT,
    "test_sqlite_session_get_items_limit_skips_corrupt_newest_rows": CORRUPT,
    "test_sqlite_session_get_items_session_settings_limit_skips_corrupt_rows": CORRUPT,
    # the SDK's memory/test_session_limit.py
    "test_session_limit_drops_unmatched_history_function_call_output": LIMIT,
    # the SDK's memory/test_openai_responses_compaction_session.py
    "test_settled_pop_failure_invalidates_response_chain": INTERNALS,
    "test_settled_clear_failure_invalidates_response_chain": INTERNALS,
    "test_automatic_compaction_rollback_budget": NATIVE,
    # the SDK's extensions/memory/test_encrypt_session.py
    "test_encrypted_compaction_skips_unencrypted_stored_history": NATIVE,
    "test_encrypted_pop_wrong_key_preserves_recoverable_history": NATIVE,
    "test_encrypted_pop_rechecks_authentication_after_expired_tail": NATIVE,
    "test_encrypted_pop_authentication_is_atomic_with_concurrent_mutations": NATIVE,
    "test_encrypted_pop_wrong_key_preserves_row_identity": NATIVE,
    "test_encrypted_pop_cancellation_waits_for_authentication_rollback": NATIVE,
}
"""Each test of the SDK's that passes with ``SQLiteSession`` and fails with this session, and why."""


def pinned(name: str) -> str:
    """The version ``constraints.txt`` pins ``name`` at."""
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        found = re.fullmatch(rf"{re.escape(name)}==([^\s;#]+).*", line.strip())
        if found:
            return found.group(1)
    raise SystemExit(f"constraints.txt pins no {name}")


def run(command: list[str], **kwargs: object) -> None:
    print("[sdk-tests]", " ".join(command), flush=True)
    subprocess.run(command, check=True, **kwargs)  # type: ignore[call-overload]


def prepare(workdir: Path) -> tuple[Path, Path]:
    """The SDK's unpacked sdist and the environment's python, made once in ``workdir``."""
    version = pinned("openai-agents")
    workdir.mkdir(parents=True, exist_ok=True)
    source = workdir / f"openai_agents-{version}"
    if not source.is_dir():
        run(
            [
                *(sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:"),
                *("--dest", str(workdir), f"openai-agents=={version}"),
            ]
        )
        with tarfile.open(workdir / f"openai_agents-{version}.tar.gz") as sdist:
            sdist.extractall(workdir, filter="data")
    python = workdir / "venv" / "bin" / "python"
    if not python.exists():
        uv = ROOT / ".venv" / "bin" / "uv"
        run([str(uv), "venv", "--python", sys.executable, str(workdir / "venv")])
        run(
            [
                *(str(uv), "pip", "install", "--python", str(python), "-c", str(ROOT / "constraints.txt")),
                *("-e", f"{ROOT}[openai-agents]", f"openai-agents[litellm]=={version}"),
                *("sqlalchemy", "aiosqlite", "greenlet", *TEST_REQUIREMENTS),
            ]
        )
    return source, python


def outcomes(source: Path, python: Path, store: str | None, extra: list[str]) -> dict[str, str]:
    """Each test's outcome (``passed``, ``failed``, ``skipped``), with ``SQLiteSession`` (``store`` None)
    or this session over the ``store`` flavour."""
    report = source / f"report-{store or 'sqlite-session'}.xml"
    env = dict(os.environ, LITELLM_LOCAL_MODEL_COST_MAP="True", HF_HUB_OFFLINE="1")
    command = [str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--junitxml={report}", *TESTS]
    if store is not None:
        env["MESSAGES_ADAPTER_STORE"] = store
        env["PYTHONPATH"] = str(ROOT / "scripts")
        command[3:3] = ["-p", "sdk_session_adapter"]
    print(
        "[sdk-tests]", "SQLiteSession" if store is None else f"ThreadStoreSession ({store} store)", flush=True
    )
    subprocess.run(command + extra, cwd=source, env=env, stdout=subprocess.DEVNULL, check=False)
    found: dict[str, str] = {}
    for case in ET.parse(report).iter("testcase"):
        name = f"{case.get('classname')}::{case.get('name')}"
        kinds = {child.tag for child in case}
        found[name] = (
            "failed" if kinds & {"failure", "error"} else "skipped" if "skipped" in kinds else "passed"
        )
    return found


def base(test: str) -> str:
    """The test's function name, its parameters set aside."""
    return test.rsplit("::", 1)[-1].split("[", 1)[0]


def reason(test: str) -> str | None:
    """The reason ``DIFFERENCES`` gives for ``test`` (its parameters set aside)."""
    return DIFFERENCES.get(base(test))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--store", choices=["sync", "async", "both"], default="both")
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/messages-sdk-session-tests"))
    parser.add_argument("-k", dest="keyword", help="pytest's -k, passed on")
    args = parser.parse_args()
    extra = ["-k", args.keyword] if args.keyword else []
    source, python = prepare(args.workdir)
    theirs = outcomes(source, python, None, extra)
    broken = sorted(test for test, outcome in theirs.items() if outcome == "failed")
    print(f"\n== SQLiteSession: {Counter(theirs.values())['passed']} of {len(theirs)} pass")
    for test in broken:
        print(f"   fails with SQLiteSession itself: {test}")
    status = 0
    for store in ["sync", "async"] if args.store == "both" else [args.store]:
        ours = outcomes(source, python, store, extra)
        differ = sorted(t for t, outcome in ours.items() if outcome == "failed" and theirs.get(t) == "passed")
        print(
            f"\n== ThreadStoreSession, {store} store: {Counter(ours.values())['passed']} of {len(ours)} pass"
        )
        by_reason = Counter(reason(test) for test in differ)
        for why, count in sorted(by_reason.items(), key=lambda item: -item[1]):
            print(f"   {count:3d}  {why or 'NOT EXPLAINED'}")
        for test in differ:
            if reason(test) is None:
                print(f"   not explained: {test}")
                status = 1
        # A reason is stale when no case of its test (any parameters) differs any more.
        differing = {base(test) for test in differ}
        explained_but_passing = sorted(
            t
            for t, outcome in ours.items()
            if outcome == "passed" and reason(t) is not None and base(t) not in differing and not extra
        )
        for test in explained_but_passing:
            print(f"   passes now (drop it from DIFFERENCES): {test}")
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
