"""The built site's pages as a reader sees them: each page's article, its code blocks (with their language
and the text the copy button copies) and its text, read from the HTML with the standard library's
parser."""

from __future__ import annotations

import functools
import html
import re
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

CONTINUES = "# Continues the block above."
"""The first line of a block that goes on from the one before it on its page: the tests run it after that
one, in one namespace, and the reader is told so."""

_VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


@dataclass
class Element:
    """An element of a page: its tag, attributes, children (elements and strings) and parent."""

    tag: str
    attrs: dict[str, str]
    children: list[Element | str]
    parent: Element | None = None

    @property
    def classes(self) -> set[str]:
        return set(self.attrs.get("class", "").split())

    def text(self) -> str:
        """The text of the element and everything in it (entities decoded)."""
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)

    def iter(self) -> list[Element]:
        """The element and every element under it, in document order."""
        found = [self]
        for child in self.children:
            if isinstance(child, Element):
                found += child.iter()
        return found

    def ancestors(self) -> list[Element]:
        found, node = [], self.parent
        while node is not None:
            found.append(node)
            node = node.parent
        return found


class _Builder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Element("#document", {}, [])
        self.current = self.root

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = Element(tag, {k: v or "" for k, v in attrs}, [], self.current)
        self.current.children.append(element)
        if tag not in _VOID:
            self.current = element

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.current.children.append(Element(tag, {k: v or "" for k, v in attrs}, [], self.current))

    def handle_endtag(self, tag: str) -> None:
        node: Element | None = self.current
        while node is not None and node.tag != tag:
            node = node.parent
        if node is not None and node.parent is not None:
            self.current = node.parent

    def handle_data(self, data: str) -> None:
        self.current.children.append(data)


@functools.cache
def article(page: Path) -> Element:
    """The page's ``<article>``: what the reader reads, without the navigation."""
    builder = _Builder()
    builder.feed(page.read_text(encoding="utf-8"))
    builder.close()
    for element in builder.root.iter():
        if element.tag == "article":
            return element
    raise AssertionError(f"{page}: no <article>")


@dataclass(frozen=True)
class Block:
    """A code block of a page."""

    page: str
    """The page's address on the site (``guide/threads/``)."""
    number: int
    """Its place among the page's blocks of its language, from 1."""
    language: str
    """The language its class names (``python``, ``text``, ...), ``""`` when none."""
    code: str
    """The code as the copy button copies it."""
    signature: bool
    """Whether it is a signature of the API reference (not code to run)."""
    classes: frozenset[str]

    @property
    def continues(self) -> bool:
        return self.code.startswith(CONTINUES)

    def __str__(self) -> str:
        return f"{self.page} {self.language or 'code'} block {self.number}"


def pages(site: Path) -> list[Path]:
    """Every page of the site (``404.html`` aside)."""
    return sorted(site.rglob("index.html"))


def address(site: Path, page: Path) -> str:
    return page.parent.relative_to(site).as_posix().removeprefix(".") + "/" if page.parent != site else ""


def code_blocks(site: Path, page: Path) -> list[Block]:
    """The page's code blocks, in order: each ``<pre>`` of its article."""
    where = address(site, page)
    blocks, numbers = [], dict[str, int]()
    for element in article(page).iter():
        if element.tag != "pre":
            continue
        holders = [element.parent, *element.parent.ancestors()] if element.parent else []
        language, signature = "", False
        for holder in holders:
            found = [c.removeprefix("language-") for c in holder.classes if c.startswith("language-")]
            language = language or (found[0] if found else "")
            signature = signature or bool(holder.classes & {"doc-signature", "doc-heading"})
        code = element.text()
        numbers[language] = numbers.get(language, 0) + 1
        blocks.append(Block(where, numbers[language], language, code, signature, frozenset(element.classes)))
    return blocks


def visible_text(site: Path, page: Path) -> str:
    """The article's text, as a reader reads it."""
    return html.unescape(re.sub(r"[ \t]+", " ", article(page).text()))
