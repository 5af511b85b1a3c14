"""CI's check of the JUnit report: tests really ran, and the PostgreSQL store tests ran whenever a server was
started for them.

    python3 .ci/check_junit.py REPORT [--postgres-started] [--ran PACKAGE ...]

Exit status 1, saying why, when no test ran, or when a PostgreSQL server was up and any PostgreSQL test was
skipped (or none was collected): with a server up, a skip there means the suite did not test what it claims
to, whatever the reason given. Whether a server was up, the report itself says: `scripts/dev.py test`
passes its PostgreSQL status to pytest (MESSAGES_POSTGRES_STATUS: `started` when it started one,
`configured` when MESSAGES_TEST_POSTGRES_DSN named one), and tests/conftest.py records it as the test
suite's `postgres_status` property. ``--postgres-started`` says so without the property. ``--ran PACKAGE``
(``tests.llamabot``) fails the run when no test of that package ran: a framework missing from the environment
skips its tests, and the floor's leg is the one environment with llamabot.
"""

from __future__ import annotations

import argparse
import sys
import xml.etree.ElementTree as ET


def is_postgres(case: ET.Element) -> bool:
    """A test of the PostgreSQL store: one parametrized for it (``[postgres]``), or named for it."""
    return "postgres" in case.get("name", "").lower()


SERVER_UP = ("started", "configured")
"""The ``postgres_status`` values that mean a PostgreSQL server was there for the tests."""


def postgres_status(root: ET.Element) -> str | None:
    """The ``postgres_status`` property the run recorded, if any."""
    for prop in root.iter("property"):
        if prop.get("name") == "postgres_status":
            return prop.get("value")
    return None


def check(report: str, postgres_started: bool, ran: tuple[str, ...] = ()) -> list[str]:
    """The problems with ``report``, after printing its figures."""
    root = ET.parse(report).getroot()
    status = postgres_status(root)
    print(f"[ci] PostgreSQL server for this run: {status or 'not recorded'}")
    postgres_started = postgres_started or status in SERVER_UP
    cases = list(root.iter("testcase"))
    skipped = [case for case in cases if case.find("skipped") is not None]
    print(f"[ci] {len(cases)} tests collected, {len(cases) - len(skipped)} ran, {len(skipped)} skipped")
    postgres = [case for case in cases if is_postgres(case)]
    postgres_skipped = [case for case in postgres if case.find("skipped") is not None]
    print(f"[ci] PostgreSQL store tests: {len(postgres) - len(postgres_skipped)} of {len(postgres)} ran")
    problems = []
    if len(cases) == len(skipped):
        problems.append("no test ran")
    if postgres_started:
        if not postgres:
            problems.append("a PostgreSQL server was started, but no PostgreSQL test was collected")
        for case in postgres_skipped[:5]:
            element = case.find("skipped")
            reason = element.get("message", "") if element is not None else ""
            problems.append(
                f"a PostgreSQL server was started, but {case.get('classname')}::{case.get('name')} was "
                f"skipped ({reason})"
            )
        if len(postgres_skipped) > 5:
            problems.append(f"... and {len(postgres_skipped) - 5} more PostgreSQL tests skipped")
    for package in ran:
        of_package = [case for case in cases if case.get("classname", "").startswith(f"{package}.")]
        done = [case for case in of_package if case.find("skipped") is None]
        print(f"[ci] {package}: {len(done)} of {len(of_package)} ran")
        if not done:
            problems.append(f"no test of {package} ran ({len(of_package)} collected, all skipped)")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("report")
    parser.add_argument("--postgres-started", action="store_true")
    parser.add_argument("--ran", action="append", default=[], metavar="PACKAGE")
    args = parser.parse_args(argv)
    problems = check(args.report, args.postgres_started, tuple(args.ran))
    for problem in problems:
        print(f"[ci] FAILED: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
