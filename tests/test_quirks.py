"""The quirk catalog the package ships (``messages.quirks``), the citations of it, and ``messages quirks``."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
import typing
from pathlib import Path, PurePosixPath

import pytest

import messages
from messages.cli import main
from messages.profiles import Profile, registered_profiles
from messages.quirks import (
    QUIRKS,
    ROWS,
    Evidence,
    Quirk,
    canonical_name,
    get_quirk,
    implementations,
    quirks_for,
    source_url,
)

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = Path(messages.__file__).resolve().parent

_QUIRK_WORDS = re.compile(r"\b[Qq]uirks? (\d{1,3}(?:(?:,? and |, | or |, or )\d{1,3})*)")
_ROW_VALUES = re.compile(r"\b(?:\w*_)?row(?::\s*int \| None)?\s*=\s*(\d{1,3})\b")
_PROBLEM_ROWS = re.compile(r'"[a-z]+(?:-[a-z]+)+", (\d{1,3})\b')  # messages._check: rule, row = "x-y", 6


def _numbers(group: str) -> list[int]:
    return [int(n) for n in re.findall(r"\d+", group)]


def cited_numbers(text: str) -> set[int]:
    """The quirk numbers a text cites: "quirk 30", "quirks 1, 2 and 12", ``row=30``, ``duplicate_row = 17``,
    and the (rule, row) pairs of ``messages._check``."""
    found = {n for m in _QUIRK_WORDS.finditer(text) for n in _numbers(m.group(1))}
    found.update(int(m.group(1)) for m in _ROW_VALUES.finditer(text))
    found.update(int(m.group(1)) for m in _PROBLEM_ROWS.finditer(text))
    return found


def _sources() -> dict[str, str]:
    files = {str(p.relative_to(ROOT)): p.read_text(encoding="utf-8") for p in sorted(PACKAGE.rglob("*.py"))}
    files["README.md"] = (ROOT / "README.md").read_text(encoding="utf-8")
    for page in sorted((ROOT / "docs").rglob("*.md")):  # the documentation site's pages
        files[str(page.relative_to(ROOT))] = page.read_text(encoding="utf-8")
    return files


def test_the_citation_reader_reads_citations():
    text = """
    Implements quirk 30; quirks 1, 2, 12, 16, 17 and quirks 20 and 31 (not 400 or "gemma-4").
        row: int | None = 62
        duplicate_row: int | None = 17
    ToolCallIds(ids=MISTRAL_IDS, row=45), rule, row = "arguments-not-string", 6
    """
    assert cited_numbers(text) == {30, 1, 2, 12, 16, 17, 20, 31, 62, 45, 6}


def test_rows_are_numbered_in_order_and_complete():
    # Numbers are given for good, in blocks per contributor: gaps between blocks are fine, repeats are not.
    numbers = [q.number for q in ROWS]
    assert numbers == sorted(set(numbers))
    assert numbers[:69] == list(range(1, 70))
    assert set(QUIRKS) == {q.number for q in ROWS}
    providers = {p.provider for p in registered_profiles()}
    for q in ROWS:
        assert q.title, q.number
        assert q.constraint, q.number
        assert q.providers, q.number
        assert set(q.providers) <= providers | {"*"}, (q.number, set(q.providers) - providers)
        assert "\n" not in q.title, q.number
        for source in q.sources:
            url = source_url(source)
            assert re.fullmatch(r"https://\S+", url), (q.number, source)
        # A row that the catalog says was verified has an error text or a source to show for it.
        if q.evidence == "verified":
            assert q.errors or q.sources, q.number


def test_source_urls():
    assert source_url("BerriAI/litellm#20334") == "https://github.com/BerriAI/litellm/issues/20334"
    assert source_url("https://api-docs.deepseek.com/x") == "https://api-docs.deepseek.com/x"


def test_every_quirk_cited_in_the_package_the_readme_and_the_site_is_in_the_catalog():
    cited: dict[int, list[str]] = {}
    for name, text in _sources().items():
        for n in cited_numbers(text):
            cited.setdefault(n, []).append(name)
    missing = {n: where for n, where in cited.items() if n not in QUIRKS}
    assert not missing, missing
    # The citations the catalog is there for are all found (the reader above is not reading nothing).
    assert {1, 2, 12, 17, 30, 62, 65} <= cited.keys()


def test_every_rule_of_every_registered_profile_cites_a_row_of_the_catalog():
    for profile in registered_profiles():
        for rule in profile._plan.rules:
            # Its own row, or (the part screen) the rows of the table it was compiled from.
            cited = {rule.row} - {None} | rule.cited_rows()
            assert cited, (profile.name, rule.id)
            assert cited <= set(QUIRKS), (profile.name, rule.id, cited)
        assert set(profile.rows.values()) <= set(QUIRKS), profile.name


def test_implementations_are_read_from_the_profiles():
    found = implementations()
    assert ("mistral", "tool-call-id") in found[30]
    assert ("anthropic", "duplicate-tool-call-id") in found[17]  # cited as ToolCallIds.duplicate_row
    assert ("openai", "unknown-key") in found[62]
    assert implementations(30) == {30: found[30]}
    pairs = {(profile, rule) for rows in found.values() for profile, rule in rows}
    for profile in registered_profiles():
        for rule in profile._plan.rules:
            assert (profile.name, rule.id) in pairs


# Research notes that lived beside the repository once, named in pieces so that this file does not cite them.
_OUTSIDE_NOTES = ("provider" + "-quirks", "litellm" + "-notes")
_MD_CITATION = re.compile(r"[\w./-]*[\w-]\.md\b")
_URL = re.compile(r"\w+://\S+")
_NOTE_PARTS = re.compile(r"\bTL;DR \d")  # the outside notes' numbered summary


def tracked_files() -> list[str]:
    """Every tracked file of the repository (``git ls-files``)."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout (an sdist, say): no tracked files to look at")
    listing = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    return [name for name in listing.decode().split("\0") if name]


def generated_pages() -> set[str]:
    """The pages of the documentation site that its build makes (scripts/docs_site.py), which the other
    pages link: the quirk catalog's and an API page per public module."""
    from tests.docs.conftest import docs_site_module

    hook = docs_site_module()
    return {"docs/" + hook.QUIRKS_PAGE} | {f"docs/{hook.page_path(m)}" for m in hook.public_modules()}


def citing_texts(names: list[str]) -> dict[str, str]:
    """The texts a reader may follow a citation from, by path: Python, Markdown, TOML, the Makefile, the CI
    scripts; not CHANGELOG.md, which is history and may name what is gone."""
    texts = {}
    for name in names:
        path = PurePosixPath(name)
        text_file = path.suffix in {".py", ".md", ".toml"} or name == "Makefile" or name.startswith(".ci/")
        if text_file and name != "CHANGELOG.md" and (ROOT / name).is_file():
            texts[name] = (ROOT / name).read_text(encoding="utf-8")
    return texts


def missing_citations(texts: dict[str, str], existing: set[str]) -> list[tuple[str, str]]:
    """(file, what it cites) for every Markdown file a text cites that is not in ``existing`` (read from
    the repository's root or from the citing file's folder), and every mention of the outside notes or of
    their numbered summary ("TL;DR" and a number)."""
    missing = []
    for name, text in texts.items():
        text = _URL.sub("", text)
        here = PurePosixPath(name).parent
        for cited in _MD_CITATION.findall(text):
            candidates = {os.path.normpath(cited), os.path.normpath(here / cited)}
            if not {c.replace(os.sep, "/") for c in candidates} & existing:
                missing.append((name, cited))
        missing.extend((name, note) for note in _OUTSIDE_NOTES if note in text)
        missing.extend((name, part) for part in _NOTE_PARTS.findall(text))
    return missing


def test_the_citation_check_finds_what_it_is_for():
    md = ".md"  # the citations below are examples, not citations of this file
    texts = {
        "README.md": "See docs/litellm.md and CHANGELOG.md.",
        "docs/litellm.md": f"Back to ../README.md; https://example.org/elsewhere/NOTES{md} is a link.",
        "lib/a.py": f"# ../shared/STYLE{md} says so; DESIGN{md} too; docs/other{md}",
        "lib/b.py": "# as the " + _OUTSIDE_NOTES[0] + " table says",
        "lib/c.py": "# " + _OUTSIDE_NOTES[1] + ", TL;" + "DR 7; the lead's notes, TL;" + "DR 5",
    }
    existing = {*texts, "CHANGELOG.md"}
    assert missing_citations(texts, existing) == [
        ("lib/a.py", f"../shared/STYLE{md}"),
        ("lib/a.py", f"DESIGN{md}"),
        ("lib/a.py", f"docs/other{md}"),
        ("lib/b.py", _OUTSIDE_NOTES[0]),
        ("lib/c.py", _OUTSIDE_NOTES[1]),
        ("lib/c.py", "TL;" + "DR 7"),
        ("lib/c.py", "TL;" + "DR 5"),
    ]


def test_no_file_cites_a_file_the_repository_does_not_have():
    # Research notes and design documents outside the repository are nowhere for a reader to look: a
    # citation names a file of the repository (README.md, docs/litellm.md, tests/...) or a quirk of the
    # catalog ("quirk 30", which `messages quirks 30` prints).
    names = tracked_files()
    texts = citing_texts(names)
    assert missing_citations(texts, set(names) | generated_pages()) == []
    assert {"README.md", "docs/litellm.md", "pyproject.toml", "tests/test_quirks.py"} <= texts.keys()
    for name, text in texts.items():
        for cited in re.findall(r"\b(?:tests|benchmarks|examples|scripts|messages|docs)/[\w/]+\.py\b", text):
            assert (ROOT / cited).is_file(), (name, cited)
    # And every quirk cited anywhere (this file's own examples aside) is in the catalog.
    cited = {
        n: name for name, text in texts.items() if name != "tests/test_quirks.py" for n in cited_numbers(text)
    }
    assert {n: name for n, name in cited.items() if n not in QUIRKS} == {}
    assert {13, 23, 52, 63} <= cited.keys()  # tests/conformance cites quirks too


def test_get_quirk_names_what_there_is():
    assert get_quirk(30).number == 30
    with pytest.raises(KeyError, match=rf"there is no quirk 999; the catalog has rows 1 to {max(QUIRKS)}"):
        get_quirk(999)


def test_quirks_for_a_provider_are_its_rules_rows_and_the_rows_naming_it():
    for profile in registered_profiles():
        if profile.family is not None:
            continue
        numbers = {q.number for q in quirks_for(profile.provider)}
        same_provider = [p for p in registered_profiles() if p.provider == profile.provider]
        assert set().union(*(p.rows.values() for p in same_provider)) <= numbers, profile.provider
        assert {q.number for q in ROWS if profile.provider in q.providers} <= numbers
    # A profile name: the rows naming its provider and those its own rules cite (not its siblings').
    assert 30 in {q.number for q in quirks_for("openrouter:mistral")}
    assert 27 in {q.number for q in quirks_for("together_ai:gemma")}
    assert 27 not in {q.number for q in quirks_for("openai")}
    assert canonical_name("Bedrock_Converse:Claude") == "bedrock:claude"
    assert quirks_for("bedrock_converse") == quirks_for("bedrock")
    with pytest.raises(KeyError, match="no profile or quirk is about 'nosuch'; known providers: anthropic"):
        quirks_for("nosuch")


# --- the command --------------------------------------------------------------------------------------


def test_messages_quirks_n_prints_every_quirk_cited(capsys):
    cited = set().union(*(cited_numbers(text) for text in _sources().values()))
    for profile in registered_profiles():
        cited.update(profile.rows.values())
    for n in sorted(cited):
        assert main(["quirks", str(n)]) == 0
        out = capsys.readouterr().out
        quirk = QUIRKS[n]
        assert out.startswith(f"quirk {n}: {quirk.title}\n"), n
        for error in quirk.errors:
            assert " ".join(error.split()) in " ".join(out.split()), (n, error)
        for source in quirk.sources:
            assert source_url(source) in out, (n, source)


def test_messages_quirks_n_names_the_rules_that_handle_it(capsys):
    assert main(["quirks", "30"]) == 0
    out = capsys.readouterr().out
    assert "  handled by (rule: profiles):\n    tool-call-id: " in out
    assert "mistral," in out
    assert "openrouter:mistral" in out
    assert (
        "    Tool call id was call_PTLP8xhu3uwZk4l3nlnrrJha but must be a-z, A-Z, 0-9, with a length of 9."
        in out
    )


def test_messages_quirks_lists_every_row(capsys):
    assert main(["quirks"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == len(ROWS) + 1
    for line, quirk in zip(lines, ROWS, strict=False):
        assert re.match(rf" *{quirk.number}  {re.escape(quirk.title)}  \[", line)
    assert lines[-1] == (
        "`messages quirks N` prints quirk N in full: the error text, the sources, the rules; "
        "https://llm-messages.github.io/llm-messages/quirks/ has them all."
    )


def test_messages_quirks_provider_lists_its_rows_with_its_rules(capsys):
    assert main(["quirks", "mistral"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"{len(quirks_for('mistral'))} quirks about mistral:"
    by_number = {int(line.split()[0]): line for line in lines[1:-1]}
    assert set(by_number) == {q.number for q in quirks_for("mistral")}
    assert by_number[30].endswith("rules: tool-call-id")
    assert by_number[67].endswith("rules: unsupported-part")


def test_messages_quirks_json(capsys):
    assert main(["quirks", "--format", "json", "anthropic"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["version"] == 1
    rows = {q["number"]: q for q in document["quirks"]}
    assert set(rows) == {q.number for q in quirks_for("anthropic")}
    assert {"profile": "anthropic", "rule": "unsupported-part"} in rows[66]["rules"]
    assert rows[17]["sources"][0].startswith("https://github.com/")


@pytest.mark.parametrize(
    ("argv", "error"),
    [
        (["quirks", "999"], "messages quirks: there is no quirk 999; the catalog has rows 1 to"),
        (["quirks", "nosuch"], "messages quirks: no profile or quirk is about 'nosuch'; known providers:"),
    ],
)
def test_messages_quirks_unknown(capsys, argv, error):
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith(error)


def test_the_catalog_is_read_from_its_data_file_when_first_used():
    # Importing the module parses nothing; the first use of ROWS reads quirks.toml, and neither imports
    # the profiles or litellm.
    import subprocess
    import sys

    code = (
        "import sys, messages.quirks as q; before = 'ROWS' in vars(q); "
        "print(before, len(q.ROWS), 'ROWS' in vars(q), 'messages.profiles' in sys.modules, "
        "'litellm' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", str(len(ROWS)), "True", "False", "False"]
    assert isinstance(registered_profiles()[0], Profile)
    assert tuple(QUIRKS.values()) == ROWS


# --- the data file ------------------------------------------------------------------------------------

DATA = PACKAGE / "quirks.toml"
_TYPES = {
    "number": int,
    "providers": list,
    "title": str,
    "constraint": str,
    "errors": list,
    "sources": list,
    "litellm": str,
    "also": str,
    "evidence": str,
}
_REQUIRED = ("number", "providers", "title", "constraint")


def schema_problems(data: dict) -> list[str]:
    """What in a parsed catalog file breaks its schema: one ``[[quirk]]`` table per row, each with the
    fields of ``Quirk`` only, of their types, lists of strings, an ``Evidence`` value, numbers rising."""
    evidence = set(typing.get_args(Evidence))
    problems = [f"unknown top-level key {key!r}" for key in data if key != "quirk"]
    tables = data.get("quirk")
    if not isinstance(tables, list) or not tables:
        return [*problems, "no [[quirk]] tables"]
    last = 0
    for place, table in enumerate(tables, 1):
        where = f"table {place} (quirk {table.get('number', '?')})"
        problems.extend(f"{where}: unknown key {key!r}" for key in table if key not in _TYPES)
        problems.extend(f"{where}: no {key!r}" for key in _REQUIRED if key not in table)
        for key, value in table.items():
            kind = _TYPES.get(key)
            if kind is not None and (not isinstance(value, kind) or isinstance(value, bool)):
                problems.append(f"{where}: {key} is a {type(value).__name__}, not a {kind.__name__}")
            elif kind is list and not all(isinstance(item, str) and item for item in value):
                problems.append(f"{where}: {key} holds something that is not a non-empty string")
            elif kind is str and key not in ("also", "litellm") and not value.strip():
                problems.append(f"{where}: {key} is empty")
        if table.get("evidence", "verified") not in evidence:
            problems.append(f"{where}: evidence {table['evidence']!r} is not one of {sorted(evidence)}")
        number = table.get("number")
        if isinstance(number, int):
            if number <= last:
                problems.append(f"{where}: number {number} does not follow {last}")
            last = number
    return problems


def test_the_data_file_follows_its_schema():
    assert set(_TYPES) == {f.name for f in dataclasses.fields(Quirk)}  # the schema is the row's fields
    data = tomllib.loads(DATA.read_text(encoding="utf-8"))
    assert schema_problems(data) == []
    assert len(data["quirk"]) == len(ROWS)
    assert [
        Quirk(**{k: tuple(v) if isinstance(v, list) else v for k, v in t.items()}) for t in data["quirk"]
    ] == [*ROWS]


@pytest.mark.parametrize(
    ("table", "problem"),
    [
        ({"providers": ["openai"], "title": "t", "constraint": "c"}, "table 1 (quirk ?): no 'number'"),
        (
            {"number": 1, "providers": "openai", "title": "t", "constraint": "c"},
            "providers is a str, not a list",
        ),
        (
            {"number": 1, "providers": ["openai"], "title": "t", "constraint": "c", "error": []},
            "unknown key 'error'",
        ),
        ({"number": 1, "providers": [""], "title": "t", "constraint": "c"}, "providers holds something that"),
        ({"number": 1, "providers": ["x"], "title": " ", "constraint": "c"}, "title is empty"),
        (
            {"number": True, "providers": ["x"], "title": "t", "constraint": "c"},
            "number is a bool, not a int",
        ),
        (
            {"number": 1, "providers": ["x"], "title": "t", "constraint": "c", "evidence": "sure"},
            "evidence 'sure' is not one of",
        ),
    ],
)
def test_the_schema_check_names_what_is_wrong(table, problem):
    problems = schema_problems({"quirk": [table]})
    assert any(problem in p for p in problems), problems


def test_the_schema_check_wants_rising_numbers_and_rows():
    row = {"providers": ["x"], "title": "t", "constraint": "c"}
    assert schema_problems({"quirk": [{"number": 2, **row}, {"number": 2, **row}]}) == [
        "table 2 (quirk 2): number 2 does not follow 2"
    ]
    assert schema_problems({"quirks": []}) == ["unknown top-level key 'quirks'", "no [[quirk]] tables"]


def test_the_generator_writes_the_data_file_as_it_is(tmp_path):
    # scripts/quirks_toml.py (which carries edits of the Python catalog of older branches into the file)
    # lays the file out as it is committed: rewriting it changes nothing.
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "quirks_toml.py"), "--stdout"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert result.stdout == DATA.read_text(encoding="utf-8")


def test_messages_check_says_where_to_read_the_quirks_it_cites(tmp_path, capsys):
    # The guide's example (docs/guide/profiles.md): a call answered after a user turn, a name Mistral
    # rejects, an OpenAI id.
    call = {"id": "call_abc123DEF456ghi789", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    conversation = [
        {"role": "system", "content": "You are a weather bot."},
        {"role": "user", "content": "Weather in Paris?", "name": "ada"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "user", "content": "And tomorrow?"},
        {"role": "tool", "tool_call_id": call["id"], "content": "18 C, sunny"},
    ]
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(conversation), encoding="utf-8")
    assert main(["check", "--model", "mistral/mistral-large-latest", str(path)]) == 1
    lines = capsys.readouterr().out.splitlines()
    tags = {int(n) for line in lines[:-1] for n in re.findall(r", quirk (\d+), (?:not )?fixable\]$", line)}
    assert tags == {1, 2, 30, 33}
    pages = " ".join(f"https://llm-messages.github.io/llm-messages/quirks/#quirk-{n}" for n in (1, 2, 30, 33))
    assert lines[-1].endswith(f"; `messages quirks N` prints quirk N (quirks 1, 2, 30, 33 here: {pages})")
