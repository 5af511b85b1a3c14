"""Loading with the garbage collector paused: none of its collections runs while messages are built (but
the one that the objects made during the pause set off once it ends), and its switch is left as it was
found (on, off, after a failed load too)."""

from __future__ import annotations

import gc
import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest
from pydantic import ValidationError

from messages import AIMessage, ToolCall, ToolMessage, UserMessage, dump_messages, load_messages
from messages._io import collector_paused


def conversation(turns: int) -> list[dict[str, object]]:
    """Enough messages that their objects would set off many collections of the youngest generation."""
    messages: list[object] = []
    for n in range(turns):
        call = ToolCall(id=f"call_{n}", name="get_weather", arguments=f'{{"city": "City {n}"}}')
        messages += [
            UserMessage(content=f"Weather in city {n}?"),
            AIMessage(content=None, tool_calls=[call]),
            ToolMessage(tool_call_id=call.id, content='{"sky": "rain"}'),
        ]
    return dump_messages(messages)  # type: ignore[arg-type]


@contextmanager
def collections_during() -> Iterator[Callable[[], list[int]]]:
    """Records the generation of every collection that starts while the recorder's flag is up."""
    started: list[int] = []
    inside = [False]

    def record(phase: str, info: dict[str, int]) -> None:
        if phase == "start" and inside[0]:
            started.append(info["generation"])

    def run(load: Callable[[], object]) -> list[int]:
        inside[0] = True
        try:
            load()
        finally:
            inside[0] = False
        return started

    gc.callbacks.append(record)
    try:
        yield run  # type: ignore[misc]
    finally:
        gc.callbacks.remove(record)


@contextmanager
def collector(enabled: bool) -> Iterator[None]:
    was = gc.isenabled()
    (gc.enable if enabled else gc.disable)()
    try:
        yield
    finally:
        (gc.enable if was else gc.disable)()


DUMPED = conversation(1_000)
TEXT = json.dumps(DUMPED)


@pytest.mark.parametrize("data", [TEXT, TEXT.encode(), DUMPED], ids=["str", "bytes", "list"])
def test_no_collection_runs_while_a_conversation_loads(data):
    with collector(True), collections_during() as run:
        assert len(run(lambda: load_messages(data))) <= 1  # type: ignore[operator]
        assert gc.isenabled()
    # The recorder sees collections when they are not paused: the test can fail.
    with collector(True), collections_during() as run:
        assert len(run(lambda: [json.loads(TEXT) for _ in range(3)])) > 1  # type: ignore[operator]


@pytest.mark.parametrize("enabled", [True, False])
def test_the_collector_is_left_as_it_was_found_after_a_failed_load(enabled):
    bad = json.dumps([*DUMPED, {"role": "tool", "content": "no call id"}])
    with collector(enabled):
        with pytest.raises(ValidationError, match=r"3000\.tool\.tool_call_id"):
            load_messages(bad)
        assert gc.isenabled() is enabled
        load_messages(TEXT)
        assert gc.isenabled() is enabled


def test_a_collector_disabled_on_entry_stays_disabled_through_nested_pauses():
    with collector(False):
        with collector_paused():
            with collector_paused():
                assert not gc.isenabled()
            assert not gc.isenabled()
        assert not gc.isenabled()
    with collector(True):
        with collector_paused():
            with collector_paused():
                assert not gc.isenabled()
            assert not gc.isenabled()  # the inner pause found it off: the outer one turns it back on
        assert gc.isenabled()
