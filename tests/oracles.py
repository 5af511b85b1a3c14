"""The provider SDKs' own request types, used as structural oracles.

They validate lazily and ignore unknown keys by default (litellm-notes.md section 5), so each oracle forbids
extra keys and materializes every nested iterable before it says yes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import cache
from typing import Any

from pydantic import BaseModel, ConfigDict, TypeAdapter


def materialize(value: Any) -> Any:
    """Walk ``value``, consuming the lazy iterators pydantic returns for ``Iterable[...]`` fields."""
    if isinstance(value, Mapping):
        return {k: materialize(v) for k, v in value.items()}
    if isinstance(value, BaseModel):
        raise AssertionError(f"the oracle turned a request part into a response model: {value!r}")
    if isinstance(value, (str, bytes)):
        return value
    if isinstance(value, Iterable):
        return [materialize(v) for v in value]
    return value


@cache
def _openai_messages() -> TypeAdapter[Any]:
    from openai.types.chat import ChatCompletionMessageParam

    return TypeAdapter(list[ChatCompletionMessageParam], config=ConfigDict(extra="forbid"))


def openai_accepts(messages: list[dict[str, Any]]) -> list[Any]:
    """Validate a message list against ``openai.types.chat.ChatCompletionMessageParam``; raise if it fails."""
    return materialize(_openai_messages().validate_python(messages))  # type: ignore[no-any-return]
