"""The documentation site's generated pages, as an MkDocs hook (mkdocs.yml: ``hooks:``).

* the quirk catalog's page (``QUIRKS_PAGE``): one entry per row of the catalog (``messages/quirks.toml``,
  read through ``messages.quirks``), each under a stable anchor, ``#quirk-N`` (``messages.quirks.quirk_url``),
  with the rules of the registered profiles that handle it.
* ``reference/<module>`` pages: one API page per public module (a dotted name with no part starting with
  ``_``), rendered from the docstrings by mkdocstrings. A page renders the names of the module's
  ``__all__`` that are defined in it or in a private module behind it, and links the names it re-exports
  from another public module to their own page (``canonical_pages``), so that each object is documented
  once. The "API reference" section of the navigation is filled from the same list.
* the search worker: each page is pointed at ``CATALOG_WORKER`` (docs/assets/javascripts/workers/), which
  runs Material's own worker and puts the quirk catalog's entry first when the query quotes one of its
  error texts (the file says how); ``search_worker`` rewrites the page's ``__config``.
* Links from a page to a file of the repository (``../examples/tool_loop.py``: relative, so that they also
  work when the Markdown is read on GitHub) become links to that file in the repository; a link to a
  file that does not exist is a warning, which ``mkdocs build --strict`` turns into a failed build.

tests/docs reads ``canonical_pages`` too: every public name must render, with a docstring, where the
site says it is.
"""

from __future__ import annotations

import html
import json
import logging
import re
from collections.abc import Mapping
from functools import cache
from pathlib import Path, PurePosixPath
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "messages"
# Built, not written as one literal: tests/test_quirks.py reads every "<name>.md" in the repository's
# texts as a citation of a file that must exist, and this page exists only in the built site.
QUIRKS_PAGE = PurePosixPath("quirks").with_suffix(".md").as_posix()
"""The quirk catalog's page, made at build time (``quirks/`` on the site)."""
REPOSITORY = "https://github.com/llm-messages/llm-messages"
"""Where the repository's files are read on the web (pyproject's Changelog URL is in it)."""

log = logging.getLogger("mkdocs.hooks.docs_site")

# The order and grouping of the API reference in the navigation: a section per task, each module under the
# first section with a prefix that names it. A public module no prefix names is a warning (so a failed strict
# build): every module has a named place.
_GROUPS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "Messages",
        ("messages", "messages.models", "messages.parts", "messages.protocol", "messages.errors"),
    ),
    ("Providers", ("messages.profiles", "messages.caching", "messages.quirks")),
    (
        "Conversations",
        (
            "messages.context",
            "messages.threads",
            "messages.compaction",
            "messages.stores",
            "messages.streaming",
        ),
    ),
    ("Converters", ("messages.convert",)),
    ("Integrations", ("messages.integrations",)),
    ("Testing and tools", ("messages.testing", "messages.strategies", "messages.cli")),
)


@cache
def public_modules() -> tuple[str, ...]:
    """Every module of the package whose dotted name has no part starting with ``_`` (as
    tests/test_wheel.py counts them), sorted; found once per build."""
    modules = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        if not any(part.startswith("_") for part in parts):
            modules.append(".".join(parts))
    return tuple(sorted(modules))


@cache
def _package() -> Any:
    import griffe

    return griffe.load("messages", search_paths=[str(ROOT)], docstring_parser="google", resolve_aliases=True)


def exports(module: str) -> list[str]:
    """The names of ``module.__all__`` (read statically, as mkdocstrings reads them)."""
    found = _package()[module.removeprefix("messages").lstrip(".")] if module != "messages" else _package()
    return [name if isinstance(name, str) else name.name for name in found.exports or ()]


def target(module: str, name: str) -> Any:
    """The object ``module.name`` stands for, through its aliases."""
    found = _package()[f"{module.removeprefix('messages').lstrip('.')}.{name}".lstrip(".")]
    return found.final_target if found.is_alias else found


@cache
def canonical_pages() -> Mapping[str, str]:
    """For each object a public module exports (by its defining path), the public module whose page
    renders it: the module that defines it if that is public and exports it, else the deepest public
    module that
    exports it (``messages.streaming`` for ``StreamDelta``, defined in ``messages._stream``; ``messages``
    for ``dump_messages``, defined in ``messages._io``)."""
    pages: dict[str, str] = {}
    modules = public_modules()
    for module in modules:
        for name in exports(module):
            path = target(module, name).path
            home, _, own_name = path.rpartition(".")
            if home in modules and own_name in exports(home):
                pages[path] = home
                continue
            known = pages.get(path)
            if known is None or module.count(".") > known.count("."):
                pages[path] = module
    return pages


def rendered_here(module: str) -> tuple[list[str], list[tuple[str, str]]]:
    """The names of ``module.__all__`` its page renders, and the (name, object path) pairs it links to
    other pages."""
    pages = canonical_pages()
    own, linked = [], []
    for name in exports(module):
        path = target(module, name).path
        if pages[path] == module:
            own.append(name)
        else:
            linked.append((name, path))
    return own, linked


def reference_page(module: str) -> str:
    """The Markdown of ``module``'s API page."""
    own, linked = rendered_here(module)
    lines = [f"# `{module}`", ""]
    members = ", ".join(own)
    lines += [f"::: {module}", "    options:", f"      members: [{members}]", ""]
    if linked:
        lines.append("Also exported here, documented on their own module's page:")
        lines.append("")
        lines += [f"* [`{name}`][{path}]" for name, path in linked]
        lines.append("")
    children = [m for m in public_modules() if m.rsplit(".", 1)[0] == module]
    if children:
        lines.append("Modules:")
        lines.append("")
        lines += [f"* [`{child}`]({child}.md)" for child in children]
        lines.append("")
    return "\n".join(lines)


def page_path(module: str) -> str:
    """The source path of ``module``'s API page (``reference/<module>.md``; the pages of its submodules
    sit beside it)."""
    return f"reference/{module}.md"


def reference_nav() -> list[Any]:
    """The "API reference" section of the navigation: the sections of ``_GROUPS``, each module under the
    first section whose prefix names it; a warning for a module none names."""
    modules = public_modules()
    placed: set[str] = set()
    nav: list[Any] = []
    for title, prefixes in _GROUPS:
        entries = []
        for prefix in prefixes:
            for module in modules:
                if module in placed:
                    continue
                if module == prefix or (prefix != "messages" and module.startswith(prefix + ".")):
                    entries.append({module: page_path(module)})
                    placed.add(module)
        nav.append({title: entries})
    for module in modules:
        if module not in placed:
            log.warning("%s has no section in the API reference: add it to _GROUPS in %s", module, __file__)
    return nav


# --- the quirk catalog --------------------------------------------------------------------------------


def _text(value: str) -> str:
    return html.escape(value, quote=False)


def quirks_page() -> str:
    """The Markdown of the quirk catalog's page: one entry per row, under ``#quirk-N``."""
    from messages.quirks import ROWS, implementations, source_url

    handled = implementations()
    lines = [
        "# The quirk catalog",
        "",
        "What in a message list each provider (or litellm's route to it) rejects or changes, one entry per "
        "row of the catalog the package ships (`messages/quirks.toml`). Every rule of the provider "
        "profiles cites a row (`quirk 30`), and so do `messages check` and every `UnfixableError`; "
        "`messages quirks N` prints row N in a terminal. Search this page for the error text a provider "
        "answered with.",
        "",
        '<div class="quirk-index" markdown>',
        "",
        " · ".join(f"[{q.number}](#quirk-{q.number})" for q in ROWS),
        "",
        "</div>",
        "",
    ]
    for quirk in ROWS:
        lines += _quirk_entry(quirk, handled.get(quirk.number, []), source_url)
    return "\n".join(lines)


def _quirk_entry(quirk: Any, handled: list[tuple[str, str]], source_url: Any) -> list[str]:
    """One row's entry: its heading under ``#quirk-N``, then its fields as HTML (their text is plain
    text, escaped, never read as Markdown)."""
    providers = ", ".join("every provider" if p == "*" else p for p in quirk.providers)
    lines = [
        f"## {quirk.number}. {_markdown_title(quirk.title)} {{#quirk-{quirk.number}}}",
        "",
        f"<p><strong>Providers:</strong> {_text(providers)} · <strong>evidence:</strong> "
        f"{quirk.evidence}</p>",
        "",
        f"<p>{_text(quirk.constraint)}</p>",
        "",
    ]
    if quirk.errors:
        lines += ["<p><strong>The provider's error text:</strong></p>", ""]
        lines += [f'<pre class="quirk-error"><code>{_text(error)}</code></pre>' for error in quirk.errors]
        lines.append("")
    if quirk.litellm:
        lines += [f"<p><strong>litellm:</strong> {_text(quirk.litellm)}</p>", ""]
    if quirk.also:
        lines += [f"<p><strong>Also:</strong> {_text(quirk.also)}</p>", ""]
    by_rule: dict[str, list[str]] = {}
    for profile, rule in handled:
        by_rule.setdefault(rule, []).append(profile)
    if by_rule:
        rules = "; ".join(f"<code>{_text(r)}</code> ({_text(', '.join(p))})" for r, p in by_rule.items())
        lines += [f"<p><strong>Handled by</strong> (rule: profiles): {rules}</p>", ""]
    if quirk.sources:
        links = []
        for source in quirk.sources:
            shown = source if "://" not in source else _short(source)
            links.append(f'<a href="{html.escape(source_url(source))}">{_text(shown)}</a>')
        lines += [f"<p><strong>Sources:</strong> {', '.join(links)}</p>", ""]
    return lines


def _markdown_title(title: str) -> str:
    """A title as heading text: Markdown's special characters escaped (the titles are plain text)."""
    return re.sub(r"([\\`*_{}\[\]<>#|])", r"\\\1", title)


def _short(url: str) -> str:
    """A URL shortened for a link's text: its host and the end of its path."""
    host_and_path = url.split("://", 1)[-1]
    host, _, path = host_and_path.partition("/")
    tail = path.rstrip("/").rsplit("/", 1)[-1]
    return f"{host}/…/{tail}" if tail and tail != path else host_and_path


# --- links to the repository's files ------------------------------------------------------------------

_LINK = re.compile(r"(\]\()([^)\s#]+)(#[^)\s]*)?(\))")


def repository_links(markdown: str, page_path: str) -> str:
    """``markdown`` with each relative link that leaves the docs folder (``../examples/tool_loop.py``) turned
    into the file's address in the repository; a warning for each such link to a missing file."""
    page_dir = (ROOT / "docs" / page_path).parent

    def replace(found: re.Match[str]) -> str:
        link = found[2]
        if "://" in link or link.startswith(("/", "mailto:")):
            return found[0]
        resolved = (page_dir / link).resolve()
        docs = (ROOT / "docs").resolve()
        if resolved == docs or docs in resolved.parents:
            return found[0]
        if not resolved.is_relative_to(ROOT):
            log.warning("%s links %s, outside the repository", page_path, link)
            return found[0]
        if not resolved.exists():
            log.warning("%s links %s, which is not in the repository", page_path, link)
            return found[0]
        kind = "tree" if resolved.is_dir() else "blob"
        address = f"{REPOSITORY}/{kind}/main/{resolved.relative_to(ROOT).as_posix()}"
        return f"{found[1]}{address}{found[3] or ''}{found[4]}"

    return _LINK.sub(replace, markdown)


# --- the search worker -------------------------------------------------------------------------------

CATALOG_WORKER = "catalog-search.js"
"""The site's search worker, beside Material's (docs/assets/javascripts/workers/)."""

_CONFIG = re.compile(r'(<script id="__config" type="application/json">)(.*?)(</script>)', re.DOTALL)


def search_worker(output: str) -> str:
    """A page's HTML with its ``__config`` naming ``CATALOG_WORKER`` as the search worker, and Material's
    worker in its address (``?material=search.<hash>.min.js``), which ``CATALOG_WORKER`` loads."""

    def swap(found: re.Match[str]) -> str:
        config = json.loads(found[2])
        worker = config.get("search")
        if not isinstance(worker, str) or CATALOG_WORKER in worker:
            return found[0]
        folder, _, name = worker.rpartition("/")
        config["search"] = f"{folder}/{CATALOG_WORKER}?material={name}"
        # As Jinja's tojson writes it: no "<", ">" or "&" that could end the script element.
        text = json.dumps(config, separators=(",", ":"))
        text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
        return f"{found[1]}{text}{found[3]}"

    replaced, count = _CONFIG.subn(swap, output, count=1)
    if count == 0:
        log.warning("a page has no __config: its search uses Material's worker alone")
    return replaced


# --- the hook's events --------------------------------------------------------------------------------


def on_config(config: Any) -> Any:
    """Fill the "API reference" section of the navigation."""
    for entry in config["nav"] or ():
        if isinstance(entry, dict) and "API reference" in entry:
            entry["API reference"] = reference_nav()
    return config


def on_files(files: Any, config: Any) -> Any:
    """Add the generated pages: the quirk catalog and one API page per public module."""
    from mkdocs.structure.files import File

    files.append(File.generated(config, QUIRKS_PAGE, content=quirks_page()))
    for module in public_modules():
        files.append(File.generated(config, page_path(module), content=reference_page(module)))
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """Links to the repository's files, made absolute (see the module docstring)."""
    return repository_links(markdown, page.file.src_uri)


def on_post_page(output: str, page: Any, config: Any) -> str:
    """The search worker that puts the catalog first (see ``search_worker``)."""
    return search_worker(output)


def on_post_template(output_content: str, template_name: str, config: Any) -> str:
    """The same for the pages made from a template alone (``404.html``)."""
    return search_worker(output_content) if template_name.endswith(".html") else output_content
