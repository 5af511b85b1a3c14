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


@pytest.fixture(scope="session", autouse=True)
def _postgres_status(record_testsuite_property: Any) -> None:
    """Whether a PostgreSQL server was up for this run (scripts/dev.py says so in MESSAGES_POSTGRES_STATUS),
    recorded in the JUnit report, where .ci/check_junit.py reads it: with one up, no PostgreSQL test may
    skip."""
    record_testsuite_property("postgres_status", os.environ.get("MESSAGES_POSTGRES_STATUS", "unknown"))


@pytest.fixture(scope="session")
def litellm() -> ModuleType:
    """The real litellm, imported once for the whole session (the import costs about 2 s)."""
    import litellm as module

    module.disable_hf_tokenizer_download = True
    module.suppress_debug_info = True
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
        gc.collect()


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
