"""Shared test set-up: offline litellm (imported once per session), hypothesis profiles, a stand-in server."""

from __future__ import annotations

import gc
import os

# Before anything imports litellm: no cost-map download, no tokenizer download (docs/litellm.md, 'import
# litellm fetches the model cost map' and 'token_counter looks for Hugging Face tokenizers').
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from collections.abc import Iterator
from types import ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

from messages.testing import StandInServer

settings.register_profile(
    "ci",
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(
    "thorough", max_examples=1000, deadline=None, suppress_health_check=list(HealthCheck)
)
settings.register_profile("quick", max_examples=10, deadline=None, suppress_health_check=list(HealthCheck))
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

QUICK = settings.get_current_profile_name() == "quick"
"""The one-minute loop (`scripts/dev.py test --quick`): every property test runs at most the quick
profile's examples, its own `@settings` included (``pytest_collection_modifyitems``). The full run keeps
every count."""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Keep the profile's promises in tests that set their own settings (``_profile_kept``), and under
    the quick profile, cap their examples (``QUICK``)."""
    for item in items:
        test = getattr(item, "obj", None)
        # Where @given keeps the settings it runs with (hypothesis.core reads them at each call).
        own = getattr(test, "_hypothesis_internal_use_settings", None)
        if own is not None:
            test._hypothesis_internal_use_settings = _profile_kept(own)


def _profile_kept(own: settings) -> settings:
    """A test's own ``@settings`` with what every profile promises whatever the test says: no deadline,
    and the profile's health checks suppressed beside the test's own.

    Both are wall-clock checks (a deadline fails an example that takes longer than 200 ms; the ``too_slow``
    health check fails a test whose examples take long to generate), which a busy machine fails at
    random, and tests hold no wall-clock assertions (speed is measured in benchmarks/). A test's
    ``suppress_health_check=[...]`` replaces the profile's list rather than adding to it: without this,
    ``[HealthCheck.function_scoped_fixture]`` brought ``too_slow`` back.
    """
    profile = settings.default
    suppressed = list(dict.fromkeys([*own.suppress_health_check, *profile.suppress_health_check]))
    examples = min(own.max_examples, profile.max_examples) if QUICK else own.max_examples
    return settings(own, deadline=None, suppress_health_check=suppressed, max_examples=examples)


def pytest_sessionstart(session: pytest.Session) -> None:
    """Record whether a PostgreSQL server was up for this run (scripts/dev.py says so in
    MESSAGES_POSTGRES_STATUS) in the JUnit report, where .ci/check_junit.py reads it: with one up, no
    PostgreSQL test may skip.

    Written by the process that writes the report (the controller, under pytest-xdist), through the
    report's own object: the ``record_testsuite_property`` fixture records nothing from xdist's workers.
    """
    from _pytest.junitxml import xml_key

    report = session.config.stash.get(xml_key, None)
    if report is not None:
        report.add_global_property("postgres_status", os.environ.get("MESSAGES_POSTGRES_STATUS", "unknown"))


def _freeze_heap() -> None:
    """Move every object alive now out of the garbage collector's reach (``gc.freeze``).

    The modules imported by collection and by litellm are about half a million objects that live for the
    whole session. Without this, every full collection walks all of them: about 0.5 s on this 2-core
    machine, paid after each test that calls litellm (``_finalize_abandoned_streams``) and by the
    collector's own full passes; that was most of the conformance suite's time. Frozen objects are still
    freed by reference counting; only the cycle collector skips them.
    """
    gc.collect()
    gc.freeze()


def pytest_collection_finish(session: pytest.Session) -> None:
    """Every test module is imported by now: freeze what they imported (``_freeze_heap``)."""
    _freeze_heap()


@pytest.fixture(scope="session")
def litellm() -> ModuleType:
    """The real litellm, imported once for the whole session (the import costs about 2 s)."""
    import litellm as module

    module.disable_hf_tokenizer_download = True
    module.suppress_debug_info = True
    _freeze_heap()  # litellm's import is the other half of the session's long-lived heap
    return module


@pytest.fixture(autouse=True)
def _finalize_abandoned_streams(request: pytest.FixtureRequest) -> Iterator[None]:
    """After a test that called litellm, collect garbage at a safe point.

    A litellm stream left unfinished (a test that expects an error mid-stream, or one that reads the first
    chunks only) keeps its httpx response open until it is garbage-collected. If the collector happens to
    run it while httpcore's connection pool holds its lock in the same thread, closing the response waits
    for that lock forever (seen once: a whole-suite run hung in tests/test_streaming.py). Collected here,
    between tests, no lock is held.
    """
    yield
    if "litellm" in request.fixturenames:
        # Frozen afterwards: the next test's collection walks only what was made since (_freeze_heap).
        _freeze_heap()


def close_stream(stream: Any) -> None:
    """Close what a litellm stream reads from (its provider stream and HTTP response), now rather than
    when the garbage collector gets to it (see ``_finalize_abandoned_streams``)."""
    inner = getattr(stream, "completion_stream", None)
    close = getattr(inner, "close", None)
    if callable(close):
        close()


@pytest.fixture
def stand_in() -> Iterator[StandInServer]:
    """A fresh stand-in provider on loopback."""
    with StandInServer() as server:
        yield server


def send_kwargs(server: StandInServer) -> dict[str, Any]:
    """What `litellm.completion` needs to talk to the stand-in: no retries, a fake key."""
    return {"api_base": server.url, "api_key": "test-key", "num_retries": 0, "timeout": 30}


@pytest.fixture
def restored_registry():
    """Put the profile registry back as it was: a profile registered by one test (or a docs example) must
    not reach later tests (the ``messages check --all-providers`` test compares against the profiles a
    fresh process registers)."""
    from messages.profiles import _registry, registered_profiles

    registered_profiles()  # the built-ins loaded before the snapshot
    tables = (_registry._profiles, _registry._families, _registry._aliases)
    # The same Profile objects come back (tests compare them with ``is``); only the tables are copied.
    saved = [{key: dict(v) if isinstance(v, dict) else v for key, v in table.items()} for table in tables]
    yield
    with _registry._lock:
        for live, kept in zip(tables, saved, strict=True):
            live.clear()
            live.update(kept)  # type: ignore[attr-defined]
        _registry._resolve.cache_clear()
