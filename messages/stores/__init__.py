"""Thread stores: where ``LocalThread`` messages and saved thread values live.

One contract (``ThreadStore``, in ``base``), one file per backend:

* ``InMemoryThreadStore`` (``memory``): a dict behind a lock, for tests and bots that keep nothing;
* ``SQLiteThreadStore`` (``sqlite``): one SQLite file, the embedded default, shared by the processes of
  one machine;
* ``PostgresThreadStore`` (``postgres``): a PostgreSQL database, for many processes on many machines
  (psycopg 3, the ``postgres`` extra, imported only when such a store is made).
"""

from messages.stores.base import ThreadInfo, ThreadStore
from messages.stores.memory import InMemoryThreadStore
from messages.stores.postgres import PostgresThreadStore
from messages.stores.sqlite import SQLiteThreadStore

__all__ = ["InMemoryThreadStore", "PostgresThreadStore", "SQLiteThreadStore", "ThreadInfo", "ThreadStore"]
