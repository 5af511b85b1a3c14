"""Which of the messages a history provider is asked to save are already stored: Agent Framework's rule
for a replayed turn, on the thread's newest messages.

Agent Framework's own history providers drop, before appending, the incoming messages that continue what
is stored: the incoming list may repeat the whole stored history (a client that sends the full transcript
each time), or begin with the stored history's newest messages (a turn saved again, as its per-service-call
persistence does after each model call). Messages are the same when they have the same ``message_id``;
without one, when they have the same role and contents. One exception keeps a real repetition: a single
stored user message without an id, met again, is taken as the user saying it again.

Here each Agent Framework message is an ``Entry``: its identity, and whether it is a user message without
an id. The store's idempotent append then drops, atomically, any message whose id the thread holds
anywhere (``skip_existing``): what this rule finds covers the messages without ids.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["Entry", "already_stored"]


@dataclass(frozen=True)
class Entry:
    """One Agent Framework message, as the replay rule sees it."""

    identity: tuple[object, ...]
    """``("id", message_id)``, or ``("content", ...)`` (its role and contents) for a message without an id."""
    anonymous_user: bool = False
    """A user message without an id: met again alone, it is said again, not replayed."""


def already_stored(stored: Sequence[Entry], incoming: Sequence[Entry], *, whole: bool) -> int:
    """How many of ``incoming``, from its start, are already in the thread whose newest messages are
    ``stored`` (the whole thread when ``whole``): the incoming messages after them are new."""
    count = len(stored)
    if whole and count:
        # The whole history inside the incoming list: a full transcript sent again.
        for start in range(len(incoming) - count + 1):
            if list(incoming[start : start + count]) == list(stored):
                if start == 0 and count == 1 and stored[0].anonymous_user:
                    break
                return start + count
    # The history's newest messages begin the incoming list: a turn saved again.
    for overlap in range(min(count, len(incoming)), 0, -1):
        if list(stored[count - overlap :]) != list(incoming[:overlap]):
            continue
        if overlap == 1 and stored[-1].anonymous_user:
            continue
        return overlap
    return 0
