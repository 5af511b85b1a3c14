"""Context windows with the real litellm: its token counter as the default, and a window sent through
``litellm.completion`` to a loopback stand-in, checked on the wire by the OpenAI SDK types and the
protocol."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from messages import (
    AIMessage,
    AudioPart,
    FilePart,
    ImagePart,
    Message,
    SystemMessage,
    TextPart,
    ToolCall,
    ToolMessage,
    UserMessage,
    VideoPart,
    dump_messages,
    load_messages,
    protocol_errors,
    repair_conversation,
    validate_conversation,
)
from messages import strategies as ms
from messages._litellm import counts_file_parts
from messages.context import (
    BufferedContext,
    ChatCompletionContext,
    HeadAndTailContext,
    TokenLimitedContext,
    UnboundedContext,
)
from messages.testing import StandInServer
from tests.conftest import send_kwargs
from tests.oracles import openai_accepts
from tests.test_context import split
from tests.test_protocol_properties import reference_valid

pytestmark = pytest.mark.litellm


def _counted_by_litellm_alone(conversation: list[Message]) -> bool:
    """No audio or video (litellm cannot count them), no file where the installed litellm cannot count one
    either (before 1.101: ``counts_file_parts``), and no "high" detail image by URL (litellm would fetch
    it)."""
    uncounted = (AudioPart, VideoPart) if counts_file_parts() else (AudioPart, VideoPart, FilePart)
    for message in conversation:
        for part in message.content if isinstance(message.content, list) else ():
            if isinstance(part, uncounted):
                return False
            if isinstance(part, ImagePart) and part.detail == "high" and not part.url.startswith("data:"):
                return False
    return True


MODELS = ["gpt-4o-mini", "anthropic/claude-sonnet-4-5", "groq/llama-3.3-70b-versatile"]


@settings(max_examples=20)
@given(
    history=ms.conversations(max_turns=10).filter(_counted_by_litellm_alone),
    model=st.sampled_from(MODELS),
    limit=st.integers(20, 600),
)
def test_the_default_counter_agrees_with_litellm_on_the_whole_window(litellm, history, model, limit):
    context = TokenLimitedContext(limit, model=model)
    for message in history:
        context.add_message(message)
    window = context.get_messages()
    validate_conversation(window)
    sent = litellm.token_counter(model=model, messages=dump_messages(window))
    assert sent == context.token_count()
    lead, units = split(history)
    assert sent <= limit or window == lead + (units[-1] if units else [])


def test_audio_and_images_by_url_are_counted_without_litellm_failing_or_fetching(litellm):
    # litellm raises on input_audio parts and fetches a "high" detail image by URL to size it; the window
    # prices audio like one image and such an image at litellm's default, so it counts offline.
    from litellm.constants import DEFAULT_IMAGE_TOKEN_COUNT

    text = [TextPart(text="What is in these?")]
    clip = AudioPart.from_bytes(b"RIFF....WAVEfmt ", format="wav")
    photo = ImagePart(url="https://example.invalid/photo.jpg", detail="high")
    context = TokenLimitedContext(10_000, model="gpt-4o-mini")
    context.add_message(UserMessage(content=[*text, clip, photo]))
    text_only = dump_messages([UserMessage(content=text)])
    only_text = litellm.token_counter(model="gpt-4o-mini", messages=text_only)
    assert context.token_count() == only_text + 2 * DEFAULT_IMAGE_TOKEN_COUNT


def test_a_file_is_counted_where_litellm_cannot_count_it(litellm):
    # litellm before 1.101 raises on a file part (messages._litellm.counts_file_parts): the window prices it
    # like one image, as it prices audio; later releases count it themselves.
    from litellm.constants import DEFAULT_IMAGE_TOKEN_COUNT

    text = [TextPart(text="Summarize this document.")]
    message = UserMessage(content=[*text, FilePart(file_id="file-abc123", filename="report.pdf")])
    context = TokenLimitedContext(10_000, [message], model="gpt-4o-mini")
    try:
        whole = litellm.token_counter(model="gpt-4o-mini", messages=dump_messages([message]))
    except ValueError:
        assert not counts_file_parts()
        only_text = litellm.token_counter(
            model="gpt-4o-mini", messages=dump_messages([UserMessage(content=text)])
        )
        assert context.token_count() == only_text + DEFAULT_IMAGE_TOKEN_COUNT
    else:
        assert counts_file_parts()
        assert context.token_count() == whole


def test_the_default_counter_counts_offline_without_changing_litellms_settings(litellm, monkeypatch):
    # Offline, a llama-3 model name makes litellm retry a Hugging Face tokenizer download for about 24 s
    # per call unless `disable_hf_tokenizer_download` is set (docs/litellm.md, 'token_counter looks for
    # Hugging Face tokenizers'). The window counts as if it were set (tiktoken), without setting it: the
    # user's own token_counter calls keep litellm's behaviour.
    model = "groq/llama-3.3-70b-versatile"
    history = [SystemMessage(content="Be brief."), UserMessage(content="Count these words, please.")]
    monkeypatch.setattr(litellm, "disable_hf_tokenizer_download", False)
    asked: list[str] = []
    monkeypatch.setattr(litellm.utils, "_return_huggingface_tokenizer", lambda m: asked.append(m))
    context = TokenLimitedContext(1_000, history, model=model)
    counted = context.token_count()
    assert litellm.disable_hf_tokenizer_download is False
    assert asked == []  # no Hugging Face tokenizer was looked for
    monkeypatch.setattr(litellm, "disable_hf_tokenizer_download", True)
    assert counted == litellm.token_counter(model=model, messages=dump_messages(history))


def _make(kind: str, size: int) -> ChatCompletionContext:
    if kind == "buffered":
        return BufferedContext(size)
    if kind == "head_and_tail":
        return HeadAndTailContext(size // 2, size)
    if kind == "tokens":
        return TokenLimitedContext(size * 60, model="gpt-4o-mini")
    return UnboundedContext()


@settings(max_examples=15)
@given(
    history=st.one_of(
        ms.conversations(max_turns=10, extensions=False),
        ms.broken_conversations(max_turns=10, extensions=False).filter(
            lambda c: any(not isinstance(m, ToolMessage) for m in c)
        ),
    ),
    context=st.builds(
        _make, st.sampled_from(["unbounded", "buffered", "head_and_tail", "tokens"]), st.integers(1, 8)
    ),
)
def test_a_window_goes_through_litellm_and_arrives_valid(litellm, history, context):
    for message in history:
        context.add_message(message)
    window = context.get_messages()
    if reference_valid(history):
        to_send = window  # a window of a valid history is sent as it is
        validate_conversation(window)
    else:
        to_send = repair_conversation(window) if protocol_errors(window) else window
    with StandInServer() as server:
        # With the model's profile, as a bot sends it: repair renames a reused id by a suffix, which may sit
        # after a Gemini thought signature that litellm cuts off ids for OpenAI; the profile keeps the
        # renamed ids apart on the wire.
        sent = dump_messages(to_send, model="openai/gpt-4o-mini")
        litellm.completion(model="openai/gpt-4o-mini", messages=sent, **send_kwargs(server))
        body = server.last_body()
    openai_accepts(body["messages"])
    validate_conversation(load_messages(body["messages"]))
    assert len(body["messages"]) == len(to_send)


def test_a_head_and_tail_window_with_its_placeholder_reaches_the_provider(litellm):
    calls = [ToolCall(id=f"call_{i}", name="search", arguments={"q": str(i)}) for i in range(3)]
    history: list[Message] = [SystemMessage(content="You are a research assistant.")]
    for i, c in enumerate(calls):
        history += [
            UserMessage(content=f"Question {i}"),
            AIMessage(tool_calls=[c]),
            ToolMessage.for_call(c, {"hits": i}),
            AIMessage(content=f"Answer {i}"),
        ]
    window = HeadAndTailContext(4, 3, history).get_messages()
    with StandInServer() as server:
        litellm.completion(model="openai/gpt-4o-mini", messages=dump_messages(window), **send_kwargs(server))
        sent = server.last_body()["messages"]
    openai_accepts(sent)
    validate_conversation(load_messages(sent))
    # Head: the first question, its exchange and answer (4 messages). Tail: the last exchange and answer
    # (3; the last question would make 4). Left out: the second round and the last question, 5 messages.
    roles = ["system", "user", "assistant", "tool", "assistant", "user", "assistant", "tool", "assistant"]
    assert [m["role"] for m in sent] == roles
    note = "[5 earlier messages of this conversation are left out here.]"
    assert sent[5] == {"role": "user", "content": note}


def test_video_and_assistant_audio_parts_are_counted_without_litellm_raising():
    # litellm's token_counter raises on video_url and input_audio parts: each is priced like an image.
    context = TokenLimitedContext(100_000, model="gpt-4o-mini")
    context.add_message(UserMessage(content=[TextPart(text="watch"), VideoPart(url="gs://b/v.mp4")]))
    context.add_message(AIMessage(content=[TextPart(text="hear"), AudioPart(data="UklGRg==", format="wav")]))
    assert len(context.get_messages()) == 2
