"""The arguments every integration over the stores takes, checked once: the store a framework's history
lives in, and the compactor that keeps it short."""

from __future__ import annotations

from messages.compaction import Compactor
from messages.errors import InvalidArgumentError
from messages.stores import AsyncThreadStore, ThreadStore

__all__ = ["check_compactor", "check_store"]


def check_store(store: object, owner: str) -> ThreadStore | AsyncThreadStore:
    """``store`` when it is a store of ``messages.stores``, sync or async; ``InvalidArgumentError`` naming
    ``store`` (an argument of ``owner``) for anything else."""
    if not isinstance(store, ThreadStore | AsyncThreadStore):
        raise InvalidArgumentError(
            f"{owner}(): store is a ThreadStore or an AsyncThreadStore of messages.stores "
            f"(SQLiteThreadStore, AsyncPostgresThreadStore, ...), not a {type(store).__name__}",
            argument="store",
        )
    return store


def check_compactor(compactor: object, owner: str) -> Compactor | None:
    """``compactor`` when it is a ``Compactor`` or ``None``; ``InvalidArgumentError`` naming ``compactor``
    (an argument of ``owner``) for anything else."""
    if compactor is not None and not isinstance(compactor, Compactor):
        raise InvalidArgumentError(
            f"{owner}(): compactor is a messages.compaction.Compactor or None, "
            f"not a {type(compactor).__name__}",
            argument="compactor",
        )
    return compactor
