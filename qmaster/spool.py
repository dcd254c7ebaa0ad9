"""The qmaster's durable store: SQLite in WAL mode behind a small interface.

Everything the qmaster accepts is written here and committed before it is acknowledged.
One table holds every object as ``(kind, key) -> msgpack blob``; ``meta`` holds counters
such as the next job id. Writes are buffered into a ``Transaction`` and committed together,
so many requests that arrive at once share one fsync (group commit). Another spool (e.g.
PostgreSQL for a shadow qmaster) only has to provide the same four methods.
"""
from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any, Protocol

import msgpack

from common.wire import pack

_SCHEMA = """
CREATE TABLE IF NOT EXISTS objects (kind TEXT NOT NULL, key TEXT NOT NULL, data BLOB NOT NULL,
                                    PRIMARY KEY (kind, key)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
"""


_ABSENT = object()


class Transaction:
    """Changes collected while handling a batch of requests, committed at once.

    Every change also records how to take it back, so that the changes of one request
    that is refused half-way can be dropped (``mark`` / ``rollback``) while those of the
    other requests of the batch stay."""

    def __init__(self) -> None:
        self.puts: dict[tuple[str, str], Any] = {}
        self.deletes: set[tuple[str, str]] = set()
        self.meta: dict[str, int] = {}
        self._journal: list[tuple[tuple[str, str], Any, bool, Any]] = []

    def put(self, kind: str, key: str, data: Any) -> None:
        self._remember((kind, key))
        self.deletes.discard((kind, key))
        self.puts[(kind, key)] = data

    def delete(self, kind: str, key: str) -> None:
        self._remember((kind, key))
        self.puts.pop((kind, key), None)
        self.deletes.add((kind, key))

    def set_meta(self, key: str, value: int) -> None:
        self._journal.append((("", key), _ABSENT, False, self.meta.get(key, _ABSENT)))
        self.meta[key] = value

    def _remember(self, key: tuple[str, str]) -> None:
        self._journal.append((key, self.puts.get(key, _ABSENT), key in self.deletes, None))

    def mark(self) -> int:
        return len(self._journal)

    def rollback(self, mark: int) -> None:
        """Undo every change made since ``mark``."""
        while len(self._journal) > mark:
            key, put, deleted, meta = self._journal.pop()
            if key[0] == "":
                _restore(self.meta, key[1], meta)
                continue
            _restore(self.puts, key, put)
            (self.deletes.add if deleted else self.deletes.discard)(key)

    def __bool__(self) -> bool:
        return bool(self.puts or self.deletes or self.meta)


def _restore(mapping: dict[Any, Any], key: Any, old: Any) -> None:
    if old is _ABSENT:
        mapping.pop(key, None)
    else:
        mapping[key] = old


class Spool(Protocol):
    def load(self) -> tuple[dict[str, dict[str, Any]], dict[str, int]]: ...
    def commit(self, txn: Transaction) -> None: ...
    def close(self) -> None: ...


class SqliteSpool:
    """SQLite spool; ``synchronous=FULL`` so a commit survives a power cut, not just a crash."""

    def __init__(self, directory: Path) -> None:
        # 0700: the spool holds every job's script and environment
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        self.path = directory / "spool.db"
        self.db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=FULL")
        self.db.executescript(_SCHEMA)

    def load(self) -> tuple[dict[str, dict[str, Any]], dict[str, int]]:
        objects: dict[str, dict[str, Any]] = {}
        unpackb = msgpack.unpackb  # once, not per object: a restart reads 100,000s
        for kind, key, data in self.db.execute("SELECT kind, key, data FROM objects"):
            objects.setdefault(kind, {})[key] = unpackb(data, raw=False, strict_map_key=False)
        meta = dict(self.db.execute("SELECT key, value FROM meta"))
        return objects, meta

    def commit(self, txn: Transaction) -> None:
        if not txn:
            return
        cur = self.db.cursor()
        cur.execute("BEGIN IMMEDIATE")
        try:
            if txn.deletes:
                cur.executemany("DELETE FROM objects WHERE kind=? AND key=?", list(txn.deletes))
            if txn.puts:
                cur.executemany("INSERT OR REPLACE INTO objects VALUES (?, ?, ?)",
                                [(k, key, pack(v)) for (k, key), v in txn.puts.items()])
            if txn.meta:
                cur.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)",
                                list(txn.meta.items()))
            cur.execute("COMMIT")
        except BaseException:
            cur.execute("ROLLBACK")
            raise

    def close(self) -> None:
        self.db.close()
