"""The bound of a store call: how long a call of the SQLite or PostgreSQL stores may take, and what holds
it to that.

A call's bound (``Bound``) starts when the call does (for the async SQLite store, when its caller calls,
not when a worker takes it up) and lasts the store's ``timeout``. ``Bounded``, the block every public
method runs its backend work in (``_Failures._operation``), starts it; a call made inside another call,
by the same task (or thread, where no task runs), shares the outer one's. One made elsewhere in a context
copied from the call (a task or callback it scheduled, a thread it handed work to) starts its own.

* SQLite waits only for other connections' locks, and only inside SQLite's busy handler: the store hands
  it what is left of the bound (``SQLiteThreadStore._connection``), so a call that waited for its worker
  or its set-up waits that much less for a lock, and one with nothing left fails before it starts.
* PostgreSQL may wait on a socket that says nothing: a dropped route, a frozen server, a middlebox that
  lost the flow. No timeout of the server's fires then (it never hears the statement, or its answer never
  arrives), and TCP's own (keepalives, ``tcp_user_timeout``) only when the far end's kernel stops
  acknowledging: a frozen server's kernel, a proxy or a load balancer still does. Nor does cancelling the
  wait help: psycopg answers a cancellation by sending the server a cancel request over a new connection
  and waiting for the statement's end, both through the same silence. So at the deadline the store shuts
  the call's socket down (``Bound.expire``): the wait ends at once with psycopg's error, the connection is
  broken (and so never given to another call), and ``Bounded`` reports the call as having crossed its
  bound. The sync stores' deadlines are kept by one watchdog thread per process (``_Watchdog``); the async
  store's by its event loop (``loop.call_later``).

A call that crossed its bound before its connection was handed to it (while it waited for a worker, a
pool slot or a connection) wrote nothing: ``NotWrittenError``. One that crossed it after may have sent its
write, whose commit the server may have made, or may still make once the statement gets through:
``MaybeWrittenError``.
"""

from __future__ import annotations

import contextlib
import contextvars
import math
import os
import socket
import threading
import time
from collections.abc import Callable
from types import TracebackType
from typing import ParamSpec, TypeVar

from messages.errors import InvalidArgumentError
from messages.stores._failures import BackendFailedError
from messages.stores.base import _Failures, _Operation, _owner

__all__ = ["Bound", "Bounded", "check_timeout", "current_bound", "started_at"]

_P = ParamSpec("_P")
_R = TypeVar("_R")


def check_timeout(value: object, name: str, store: str) -> float | None:
    """A store's bound setting: a number of seconds above 0, or ``None`` (no bound);
    ``InvalidArgumentError`` naming it otherwise."""
    if value is None:
        return None
    if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value) and value > 0:
        return float(value)
    raise InvalidArgumentError(
        f"{store}(): {name} is a number of seconds above 0, or None for no bound; got {value!r:.60}",
        argument=name,
    )


class Bound:
    """The bound of one call: ``seconds`` from its start. The sockets it watches are shut down when it
    expires: by the watchdog thread (sync stores) or the event loop (async)."""

    __slots__ = ("_armed", "_lock", "_sockets", "deadline", "ended", "expired", "handed", "owner", "seconds")

    def __init__(self, seconds: float, start: float) -> None:
        self.seconds = seconds
        """The store's ``timeout``."""
        self.deadline = start + seconds
        """When the call must have ended (``time.monotonic()``)."""
        self.expired = False
        """Whether the deadline came while the call watched a socket (which was then shut down)."""
        self.handed = False
        """Whether a connection was handed to the call: from then on its statements may be out."""
        self.ended = False
        """Whether the call has ended (``release``)."""
        self.owner = _owner()
        """Who makes the call: its asyncio task, or its thread where no task runs. Only a call of the same
        task or thread shares the bound (``current_bound``)."""
        self._lock = threading.Lock()
        self._sockets: dict[int, socket.socket] = {}
        self._armed = False

    def remaining(self) -> float:
        """The seconds left (0 or less once the deadline has passed)."""
        return self.deadline - time.monotonic()

    def watch(self, fd: int, *, watchdog: bool) -> None:
        """Shut the socket ``fd`` down when the bound expires (at once if it has): at the deadline kept by
        the watchdog thread (``watchdog``), or by whoever calls ``expire`` (an event loop's timer). The
        socket is held through a duplicate of ``fd`` until ``unwatch`` or ``release``: libpq may close
        ``fd`` when it finds the connection lost, and the number must not be another socket's when the
        deadline comes."""
        with self._lock:
            if fd not in self._sockets:
                self._sockets[fd] = _duplicate(fd)
        if watchdog and not self._armed:
            self._armed = True
            _WATCHDOG.arm(self)
        if self.remaining() <= 0:
            self.expire()

    def unwatch(self, fd: int) -> None:
        """Stop watching ``fd`` (its connection goes back to the pool, for other calls)."""
        with self._lock:
            held = self._sockets.pop(fd, None)
        if held is not None:
            held.close()

    def expire(self) -> None:
        """The deadline has come: shut every watched socket down, so that a wait on one ends now."""
        with self._lock:
            if not self._sockets:
                return  # between two connections, or done: nothing waits on a socket of this call
            self.expired = True
            for held in self._sockets.values():
                _shut(held)

    def release(self) -> None:
        """The call has ended: stop watching, and close the duplicates."""
        self.ended = True
        if self._armed:
            _WATCHDOG.disarm(self)
        with self._lock:
            sockets, self._sockets = self._sockets, {}
        for held in sockets.values():
            held.close()


def _duplicate(fd: int) -> socket.socket:
    # The family and type given do not matter: only shutdown() and close() are called on it.
    return socket.fromfd(fd, socket.AF_INET, socket.SOCK_STREAM)


def _shut(held: socket.socket) -> None:
    with contextlib.suppress(OSError):  # already shut down, or never connected: nothing waits on it
        held.shutdown(socket.SHUT_RDWR)


class _Watchdog:
    """One daemon thread per process that expires the armed bounds of the sync stores' calls at their
    deadlines. Arming costs a lock and a dict entry; the thread sleeps until the earliest deadline and is
    woken only when a call arms one earlier than that."""

    def __init__(self) -> None:
        self._forked()

    def _forked(self) -> None:
        """A fresh start: in a new process, or in a forked child, which has neither the thread nor the
        parent's calls (and whose lock one of the parent's threads may have held)."""
        self._cond = threading.Condition(threading.Lock())
        self._armed: dict[int, Bound] = {}
        self._wake = math.inf
        self._started = False

    def arm(self, bound: Bound) -> None:
        with self._cond:
            if not self._started:
                self._started = True
                threading.Thread(target=self._run, name="messages-store-bounds", daemon=True).start()
            self._armed[id(bound)] = bound
            if bound.deadline < self._wake:
                self._wake = bound.deadline
                self._cond.notify()

    def disarm(self, bound: Bound) -> None:
        with self._cond:
            self._armed.pop(id(bound), None)

    def _run(self) -> None:
        while True:
            with self._cond:
                now = time.monotonic()
                due = [bound for bound in self._armed.values() if bound.deadline <= now]
                for bound in due:
                    del self._armed[id(bound)]
                if not due:
                    self._wake = min((bound.deadline for bound in self._armed.values()), default=math.inf)
                    self._cond.wait(None if self._wake == math.inf else self._wake - now)
                    continue
            for bound in due:
                bound.expire()


_WATCHDOG = _Watchdog()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_WATCHDOG._forked)

_CURRENT: contextvars.ContextVar[Bound | None] = contextvars.ContextVar("messages_store_bound", default=None)
"""The bound of the store call the running thread or task serves, if any. Every context copied while a
call runs holds the call's bound too (``asyncio`` copies one for each task and callback it schedules,
``asyncio.to_thread`` and ``run_coroutine_threadsafe`` for the work they hand on), in another task or
thread, and keeps holding it after the call has ended: only the bound of a call that has not ended, made
by this task or thread, counts."""


def current_bound() -> Bound | None:
    """The bound of the call under way in this task (or thread), if it has one and it has not ended. A
    bound found in a context copied from another task or thread (while its call ran, or after) is that
    call's, not this one's."""
    bound = _CURRENT.get()
    if bound is None or bound.ended or bound.owner != _owner():
        return None
    return bound


class Bounded(_Operation):
    """``_Operation`` for a store whose calls are bounded: the outermost call starts its ``Bound`` (a call
    made inside another shares the outer one's), and a driver error from a call whose bound expired is
    reported as the bound crossed (``crossed(bound)`` says how), not as the connection lost."""

    __slots__ = ("_bound", "_crossed", "_seconds", "_token")

    def __init__(
        self,
        store: _Failures,
        operation: str,
        thread_id: str | None,
        writes: bool,
        *,
        seconds: float | None,
        crossed: Callable[[Bound], str],
    ) -> None:
        super().__init__(store, operation, thread_id, writes)
        self._crossed = crossed
        self._seconds = seconds
        self._bound: Bound | None = None
        self._token: contextvars.Token[Bound | None] | None = None

    def __enter__(self) -> None:
        super().__enter__()
        if self._seconds is not None and current_bound() is None:
            self._bound = Bound(self._seconds, time.monotonic())
            self._token = _CURRENT.set(self._bound)

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        bound = self._bound
        if bound is not None:
            bound.release()
            if self._token is not None:
                _CURRENT.reset(self._token)
            if bound.expired and isinstance(error, (BackendFailedError, *self._store._driver_errors)):
                # The error of the socket shut down at the deadline (psycopg's, as it is or described as
                # a connection lost): the call crossed its bound.
                cause = error.cause if isinstance(error, BackendFailedError) else error
                # Its statement, once out, may still reach the server and commit after the call gave up.
                sent = self._writes and bound.handed
                crossed = BackendFailedError(self._crossed(bound), cause=cause, maybe_written=sent, late=sent)
                super().__exit__(BackendFailedError, crossed, trace)
                return
        super().__exit__(kind, error, trace)


def started_at(function: Callable[_P, _R], seconds: float | None, start: float) -> Callable[_P, _R]:
    """``function`` run inside a call whose bound of ``seconds`` started at ``start``
    (``time.monotonic()``), unless it runs inside a call already: how the async SQLite store counts the
    time a call waits for its worker."""

    def bounded(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        if seconds is None or current_bound() is not None:
            return function(*args, **kwargs)
        bound = Bound(seconds, start)
        token = _CURRENT.set(bound)
        try:
            return function(*args, **kwargs)
        finally:
            bound.release()
            _CURRENT.reset(token)

    return bounded
