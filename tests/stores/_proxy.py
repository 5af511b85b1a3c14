"""A loopback TCP proxy between a store and a real PostgreSQL server that can partition the network without
closing a socket: ``partition()`` stops forwarding in one direction or both, ``heal()`` forwards again.

What a partition does here is what a lost route does to TCP: the bytes sent meanwhile are not lost, they
wait (in the proxy and in the kernels' buffers) and arrive once the partition heals, unless a side closed
its connection first. Both sides' sockets stay open and nothing is said, so neither side can tell a
partition from a slow peer: the proxy's kernel acknowledges what the store sends, as a frozen server's
kernel, a load balancer or a NAT that lost the flow would, so TCP's own timeouts (keepalives,
``tcp_user_timeout``) never fire. Connections made during a partition are accepted, and partitioned too.

Each connection is two pumps (threads), one per direction; a pump that has read a chunk waits for its
direction to flow before it writes it on.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Callable
from typing import Literal

Direction = Literal["up", "down"]
"""``up``: from the store to the server; ``down``: from the server to the store."""


class Proxy:
    """Listens on a free loopback port and forwards each connection to ``target`` (host, port)."""

    def __init__(self, target: tuple[str, int]) -> None:
        self._target = target
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port: int = self._listener.getsockname()[1]
        self._flowing: dict[Direction, threading.Event] = {"up": threading.Event(), "down": threading.Event()}
        for event in self._flowing.values():
            event.set()
        self._trip = threading.Event()
        self._lock = threading.Lock()
        self._flows: list[_Flow] = []
        self._closed = False
        self._accepting = threading.Thread(target=self._accept, name="proxy-accept", daemon=True)
        self._accepting.start()

    def dsn(self, dsn: str) -> str:
        """``dsn`` (the server's) through this proxy."""
        from psycopg.conninfo import make_conninfo

        return make_conninfo(dsn, host="127.0.0.1", hostaddr="127.0.0.1", port=str(self.port))

    def partition(self, *directions: Direction) -> None:
        """Stop forwarding in ``directions`` (both when none is named), sockets left open."""
        for direction in directions or ("up", "down"):
            self._flowing[direction].clear()

    def partition_after_the_next_request(self) -> None:
        """Let the next chunk from the store through to the server (a statement, as a store sends it in one
        write), then stop forwarding both ways: the network fails while the statement is out, before its
        answer can come back."""
        self._trip.set()

    def heal(self) -> None:
        """Forward again in both directions, what waited first."""
        for event in self._flowing.values():
            event.set()

    def open_flows(self) -> int:
        """How many connections are open (both of their pumps still running)."""
        with self._lock:
            return sum(not flow.done.is_set() for flow in self._flows)

    def wait_until(self, condition: Callable[[], bool], what: str, timeout: float = 60) -> None:
        """Poll ``condition`` until it holds; fail naming ``what`` after ``timeout`` s (a bound on the
        test, not a figure: it holds at once on an idle machine)."""
        deadline = time.monotonic() + timeout
        while not condition():
            assert time.monotonic() < deadline, f"{what}: not within {timeout} s"
            time.sleep(0.01)

    def close(self) -> None:
        """Stop listening and close every connection."""
        self.heal()
        with self._lock:
            self._closed = True
            flows = list(self._flows)
        with contextlib.suppress(OSError):
            # Wakes the accepting thread, which close() alone leaves blocked in accept() (Linux).
            self._listener.shutdown(socket.SHUT_RDWR)
        self._listener.close()
        for flow in flows:
            flow.close()
        self._accepting.join(10)

    def __enter__(self) -> Proxy:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:  # the listener was closed
                return
            try:
                server = socket.create_connection(self._target, timeout=30)
                server.settimeout(None)
            except OSError:
                client.close()
                continue
            flow = _Flow(client, server, self._flowing, self._trip)
            with self._lock:
                if self._closed:
                    flow.close()
                    return
                self._flows.append(flow)
            flow.start()


class _Flow:
    """One proxied connection: the store's socket, the server's, and a pump each way."""

    def __init__(
        self,
        client: socket.socket,
        server: socket.socket,
        flowing: dict[Direction, threading.Event],
        trip: threading.Event,
    ) -> None:
        self._sockets = (client, server)
        self._flowing = flowing
        self._trip = trip
        self._pumps = [
            threading.Thread(target=self._pump, args=(client, server, "up"), daemon=True),
            threading.Thread(target=self._pump, args=(server, client, "down"), daemon=True),
        ]
        self._ended = 0
        self._lock = threading.Lock()
        self.done = threading.Event()
        """Set once both pumps have ended and both sockets are closed."""

    def start(self) -> None:
        for pump in self._pumps:
            pump.start()

    def _pump(self, source: socket.socket, sink: socket.socket, direction: Direction) -> None:
        try:
            while True:
                data = source.recv(65536)
                self._flowing[direction].wait()  # a partition: what was read waits here, and the rest in
                # the kernel's buffers, until it heals
                if not data:
                    with contextlib.suppress(OSError):
                        sink.shutdown(socket.SHUT_WR)  # the end of the stream goes on too
                    return
                tripped = direction == "up" and self._trip.is_set()
                if tripped:
                    self._trip.clear()
                    self._flowing["down"].clear()  # before the statement goes: its answer cannot get back
                sink.sendall(data)
                if tripped:
                    self._flowing["up"].clear()
        except OSError:  # a side reset or closed: the connection is over both ways
            self.close()
        finally:
            with self._lock:
                self._ended += 1
                last = self._ended == 2
            if last:
                self.close()

    def close(self) -> None:
        for sock in self._sockets:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
        with self._lock:
            last = self._ended == 2
        if last:
            for sock in self._sockets:
                sock.close()
            self.done.set()
