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
