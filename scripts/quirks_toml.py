#!/usr/bin/env python3
"""Write the quirk catalog's data file, messages/quirks.toml, from a catalog held as Python data.

Until issue 32 the catalog was Python (``ROWS = (Quirk(number=1, ...), ...)`` in messages/quirks.py); it
is now the TOML file that messages/quirks.py loads. A branch begun before that change may still edit the
Python rows: this script carries such an edit over into the TOML.

    python3 scripts/quirks_toml.py --from BRANCH --rows 71     # row 71 as BRANCH's messages/quirks.py has it
    python3 scripts/quirks_toml.py --from old_quirks.py        # every row of a Python catalog file
    python3 scripts/quirks_toml.py                             # rewrite the TOML as this script lays it out

``--from`` names a git revision (its messages/quirks.py is read) or a Python file; without it the rows
come from messages/quirks.toml itself. ``--rows`` takes only those rows from the source and keeps the
others as messages/quirks.toml has them; rows the file does not have yet are added in number order. The
result is checked to read back (tomllib) as exactly the rows it was written from, then written to
messages/quirks.toml (``--stdout`` prints it instead). Standard library only.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
TARGET = ROOT / "messages" / "quirks.toml"
FIELDS = ("number", "providers", "title", "constraint", "errors", "sources", "litellm", "also", "evidence")
"""The keys of a row, in the order they are written (``messages.quirks.Quirk``'s fields)."""
WIDTH = 104
"""Where the text of a long string is wrapped (continuation lines start with four spaces)."""

HEADER = """\
# The quirk catalog: what in a message list each provider (or litellm's route to it) rejects or changes.
#
# messages/quirks.py loads this file (messages.quirks.ROWS); `messages quirks` prints it, the provider
# profiles cite its rows ("quirk 30"), and the documentation site renders one entry per row. Each
# [[quirk]] is one row, in number order; a number is never given to another quirk. The keys are the
# fields of messages.quirks.Quirk (their docstrings say what each holds); tests/test_quirks.py checks
# the schema. Long texts are TOML multi-line strings whose lines end with a backslash: the line break and
# the next line's indent are not part of the text.
"""


def _python_rows(source: str) -> list[dict[str, Any]]:
    """The rows of a Python catalog: a file path, or a git revision whose messages/quirks.py is read."""
    path = Path(source)
    if path.is_file():
        text = path.read_text(encoding="utf-8")
    else:
        shown = subprocess.run(
            ["git", "show", f"{source}:messages/quirks.py"], cwd=ROOT, capture_output=True, text=True
        )
        if shown.returncode != 0:
            sys.exit(f"{source} is neither a file nor a git revision with messages/quirks.py: {shown.stderr}")
        text = shown.stdout
    if "ROWS: tuple[Quirk, ...] = (" not in text:
        sys.exit(f"{source}: no Python rows (ROWS = (Quirk(...), ...)): a quirks.py that reads the TOML?")
    with tempfile.TemporaryDirectory() as scratch:
        module_path = Path(scratch) / "python_quirk_catalog.py"
        module_path.write_text(text, encoding="utf-8")
        spec = importlib.util.spec_from_file_location("python_quirk_catalog", module_path)
        assert spec is not None
        assert spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # dataclasses look their module up while the class is made
        spec.loader.exec_module(module)
    rows = []
    for quirk in module.ROWS:
        row = {name: getattr(quirk, name) for name in FIELDS}
        rows.append({k: list(v) if isinstance(v, tuple) else v for k, v in row.items()})
    return rows


def _toml_rows(path: Path) -> list[dict[str, Any]]:
    return list(tomllib.loads(path.read_text(encoding="utf-8"))["quirk"])


def _basic(text: str) -> str:
    """A TOML basic string (JSON's escapes are TOML's)."""
    return json.dumps(text, ensure_ascii=False)


def _multiline(text: str) -> str:
    """A TOML multi-line basic string whose lines end with a backslash (the text has no line break)."""
    escaped = text.replace("\\", "\\\\")
    # No three quotes in a row, and none just before the closing delimiter: escape a quote followed by one.
    escaped = re.sub(r'"(?="|$)', lambda _: '\\"', escaped)
    lines: list[str] = []
    line = ""
    for chunk in re.findall(r"\S+\s*", escaped):  # each chunk starts with a character the wrap keeps
        if line and len(line) + len(chunk.rstrip()) > WIDTH - 4:
            lines.append(line)
            line = ""
        line += chunk
    lines.append(line)
    # A line's trailing spaces are kept before its backslash; only the break and the next indent go.
    body = "\\\n".join(f"    {part}" for part in lines)
    return f'"""\\\n{body}"""'


def _value(key: str, value: Any) -> str:
    if isinstance(value, int):
        return str(value)
    if isinstance(value, list):
        if not value:
            return "[]"
        one_line = "[" + ", ".join(_basic(v) for v in value) + "]"
        if len(key) + 3 + len(one_line) <= WIDTH and key == "providers":
            return one_line
        return "[\n" + "".join(f"    {_basic(v)},\n" for v in value) + "]"
    assert isinstance(value, str), (key, value)
    if len(key) + 3 + len(_basic(value)) <= WIDTH or not value.strip():
        return _basic(value)
    return _multiline(value)


def render(rows: list[dict[str, Any]]) -> str:
    """The data file's text for ``rows`` (dicts with the keys of ``FIELDS``; empty optional ones left out)."""
    blocks = []
    for row in rows:
        lines = ["[[quirk]]"]
        for key in FIELDS:
            value = row.get(key)
            if key not in ("number", "providers", "title", "constraint") and value in (None, "", []):
                continue  # the field's default
            lines.append(f"{key} = {_value(key, value)}")
        blocks.append("\n".join(lines) + "\n")
    return HEADER + "\n" + "\n".join(blocks)


def _normal(row: dict[str, Any]) -> dict[str, Any]:
    defaults: dict[str, Any] = {"errors": [], "sources": [], "litellm": "", "also": ""}
    defaults["evidence"] = "verified"
    return {key: row.get(key, defaults.get(key)) for key in FIELDS}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--from", dest="source", help="a git revision or a Python catalog file")
    parser.add_argument("--rows", help="only these rows from the source (comma-separated numbers)")
    parser.add_argument("--stdout", action="store_true", help="print the file instead of writing it")
    args = parser.parse_args()
    current = _toml_rows(TARGET) if TARGET.exists() else []
    taken = _python_rows(args.source) if args.source else current
    if args.rows:
        wanted = {int(n) for n in args.rows.split(",")}
        taken = [row for row in taken if row["number"] in wanted]
        missing = wanted - {row["number"] for row in taken}
        if missing:
            sys.exit(f"the source has no row {', '.join(map(str, sorted(missing)))}")
    by_number = {row["number"]: _normal(row) for row in current}
    by_number.update((row["number"], _normal(row)) for row in taken)
    rows = [by_number[n] for n in sorted(by_number)]
    text = render(rows)
    assert [_normal(row) for row in tomllib.loads(text)["quirk"]] == rows, "the TOML does not read back"
    if args.stdout:
        print(text, end="")
    else:
        TARGET.write_text(text, encoding="utf-8")
        print(f"wrote {len(rows)} rows to {TARGET.relative_to(ROOT)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
