"""Token counts made with tiktoken directly (messages._tokens) against litellm's ``token_counter``, the
oracle: the encoding it picks for each model of its whole model map, and its count of each message over
generated conversations, long texts (its pieces, its sampling past four million characters) and special
tokens written as text; and a window's first count in a fresh process, which imports no litellm."""

from __future__ import annotations

import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from messages import AIMessage, SystemMessage, ToolCall, ToolMessage, UserMessage
from messages import strategies as ms
from messages._tokens import OVERHEAD, direct_counter, encoding_name

pytestmark = pytest.mark.litellm

DIRECT_MODELS = [
    "anthropic/claude-sonnet-4-5",
    "gemini/gemini-2.5-flash",
    "mistral/mistral-large-latest",
    "groq/llama-3.3-70b-versatile",
    "openrouter/anthropic/claude-sonnet-4.5",
    "claude-3-5-sonnet-20240620",
    "gpt-4",
]


def litellm_count(litellm, model, message):
    """litellm's count of one message, less the list's overhead, as the window asks for it."""
    from litellm.utils import _return_openai_tokenizer

    tokenizer = _return_openai_tokenizer(model)
    overhead = litellm.token_counter(model=model, custom_tokenizer=tokenizer, messages=[])
    assert overhead == OVERHEAD
    return (
        litellm.token_counter(model=model, custom_tokenizer=tokenizer, messages=[message.model_dump()])
        - overhead
    )


def litellms_encoding(model: str) -> str:
    """The tiktoken encoding the installed litellm's ``token_counter`` uses for ``model`` with its tiktoken
    tokenizer: its ``openai_tokenizer_encoding_name`` (1.104 on), or, before it, the encoding the counting
    function it makes holds (``_get_count_function``)."""
    from litellm.litellm_core_utils import token_counter
    from litellm.utils import _return_openai_tokenizer

    named = getattr(token_counter, "openai_tokenizer_encoding_name", None)
    if named is not None:
        return str(named(model))
    count = token_counter._get_count_function(model, _return_openai_tokenizer(model))
    [encoding] = [
        c.cell_contents for c in count.__closure__ or () if hasattr(c.cell_contents, "encode_ordinary")
    ]
    return str(encoding.name)


def test_the_encoding_is_litellms_for_every_model_of_its_map_or_left_to_it(litellm):
    from litellm.litellm_core_utils.token_counter import _MessageCountParams
    from litellm.utils import _return_openai_tokenizer

    models = [
        *litellm.model_cost,
        *(f"openrouter/{m}" for m in ("openai/gpt-4o", "meta-llama/llama-3-70b")),
        *(f"openai/{m}" for m in ("gpt-4o", "gpt-4o-mini", "gpt-4", "gpt-4.1-nano")),  # litellm's prefix
    ]
    decided = 0
    for model in models:
        mine = encoding_name(model)
        if mine is None:
            continue
        decided += 1
        params = _MessageCountParams(model, _return_openai_tokenizer(model))
        assert (mine, params.tokens_per_message, params.tokens_per_name) == (
            litellms_encoding(model),
            3,
            1,
        ), model
    assert decided > 1000  # most of the map: every model of another provider than OpenAI's
    assert [encoding_name(m) for m in DIRECT_MODELS] == ["cl100k_base"] * len(DIRECT_MODELS)
    assert encoding_name("gpt-4o-mini") == "o200k_base"
    assert [encoding_name(m) for m in ("azure/gpt-4o", "groq/openai/gpt-oss-120b", "ft:gpt-4.1-mini")] == [
        None
    ] * 3


TEXTS = st.one_of(
    st.text(max_size=40),
    st.sampled_from(
        ["<|endoftext|> and <|fim_prefix|>", "x" * 2500, "ünïcödé " * 300, "  \n\t ", "🙂" * 700]
    ),
)


@st.composite
def text_messages(draw):
    kind = draw(st.sampled_from(["system", "user", "assistant", "tool", "parts"]))
    name = draw(st.none() | st.sampled_from(["alice", "Bob Smith"]))
    if kind == "system":
        return SystemMessage(content=draw(TEXTS), name=name)
    if kind == "user":
        return UserMessage(content=draw(TEXTS), name=name)
    if kind == "parts":
        return UserMessage(content=[{"type": "text", "text": t} for t in draw(st.lists(TEXTS, max_size=3))])
    if kind == "tool":
        return ToolMessage(tool_call_id=draw(st.sampled_from(["call_1", "toolu_01"])), content=draw(TEXTS))
    calls = [
        ToolCall(
            id=f"c{n}", name="f", arguments=draw(st.sampled_from(["", "{}", '{"city": "Paris"}', "x" * 1500]))
        )
        for n in range(draw(st.integers(0, 2)))
    ]
    return AIMessage(
        content=draw(st.none() | TEXTS),
        tool_calls=calls,
        reasoning_content=draw(st.none() | TEXTS),
        refusal=draw(st.none() | st.just("No.")),
        provider=draw(st.none() | st.just("deepseek")),
    )


@settings(max_examples=60)
@given(st.lists(st.one_of(text_messages(), ms.messages()), min_size=1, max_size=4))
def test_each_message_counts_what_litellm_counts(litellm, messages):
    for model in ("anthropic/claude-sonnet-4-5", "gpt-4", "gpt-4o-mini"):
        count = direct_counter(model)
        assert count is not None
        for message in messages:
            mine = count(message)
            if mine is None:  # images, audio, files: litellm counts those
                assert isinstance(message.content, list)
                continue
            assert mine == litellm_count(litellm, model, message), (model, message)


def test_a_text_past_four_million_characters_is_sampled_as_litellm_samples_it(litellm):
    message = UserMessage(content="The weather in Paris is sunny. " * 140_000)
    count = direct_counter("anthropic/claude-sonnet-4-5")
    assert count is not None
    assert count(message) == litellm_count(litellm, "anthropic/claude-sonnet-4-5", message)


@pytest.mark.slow
def test_a_windows_first_count_imports_no_litellm(litellm):
    code = (
        "import sys\n"
        "from messages import UserMessage\n"
        "from messages.context import TokenLimitedContext\n"
        "w = TokenLimitedContext(50, model='anthropic/claude-sonnet-4-5')\n"
        "w.add_message(UserMessage(content='Weather in Paris?'))\n"
        "print(w.token_count(), 'litellm' in sys.modules)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    message = UserMessage(content="Weather in Paris?")
    expected = OVERHEAD + litellm_count(litellm, "anthropic/claude-sonnet-4-5", message)
    assert done.stdout.split() == [str(expected), "False"]
