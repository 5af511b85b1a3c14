"""The two classes held-out conversations still broke through litellm (issue 13, part 3), each checked on
the body the real ``litellm.completion`` sends to the stand-in, by the route's rule checker."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from messages import AIMessage, SystemMessage, TextPart, UserMessage, dump_messages, get_profile
from messages.testing import StandInServer
from tests.conformance.harness import run
from tests.conformance.providers import BY_KEY, Provider

pytestmark = pytest.mark.litellm


@pytest.fixture(scope="module")
def server() -> Iterator[StandInServer]:
    with StandInServer() as running:
        yield running


def rules_broken(
    litellm, server: StandInServer, provider: Provider, conversation, *, profiles: bool
) -> set[str]:
    outcome = run(litellm, server, provider, conversation, profiles=profiles)
    assert outcome.body is not None, outcome.report()
    return set(outcome.rules)


_HI, _AGAIN = UserMessage(content="Hi."), UserMessage(content="Still there?")

# Quirk 55: "message must be at least 1 token long or tool results must be specified". litellm's Cohere
# route sends an assistant turn of whitespace as it is, in a string or in text parts.
BLANK_ASSISTANT_TURNS = {
    "space": AIMessage(content=" "),
    "newlines": AIMessage(content="\n\n"),
    "space parts": AIMessage(content=[TextPart(text=" "), TextPart(text="\t")]),
    "empty parts": AIMessage(content=[TextPart(text="")]),
    "reasoning only": AIMessage(content=None, reasoning_content="Nothing to say."),
}


@pytest.mark.parametrize("name", list(BLANK_ASSISTANT_TURNS))
def test_cohere_gets_no_assistant_turn_without_text_or_calls(litellm, server, name):
    conversation = [_HI, BLANK_ASSISTANT_TURNS[name], _AGAIN]
    sent = dump_messages(conversation, model=BY_KEY["cohere"].model)
    assert [m["role"] for m in sent] == ["user", "user"]
    assert rules_broken(litellm, server, BY_KEY["cohere"], conversation, profiles=True) == set()


def test_cohere_keeps_an_assistant_turn_with_text_beside_whitespace(litellm, server):
    conversation = [_HI, AIMessage(content=[TextPart(text=" "), TextPart(text="Yes.")]), _AGAIN]
    sent = dump_messages(conversation, model=BY_KEY["cohere"].model)
    assert [m["role"] for m in sent] == ["user", "assistant", "user"]
    assert "Yes." in str(sent[1]["content"])
    assert rules_broken(litellm, server, BY_KEY["cohere"], conversation, profiles=True) == set()


# Quirk 4: OpenAI rejects a `name` outside ^[^\s<|\\/>]+$; OpenRouter passes it on to the routed model.
NAMED = [
    SystemMessage(content="You moderate a chat.", name="house rules"),
    UserMessage(content="Hello!", name="Ann Lee"),
    UserMessage(content="Hi Ann.", name="bob<admin>"),
]


@pytest.mark.parametrize(
    "model", ["openrouter/openai/gpt-4o-mini", "openrouter/openai/o1-mini", "openrouter/openai/gpt-4.1"]
)
def test_openrouter_sends_openai_models_names_in_openais_pattern(litellm, server, model):
    provider = Provider("openrouter", model, "openai")
    assert rules_broken(litellm, server, provider, NAMED, profiles=False) == {"r4"}
    assert rules_broken(litellm, server, provider, NAMED, profiles=True) == set()
    names = [m.get("name") for m in dump_messages(NAMED, model=model)]
    assert names == ["house_rules", "Ann_Lee", "bob_admin_"]


def test_openrouter_leaves_names_alone_for_other_vendors():
    # Only OpenAI's models are held to its pattern; the others keep the name as it was written.
    assert get_profile("openrouter/meta-llama/llama-3.3-70b-instruct").apply(
        [{"role": "user", "content": "Hello!", "name": "Ann Lee"}]
    ) == [{"role": "user", "content": "Hello!", "name": "Ann Lee"}]
