"""AutoGen's tools in the OpenAI shape litellm takes, and litellm's token counts of AutoGen messages."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from autogen_core.models import LLMMessage
from autogen_core.tools import Tool, ToolSchema

from messages.context import MessageTokenCounter, _litellm_counter
from messages.convert.autogen import read_alone

__all__ = ["LiteLLMTokens", "openai_tools", "tool_choice"]


def openai_tools(tools: Sequence[Tool | ToolSchema]) -> list[dict[str, Any]]:
    """AutoGen tools (``Tool`` objects or ``ToolSchema`` dicts) as OpenAI ``tools`` entries."""
    out = []
    for position, tool in enumerate(tools):
        schema: Mapping[str, Any] = tool.schema if isinstance(tool, Tool) else tool
        if not isinstance(schema, Mapping) or not schema.get("name"):
            raise TypeError(
                f"tool {position} is a {type(tool).__name__}, not an AutoGen Tool or a ToolSchema with a name"
            )
        function: dict[str, Any] = {
            "name": schema["name"],
            "parameters": schema.get("parameters") or {"type": "object", "properties": {}},
        }
        if "description" in schema:
            function["description"] = schema["description"]
        if "strict" in schema:
            function["strict"] = schema["strict"]
        out.append({"type": "function", "function": function})
    return out


def tool_choice(choice: Tool | str) -> Any:
    """AutoGen's ``tool_choice`` (``"auto"``, ``"required"``, ``"none"`` or a ``Tool``) as OpenAI's."""
    if isinstance(choice, Tool):
        return {"type": "function", "function": {"name": choice.schema["name"]}}
    if choice in ("auto", "required", "none"):
        return choice
    raise ValueError(f"tool_choice must be a Tool, 'auto', 'required' or 'none'; got {choice!r}")


class LiteLLMTokens:
    """litellm's ``token_counter`` for one model, over AutoGen messages, offline.

    Each AutoGen message is read as ``messages.convert.autogen`` reads it (a result message as one tool
    message per result) and counted as ``messages.context.TokenLimitedContext`` counts with ``model=``: the
    tokenizer litellm picks without downloading one, images priced without fetching them. A list's count
    is the list overhead (the reply priming) plus its messages' counts plus its tools'; litellm's own count
    of a list is the same sum.
    """

    def __init__(self, model: str) -> None:
        self.model = model
        """The litellm model string whose tokenizer counts."""
        self._made: tuple[int, MessageTokenCounter] | None = None

    def _counter(self) -> tuple[int, MessageTokenCounter]:
        if self._made is None:
            self._made = _litellm_counter(self.model)
        return self._made

    @property
    def overhead(self) -> int:
        """What an empty list counts."""
        return self._counter()[0]

    def message(self, message: LLMMessage) -> int:
        """The tokens of one AutoGen message, without the list overhead."""
        count = self._counter()[1]
        return sum(count(m) for m in read_alone(message))

    def tools(self, tools: Sequence[Tool | ToolSchema]) -> int:
        """The tokens the tool definitions add to a request."""
        if not tools:
            return 0
        import litellm
        from litellm.utils import _return_openai_tokenizer

        tokenizer = _return_openai_tokenizer(self.model)
        definitions: Any = openai_tools(tools)  # OpenAI's tool dicts, which litellm types as its own
        with_tools = litellm.token_counter(
            model=self.model, custom_tokenizer=tokenizer, messages=[], tools=definitions
        )
        return int(with_tools) - self.overhead

    def count(self, messages: Sequence[LLMMessage], tools: Sequence[Tool | ToolSchema] = ()) -> int:
        """The tokens of a request holding ``messages`` and ``tools``."""
        return self.overhead + sum(self.message(m) for m in messages) + self.tools(tools)

    def limit(self) -> int | None:
        """The model's input window in tokens, as litellm's model map gives it (``None``: not known)."""
        import litellm

        try:
            info = litellm.get_model_info(self.model)
        except Exception:  # litellm raises a bare Exception for a model its map does not know
            return None
        limit = info.get("max_input_tokens") or info.get("max_tokens")
        return int(limit) if limit else None
