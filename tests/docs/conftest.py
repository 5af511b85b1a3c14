"""The documentation site as built (``mkdocs build --strict``), and served on a loopback port.

``python3 scripts/dev.py test`` builds the site once before pytest starts and names it in
MESSAGES_DOCS_SITE; run alone (``pytest tests/docs``), the first test that needs it builds it, once for all
xdist workers.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
SITE_VARIABLE = "MESSAGES_DOCS_SITE"


def docs_site_module() -> ModuleType:
    """scripts/docs_site.py (the site's hook): where each public name is rendered, the module list."""
    name = "messages_docs_site_hook"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / "docs_site.py")
        assert spec is not None
        assert spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def _build(target: Path) -> None:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    built = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(target)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if built.returncode != 0:
        pytest.fail(f"mkdocs build --strict failed:\n{built.stdout}{built.stderr}")


def site_folder(tmp_path_factory: pytest.TempPathFactory, worker_id: str) -> Path:
    """The built site's folder: the test command's, or one built now (once for all xdist workers)."""
    given = os.environ.get(SITE_VARIABLE)
    if given:
        return Path(given)
    from filelock import FileLock

    # xdist's workers share their base folder's parent (this run's); a lone process has its own.
    shared = tmp_path_factory.getbasetemp()
    if worker_id != "master":
        shared = shared.parent
    target = shared / "docs-site"
    with FileLock(str(shared / "docs-site.lock")):
        if not (target / "index.html").exists():
            _build(target)
    return target


@pytest.fixture(scope="session")
def site(tmp_path_factory: pytest.TempPathFactory, worker_id: str) -> Path:
    """The built site's folder."""
    return site_folder(tmp_path_factory, worker_id)


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: object, client_address: object) -> None:
        # A page left before a response was sent (the next navigation cancels the search index) closes the
        # connection: not the site's error, and the browser tests record what the page itself logs.
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)  # type: ignore[arg-type]


@pytest.fixture(scope="session")
def served(site: Path) -> Iterator[str]:
    """The site served on 127.0.0.1 (a port of its own): its base URL, ending in ``/``."""
    handler = functools.partial(_QuietHandler, directory=str(site))
    server = _Server(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


# --- the browser (tests/docs/test_browser.py says which, and why) ---------------------------------------

CHROMIUM = "/usr/bin/chromium"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _chromium() -> str:
    path = os.environ.get("MESSAGES_TEST_CHROMIUM") or (CHROMIUM if os.access(CHROMIUM, os.X_OK) else "")
    if path:
        return path
    why = os.environ.get("MESSAGES_TEST_CHROMIUM_UNAVAILABLE") or (
        f"no {CHROMIUM}: scripts/chromium.sh installs it (python3 scripts/dev.py test runs it)"
    )
    if os.environ.get("CI"):
        pytest.fail(f"CI needs the browser tests of the site: {why}")
    pytest.skip(why)


BROWSER_TIMEOUT_MS = 120_000


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Chromium, driven by Playwright's sync API: for one test module at a time, because while it runs its
    event loop counts as running in this thread, and a later test's ``asyncio.run`` (a guide block's)
    would be refused."""
    executable = _chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        # Playwright's bounds are 30 s, which a busy machine can outlast starting chromium: a hang fails.
        launched = playwright.chromium.launch(
            executable_path=executable, args=FLAGS, headless=True, timeout=BROWSER_TIMEOUT_MS
        )
        try:
            yield launched
        finally:
            launched.close()


class Page:
    """A browser tab that records what the page logs as an error: console errors, uncaught exceptions,
    requests that failed or answered 400 and above."""

    def __init__(self, browser: Any, base: str) -> None:
        self.base = base
        self.errors: list[str] = []
        self.tab = browser.new_page()
        self.tab.set_default_timeout(BROWSER_TIMEOUT_MS)  # navigation and waits (``launch``'s comment)
        self.tab.on("console", lambda m: m.type == "error" and self.errors.append(f"console: {m.text}"))
        self.tab.on("pageerror", lambda e: self.errors.append(f"exception: {e}"))
        self.tab.on("requestfailed", self._failed)
        self.tab.on("response", lambda r: r.status >= 400 and self.errors.append(f"{r.status}: {r.url}"))

    def _failed(self, request: Any) -> None:
        # A request the next navigation cancels (the search worker still loading) is not the page's error.
        if request.failure != "net::ERR_ABORTED":
            self.errors.append(f"request failed: {request.url} {request.failure}")

    def open(self, path: str) -> Any:
        response = self.tab.goto(self.base + path, wait_until="load")
        assert response is not None
        assert response.ok, (path, response.status)
        return self.tab


@pytest.fixture
def page(browser: Any, served: str) -> Iterator[Page]:
    opened = Page(browser, served)
    try:
        yield opened
    finally:
        opened.tab.close()
    assert opened.errors == []
