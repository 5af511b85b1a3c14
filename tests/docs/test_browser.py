"""The documentation site in a real browser: Debian's chromium, headless, driven by Playwright.

The browser (the ``browser`` and ``page`` fixtures of tests/docs/conftest.py) is the system's
(scripts/chromium.sh installs it; ``python3 scripts/dev.py test`` runs that beside its set-up and names it
in MESSAGES_TEST_CHROMIUM): Playwright launches it by its path and never downloads one. Without it these
tests skip, giving the reason, except under CI=1, where they fail. The site is the one the test command
built, served on a loopback port.
"""

from __future__ import annotations

import re
from pathlib import Path

from messages.quirks import get_quirk


def test_the_start_page_renders(page):
    tab = page.open("")
    assert "llm-messages" in tab.title()
    assert tab.locator("article h1").first.is_visible()
    # The navigation leads to the guide and the reference.
    nav = tab.locator('nav[aria-label="Navigation"]').first.inner_text()
    assert "Guide" in nav
    assert "API reference" in nav


def test_a_guide_page_renders(page):
    tab = page.open("guide/profiles/")
    assert tab.locator("article h1").first.inner_text().startswith("Profiles")
    assert tab.locator("article").inner_text().strip()


def test_an_api_page_renders_the_docstrings(page):
    tab = page.open("reference/messages.models/")
    heading = tab.locator('[id="messages.models.AIMessage"]')
    heading.wait_for()
    assert heading.is_visible()
    assert "A reply of the model" in tab.locator("article").inner_text()


def test_a_quirk_entry_renders_at_its_anchor(page):
    tab = page.open("quirks/#quirk-30")
    entry = tab.locator('[id="quirk-30"]')
    assert get_quirk(30).title in entry.inner_text()
    # The browser went to it: the heading is on screen, far down a long page.
    assert entry.is_visible()
    box = entry.bounding_box()
    assert box is not None
    assert 0 <= box["y"] < tab.viewport_size["height"]
    assert tab.evaluate("window.scrollY") > 1000


def test_the_search_finds_unfixable_error(page):
    tab = page.open("")
    query = tab.locator("input[data-md-component='search-query']")
    query.click()
    query.fill("UnfixableError")
    results = tab.locator(".md-search-result__item")
    results.first.wait_for(timeout=60_000)  # the worker builds the index first: seconds on a busy machine
    # The best match is the class's own API page, with its signature.
    first = results.first
    assert "UnfixableError(" in first.inner_text()
    href = first.locator("a").first.get_attribute("href") or ""
    assert re.search(r"/reference/messages\.errors/(\?|#|$)", href), href


# The code blocks of the page that would run past their box if they did not wrap: each with a line of
# at most `columns` characters whose box scrolls once wrapping is turned off.
_HIDDEN_COLUMNS = """(columns) => {
  const style = document.createElement("style");
  style.textContent = ".md-typeset pre > code { white-space: pre !important }";
  document.head.append(style);
  const hidden = [...document.querySelectorAll("article pre > code")]
    .filter(code => code.textContent.split("\\n").every(line => line.length <= columns))
    .filter(code => code.scrollWidth > code.clientWidth)
    .map(code => code.textContent.slice(0, 60));
  style.remove();
  return hidden;
}"""


def test_no_page_logs_a_console_error_and_every_code_line_shows_whole(page, site: Path):
    # At a laptop's width (1280 x 720, Playwright's default), on every page: nothing logged as an error,
    # and every code block's 88 columns in view without scrolling or wrapping (docs/css/extra.css).
    pages = sorted(p.relative_to(site).as_posix() for p in site.rglob("index.html"))
    assert len(pages) > 40  # the guide, the catalog and every module's reference
    logged, hidden = {}, {}
    for path in pages:
        tab = page.open(path.removesuffix("index.html"))
        if page.errors:
            logged[path] = list(page.errors)
            page.errors.clear()
        if cut := tab.evaluate(_HIDDEN_COLUMNS, 88):
            hidden[path] = cut
    assert logged == {}
    assert hidden == {}


def test_at_a_phones_width_code_wraps_instead_of_hiding_its_lines(page, site: Path):
    guide = sorted(f"guide/{p.name}/" for p in (site / "guide").iterdir() if (p / "index.html").is_file())
    guide = ["", "getting-started/", *guide]
    page.tab.set_viewport_size({"width": 390, "height": 844})
    scrolled, small = {}, {}
    for path in [*guide, "reference/messages.compaction/"]:
        tab = page.open(path)
        boxes = tab.evaluate(
            """() => [...document.querySelectorAll("article pre > code")].map(code =>
                 [code.scrollWidth > code.clientWidth, parseFloat(getComputedStyle(code).fontSize)])"""
        )
        assert boxes, path
        if any(scrolls for scrolls, _ in boxes):
            scrolled[path] = sum(scrolls for scrolls, _ in boxes)
        if min(size for _, size in boxes) < 11:
            small[path] = min(size for _, size in boxes)
    assert scrolled == {}
    assert small == {}  # still readable: the font shrinks no further than 11 px, then lines wrap
