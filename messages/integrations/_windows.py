"""What the integrations that read a thread through a window share: a window given as a window or as a
function that makes one, turned into a factory of fresh windows (a window holds one history at a time)."""

from __future__ import annotations

import copy
import inspect
from collections.abc import Callable

from messages.context import ChatCompletionContext
from messages.errors import InvalidArgumentError

__all__ = ["WindowFactory", "window_factory"]

WindowFactory = Callable[[], ChatCompletionContext]
"""Makes a fresh window of ``messages.context`` for one read (a window holds one history at a time)."""


def window_factory(window: ChatCompletionContext | WindowFactory | None, owner: str) -> WindowFactory | None:
    """``window`` as a factory of fresh windows: a window is copied empty for each read; a factory is
    called once here to check what it makes. ``InvalidArgumentError`` naming ``window`` (an argument of
    ``owner``) for anything else."""
    if window is None:
        return None
    if isinstance(window, ChatCompletionContext):
        template = copy.deepcopy(window)
        template.clear()
        return lambda: copy.deepcopy(template)
    what = (
        f"{owner}(): window must be a window of messages.context "
        "(BufferedContext(buffer_size=50), ...) or a function that makes one and takes no argument "
        "(lambda: BufferedContext(buffer_size=50))"
    )
    if not callable(window):
        raise InvalidArgumentError(f"{what}; got {window!r}", argument="window")
    try:
        inspect.signature(window).bind()
    except TypeError:
        raise InvalidArgumentError(
            f"{what}; got {window!r}, which needs arguments", argument="window"
        ) from None
    except ValueError:
        pass  # no signature to read (a builtin): calling it says the rest
    made = window()
    if not isinstance(made, ChatCompletionContext):
        raise InvalidArgumentError(
            f"{what}; got a function that makes a {type(made).__name__}", argument="window"
        )
    return window
