"""Thread stores: where ``LocalThread`` messages and saved thread values live.

One contract (``ThreadStore``, and its async twin ``AsyncThreadStore``, in ``base``), one file per backend,
each holding the sync class and the async one side by side:

* ``InMemoryThreadStore`` / ``AsyncInMemoryThreadStore`` (``memory``): a dict behind a lock, for tests and
  bots that keep nothing;
* ``SQLiteThreadStore`` / ``AsyncSQLiteThreadStore`` (``sqlite``): one SQLite file, the embedded default,
  shared by the processes of one machine (the async one works in a thread of its own);
* ``PostgresThreadStore`` / ``AsyncPostgresThreadStore`` (``postgres``): a PostgreSQL database, for many
  processes on many machines (psycopg 3, the ``postgres`` extra, imported only when such a store is made;
  the async one on psycopg's ``AsyncConnection``).

Below them, in private modules without I/O: the codec of messages and threads, the SQL the two database
backends share, the runner of their schema's migration steps and the mapping of driver failures to
``NotWrittenError`` and ``MaybeWrittenError``.
"""

from messages.stores._checkpoints import Checkpoint, Provenance
from messages.stores._codec import MessageRecord, ThreadInfo
from messages.stores.base import AsyncThreadStore, ThreadStore
from messages.stores.memory import AsyncInMemoryThreadStore, InMemoryThreadStore
from messages.stores.postgres import AsyncPostgresThreadStore, PostgresThreadStore
from messages.stores.sqlite import AsyncSQLiteThreadStore, SQLiteThreadStore

__all__ = [
    "AsyncInMemoryThreadStore",
    "AsyncPostgresThreadStore",
    "AsyncSQLiteThreadStore",
    "AsyncThreadStore",
    "Checkpoint",
    "InMemoryThreadStore",
    "MessageRecord",
    "PostgresThreadStore",
    "Provenance",
    "SQLiteThreadStore",
    "ThreadInfo",
    "ThreadStore",
]
