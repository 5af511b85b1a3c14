"""``ThreadStoreSession``: an OpenAI Agents SDK ``Session`` over any of this package's stores.

One store thread per session: the session's ``session_id`` is the thread's id, made at the first
``add_items``. Each SDK item is one stored message (``_items.typed_messages``: its typed form where the
package has one) and the item itself, its exact JSON text, in the message's envelope metadata under
``ITEM_KEY``; so ``limit`` and ``pop_item`` count what the SDK counts, ``get_items`` gives back what was
added (equal dicts, their keys in order), and the thread is a conversation that windows, compaction and
``dump_messages`` read. Reads take the envelopes alone (``store.metadata``), not the messages.

* ``get_items(limit=N)`` reads the newest items only (the store's slice from the end, widened a page at a
  time when it must reach back), at least ``N`` of them, reaching back to the start of the exchange the
  ``N``-th belongs to (``_items.window_start``): never a result without its call, a message without its
  reasoning item, part of a run of parallel calls. Never fewer than ``N`` when more are stored.
* ``pop_item()`` is the store's ``pop``: atomic under the thread's write lock, the item back exactly.
* ``clear_session()`` deletes the thread; a session that holds nothing is no error.
* With a ``compactor`` (``messages.compaction.Compactor``), each ``add_items`` compacts the thread when its
  window is over the trigger (a summary checkpoint in the store; no item is removed or rewritten), and
  ``get_items`` gives the lead (leading system and developer items), the newest summary as one system
  item, and the items after it, from the start of the exchange its position falls in.

A sync store's calls run in a worker thread (``messages.stores.base.in_worker``); an async store's are
awaited. Either way a cancelled call is settled before its ``CancelledError`` goes on: an ``add_items``
wrote all of its items or none.
"""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import Mapping, Sequence
from typing import Any

from agents.items import TResponseInputItem
from agents.memory.session import OpenAIResponsesCompactionArgs
from agents.memory.session_settings import SessionSettings, coerce_session_settings, resolve_session_limit

from messages._io import collector_paused
from messages.compaction import Compaction, Compactor
from messages.convert.responses import to_responses_items
from messages.errors import (
    ConversionError,
    CorruptDataError,
    InvalidArgumentError,
    MessagesError,
    ThreadExistsError,
    ThreadNotFoundError,
)
from messages.integrations._arguments import check_compactor, check_store
from messages.integrations.openai_agents._items import kind_of, typed_messages, window_start
from messages.models import Message
from messages.stores import AsyncThreadStore, MessageRecord, ThreadStore
from messages.stores._codec import check_thread_id
from messages.stores.base import call_store, in_worker

__all__ = ["ITEM_KEY", "ThreadStoreSession"]

_log = logging.getLogger("messages.integrations.openai_agents")

ITEM_KEY = "openai_agents"
"""The key of a stored message's envelope metadata under which the SDK item it stands for is kept."""

_ON_LOOP = 256
"""How many items a read decodes on the event loop; more are decoded in a worker thread (the JSON of
100,000 items takes a second of CPU, which the loop's other tasks would wait for; ``python -m benchmarks
openai-agents`` measures the loop's lag)."""

_PAGE = 16
"""How many items before the ``N`` asked for a limited read takes at first (reaching back further reads
four times as many again, until the exchange's start is found)."""


class ThreadStoreSession:
    """An OpenAI Agents SDK session (the ``agents.memory.Session`` protocol) keeping its items in a thread
    of ``store``: ``Runner.run(agent, input, session=ThreadStoreSession("user-42", store))``.

    ``store`` is any of this package's stores, sync (``SQLiteThreadStore``, ``PostgresThreadStore``, ...;
    called in a worker thread) or async (``AsyncSQLiteThreadStore``, ``AsyncPostgresThreadStore``, ...);
    it stays the caller's to close. ``session_settings`` is the SDK's (``SessionSettings(limit=...)`` or
    its dict), read as the SDK's own sessions read it; a ``limit`` never cuts an exchange (see the module
    docstring). With ``compactor``, the session compacts its thread after each ``add_items`` when due, and
    reads the newest summary and the items after it (``run_compaction`` compacts on demand).

    Args:
        session_id: The session's id, and its thread's id in ``store``.
        store: Where the thread is.
        session_settings: The SDK's session settings (``None``: ``SessionSettings()``, no limit).
        compactor: Compacts the thread into summary checkpoints (``None``: never).

    Raises:
        InvalidThreadIdError: ``session_id`` is not a usable thread id (a non-empty string of at most 255
            characters).
        InvalidArgumentError: ``store`` is not a thread store of this package, or ``compactor`` not a
            ``Compactor``.
        TypeError: ``session_settings`` is a dict with a key ``SessionSettings`` does not have (the SDK's
            own error).

    Examples:
        ```python
        import asyncio

        from messages import InMemoryThreadStore
        from messages.integrations.openai_agents import ThreadStoreSession


        async def main() -> None:
            store = InMemoryThreadStore()  # or SQLiteThreadStore("sessions.db"), ...
            session = ThreadStoreSession("user-42", store)  # Runner.run(..., session=session)
            await session.add_items([{"role": "user", "content": "Hi"}])
            items = await session.get_items()
            assert items == [{"role": "user", "content": "Hi"}]  # as the SDK gave it
            assert [m.role for m in store.messages("user-42")] == ["user"]


        asyncio.run(main())
        ```
    """

    session_settings: SessionSettings | None
    """The SDK's settings for this session (``limit``: the items ``get_items()`` gives by default)."""

    def __init__(
        self,
        session_id: str,
        store: ThreadStore | AsyncThreadStore,
        *,
        session_settings: SessionSettings | Mapping[str, Any] | None = None,
        compactor: Compactor | None = None,
    ) -> None:
        self.session_id = check_thread_id(session_id)
        """The session's id: its thread's id in the store."""
        self.store = check_store(store, "ThreadStoreSession")
        """Where the session's thread is."""
        self.compactor = check_compactor(compactor, "ThreadStoreSession")
        """Compacts the thread after each ``add_items`` when due (``None``: never)."""
        if isinstance(session_settings, Mapping):
            session_settings = dict(session_settings)  # the SDK's coercion takes a dict
        self.session_settings = (
            SessionSettings() if session_settings is None else coerce_session_settings(session_settings)
        )

    def __repr__(self) -> str:
        return f"ThreadStoreSession({self.session_id!r}, {self.store!r})"

    async def _call(self, method: str, *args: Any, **kwargs: Any) -> Any:
        return await call_store(self.store, method, self.session_id, *args, **kwargs)

    # -- the Session protocol ---------------------------------------------------------------------------

    async def get_items(self, limit: int | None = None) -> list[TResponseInputItem]:
        """The session's items, oldest first: all of them, or, with ``limit`` (else the settings' limit),
        the newest ``limit`` reaching back to the start of their first exchange (never fewer than
        ``limit`` when more are stored). ``limit=0`` gives none and a negative limit all (as the SDK's
        ``SQLiteSession``). With a compactor: the lead, the newest summary and the items after it.

        Args:
            limit: How many of the newest items at least (``None``: the settings' limit, else all).

        Returns:
            The items, as they were added (a session that holds nothing gives ``[]``).

        Raises:
            ConversionError: a message of the thread that no session wrote has no Responses item form.
            CorruptDataError: a stored row no longer reads (its position named).
            StoreError: the store failed the read (``NotWrittenError``, ``StoreClosedError``, ...).
        """
        wanted = resolve_session_limit(limit, self.session_settings)
        if wanted is not None and wanted < 0:
            wanted = None
        if wanted == 0:
            return []
        try:
            if self.compactor is not None:
                checkpoint = await self._call("latest_checkpoint")
                if checkpoint is not None:
                    return await self._compacted(checkpoint.upto, checkpoint.summary, wanted)
            if wanted is None:
                return [item for _, item in await self._items(0, await self._call("metadata"))]
            return await self._newest(wanted)
        except ThreadNotFoundError:
            return []

    async def add_items(self, items: list[TResponseInputItem]) -> None:
        """Append ``items`` to the session, all or none (the thread is made at the first); then, with a
        compactor, compact the thread if due (a compaction that fails is logged, and the items stay).

        Args:
            items: The SDK items to add (JSON dicts), in order.

        Raises:
            InvalidArgumentError: an item is not a dict, or holds what JSON cannot (its index named);
                nothing is added.
            StoreError: the store failed the write (``NotWrittenError``: nothing added;
                ``MaybeWrittenError``: it may have been).
        """
        listed = list(items)
        texts = [_encoded(item, index) for index, item in enumerate(listed)]
        if not listed:
            return
        metadata = [{ITEM_KEY: text} for text, _ in texts]
        # The typed view of an item with a lone surrogate (which no store keeps as text) reads U+FFFD there;
        # the item itself is kept exactly, escaped.
        typed = typed_messages(
            [item if whole else _mended(item) for item, (_, whole) in zip(listed, texts, strict=True)]
        )
        try:
            await self._append(typed, metadata)
        except ThreadNotFoundError:
            with contextlib.suppress(ThreadExistsError):  # made meanwhile by another writer
                await self._call("create_thread")
            await self._append(typed, metadata)
        if self.compactor is not None:
            try:
                await self._compact(force=False)
            except MessagesError as exc:
                _log.warning(
                    "session %r: compaction after add_items failed (%s); the items are stored and the "
                    "session reads as before",
                    self.session_id,
                    exc,
                    exc_info=exc,
                )

    async def _append(self, typed: list[Message], metadata: list[dict[str, Any]]) -> None:
        await self._call("append", typed, metadata=metadata)

    async def pop_item(self) -> TResponseInputItem | None:
        """Remove the session's newest item and return it exactly; ``None`` when the session holds none.

        Atomic (the store's ``pop``, under the thread's write lock): two pops at once take two items. The
        item is read under that lock before anything is removed: one that does not read stays where it
        is, untouched.

        Returns:
            The newest item, as it was added.

        Raises:
            ConversionError: the newest message was not written by a session and is more than one item
                (it stays).
            CorruptDataError: the newest row, or the item it keeps, no longer reads (it stays).
            StoreError: the store failed the write.
        """
        taken: list[TResponseInputItem] = []
        try:
            record = await self._call("pop", check=lambda record: taken.append(self._popped(record)))
        except ThreadNotFoundError:
            return None
        return None if record is None else taken[-1]

    def _popped(self, record: MessageRecord) -> TResponseInputItem:
        """The one item the newest message stands for (the store's ``check`` for ``pop``: what this raises
        leaves the message where it is)."""
        if ITEM_KEY in record.metadata:
            return self._decoded(record.position, record.metadata[ITEM_KEY])
        items = self._foreign(record)
        if len(items) != 1:
            raise ConversionError(
                f"session {self.session_id!r}: the newest message (position {record.position}) was not "
                f"written by a session and is {len(items)} items, not one; it stays: pop it with the store's "
                "pop()",
                index=record.position,
            )
        return items[0]

    async def clear_session(self) -> None:
        """Remove every item of the session (its thread, summaries included); no error when it has none.

        Raises:
            StoreError: the store failed the write.
        """
        with contextlib.suppress(ThreadNotFoundError):
            await self._call("delete_thread")

    # -- compaction -------------------------------------------------------------------------------------

    async def run_compaction(self, args: OpenAIResponsesCompactionArgs | None = None) -> None:
        """Compact the session's thread now if it is due (always with ``{"force": True}``), with the
        session's compactor; nothing without one. The SDK's ``Runner`` calls this after saving a turn of an
        OpenAI Responses model (``args`` with its ``response_id``): ``add_items`` has compacted by then, so
        that call does nothing.

        Args:
            args: The SDK's compaction arguments; only ``force`` is read.

        Raises:
            SummarizerError: the summarizer failed (nothing written; the session reads as before).
            SummaryInputTooLargeError: one exchange is over the summarizer's input budget.
            StoreError: the store failed.
        """
        if self.compactor is None:
            return
        force = bool(args.get("force")) if args else False
        if args and args.get("response_id") and not force:
            return
        try:
            await self._compact(force=force)
        except ThreadNotFoundError:
            return

    async def _compact(self, *, force: bool) -> Compaction:
        compactor = self.compactor
        assert compactor is not None
        if isinstance(self.store, AsyncThreadStore):
            return await compactor.acompact(self.store, self.session_id, force=force)
        return await in_worker(compactor.compact, self.store, self.session_id, force=force)

    # -- reads ------------------------------------------------------------------------------------------

    async def _newest(self, wanted: int) -> list[TResponseInputItem]:
        """The thread's newest ``wanted`` items and those before them back to the start of their exchange
        (``window_start``), read a page beyond them at first, and four times as many again until that
        start is in what was read."""
        page = wanted + _PAGE
        while True:
            envelopes: list[dict[str, Any]] = await self._call("metadata", -page)
            complete = len(envelopes) < page  # else there may be more before them
            try:
                items = [
                    entry[1] for entry in await self._decode(None, envelopes) if isinstance(entry, tuple)
                ]
            except (_ReadWhole, CorruptDataError):
                # A message no session wrote, or a damaged one: read whole, the records say where each
                # is (and so where the damage is).
                records: list[MessageRecord] = await self._call("records", -page)
                items = [item for _, item in self._record_items(records)]
            kinds = [kind_of(item) for item in items]
            start = window_start(kinds, len(items) - wanted, complete=complete)
            if start is not None:
                return items[start:]
            page *= 4

    async def _compacted(self, upto: int, summary: Message, wanted: int | None) -> list[TResponseInputItem]:
        """The lead, the summary and the items from the start of the exchange position ``upto`` falls in."""
        back = _PAGE
        while True:
            floor = max(upto - back, 0)
            items = await self._items(floor, await self._call("metadata", floor))
            kinds = [kind_of(item) for _, item in items]
            want = next((index for index, (position, _) in enumerate(items) if position >= upto), len(items))
            start = window_start(kinds, want, complete=floor == 0)
            if start is not None:
                break
            back *= 4
        tail, tail_kinds = [item for _, item in items[start:]], kinds[start:]
        if wanted is not None and wanted < len(tail):
            begin = window_start(tail_kinds, len(tail) - wanted, complete=True)
            tail = tail[begin:]
        lead = await self._lead(items[start][0] if start < len(items) else upto)
        # The summary as a read gives it (marked: SUMMARY_MARKER says what it stands for), as one system item.
        content = summary.content
        text = content if isinstance(content, str) else "".join(getattr(p, "text", "") for p in content or ())
        return [*lead, {"role": "system", "content": text}, *tail]

    async def _lead(self, end: int) -> list[TResponseInputItem]:
        """The thread's leading system and developer items before position ``end``."""
        lead: list[TResponseInputItem] = []
        position, size = 0, 8
        while position < end:
            envelopes = await self._call("metadata", position, min(end, position + size))
            if not envelopes:
                break
            for _, item in await self._items(position, envelopes):
                if kind_of(item).role != "input" or item.get("role") not in ("system", "developer"):
                    return lead
                lead.append(item)
            position, size = position + len(envelopes), size * 4
        return lead

    async def _items(self, first: int, envelopes: Sequence[Mapping[str, Any]]) -> list[tuple[int, Any]]:
        """The SDK items of the stored messages at positions ``first``, ... (their envelopes given), each
        with its position: the one each envelope keeps, or, for a message no session wrote, the items
        ``to_responses_items`` makes of it (read whole)."""
        items: list[tuple[int, Any]] = []
        for entry in await self._decode(first, envelopes):
            if isinstance(entry, int):
                items += self._record_items(await self._call("records", entry, entry + 1))
            else:
                items.append(entry)
        return items

    async def _decode(
        self, first: int | None, envelopes: Sequence[Mapping[str, Any]]
    ) -> list[tuple[int, Any] | int]:
        """``_decode_all``, in a worker thread when there are many (``_ON_LOOP``)."""
        if len(envelopes) <= _ON_LOOP:
            return self._decode_all(first, envelopes)
        return await in_worker(self._decode_all, first, envelopes)

    def _decode_all(
        self, first: int | None, envelopes: Sequence[Mapping[str, Any]]
    ) -> list[tuple[int, Any] | int]:
        """The item of each envelope, with its position (from ``first``; ``-1`` when not known); the
        position alone for a message no session wrote (``_ReadWhole`` when the positions are not known)."""
        decoded: list[tuple[int, Any] | int] = []
        with collector_paused():  # a few objects per item, none in a cycle (see collector_paused)
            self._decode_into(decoded, first, envelopes)
        return decoded

    def _decode_into(
        self, decoded: list[tuple[int, Any] | int], first: int | None, envelopes: Sequence[Mapping[str, Any]]
    ) -> None:
        for offset, envelope in enumerate(envelopes):
            position = -1 if first is None else first + offset
            if ITEM_KEY in envelope:
                decoded.append(
                    (position, self._decoded(None if first is None else position, envelope[ITEM_KEY]))
                )
            elif first is None:
                raise _ReadWhole
            else:
                decoded.append(position)

    def _record_items(self, records: Sequence[MessageRecord]) -> list[tuple[int, Any]]:
        """``_items`` of records read whole."""
        items: list[tuple[int, Any]] = []
        for record in records:
            if ITEM_KEY in record.metadata:
                items.append((record.position, self._decoded(record.position, record.metadata[ITEM_KEY])))
            else:
                items += [(record.position, made) for made in self._foreign(record)]
        return items

    def _decoded(self, position: int | None, text: object) -> Any:
        """The item a stored message keeps (its JSON text); ``CorruptDataError`` when it does not read."""
        try:
            if not isinstance(text, str):
                raise TypeError(f"a {type(text).__name__}, not the item's JSON text")
            item = json.loads(text)
            if not isinstance(item, dict):
                raise TypeError(f"a JSON {type(item).__name__}, not an object")
        except (ValueError, TypeError) as exc:
            raise CorruptDataError(
                f"session {self.session_id!r}, position {position}: the stored item does not read ({exc}); "
                "the row is damaged: restore it, or pop it with the store's pop()",
                thread_id=self.session_id,
                position=position,
            ) from None
        return item

    def _foreign(self, record: MessageRecord) -> list[dict[str, Any]]:
        """The items of a message no session wrote (``to_responses_items``)."""
        try:
            return to_responses_items([record.message])
        except ConversionError as exc:
            raise ConversionError(
                f"session {self.session_id!r}, position {record.position}: a message no session wrote, "
                f"which has no Responses item form ({exc})",
                index=record.position,
                part=exc.part,
            ) from exc


class _ReadWhole(Exception):  # noqa: N818 - a signal between two methods, never raised to a caller
    """A read of envelopes met a message no session wrote, and does not know its position."""


def _encoded(item: object, index: int) -> tuple[str, bool]:
    """An item's exact JSON text, and whether its strings are all valid Unicode (a lone surrogate is kept,
    escaped); ``InvalidArgumentError`` naming the item when it is not JSON."""
    if not isinstance(item, dict):
        raise InvalidArgumentError(
            f"add_items(): items[{index}] is a {type(item).__name__}, not a session item (a JSON dict)",
            argument="items",
            index=index,
        )
    try:
        text = json.dumps(item, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    except (TypeError, ValueError) as exc:
        raise InvalidArgumentError(
            f"add_items(): items[{index}] is not JSON ({exc}); nothing was added",
            argument="items",
            index=index,
        ) from None
    try:
        text.encode()
    except UnicodeEncodeError:  # a lone surrogate, which JSON escapes: kept, escaped
        return json.dumps(item, allow_nan=False, separators=(",", ":")), False
    return text, True


def _mended(value: Any) -> Any:
    """``value`` with each lone surrogate of its strings replaced by U+FFFD."""
    if isinstance(value, str):
        return value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    if isinstance(value, dict):
        return {key: _mended(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_mended(item) for item in value]
    return value
