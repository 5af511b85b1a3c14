"""The stand-in server: a threaded HTTP server on loopback, routes per provider, a log of requests."""

from __future__ import annotations

import itertools
import json
import sys
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

from messages.models import AIMessage
from messages.testing._anthropic import AnthropicMessagesRoute
from messages.testing._bedrock import BedrockConverseRoute
from messages.testing._cohere import CohereChatRoute
from messages.testing._gemini import GeminiRoute, OAuthTokenRoute
from messages.testing._ollama import OllamaRoute
from messages.testing._openai import OpenAIChatRoute
from messages.testing._responses import OpenAIResponsesRoute
from messages.testing._route import Reply, Responder, Route

__all__ = ["Recorded", "Reply", "Responder", "Route", "StandInServer", "scripted"]


@dataclass(frozen=True)
class Recorded:
    """One request the server received."""

    method: str
    """The HTTP method (``"POST"``)."""
    path: str
    """The path, query string included."""
    headers: Mapping[str, str]
    """The request's headers."""
    body: Any
    """The parsed JSON body (or the raw text when it is not JSON)."""
    route: str
    """The name of the route that answered it."""


def scripted(*replies: AIMessage | Callable[[dict[str, Any]], AIMessage]) -> Responder:
    """A responder that answers with ``replies`` in order (a callable entry is called with the body).

    Once the script is used up, every further request gets the last entry again.

    Args:
        *replies: the replies, in order: an ``AIMessage``, or a function from the request body to one.

    Returns:
        The responder, for ``StandInServer(...)``.

    Raises:
        ValueError: no reply is given.

    Examples:
        ```python
        from messages import AIMessage
        from messages.testing import scripted

        respond = scripted(AIMessage(content="first"), lambda body: AIMessage(content="then"))
        assert respond({}).content == "first"
        assert respond({}).content == respond({}).content == "then"  # the last, again
        ```
    """
    if not replies:
        raise ValueError("scripted() needs at least one reply")
    lock = threading.Lock()
    position = itertools.count()

    def respond(body: dict[str, Any]) -> AIMessage:
        """The provider's reply to a request whose JSON body is ``body`` (``Route.respond``).

        Raises nothing of its own: what the responder raises, the server answers as an error status.
        """
        with lock:
            entry = replies[min(next(position), len(replies) - 1)]
        return entry(body) if callable(entry) else entry

    return respond


def _default_routes() -> list[Route]:
    return [
        OpenAIChatRoute(),
        OpenAIResponsesRoute(),
        AnthropicMessagesRoute(),
        GeminiRoute(),
        GeminiRoute(name="vertex_ai", vertex=True),
        OAuthTokenRoute(),
        BedrockConverseRoute(),
        OllamaRoute(),
        CohereChatRoute(),
    ]


@dataclass
class StandInServer:
    """A provider on 127.0.0.1 for litellm to talk to, recording each request it gets.

    Use it as a context manager; ``url`` is the ``api_base`` to give litellm, and
    ``completion_kwargs(model)`` all that ``litellm.completion`` needs to reach it instead of the provider.

    Args:
        responder: decides each reply: a function from the request body to the ``AIMessage`` to send
            back (``scripted(...)`` replays a list). Default: "Hello from the stand-in." every time.
        routes: the provider APIs it answers. Default: every route of this module.

    Examples:
        ```python
        import litellm
        from messages import AIMessage, ToolCall
        from messages.testing import StandInServer, scripted

        call = ToolCall(id="call_1", name="get_weather", arguments={"city": "Oslo"})
        script = scripted(AIMessage(tool_calls=[call]), AIMessage(content="Rain in Oslo."))
        with StandInServer(script) as server:
            send = server.completion_kwargs("anthropic/claude-sonnet-4-5")
            messages = [{"role": "user", "content": "Weather in Oslo?"}]
            first = litellm.completion(model="anthropic/claude-sonnet-4-5", messages=messages,
                                       **send)
            assert AIMessage.from_litellm(first).tool_calls[0].name == "get_weather"
            assert server.last_body()["messages"][0]["role"] == "user"  # Anthropic's shape
        ```
    """

    responder: Responder = field(
        default_factory=lambda: scripted(AIMessage(content="Hello from the stand-in."))
    )
    routes: Sequence[Route] = field(default_factory=_default_routes)
    requests: list[Recorded] = field(default_factory=list, init=False)
    _server: ThreadingHTTPServer | None = field(default=None, init=False, repr=False)
    _thread: threading.Thread | None = field(default=None, init=False, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    @property
    def url(self) -> str:
        """``http://127.0.0.1:<port>``; valid once started."""
        if self._server is None:
            raise RuntimeError("the stand-in server is not running; use it in a `with` block or call start()")
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def start(self) -> Self:
        """Start listening on a free port, serving from a daemon thread (``with`` does it for you).

        Returns:
            The server itself, started; ``url`` names its port.

        Raises:
            OSError: no loopback port can be bound.
        """
        if self._server is not None:
            return self
        self._server = _QuietServer(("127.0.0.1", 0), _handler_for(self))
        self._server.daemon_threads = True
        # A short poll interval: shutdown() waits for the next poll, and tests start and stop many servers.
        self._thread = threading.Thread(
            target=self._server.serve_forever, args=(0.02,), name="stand-in-server", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the socket.

        Raises nothing.
        """
        if self._server is None:
            return
        self._server.shutdown()
        self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._server = None
        self._thread = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def completion_kwargs(self, model: str) -> dict[str, Any]:
        """What ``litellm.completion(model=model, ...)`` needs to talk to this server instead of the
        provider (``api_base`` or its equivalent, fake keys, no retries): see ``completion_kwargs``.

        Args:
            model: the litellm model string the request names.

        Returns:
            Keyword arguments for ``litellm.completion`` (``api_base``, ``api_key``, ``num_retries``...).

        Raises nothing.
        """
        from messages.testing._kwargs import completion_kwargs

        return completion_kwargs(self.url, model)

    def last_body(self) -> Any:
        """The body of the most recent request.

        Returns:
            Its JSON body, parsed (or its text when it is not JSON).

        Raises:
            LookupError: no request has come yet.
        """
        with self._lock:
            if not self.requests:
                raise LookupError("the stand-in server has received no request yet")
            return self.requests[-1].body

    def bodies(self) -> list[Any]:
        """The bodies of every request so far, oldest first.

        Returns:
            Each request's JSON body, parsed (or its text when it is not JSON).

        Raises nothing.
        """
        with self._lock:
            return [r.body for r in self.requests]

    def _record(self, recorded: Recorded) -> None:
        with self._lock:
            self.requests.append(recorded)

    def _route(self, method: str, path: str) -> Route | None:
        return next((route for route in self.routes if route.matches(method, path)), None)


class _QuietServer(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that closes a kept-alive connection is normal; anything else is still reported.
        if isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            return
        super().handle_error(request, client_address)


def _handler_for(server: StandInServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # Without it every call waits ~40 ms for delayed ACKs (measured).
        disable_nagle_algorithm = True

        def log_message(self, format: str, *args: Any) -> None:
            pass  # quiet: tests read `server.requests`, not stderr

        def _serve(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body: Any = json.loads(raw) if raw else {}
            except ValueError:
                body = raw.decode("utf-8", "replace")
            path = self.path.split("?", 1)[0]
            route = server._route(self.command, path)
            server._record(
                Recorded(
                    self.command, self.path, dict(self.headers.items()), body, route.name if route else ""
                )
            )
            if route is None:
                self._send(
                    Reply(404, json.dumps({"error": {"message": f"no stand-in route for {path}"}}).encode())
                )
                return
            try:
                reply = route.respond(body if isinstance(body, dict) else {}, path, server.responder)
            except Exception as exc:  # reported to the client as a provider would, not swallowed
                message = f"stand-in route {route.name} failed: {type(exc).__name__}: {exc}"
                reply = Reply(500, json.dumps({"error": {"message": message}}).encode())
            self._send(reply)

        def _send(self, reply: Reply) -> None:
            self.send_response(reply.status)
            self.send_header("Content-Type", reply.content_type)
            if isinstance(reply.body, bytes):
                self.send_header("Content-Length", str(len(reply.body)))
                self.end_headers()
                self.wfile.write(reply.body)
                return
            self.send_header("Transfer-Encoding", "chunked")
            self.send_header("Cache-Control", "no-cache")
            self.end_headers()
            for chunk in _as_iterator(reply.body):
                self.wfile.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
                self.wfile.flush()
            self.wfile.write(b"0\r\n\r\n")

        do_POST = _serve  # noqa: N815 - the stdlib's naming
        do_GET = _serve  # noqa: N815

    return Handler


def _as_iterator(chunks: Iterable[bytes]) -> Iterator[bytes]:
    for chunk in chunks:
        if chunk:
            yield chunk
