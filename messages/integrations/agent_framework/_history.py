"""``ThreadStoreHistoryProvider``: an Agent Framework ``HistoryProvider`` over any of this package's stores.

One store thread per session: the session's ``session_id`` is the thread's id. A message is stored as this
package's message, and what Agent Framework keeps beside it (``message_id``, ``additional_properties``, the
occurrence ids of its calls and results, ...; ``messages.convert.agent_framework``) as the envelope's
metadata, under ``"agent_framework"``; an Agent Framework ``message_id`` is the message's id in the thread.
Every content Agent Framework holds is stored: what the converters type is a message of this package,
the rest (approval requests and responses, OAuth consent, usage, the service's own tool calls, ...) is
kept whole in the envelope, and loading gives back what was saved, in its order.

The session's ``state`` (``AgentSession.state``: Agent Framework's pending tool approvals under
``"tool_approval"``, other context providers' state) is kept with the thread after each run, as Agent
Framework serializes it (``AgentSession.to_dict()``), in the thread's ``context_state``; ``load_session``
gives the session back with it, to another process. A session whose history the service keeps (a
``service_session_id``) is a ``RemoteThread`` holding that id: nothing is loaded for it (the service sends
its own history) and no message is stored; when its thread holds messages already (stored before the
service kept the history), they stay, the next ones are added, and the service's id is kept in the
thread's ``context_state``. ``load_session`` gives the session back, with its service's id.

Saving follows Agent Framework's rule for a replayed turn (``_replay``: its own message identity, on the
thread's newest messages), then appends with ``skip_existing``: a message whose id the thread holds is
dropped atomically, even when several processes replay the same turn at once; a replay of messages without
ids is recognised by their content, within one process (a lock per session), as Agent Framework's own
providers do.

A sync store's calls run in a worker thread (``messages.stores.base.in_worker``, ``asyncio.to_thread``
settled: a cancelled run's call either never starts or ends before the cancellation goes on), as Agent
Framework's ``FileHistoryProvider`` runs its file I/O; an async store's are awaited.

With a ``compactor`` (``messages.compaction.Compactor``), each run loads the compactor's window (the
instructions, the session's newest summary checkpoint, the newest exchanges after it that fit) and, once
the run's messages are stored, compacts the session's thread when that window is over its trigger: the
summary is a checkpoint in the store beside the messages, none of which is rewritten (Agent Framework's
``CompactionProvider`` marks messages ``_excluded`` in the in-memory provider's state and inserts its
summary as an assistant message among them).
"""

from __future__ import annotations

import asyncio
import copy
import weakref
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from agent_framework import AgentSession, HistoryProvider, SessionContext, SupportsAgentRun
from agent_framework import Message as AFMessage
from agent_framework._sessions import get_message_identity, is_local_history_conversation_id
from pydantic import BaseModel

from messages._window import read_async
from messages.compaction import Compactor
from messages.context import ChatCompletionContext
from messages.convert.agent_framework import AgentFrameworkEnvelope, from_agent_framework, to_agent_framework
from messages.errors import (
    ConversionError,
    CorruptDataError,
    InvalidArgumentError,
    ThreadExistsError,
    ThreadKindError,
    ThreadNotFoundError,
)
from messages.integrations._arguments import check_store
from messages.integrations._windows import WindowFactory, window_factory
from messages.integrations.agent_framework._replay import Entry, already_stored
from messages.models import Message, ToolMessage
from messages.stores import AsyncThreadStore, Checkpoint, MessageRecord, ThreadInfo, ThreadStore
from messages.stores.base import call_store, in_worker
from messages.threads import LocalThread, RemoteThread

__all__ = ["ThreadStoreHistoryProvider"]

ENVELOPE_KEY = "agent_framework"
"""The key of a stored message's metadata under which its Agent Framework envelope is kept, and of the
thread's ``context_state`` under which the session's service id and state are kept."""

STATE_KEY = "session_state"
"""Where, in the thread's ``context_state[ENVELOPE_KEY]``, the session's ``state`` is kept (as
``AgentSession.to_dict()`` writes it)."""

_LOCK_STRIPES = 64


class ThreadStoreHistoryProvider(HistoryProvider):
    """An Agent Framework history provider that keeps each session's history in a thread of ``store``.

    ``store`` is any of this package's stores, sync (``SQLiteThreadStore``, ``PostgresThreadStore``, ...;
    called in a worker thread) or async (``AsyncSQLiteThreadStore``, ``AsyncPostgresThreadStore``, ...).
    With ``window`` (a window of ``messages.context``, ``BufferedContext(buffer_size=50)``, copied empty
    for each run; or a function that makes one, ``lambda: BufferedContext(buffer_size=50)``), each run
    loads only what the window keeps, and the store reads only that (``LocalThread.read``): a turn costs
    what the window keeps, not what the thread holds. The other arguments are Agent Framework's
    (``HistoryProvider``, ``InMemoryHistoryProvider``).

    Args:
        store: the thread store that keeps the sessions' threads, sync or async.
        source_id: the provider's source id in Agent Framework (default: ``"thread_store"``).
        window: a window of ``messages.context``, or a function without arguments that makes one: what
            each run loads (default: the whole history, or the compactor's window).
        compactor: compacts each session's thread after a run, when due (default: never); its window is
            what each run loads unless ``window`` is given.
        load_messages: load the session's history before each run (Agent Framework's argument).
        store_inputs: store the run's input messages.
        store_context_messages: store the messages other context providers added.
        store_context_from: store only those of the context providers with these source ids.
        store_outputs: store the agent's replies.
        skip_excluded: leave out of what is loaded the messages Agent Framework's compaction marked
            excluded.

    Raises:
        InvalidArgumentError: ``store`` is not a thread store of this package (a ``ThreadStore`` or an
            ``AsyncThreadStore``), or ``window`` neither a window of ``messages.context`` nor a function
            without arguments that makes one (the argument named).

    Examples:
        ```python
        import asyncio

        from agent_framework import Message

        from messages import InMemoryThreadStore
        from messages.integrations.agent_framework import ThreadStoreHistoryProvider


        async def main() -> None:
            store = InMemoryThreadStore()  # or SQLiteThreadStore("history.db"), ...
            history = ThreadStoreHistoryProvider(store)  # Agent(context_providers=[history])
            said = [Message("user", ["Hi"]), Message("assistant", ["Hello!"])]
            await history.save_messages("session-1", said)  # what after_run does
            loaded = await history.get_messages("session-1")  # what before_run loads
            assert [m.text for m in loaded] == ["Hi", "Hello!"]
            assert [m.role for m in store.messages("session-1")] == ["user", "assistant"]


        asyncio.run(main())
        ```
    """

    DEFAULT_SOURCE_ID: ClassVar[str] = "thread_store"

    def __init__(
        self,
        store: ThreadStore | AsyncThreadStore,
        source_id: str | None = None,
        *,
        window: ChatCompletionContext | WindowFactory | None = None,
        compactor: Compactor | None = None,
        load_messages: bool = True,
        store_inputs: bool = True,
        store_context_messages: bool = False,
        store_context_from: set[str] | None = None,
        store_outputs: bool = True,
        skip_excluded: bool = False,
    ) -> None:
        check_store(store, "ThreadStoreHistoryProvider")
        super().__init__(
            source_id=source_id or self.DEFAULT_SOURCE_ID,
            load_messages=load_messages,
            store_inputs=store_inputs,
            store_context_messages=store_context_messages,
            store_context_from=store_context_from,
            store_outputs=store_outputs,
        )
        self.store = store
        """Where the sessions' threads are."""
        self.compactor = compactor
        """Compacts each session's thread after a run when its window is over the trigger (``None``:
        never); its window is the one each run loads, unless ``window`` is given."""
        self.window = (
            window_factory(window, "ThreadStoreHistoryProvider")
            if window is not None or compactor is None
            else compactor.window
        )
        """Makes the window each run loads (``None``: the whole history)."""
        self.skip_excluded = skip_excluded
        """Leave out of what is loaded the messages Agent Framework's compaction marked excluded (in their
        ``additional_properties``), as ``InMemoryHistoryProvider(skip_excluded=True)`` does."""
        self._locks: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, tuple[asyncio.Lock, ...]] = (
            weakref.WeakKeyDictionary()
        )

    # -- Agent Framework's hooks --------------------------------------------------------------------------

    async def before_run(
        self,
        *,
        agent: SupportsAgentRun,
        session: AgentSession,
        context: SessionContext,
        state: dict[str, Any],
    ) -> None:
        """Load the session's history into the context; nothing for a session whose history the service
        keeps.

        Args:
            agent: the agent about to run.
            session: the run's session (its ``session_id`` names the thread).
            context: the run's context, which the loaded messages are added to.
            state: this provider's state in the session.

        Raises:
            ValueError: the run has no session id (run the agent with a session).
            StoreError: the store failed to read the session's thread.
        """
        if context.service_session_id is not None:
            return
        await super().before_run(agent=agent, session=session, context=context, state=state)

    async def after_run(
        self,
        *,
        agent: SupportsAgentRun,
        session: AgentSession,
        context: SessionContext,
        state: dict[str, Any],
    ) -> None:
        """Store the run's messages, then the session's state; for a session whose history the service
        keeps, its id instead of the messages (a ``RemoteThread``).

        Args:
            agent: the agent that ran.
            session: the run's session (its ``session_id`` names the thread).
            context: the run's context, with its input and response messages.
            state: this provider's state in the session.

        Raises:
            ValueError: the run has no session id (run the agent with a session).
            ConversionError: a message of the run holds a value that is not JSON (nothing of the run is
                stored), or the session's state holds a value Agent Framework cannot serialize (named; the
                run's messages are stored).
            StoreError: the store failed (a ``BackendError`` says whether the write may be in it).
        """
        service = _service_id(session, context)
        kept: dict[str, Any] = {}
        if service is None:
            await super().after_run(agent=agent, session=session, context=context, state=state)
        else:
            try:
                await self._save_thread(_remote_thread(session.session_id, service))
            except ThreadKindError:
                # The session's thread holds messages already (saved before the service kept the
                # history): go on storing them there, with the service's id beside them.
                await super().after_run(agent=agent, session=session, context=context, state=state)
                kept["service_session_id"] = _json_id(service)
        await self._save_session(session, kept)
        if service is None and self.compactor is not None:
            await self._compact(_thread_id(session.session_id))

    async def _save_session(self, session: AgentSession, kept: dict[str, Any]) -> None:
        """Keep the session's state (and ``kept``) in its thread's context state, when they changed."""
        thread_id = _thread_id(session.session_id)
        for key, value in session.state.items():
            _check_state(value, f"state[{key!r}]", thread_id)
        serialized = session.to_dict().get("state") or {}
        try:
            thread = await self._load_thread(thread_id)
        except ThreadNotFoundError:
            return  # nothing stored for this session (a provider that stores nothing): no thread to keep
        saved = thread.context_state.get(ENVELOPE_KEY)
        old = dict(saved) if isinstance(saved, dict) else {}
        new = {**old, **kept}
        if serialized:
            new[STATE_KEY] = serialized
        else:
            new.pop(STATE_KEY, None)
        if new == old:
            return
        try:
            updated = thread.with_context(ENVELOPE_KEY, new)
        except ValueError as exc:
            raise ConversionError(
                f"session {thread_id!r}: its state cannot be kept with its thread ({exc}); keep JSON values "
                "in AgentSession.state, or register their types with Agent Framework (register_state_type)",
                index=None,
                part="state",
            ) from None
        await self._save_thread(updated)

    async def get_messages(
        self, session_id: str | None, *, state: dict[str, Any] | None = None, **kwargs: Any
    ) -> list[AFMessage]:
        """The session's stored messages (what the window keeps of them, with a window); none for a session
        without a thread, or whose history the service keeps.

        Args:
            session_id: the session's id, the thread's id in the store.
            state: the session's state for this provider (not read: the store holds the history).
            **kwargs: what Agent Framework passes besides (not read).

        Returns:
            The messages as Agent Framework messages, as they were saved.

        Raises:
            ValueError: ``session_id`` is None (run the agent with a session).
            StoreError: the store failed to read the thread.
        """
        thread_id = _thread_id(session_id)
        kept: list[tuple[Message, MessageRecord | None]]
        try:
            if self.window is None:
                kept = _whole_messages(await self._records(thread_id))
            else:
                kept = await self._read_window(thread_id, self.window())
        except ThreadNotFoundError:
            return []
        except ThreadKindError:
            return []  # a remote thread: the service sends its own history
        messages = _to_agent_framework(thread_id, kept)
        if self.skip_excluded:
            messages = [m for m in messages if not m.additional_properties.get("_excluded", False)]
        return messages

    async def save_messages(
        self,
        session_id: str | None,
        messages: Sequence[AFMessage],
        *,
        state: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        """Append to the session's thread the messages it does not hold yet (see the module docstring);
        ``ConversionError``, before anything is written, for a message this package cannot hold.

        Args:
            session_id: the session's id, the thread's id in the store.
            messages: the Agent Framework messages of the run, in order.
            state: the session's state for this provider (not read).
            **kwargs: what Agent Framework passes besides (not read).

        Raises:
            ValueError: ``session_id`` is None (run the agent with a session).
            ConversionError: a message holds content this package cannot store (its type named); nothing is
                stored.
            StoreError: the store failed (a ``BackendError`` says whether the write may be in it).
        """
        if not messages:
            return
        thread_id = _thread_id(session_id)
        incoming = list(messages)
        ours, envelopes = from_agent_framework(incoming, envelopes=True)  # refused before any write
        async with self._lock(thread_id):
            tail, whole = await self._tail(thread_id, len(ours))
            stored = [_entry(m) for m in _to_agent_framework(thread_id, _whole_messages(tail))]
            skip = already_stored(stored, [_entry(m) for m in incoming], whole=whole)
            if skip:
                ours, envelopes = from_agent_framework(incoming[skip:], envelopes=True)
            rows, ids, metadata = _rows(ours, envelopes)
            if rows:
                await self._append(thread_id, rows, ids, metadata)

    async def load_session(self, session_id: str) -> AgentSession | None:
        """The Agent Framework session kept under ``session_id``, with its ``state`` as the last run left it
        and its ``service_session_id`` when the service keeps its history, for another process to go on
        with; ``None`` when there is none.

        Args:
            session_id: the session's id, the thread's id in the store.

        Returns:
            The session, or ``None`` when the store has no thread of that id.

        Raises:
            StoreError: the store failed to read it.
        """
        try:
            thread = await self._load_thread(_thread_id(session_id))
        except ThreadNotFoundError:
            return None
        saved = thread.context_state.get(ENVELOPE_KEY)
        saved = saved if isinstance(saved, dict) else {}
        service: Any = thread.response_id if isinstance(thread, RemoteThread) else None
        if service is None:
            service = saved.get("service_session_id")
        state = saved.get(STATE_KEY)
        return AgentSession.from_dict(
            {
                "session_id": session_id,
                "service_session_id": service,
                "state": copy.deepcopy(state) if isinstance(state, dict) else {},
            }
        )

    # -- the store's calls: awaited, or in a worker thread ------------------------------------------------

    async def _records(self, thread_id: str, start: int = 0, stop: int | None = None) -> list[MessageRecord]:
        if isinstance(self.store, AsyncThreadStore):
            return await self.store.records(thread_id, start, stop)
        return await in_worker(self.store.records, thread_id, start, stop)

    async def _roles(self, thread_id: str, start: int, stop: int | None) -> list[str]:
        if isinstance(self.store, AsyncThreadStore):
            return await self.store.roles(thread_id, start, stop)
        return await in_worker(self.store.roles, thread_id, start, stop)

    async def _store_call(self, method: str, *args: Any) -> Any:
        return await call_store(self.store, method, *args)

    async def _thread_info(self, thread_id: str) -> ThreadInfo:
        if isinstance(self.store, AsyncThreadStore):
            return await self.store.thread_info(thread_id)
        return await in_worker(self.store.thread_info, thread_id)

    async def _create_thread(self, thread_id: str) -> None:
        try:
            if isinstance(self.store, AsyncThreadStore):
                await self.store.create_thread(thread_id)
            else:
                await in_worker(self.store.create_thread, thread_id)
        except ThreadExistsError:
            pass  # another process made it first

    async def _append(
        self,
        thread_id: str,
        rows: list[Message],
        ids: list[str | None],
        metadata: list[dict[str, Any] | None],
    ) -> None:
        if isinstance(self.store, AsyncThreadStore):
            await self.store.append(thread_id, rows, ids=ids, metadata=metadata, skip_existing=True)
        else:
            await in_worker(
                self.store.append, thread_id, rows, ids=ids, metadata=metadata, skip_existing=True
            )

    async def _compact(self, thread_id: str) -> None:
        """Compact the session's thread if it is due (``compactor``); a race lost to another process is
        no error: its checkpoint stands."""
        assert self.compactor is not None
        try:
            if isinstance(self.store, AsyncThreadStore):
                await self.compactor.acompact(self.store, thread_id)
            else:
                await in_worker(self.compactor.compact, self.store, thread_id)
        except ThreadNotFoundError:
            return

    async def _load_thread(self, thread_id: str) -> LocalThread | RemoteThread:
        if isinstance(self.store, AsyncThreadStore):
            return await self.store.load_thread(thread_id)
        return await in_worker(self.store.load_thread, thread_id)

    async def _save_thread(self, thread: LocalThread | RemoteThread) -> None:
        if isinstance(self.store, AsyncThreadStore):
            await self.store.save_thread(thread)
        else:
            await in_worker(self.store.save_thread, thread)

    # -- reading and saving -------------------------------------------------------------------------------

    async def _tail(self, thread_id: str, count: int) -> tuple[list[MessageRecord], bool]:
        """The thread's newest records, as many as ``count`` messages could overlap, and whether they are
        the whole thread; the thread is made when there is none. Results joined to a message before the
        first are left out (their message began earlier)."""
        try:
            tail = await self._records(thread_id, -(count + 1))
        except ThreadNotFoundError:
            await self._create_thread(thread_id)
            return [], True
        whole = len(tail) <= count
        if not whole:
            tail = tail[1:]
        start = 0
        while start < len(tail) and _envelope(thread_id, tail[start]).joined:
            start += 1
        return tail[start:], whole and start == 0

    async def _read_window(
        self, thread_id: str, window: ChatCompletionContext
    ) -> list[tuple[Message, MessageRecord | None]]:
        """What ``window`` keeps of the thread, each message with its record (``None`` for a message the
        window made, the head-and-tail placeholder): the store read of ``LocalThread.read``, reading records
        where it reads messages."""
        plan = window._read_plan()
        if plan is None:  # a window that chooses otherwise: it is given every message
            records = await self._records(thread_id)
            window.clear()
            for record in records:
                window.add_message(record.message)
            by_message = {id(r.message): r for r in records}
            return [(m, by_message.get(id(m))) for m in window.get_messages()]
        reader = _RecordReader(self)
        window._load_part(await read_async(reader, thread_id, plan))
        return [(m, reader.records.get(id(m))) for m in window.get_messages()]

    def _lock(self, thread_id: str) -> asyncio.Lock:
        """The lock of ``thread_id``'s saves on this event loop (one of a fixed set of stripes)."""
        loop = asyncio.get_running_loop()
        locks = self._locks.get(loop)
        if locks is None:
            locks = tuple(asyncio.Lock() for _ in range(_LOCK_STRIPES))
            self._locks[loop] = locks
        return locks[hash(thread_id) % _LOCK_STRIPES]


class _RecordReader:
    """The provider's store as ``read_async`` reads it, reading records where it reads messages, and
    keeping each message's record (by the message's identity: the window keeps the objects it is given)."""

    def __init__(self, provider: ThreadStoreHistoryProvider) -> None:
        self._provider = provider
        self.records: dict[int, MessageRecord] = {}

    async def thread_info(self, thread_id: str) -> ThreadInfo:
        return await self._provider._thread_info(thread_id)

    async def roles(self, thread_id: str, start: int = 0, stop: int | None = None) -> list[str]:
        return await self._provider._roles(thread_id, start, stop)

    async def latest_checkpoint(self, thread_id: str) -> Checkpoint | None:
        return await self._provider._store_call("latest_checkpoint", thread_id)  # type: ignore[no-any-return]

    async def token_counts(self, thread_id: str, counter: str, start: int, stop: int) -> list[int | None]:
        return await self._provider._store_call("token_counts", thread_id, counter, start, stop)  # type: ignore[no-any-return]

    async def save_token_counts(self, thread_id: str, counter: str, counts: dict[int, int]) -> None:
        await self._provider._store_call("save_token_counts", thread_id, counter, counts)

    async def messages(self, thread_id: str, start: int = 0, stop: int | None = None) -> list[Message]:
        got = await self._provider._records(thread_id, start, stop)
        self.records.update((id(record.message), record) for record in got)
        return [record.message for record in got]


_STATE_DEPTH = 64


def _check_state(value: Any, path: str, thread_id: str, depth: int = 0) -> None:
    """Refuse, naming where, a session state value that Agent Framework's serialization (``AgentSession.
    to_dict``, which the state is kept as) cannot make JSON of: it calls ``to_dict`` on any object that has
    one, and recurses without end on an object whose ``to_dict`` makes another such object (a mock)."""
    if depth > _STATE_DEPTH:
        raise _unstorable(thread_id, path, "nested too deep")
    if value is None or type(value) in (str, int, float, bool):
        return
    if isinstance(value, list | tuple):
        for number, item in enumerate(value):
            _check_state(item, f"{path}[{number}]", thread_id, depth + 1)
        return
    if isinstance(value, Mapping):
        for key, item in value.items():
            _check_state(item, f"{path}[{key!r}]", thread_id, depth + 1)
        return
    if callable(getattr(type(value), "to_dict", None)):
        made = value.to_dict()
        if not isinstance(made, Mapping):
            raise _unstorable(thread_id, path, f"a {type(value).__name__} whose to_dict() is not a mapping")
        _check_state(made, path, thread_id, depth + 1)
        return
    if isinstance(value, BaseModel):
        return  # Agent Framework serializes a pydantic model itself (and warns to register its type)
    raise _unstorable(thread_id, path, f"a {type(value).__name__}, which Agent Framework cannot serialize")


def _unstorable(thread_id: str, path: str, what: str) -> ConversionError:
    return ConversionError(
        f"session {thread_id!r}: its {path} is {what}, so the session's state cannot be kept with its "
        "thread; "
        "keep JSON values in AgentSession.state, or objects whose type has to_dict (register_state_type)",
        index=None,
        part="state",
    )


def _thread_id(session_id: str | None) -> str:
    if session_id is None:
        raise InvalidArgumentError(
            "ThreadStoreHistoryProvider keeps each session's history under its session id, and got none: "
            "run the agent with a session (agent.create_session(), or AgentSession(session_id=...))",
            argument="session_id",
        )
    return session_id


def _service_id(session: AgentSession | None, context: SessionContext) -> Any:
    """The id under which the service keeps the session's history, ``None`` when it keeps none: the one
    the response just carried (Agent Framework sets the session's after saving each model call's response,
    when it saves per service call), else the session's."""
    fresh = getattr(getattr(context.response, "raw_representation", None), "conversation_id", None)
    if isinstance(fresh, str) and fresh and not is_local_history_conversation_id(fresh):
        return fresh
    return None if session is None else session.service_session_id


def _json_id(service_session_id: Any) -> Any:
    """A service session id as JSON: a string, or Agent Framework's structured mapping as an object."""
    return service_session_id if isinstance(service_session_id, str) else dict(service_session_id)


def _remote_thread(session_id: str, service_session_id: Any) -> RemoteThread:
    """The thread of a session whose history the service keeps: its id as the response id, or, for a
    structured one, in the thread's context state."""
    if isinstance(service_session_id, str):
        return RemoteThread(id=session_id, response_id=service_session_id)
    return RemoteThread(
        id=session_id, context_state={ENVELOPE_KEY: {"service_session_id": _json_id(service_session_id)}}
    )


def _envelope(thread_id: str, record: MessageRecord) -> AgentFrameworkEnvelope:
    """The Agent Framework envelope kept in a record's metadata (an empty one for a message stored by
    other code)."""
    kept = record.metadata.get(ENVELOPE_KEY)
    if kept is None:
        return AgentFrameworkEnvelope()
    try:
        if not isinstance(kept, dict):
            raise ValueError(f"it is a {type(kept).__name__}, not an object")
        return AgentFrameworkEnvelope.from_json(kept)
    except ValueError as exc:
        raise CorruptDataError(
            f"thread {thread_id!r}, position {record.position}: the Agent Framework envelope in its metadata "
            f"does not read ({exc})",
            thread_id=thread_id,
            position=record.position,
        ) from None


def _to_agent_framework(thread_id: str, kept: list[tuple[Message, MessageRecord | None]]) -> list[AFMessage]:
    envelopes = [None if record is None else _envelope(thread_id, record) for _, record in kept]
    try:
        return to_agent_framework([message for message, _ in kept], envelopes)
    except ConversionError as exc:
        record = kept[exc.index][1] if exc.index is not None else None
        if record is None:
            raise
        raise ConversionError(
            f"thread {thread_id!r}, position {record.position}: {exc}", index=exc.index, part=exc.part
        ) from None


def _whole_messages(records: Sequence[MessageRecord]) -> list[tuple[Message, MessageRecord | None]]:
    return [(record.message, record) for record in records]


def _entry(message: AFMessage) -> Entry:
    """An Agent Framework message as the replay rule sees it: Agent Framework's own identity of it (its
    ``message_id``, else its role and contents)."""
    identity = get_message_identity(message)
    return Entry(tuple(identity), anonymous_user=message.role == "user" and identity[0] != "id")


def _rows(
    messages: Sequence[Message], envelopes: Sequence[AgentFrameworkEnvelope]
) -> tuple[list[Message], list[str | None], list[dict[str, Any] | None]]:
    """The messages with their ids (an Agent Framework ``message_id``; ``<id>#<n>`` for the n-th further
    result of a tool message that has one; for a carrier, the id of the first message it carries; minted
    otherwise) and metadata. A ``message_id`` met twice in one save is a replay of the first."""
    rows: list[Message] = []
    ids: list[str | None] = []
    metadata: list[dict[str, Any] | None] = []
    seen: set[str] = set()
    group_id: str | None = None
    offset = 0
    skipping = False
    for message, envelope in zip(messages, envelopes, strict=True):
        if envelope.joined:
            offset += 1
            if skipping:
                continue
        else:
            offset = 0
            group_id = envelope.message_id
            if envelope.carrier:
                carried = envelope.before[0].get("message_id") if envelope.before else None
                group_id = carried if isinstance(carried, str) else None
            skipping = group_id is not None and group_id in seen
            if skipping:
                continue
            if group_id is not None:
                seen.add(group_id)
        assert offset == 0 or isinstance(message, ToolMessage)
        rows.append(message)
        ids.append(None if group_id is None else group_id if offset == 0 else f"{group_id}#{offset}")
        kept = envelope.to_json()
        metadata.append({ENVELOPE_KEY: kept} if kept else None)
    return rows, ids, metadata
