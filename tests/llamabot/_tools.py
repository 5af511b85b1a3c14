"""The llamabot tools of the agent tests (llamabot's ``@tool``: a PocketFlow node per function)."""

from __future__ import annotations

from llamabot.components.tools import tool


@tool
def add(a: int, b: int) -> int:
    """Add two numbers.

    :param a: The first number.
    :param b: The second number.
    :return: Their sum.
    """
    return a + b


@tool
def multiply(a: int, b: int) -> int:
    """Multiply two numbers.

    :param a: The first number.
    :param b: The second number.
    :return: Their product.
    """
    return a * b


@tool
def explode(reason: str) -> str:
    """Fail, saying why.

    :param reason: Why.
    :return: Nothing: it raises.
    """
    raise RuntimeError(reason)
