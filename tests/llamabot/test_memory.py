"""ThreadStoreChatMemory on every backend in both flavours: llamabot's memory protocol, as llamabot's own
ChatMemory tests check it (its chat_memory/test_memory.py, where the contract is the
protocol), in our words; the window that never starts at a tool result, beside ChatMemory's that does;
a thread kept whole across memories, beside ChatMemory's save/load that loses roles; ToolBot's record of
its calls read as the calls; compaction into checkpoints; async bots' methods; the refusals."""

from __future__ import annotations

import asyncio
import json

import pytest

from tests.llamabot._shared import LLAMABOT_WARNINGS, MISSING

pytest.importorskip("llamabot", reason=MISSING)
import llamabot.components.messages as lm
from litellm.types.utils import ChatCompletionMessageToolCall, Function
from llamabot import ChatMemory

from messages import (
    AIMessage,
    InMemoryThreadStore,
    InvalidArgumentError,
    SQLiteThreadStore,
    ToolCall,
    ToolMessage,
    UserMessage,
    validate_conversation,
)
from messages.compaction import SUMMARY_MARKER, Compactor
from messages.context import BufferedContext
from messages.convert import ConversionError
from messages.errors import InvalidThreadIdError, MessageTypeError
from messages.integrations.llamabot import ThreadStoreChatMemory
from tests.stores.test_turn import Statements

pytestmark = LLAMABOT_WARNINGS


def call(
    call_id: str, name: str = "add", arguments: str = '{"a": 1, "b": 2}'
) -> ChatCompletionMessageToolCall:
    return ChatCompletionMessageToolCall(
        function=Function(name=name, arguments=arguments), id=call_id, type="function"
    )


def tool_heavy() -> list:
    """A llamabot conversation whose newest exchange is a turn of three calls and their results."""
    return [
        lm.HumanMessage(content="Add three pairs."),
        lm.AIMessage(content="", tool_calls=[call("c1"), call("c2"), call("c3")]),
        lm.ToolMessage(content="3"),
        lm.ToolMessage(content="3"),
        lm.ToolMessage(content="3"),
        lm.AIMessage(content="All three are 3."),
    ]


# --- llamabot's memory protocol, as its ChatMemory tests check it ---------------------------------------


def test_a_new_memory_retrieves_nothing(store):
    assert ThreadStoreChatMemory(store).retrieve("test query") == []


def test_appended_messages_come_back_equal_and_in_order(store):
    memory = ThreadStoreChatMemory(store)
    turns = [
        lm.HumanMessage(content="Hello"),
        lm.AIMessage(content="Hi there!"),
        lm.HumanMessage(content="How are you?"),
        lm.AIMessage(content="I'm doing well!"),
    ]
    for message in turns:
        memory.append(message)
    assert memory.retrieve("test query") == turns


def test_n_results_gives_the_newest_messages_newest_last(store):
    memory = ThreadStoreChatMemory(store)
    h1, a2, h3, a4 = (
        lm.HumanMessage(content="Hello"),
        lm.AIMessage(content="Hi there!"),
        lm.HumanMessage(content="How are you?"),
        lm.AIMessage(content="I'm doing well!"),
    )
    for message in (h1, a2, h3, a4):
        memory.append(message)
    assert memory.retrieve("test query", n_results=3) == [a2, h3, a4]


def test_reset_starts_an_empty_thread_and_keeps_the_old_one(store):
    memory = ThreadStoreChatMemory(store, "before")
    memory.append(lm.HumanMessage(content="Hello"))
    memory.reset()
    assert memory.retrieve("anything") == []
    assert memory.thread_id != "before"
    assert [m.content for m in ThreadStoreChatMemory(store, "before").retrieve()] == ["Hello"]


def test_thoughts_observations_and_prompt_hashes_come_back_as_they_were(store):
    memory = ThreadStoreChatMemory(store)
    given = [
        lm.HumanMessage(content="Question 1", prompt_hash="q1"),
        lm.ThoughtMessage(content="Let me think"),
        lm.ObservationMessage(content="Result"),
        lm.AIMessage(content="Answer"),
    ]
    for message in given:
        memory.append(message)
    back = memory.retrieve()
    assert [type(m) for m in back] == [type(m) for m in given]
    assert back == given


def test_the_default_window_is_chatmemorys_ten_messages_in_whole_exchanges(store):
    memory = ThreadStoreChatMemory(store)
    memory.append([lm.HumanMessage(content=f"message {n}") for n in range(12)])
    assert [m.content for m in memory.retrieve()] == [f"message {n}" for n in range(2, 12)]


# --- the window, and llamabot's ---------------------------------------------------------------------------


def test_chatmemory_as_shipped_returns_a_window_that_starts_at_a_tool_result():
    memory = ChatMemory()
    for message in tool_heavy():
        memory.append(message)
    window = memory.retrieve("x", n_results=4)
    assert window[0].role == "tool"  # its call is outside the window: OpenAI answers 400 (quirk 2)


def test_a_small_window_over_a_tool_heavy_history_keeps_whole_exchanges(store):
    memory = ThreadStoreChatMemory(store)
    for message in tool_heavy():
        memory.append(message)
    # 4 messages would cut the exchange from its results: the window holds the final answer alone.
    assert [m.role for m in memory.retrieve("x", n_results=4)] == ["assistant"]
    assert [m.role for m in memory.retrieve("x", n_results=5)] == [
        "assistant",
        "tool",
        "tool",
        "tool",
        "assistant",
    ]
    validate_conversation([UserMessage(content="go on"), *memory.read()])


def test_a_window_over_an_open_exchange_keeps_it_whole_even_past_its_bound(store):
    memory = ThreadStoreChatMemory(store, window=BufferedContext(2))
    for message in tool_heavy()[:-1]:  # the bot is in its tool loop: the results are in, no answer yet
        memory.append(message)
    assert [m.role for m in memory.retrieve()] == ["assistant", "tool", "tool", "tool"]
    chat_memory = ChatMemory()
    for message in tool_heavy()[:-1]:
        chat_memory.append(message)
    assert [m.role for m in chat_memory.retrieve("x", n_results=2)] == ["tool", "tool"]


# --- a thread, and ChatMemory's save/load ---------------------------------------------------------------


def test_chatmemory_as_shipped_loads_back_every_role_but_user_as_assistant(tmp_path):
    memory = ChatMemory()
    for message in [lm.SystemMessage(content="Be brief."), lm.HumanMessage(content="hi"), *tool_heavy()[1:3]]:
        memory.append(message)
    memory.save(str(tmp_path / "memory.json"))
    loaded = ChatMemory.load(str(tmp_path / "memory.json"))
    back = loaded.retrieve("x")
    assert [m.role for m in back] == ["assistant", "user", "assistant", "assistant"]
    assert back[2].tool_calls == []  # the calls are gone too


def test_a_thread_goes_on_in_another_memory_with_every_role_and_call(durable, make_memory_store):
    backend = durable["backend"] + ("-async" if durable.get("api") == "async" else "")
    store = make_memory_store(backend)
    first = ThreadStoreChatMemory(store, "kept")
    given = [lm.SystemMessage(content="Be brief."), *tool_heavy()]
    for message in given:
        first.append(message)
    again = ThreadStoreChatMemory(store, "kept", window=BufferedContext(50))
    assert again.retrieve() == given
    assert again.read()[2] == AIMessage(
        tool_calls=[ToolCall(id=f"c{n}", name="add", arguments='{"a": 1, "b": 2}') for n in (1, 2, 3)]
    )


def test_the_packages_bots_read_a_sqlite_thread_in_one_statement(tmp_path):
    # read() is the history the bots of messages.integrations.llamabot send: the store's own window read
    # (one snapshot); a compacting window with nothing due asks the store nothing more.
    store = SQLiteThreadStore(tmp_path / "chat.db")
    compactor = Compactor(summarize, limit=60)
    for window, compacting in ((BufferedContext(4), None), (None, compactor)):
        memory = ThreadStoreChatMemory(store, window=window, compactor=compacting)
        memory.append([lm.HumanMessage(content=f"message {n}") for n in range(20)])
        statements = Statements(store)
        got = memory.read()
        [statement] = statements.take()
        assert statement.startswith("SELECT -2, kind, length"), statement
        assert got[-1] == UserMessage(content="message 19")
    store.close()


# --- what append reads for what it is ---------------------------------------------------------------------


def test_a_llamabot_result_appended_alone_answers_the_open_call_of_the_thread(store):
    memory = ThreadStoreChatMemory(store)
    memory.append(lm.HumanMessage(content="Add."))
    memory.append(lm.AIMessage(content="", tool_calls=[call("c1"), call("c2")]))
    memory.append(lm.ToolMessage(content="first"))
    memory.append(lm.ToolMessage(content="second"))
    assert [(m.tool_call_id, m.content) for m in memory.read()[2:]] == [("c1", "first"), ("c2", "second")]


def test_a_llamabot_result_with_no_open_call_is_refused_and_nothing_is_appended(store):
    memory = ThreadStoreChatMemory(store)
    memory.append(lm.HumanMessage(content="hi"))
    with pytest.raises(ConversionError, match="no call of the turn before it is left to answer"):
        memory.append([lm.AIMessage(content="fine"), lm.ToolMessage(content="5")])
    assert memory.read() == [UserMessage(content="hi")]


def test_the_package_s_messages_and_strings_are_appended_as_they_are(store):
    memory = ThreadStoreChatMemory(store)
    first = ToolCall(id="call_1", name="add", arguments={"a": 2, "b": 3})
    memory.append(["What is 2 + 3?", AIMessage(tool_calls=[first]), ToolMessage.for_call(first, 5)])
    assert memory.read() == [
        UserMessage(content="What is 2 + 3?"),
        AIMessage(tool_calls=[first]),
        ToolMessage(tool_call_id="call_1", content="5"),
    ]
    with pytest.raises(MessageTypeError, match="item 0 is a dict"):
        memory.append({"role": "user", "content": "hi"})


def test_toolbots_record_of_its_calls_is_stored_as_the_calls():
    calls = [call("call_1", "add", '{"a": 2, "b": 3}'), call("call_2", "today_date", "{}")]
    memory = ThreadStoreChatMemory(InMemoryThreadStore())
    memory.append(lm.HumanMessage(content="Add, and say the date."))
    memory.append(lm.AIMessage(content=str(calls)))  # what ToolBot appends
    turn = memory.read()[1]
    assert turn == AIMessage(
        tool_calls=[
            ToolCall(id="call_1", name="add", arguments='{"a": 2, "b": 3}'),
            ToolCall(id="call_2", name="today_date", arguments="{}"),
        ]
    )
    (given_back,) = memory.retrieve()[1:]
    assert given_back.content == ""
    assert [(c.id, c.function.name) for c in given_back.tool_calls] == [
        ("call_1", "add"),
        ("call_2", "today_date"),
    ]


@pytest.mark.parametrize(
    "text",
    [
        "[]",
        "[ChatCompletionMessageToolCall(function=Function(arguments='{}', name='f'), id=__import__('os'))]",
        "[ChatCompletionMessageToolCall(function=Function(arguments='{}', name='f'), id='c', type='custom')]",
        "[ChatCompletionMessageToolCall(function=Function(arguments='{}', name='f'))]",
        "I called [ChatCompletionMessageToolCall(...)] for you",
    ],
)
def test_text_that_is_not_exactly_a_list_of_calls_stays_text(text):
    memory = ThreadStoreChatMemory(InMemoryThreadStore())
    memory.append(lm.AIMessage(content=text))
    assert memory.read() == [AIMessage(content=text)]


# --- the async twins, and sync calls over an async store -----------------------------------------------


def test_the_async_methods_keep_the_same_thread(store):
    memory = ThreadStoreChatMemory(store, "twins")

    async def main() -> list:
        await memory.aappend(lm.HumanMessage(content="Add."))
        await memory.aappend(lm.AIMessage(content="", tool_calls=[call("c1")]))
        await memory.aappend(lm.ToolMessage(content="3"))
        return await memory.aretrieve()

    back = asyncio.run(main())
    assert [m.role for m in back] == ["user", "assistant", "tool"]
    assert memory.read()[2] == ToolMessage(tool_call_id="c1", content="3")
    asyncio.run(memory.areset())
    assert memory.retrieve() == []


def test_the_sync_methods_work_from_inside_an_event_loop_as_llamabots_async_bots_call_them(store):
    memory = ThreadStoreChatMemory(store)

    async def main() -> list:
        memory.append(lm.HumanMessage(content="from a coroutine"))
        return memory.retrieve()

    assert [m.content for m in asyncio.run(main())] == ["from a coroutine"]


# --- compaction ---------------------------------------------------------------------------------------------


def summarize(request) -> str:
    return f"They talked about {len(request.messages)} things."


def test_a_compacted_thread_reads_as_its_summary_and_the_newest_exchanges(store):
    compactor = Compactor(summarize, limit=8, trigger=6, keep=2)
    memory = ThreadStoreChatMemory(store, "long", compactor=compactor)
    for n in range(6):
        memory.append([lm.HumanMessage(content=f"question {n}"), lm.AIMessage(content=f"answer {n}")])
        window = memory.retrieve()
    assert memory.last_compaction is not None
    assert window[0].role == "system"
    assert window[0].content.startswith(SUMMARY_MARKER)
    assert [m.content for m in window[1:]][-2:] == ["question 5", "answer 5"]
    # Nothing was rewritten: the thread holds every message, and the checkpoint beside them.
    raw = ThreadStoreChatMemory(store, "long", window=BufferedContext(100)).read()
    assert len(raw) == 12


# --- what a memory refuses ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("arguments", "error", "said"),
    [
        ({"store": object()}, InvalidArgumentError, "store is a ThreadStore or an AsyncThreadStore"),
        ({"window": 10}, InvalidArgumentError, "window must be a window of messages.context"),
        ({"compactor": "gpt-4o-mini"}, InvalidArgumentError, "compactor is a messages.compaction.Compactor"),
        ({"thread_id": ""}, InvalidThreadIdError, "thread id"),
    ],
)
def test_what_a_memory_cannot_take_is_refused_naming_it(arguments, error, said):
    given = {"store": InMemoryThreadStore(), **arguments}
    with pytest.raises(error, match=said):
        ThreadStoreChatMemory(given.pop("store"), **given)


def test_n_results_that_is_not_a_count_is_refused():
    memory = ThreadStoreChatMemory(InMemoryThreadStore())
    with pytest.raises(InvalidArgumentError, match="n_results is a number of messages of at least 1"):
        memory.retrieve("x", n_results=0)


def test_the_envelope_is_kept_in_the_stores_metadata_under_llamabot(tmp_path):
    store = SQLiteThreadStore(tmp_path / "chat.db")
    memory = ThreadStoreChatMemory(store, "t")
    memory.append(lm.ThoughtMessage(content="hmm", prompt_hash="h1"))
    (record,) = store.records("t")
    assert json.loads(json.dumps(record.metadata)) == {
        "llamabot": {"kind": "llamabot.components.messages.ThoughtMessage", "prompt_hash": "h1"}
    }
    store.close()


def test_the_examples_in_the_docstrings_run():
    import doctest

    import messages.integrations.llamabot._bots as bots
    import messages.integrations.llamabot._decide as decide
    import messages.integrations.llamabot._memory as memory_module

    for module in (memory_module, bots, decide):
        assert doctest.testmod(module).failed == 0, module.__name__
