"""The site's search finds the quirk catalog's entry by the provider's error text, first.

The catalog tells a reader to paste the error they got into the search box. These tests run the search
the site runs: the worker its pages name (``__config``'s ``search``: docs/assets/javascripts/workers/
catalog-search.js, which runs Material's own lunr worker beside it) over the built site's index, in
Debian's chromium, as Material's page sends it queries; and once through the search box itself.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from messages.quirks import ROWS

# Runs Material's worker the way its page does (integrations/search/worker: a SETUP message with the
# index's config and documents, then one QUERY message per query), and returns, for each query, the
# locations of each result group (a page, its best sections first).
_SEARCH = """async ([queries]) => {
  const config = JSON.parse(document.getElementById("__config").textContent);
  const index = await (await fetch(config.base + "/search/search_index.json")).json();
  const worker = new Worker(config.search);
  const next = () => new Promise((resolve, reject) => {
    worker.addEventListener("message", event => resolve(event.data), {once: true});
    worker.addEventListener("error", event => reject(event.message), {once: true});
  });
  worker.postMessage({type: 0, data: {config: index.config, docs: index.docs, options: {suggest: false}}});
  await next();
  const found = [];
  for (const query of queries) {
    worker.postMessage({type: 2, data: query});
    const result = await next();
    found.push(result.data.items.map(group => group.map(item => item.location)));
  }
  worker.terminate();
  return found;
}"""

NAMES = {
    "UnfixableError": "reference/messages.errors/#messages.errors.UnfixableError",
    "SQLiteThreadStore": "reference/messages.stores.sqlite/#messages.stores.sqlite.SQLiteThreadStore",
    "StreamAccumulator": "reference/messages.streaming/#messages.streaming.StreamAccumulator",
    "repair_conversation": "reference/messages.protocol/#messages.protocol.repair_conversation",
}
"""Searches for a name that find its API entry first, with the catalog's worker as without it."""


def error_texts() -> dict[str, set[str]]:
    """Each error text the catalog quotes, and the entries that quote it (a few texts are quoted by two)."""
    quoted: dict[str, set[str]] = {}
    for quirk in ROWS:
        for text in quirk.errors:
            quoted.setdefault(text, set()).add(f"quirks/#quirk-{quirk.number}")
    return quoted


def search(page: Any, queries: list[str]) -> list[list[list[str]]]:
    tab = page.open("")
    return tab.evaluate(_SEARCH, [queries])


def test_each_error_text_the_catalog_quotes_finds_its_entry_first(page):
    quoted = error_texts()
    assert len(quoted) > 100
    results = search(page, list(quoted))
    missed = {}
    for (text, entries), groups in zip(quoted.items(), results, strict=True):
        first = groups[0][0] if groups else None
        if first not in entries:
            missed[text[:70]] = [group[0] for group in groups[:3]]
    assert missed == {}


def test_an_error_text_with_other_numbers_and_words_around_it_finds_its_entry_first(page):
    # What a reader pastes: litellm's wrapper around the provider's text, with their own indexes and ids.
    pasted = {
        "litellm.BadRequestError: OpenAIException - Invalid parameter: messages with role 'tool' must be "
        "a response to a preceeding message with 'tool_calls'.": "quirks/#quirk-2",
        "messages.7: `tool_use` ids were found without `tool_result` blocks immediately after: "
        "toolu_01XyZ. Each `tool_use` block must have a corresponding `tool_result` block in the next "
        "message.": "quirks/#quirk-16",
        "Tool call id was call_9f8e7d6c5b4a3f2e1d0c9b8a but must be a-z, A-Z, 0-9, with a length of "
        "9.": "quirks/#quirk-30",
    }
    results = search(page, list(pasted))
    assert [groups[0][0] for groups in results] == list(pasted.values())


def test_a_name_still_finds_its_api_entry_first(page):
    results = search(page, list(NAMES))
    assert [groups[0][0] for groups in results] == list(NAMES.values())


def test_a_query_lunr_cannot_parse_still_finds_pages(page):
    # '^' and ':' are lunr's own syntax: Material's worker alone answers this with nothing.
    results = search(page, ["pattern '^[a-zA-Z0-9_-]+$' for a tool_use id"])
    assert results[0], "no result"


def test_the_search_box_puts_the_entry_first(page):
    tab = page.open("")
    query = tab.locator("input[data-md-component='search-query']")
    query.click()
    query.fill("messages with role 'tool' must be a response to a preceding message with 'tool_calls'")
    results = tab.locator(".md-search-result__item")
    results.first.wait_for(timeout=60_000)  # the worker builds the index first: seconds on a busy machine
    links = [a.get_attribute("href") or "" for a in results.first.locator("a").all()]
    # The first result is the catalog, its first section the entry that quotes the text.
    assert re.search(r"/quirks/(\?[^#]*)?$", links[0]), links
    assert re.search(r"/quirks/(\?[^#]*)?#quirk-2$", links[1]), links


def test_every_page_names_the_catalog_worker(site: Path):
    pages = sorted(site.rglob("*.html"))
    workers = set()
    for html_page in pages:
        text = html_page.read_text(encoding="utf-8")
        found = re.search(r'<script id="__config" type="application/json">(.*?)</script>', text)
        if found:
            workers.add(json.loads(found[1])["search"].rsplit("/", 1)[1])
    assert len(workers) == 1
    (worker,) = workers
    assert worker.startswith("catalog-search.js?material=search.")
    material = worker.split("material=")[1]
    assert (site / "assets/javascripts/workers" / material).is_file()
    assert (site / "assets/javascripts/workers/catalog-search.js").is_file()
