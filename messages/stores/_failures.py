"""How a backend's failures become the store's errors, naming the operation and the thread.

Every public method of a ``ThreadStore`` runs its backend work inside ``ThreadStore._operation``, which
knows the operation and the thread. A backend reports what failed, and whether its write may have been
committed, in one of two ways:

* by raising ``BackendFailedError`` where it knows more than the driver's error says (a connection that
  could not be opened: nothing was sent; a failed SQLite ``COMMIT``: maybe committed, depending on the
  error);
* by letting the driver's error through: the backend's ``_describe`` then says what it means (for
  PostgreSQL, whether the connection was lost while the statement was out).

``_operation`` turns either into a ``NotWrittenError`` or a ``MaybeWrittenError`` chained to the driver's
error, and ``ClosedError`` into a ``StoreClosedError``. The two exceptions here never leave the package.
"""

from __future__ import annotations

from messages.errors import BackendError, MaybeWrittenError, NotWrittenError

__all__ = ["BackendFailedError", "ClosedError", "backend_error"]


class BackendFailedError(Exception):
    """A driver error ``cause`` (``None``: a failure of the store's own, a call past its bound before it
    reached the driver), described (``what``) and classified where it happened. ``late``: a write whose
    statement may still be on its way to the server (the call gave up waiting for its answer)."""

    def __init__(
        self, what: str, *, cause: BaseException | None, maybe_written: bool, late: bool = False
    ) -> None:
        super().__init__(what)
        self.what = what
        self.cause = cause
        self.maybe_written = maybe_written
        self.late = late


class ClosedError(Exception):
    """The store was closed (raised where a connection is asked for)."""


# What a caller can do after a write that may have been committed, by operation.
_RECONCILE = {
    "append": (
        "an append is all or nothing, so its messages are in the thread whole or not at all: read the "
        "thread's end back (messages(thread_id, -n) for n messages) before appending them again"
    ),
    "create_thread": (
        "the thread may exist now: load_thread() it, or create_thread() it again (ThreadExistsError then "
        "says it was created)"
    ),
    "save_thread": "the thread holds the old value or the new one: saving it again is safe",
    "delete_thread": (
        "the thread may be gone: delete_thread() it again (ThreadNotFoundError then says it was deleted)"
    ),
}


# What a caller can do after a write whose statement may still reach the server and commit, by operation:
# a read right now may not show it yet, so only a retry that is safe to repeat settles it.
_LATE = {
    "append": (
        "its statement may still reach the server and commit: append the same messages again with the same "
        "ids and skip_existing=True, which stores them once whichever arrives first (a read right now may "
        "not show them yet)"
    ),
}


def backend_error(
    operation: str, thread_id: str | None, what: str, *, writes: bool, maybe_written: bool, late: bool = False
) -> BackendError:
    """The error for ``operation`` on ``thread_id`` (an operation that ``writes`` or not) that failed as
    ``what`` says; ``late``: its statement may still be on its way to the server."""
    error: type[BackendError] = MaybeWrittenError if writes and maybe_written else NotWrittenError
    target = f"{operation}() on thread {thread_id!r}" if thread_id is not None else f"{operation}()"
    if operation == "open":
        message = f"opening the store failed: {what}; nothing was written"
    elif not writes:
        message = (
            f"{target} failed: {what}. It writes nothing, and the store goes on at the next call "
            "(reconnecting if the connection was lost): retrying it is safe"
        )
    elif error is MaybeWrittenError:
        known = _RECONCILE.get(operation)
        reconcile = known or "read back what it wrote before retrying"
        if late:
            late_text = (
                "its statement may still reach the server and commit: once the server answers again, read "
                "back what it wrote before retrying"
            )
            reconcile = _LATE.get(operation, f"{late_text}; {known}" if known else late_text)
        message = f"{target} may or may not have been written: {what}. {reconcile[0].upper()}{reconcile[1:]}"
    else:
        message = (
            f"{target} failed and wrote nothing: {what}. The store goes on at the next call (reconnecting "
            "if the connection was lost): retrying it as it is is safe"
        )
    return error(message, operation=operation, thread_id=thread_id)
