"""Replies keep URL citations, generated images and the audio reference (issue 12), read and streamed.

Non-streamed replies are real litellm ``ModelResponse`` objects; streamed ones are OpenAI chunks sent through
the real ``litellm.completion(stream=True)`` by the loopback stand-in.
"""

from __future__ import annotations

import pytest

from messages import AIMessage, ReplyError, StreamAccumulator, UserMessage, dump_messages, load_messages
from tests.oracles import openai_accepts
from tests.test_streaming import chunk, raw_stream

pytestmark = pytest.mark.litellm

CITATION = {
    "type": "url_citation",
    "url_citation": {
        "start_index": 0,
        "end_index": 5,
        "title": "Paris",
        "url": "https://en.wikipedia.org/wiki/Paris",
    },
}
IMAGE = {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}, "index": 0}


def _response(litellm, message, provider="openai"):
    response = litellm.ModelResponse(
        model="m", choices=[{"index": 0, "finish_reason": "stop", "message": message}]
    )
    response._hidden_params["custom_llm_provider"] = provider
    return response


def test_url_citations_of_a_web_search_reply_are_kept(litellm):
    reply = AIMessage.from_litellm(
        _response(litellm, {"role": "assistant", "content": "Paris.", "annotations": [CITATION]})
    )
    assert reply.annotations == [CITATION]
    assert reply.model_dump()["annotations"] == [CITATION]
    assert load_messages([reply.model_dump()]) == [reply]


def test_empty_annotations_leave_no_key(litellm):
    # litellm gives annotations=[] on ordinary replies: an unset field, not an empty list in the dump.
    reply = AIMessage.from_litellm(
        _response(litellm, {"role": "assistant", "content": "Hi", "annotations": []})
    )
    assert reply.model_dump() == {"role": "assistant", "content": "Hi"}


def test_images_a_gemini_model_generated_are_kept(litellm):
    message = {"role": "assistant", "content": "Here is a cat.", "images": [IMAGE]}
    reply = AIMessage.from_litellm(_response(litellm, message, provider="gemini"))
    assert reply.images == [IMAGE]


def test_an_image_only_reply_is_not_empty(litellm):
    reply = AIMessage.from_litellm(
        _response(litellm, {"role": "assistant", "content": None, "images": [IMAGE]})
    )
    assert reply.images == [IMAGE]
    assert reply.content is None


def test_an_audio_reply_keeps_its_id_and_transcript_and_goes_back_as_openai_wants(litellm):
    audio = {"id": "audio_abc", "data": "UklGRg==", "expires_at": 1_700_000_000, "transcript": "Hello there"}
    reply = AIMessage.from_litellm(_response(litellm, {"role": "assistant", "content": None, "audio": audio}))
    assert reply.audio is not None
    assert reply.audio.id == "audio_abc"
    assert reply.content == "Hello there"
    assert reply.model_dump() == {"role": "assistant", "content": "Hello there", "audio": {"id": "audio_abc"}}
    # The next request: OpenAI's assistant message takes `audio: {"id": ...}`, and nothing more of it.
    openai_accepts(dump_messages([UserMessage(content="Say hi"), reply, UserMessage(content="Again")]))


def test_audio_without_an_id_is_refused_by_name():
    with pytest.raises(ReplyError, match="audio has no id"):
        AIMessage.from_litellm({"role": "assistant", "content": None, "audio": {"transcript": "hi"}})


def test_streamed_citations_images_and_audio_are_kept(litellm):
    chunks = [
        chunk({"role": "assistant", "content": None, "audio": {"id": "audio_1", "transcript": "Hel"}}),
        chunk({"audio": {"transcript": "lo", "data": "UklG"}}),
        chunk({"annotations": [CITATION]}),
        chunk({"images": [IMAGE]}),
        chunk({}, finish="stop"),
    ]
    streamed = raw_stream(litellm, chunks)
    accumulator = StreamAccumulator()
    for piece in streamed:
        accumulator.add(piece)
    reply = accumulator.message()
    assert reply.audio is not None
    assert reply.audio.id == "audio_1"
    assert reply.content == "Hello"
    assert reply.annotations == [CITATION]
    assert reply.images == [IMAGE]


def test_streamed_text_beside_annotations_stays_the_text(litellm):
    chunks = [
        chunk({"role": "assistant", "content": "Paris"}),
        chunk({"content": " it is.", "annotations": [CITATION]}),
        chunk({}, finish="stop"),
    ]
    reply = AIMessage.from_stream(raw_stream(litellm, chunks))
    assert reply.content == "Paris it is."
    assert reply.annotations == [CITATION]
