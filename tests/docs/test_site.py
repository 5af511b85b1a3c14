"""The built documentation site: its address is the package's, every link the package prints leads to an
entry that exists, and every public name is rendered from its docstring where the site says it is."""

from __future__ import annotations

import base64
import functools
import json
import re
import tomllib
from html.parser import HTMLParser
from pathlib import Path

import pytest

from messages import AudioPart, TextPart, UnfixableError, UserMessage, dump_messages
from messages.cli import main
from messages.quirks import DOCS_URL, QUIRKS, quirk_url
from tests.docs.conftest import ROOT, docs_site_module


class _Ids(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name == "id" and value:
                self.ids.add(value)


@functools.cache
def ids_of(page: Path) -> frozenset[str]:
    """The ``id`` attributes of an HTML page (each page parsed once: the catalog's is 290 KB)."""
    parser = _Ids()
    parser.feed(page.read_text(encoding="utf-8"))
    return frozenset(parser.ids)


def resolve(url: str, site: Path) -> tuple[Path, str]:
    """The built page a link to the documentation site names, and its anchor (``""`` for none)."""
    assert url.startswith(DOCS_URL), url
    path, _, anchor = url.removeprefix(DOCS_URL).partition("#")
    return site / path.removesuffix("/") / "index.html" if path else site / "index.html", anchor


def assert_resolves(url: str, site: Path) -> None:
    page, anchor = resolve(url, site)
    assert page.is_file(), f"{url}: no page {page.relative_to(site)}"
    if anchor:
        assert anchor in ids_of(page), f"{url}: no #{anchor} on {page.relative_to(site)}"


def test_the_documentation_address_is_one_everywhere():
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert pyproject["project"]["urls"]["Documentation"] == DOCS_URL
    mkdocs = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert re.search(rf"^site_url: {re.escape(DOCS_URL)}(\s|$)", mkdocs, re.MULTILINE)


def test_every_quirk_has_its_entry_under_its_anchor(site):
    page = site / "quirks" / "index.html"
    anchors = {a for a in ids_of(page) if a.startswith("quirk-")}
    assert anchors == {f"quirk-{n}" for n in QUIRKS}
    for number in QUIRKS:
        assert_resolves(quirk_url(number), site)


def test_the_links_messages_quirks_prints_lead_to_the_entries(site, capsys):
    assert main(["quirks", "30"]) == 0
    assert main(["quirks"]) == 0
    printed = re.findall(r"https://\S+", capsys.readouterr().out)
    ours = [url.rstrip(".") for url in printed if url.startswith(DOCS_URL)]
    assert f"{DOCS_URL}quirks/#quirk-30" in ours
    assert f"{DOCS_URL}quirks/" in ours
    for url in ours:
        assert_resolves(url, site)


@pytest.mark.litellm
def test_the_links_an_unfixable_error_prints_lead_to_the_entries(site):
    clip = AudioPart(data=base64.b64encode(b"RIFF" + bytes(40)).decode(), format="wav")
    with pytest.raises(UnfixableError) as raised:
        dump_messages([UserMessage(content=[TextPart(text="Here:"), clip])], model="cohere/command-r-plus")
    links = re.findall(rf"{re.escape(DOCS_URL)}\S+?(?=\])", str(raised.value))
    assert links == [quirk_url(84)]
    for url in links:
        assert_resolves(url, site)


def test_the_links_messages_check_prints_lead_to_the_entries(site, tmp_path, capsys):
    call = {"id": "call_abc123DEF456ghi789", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    conversation = [
        {"role": "user", "content": "Weather?", "name": "ada"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "user", "content": "And tomorrow?"},
        {"role": "tool", "tool_call_id": call["id"], "content": "sunny"},
    ]
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(conversation), encoding="utf-8")
    assert main(["check", "--model", "mistral/mistral-large-latest", str(path)]) == 1
    links = re.findall(rf"{re.escape(DOCS_URL)}\S+", capsys.readouterr().out)
    assert len(links) >= 3
    for url in links:
        assert_resolves(url.rstrip(")"), site)


def test_every_public_name_renders_where_the_site_says(site):
    hook = docs_site_module()
    modules = hook.public_modules()
    pages = hook.canonical_pages()
    missing = []
    for module in modules:
        rendered = ids_of(site / "reference" / module / "index.html")
        for name in hook.exports(module):
            path = hook.target(module, name).path
            home = pages[path]
            anchor = f"{home}.{name}" if home == module else path
            where = rendered if home == module else ids_of(site / "reference" / home / "index.html")
            if anchor not in where and f"{home}.{path.rsplit('.', 1)[1]}" not in where:
                missing.append(f"{module}.{name} (on {home})")
    assert missing == []
    assert {"messages", "messages.models", "messages.stores.sqlite", "messages.integrations.autogen"} <= {
        *modules
    }


def test_every_public_name_has_a_docstring():
    hook = docs_site_module()
    undocumented = sorted(
        f"{module}.{name}"
        for module in hook.public_modules()
        for name in hook.exports(module)
        if not (hook.target(module, name).docstring and hook.target(module, name).docstring.value.strip())
    )
    assert undocumented == []


# --- what each function raises ------------------------------------------------------------------------

_SAYS_RAISES = re.compile(r"(?:^|\n\s*\n)\s*Raises\b")


def _says_what_it_raises(docstring: object) -> bool:
    """A Google ``Raises:`` section, or a paragraph that starts with "Raises" ("Raises nothing.", "Raises
    what ``store.append`` raises ...")."""
    if docstring is None:
        return False
    text = docstring.value  # type: ignore[attr-defined]
    sections = docstring.parsed  # type: ignore[attr-defined]
    return any(s.kind.value == "raises" for s in sections) or bool(_SAYS_RAISES.search(text))


def reference_callables() -> dict[str, object]:
    """Every function a public module exports, every public method of every class one exports (its own,
    or the one it overrides, whose docstring the reference shows: griffe-inherited-docstrings, as
    mkdocs.yml loads it), and the constructor of every class whose ``__init__`` is written out (said in
    the class docstring, which the reference merges with it); exceptions' constructors aside."""
    import griffe

    package = griffe.load(
        "messages",
        search_paths=[str(ROOT)],
        docstring_parser="google",
        resolve_aliases=True,
        extensions=griffe.load_extensions("griffe_inherited_docstrings"),
    )
    hook = docs_site_module()
    found: dict[str, object] = {}
    for module in hook.public_modules():
        for name in hook.exports(module):
            path = hook.target(module, name).path
            obj = package[path.removeprefix("messages.")]
            obj = obj.final_target if obj.is_alias else obj
            if obj.is_function:
                found[obj.path] = obj.docstring
            if not obj.is_class:
                continue
            init = obj.members.get("__init__")
            written = init is not None and not init.is_alias and init.lineno is not None
            if written and "def __init__" in init.filepath.read_text().split("\n")[init.lineno - 1]:
                exception = any("Error" in base for base in map(str, obj.bases)) or obj.name.endswith("Error")
                if not exception:
                    found[f"{obj.path}()"] = (obj.docstring, init.docstring)
            for member_name, member in obj.members.items():
                if member.is_alias or not member.is_function or member_name.startswith("_"):
                    continue
                if "property" not in member.labels:
                    found[member.path] = member.docstring
    return found


def test_every_public_function_says_what_it_raises():
    callables = reference_callables()
    assert len(callables) > 300  # the reader is reading the package
    silent = []
    for path, docstrings in callables.items():
        either = docstrings if isinstance(docstrings, tuple) else (docstrings,)
        if not any(_says_what_it_raises(d) for d in either):
            silent.append(path)
    assert silent == []


def test_the_raises_reader_reads_what_it_is_for():
    import griffe

    def docstring(text: str) -> object:
        return griffe.Docstring(text, parser="google")

    assert _says_what_it_raises(docstring("Do it.\n\nRaises:\n    KeyError: no such key."))
    assert _says_what_it_raises(docstring("Do it.\n\nRaises nothing."))
    assert _says_what_it_raises(docstring("Do it.\n\nRaises what ``store.append`` raises."))
    assert not _says_what_it_raises(docstring("Do it; it never raises for a string."))
    assert not _says_what_it_raises(None)
