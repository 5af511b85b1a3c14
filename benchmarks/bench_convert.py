"""The converters of ``messages.convert`` beside the other library's own conversion to OpenAI dicts, on the
same 10,000-message conversation (2,000 with ``--quick``).

Each row is timed in pairs with its baseline (the median of the ratios; see ``_timing.paired``):

* LangChain: ``from_langchain`` vs ``convert_to_openai_messages`` (both read LangChain messages), and
  ``to_langchain`` vs ``convert_to_messages`` (both build LangChain messages, LangChain from OpenAI dicts);
* pydantic-ai: ``from_pydantic_ai`` vs its OpenAI chat model's own message mapping (``_map_messages``,
  run offline), and ``to_pydantic_ai`` vs ``ModelMessagesTypeAdapter.validate_python`` of the history's
  own dump (how pydantic-ai loads a history);
* Responses API items: ``from_responses_items`` and ``to_responses_items`` vs litellm's own reading of the
  same items into chat-completion dicts (``transform_responses_api_input_to_messages``, the bridge it runs
  for every provider without a Responses API).

A ratio above 1 is slower than the other library. No target: these are read, not asserted.
"""

from __future__ import annotations

import asyncio
from typing import Any

from benchmarks._conversation import build_conversation
from benchmarks._timing import Table
from messages import dump_messages
from messages.convert import (
    from_langchain,
    from_pydantic_ai,
    from_responses_items,
    to_langchain,
    to_pydantic_ai,
    to_responses_items,
)


def main(quick: bool = False) -> None:
    size = 2_000 if quick else 10_000
    repeat = 3 if quick else 9
    conversation = build_conversation(size)
    dumped = dump_messages(conversation)

    from langchain_core.messages import convert_to_messages, convert_to_openai_messages

    lc_messages = to_langchain(conversation)
    assert from_langchain(lc_messages) == conversation
    theirs, ours = "langchain convert_to_openai_messages", "from_langchain"
    table = Table(f"LangChain messages of a {size:,}-message conversation -> ours / OpenAI dicts")
    lc_read = table.measure_paired(
        theirs,
        {theirs: lambda: convert_to_openai_messages(lc_messages), ours: lambda: from_langchain(lc_messages)},
        repeat=repeat,
    )
    table.show(theirs)
    theirs_build, ours_build = "langchain convert_to_messages(dicts)", "to_langchain"
    table = Table("the same conversation -> LangChain messages (from ours / from OpenAI dicts)")
    lc_build = table.measure_paired(
        theirs_build,
        {theirs_build: lambda: convert_to_messages(dumped), ours_build: lambda: to_langchain(conversation)},
        repeat=repeat,
    )
    table.show(theirs_build)

    from pydantic_ai.messages import ModelMessagesTypeAdapter
    from pydantic_ai.models import ModelRequestParameters
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    history = to_pydantic_ai(conversation)
    assert from_pydantic_ai(history) == conversation
    model = OpenAIChatModel("gpt-4o", provider=OpenAIProvider(api_key="offline"))
    parameters = ModelRequestParameters()

    def pai_map() -> Any:
        return asyncio.run(model._map_messages(history, parameters))

    history_dump = ModelMessagesTypeAdapter.dump_python(history)
    theirs, ours = "pydantic-ai OpenAIChatModel._map_messages", "from_pydantic_ai"
    table = Table("a pydantic-ai history of the conversation -> ours / OpenAI dicts")
    pai_read = table.measure_paired(
        theirs, {theirs: pai_map, ours: lambda: from_pydantic_ai(history)}, repeat=repeat
    )
    table.show(theirs)
    theirs_build, ours_build = "pydantic-ai ModelMessagesTypeAdapter.validate_python", "to_pydantic_ai"
    table = Table("the same conversation -> a pydantic-ai history (from ours / from its own dump)")
    pai_build = table.measure_paired(
        theirs_build,
        {
            theirs_build: lambda: ModelMessagesTypeAdapter.validate_python(history_dump),
            ours_build: lambda: to_pydantic_ai(conversation),
        },
        repeat=repeat,
    )
    table.show(theirs_build)

    from litellm.responses.litellm_completion_transformation.transformation import (
        LiteLLMCompletionResponsesConfig,
    )

    items: Any = to_responses_items(conversation)
    assert from_responses_items(items) == conversation
    theirs = "litellm transform_responses_api_input_to_messages"
    table = Table("Responses API items of the conversation -> ours / chat dicts; ours -> items")
    responses = table.measure_paired(
        theirs,
        {
            theirs: lambda: LiteLLMCompletionResponsesConfig.transform_responses_api_input_to_messages(
                items, {}
            ),
            "from_responses_items": lambda: from_responses_items(items),
            "to_responses_items": lambda: to_responses_items(conversation),
        },
        repeat=repeat,
    )
    table.show(theirs)

    print("\n== summary: our conversion's time over the other library's own (below 1: faster)")
    print(f"  LangChain messages -> ours vs -> OpenAI dicts:      {lc_read['from_langchain']:.2f}x")
    print(f"  ours -> LangChain vs OpenAI dicts -> LangChain:     {lc_build['to_langchain']:.2f}x")
    print(f"  pydantic-ai history -> ours vs -> OpenAI dicts:     {pai_read['from_pydantic_ai']:.2f}x")
    print(f"  ours -> pydantic-ai vs its own load of the history: {pai_build['to_pydantic_ai']:.2f}x")
    print(f"  Responses items -> ours vs litellm -> chat dicts:   {responses['from_responses_items']:.2f}x")
    print(f"  ours -> Responses items vs litellm items -> chat:   {responses['to_responses_items']:.2f}x")
