"""What a stand-in route is: the contract between the stand-in server and the route of each provider API.

Below both: every route module and ``_server`` (which serves them all) take these from here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from messages.models import AIMessage

__all__ = ["Reply", "Responder", "Route"]

Responder = Callable[[dict[str, Any]], AIMessage]
"""Decides the reply: takes the request body (parsed JSON), returns the assistant message to send."""


@dataclass(frozen=True)
class Reply:
    """What a route sends back: a status, headers, and either one body or a stream of chunks."""

    status: int
    body: bytes | Iterable[bytes]
    content_type: str = "application/json"


class Route(Protocol):
    """One provider API: which paths it answers and how it turns an ``AIMessage`` into that API's reply."""

    @property
    def name(self) -> str:
        """A short name for the route (``"openai"``, ``"anthropic"``), recorded with each request."""
        ...

    def matches(self, method: str, path: str) -> bool:
        """Whether this route answers ``method path``.

        Args:
            method: the HTTP method (``"POST"``).
            path: the request's path, query string included.

        Returns:
            ``True`` when this route serves the request.

        Raises nothing.
        """
        ...

    def respond(self, body: dict[str, Any], path: str, responder: Responder) -> Reply:
        """The provider's reply to a request whose JSON body is ``body``.

        Args:
            body: the request's JSON body, parsed.
            path: the request's path (a streaming path asks for a stream).
            responder: decides the reply's message, from ``body``.

        Returns:
            The status, headers and body (or stream of events) the provider would send.

        Raises nothing of its own; what the responder raises, the server answers as an error status, as a
        provider would.
        """
        ...
