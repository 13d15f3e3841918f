"""Stores travel to other processes (the Spark data source's executors, a procedure's tasks) as
small picklable references and are rebuilt (and cached) there."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

from paimon_sql.fs.file_io import FileIO
from paimon_sql.meta.file_store import FileStore
from paimon_sql.meta.schema import TableSchema


@dataclass(frozen=True)
class StoreRef:
    """A picklable, cache-free description of a FileStore (one table or branch, one schema)."""

    file_io: FileIO
    path: str
    name: str
    schema: TableSchema
    branch: str

    @staticmethod
    def of(store: FileStore) -> StoreRef:
        return StoreRef(store.file_io, store.path, store.name, store.schema, store.branch)

    def key(self) -> tuple[Any, ...]:
        # the whole schema: a table dropped and created again reuses schema id 0
        return (type(self.file_io.fs).__name__, self.path, self.branch, self.name, self.schema.to_json())

    def open(self) -> FileStore:
        k = self.key()
        with _CACHE_LOCK:
            store = _STORE_CACHE.get(k)
            if store is None:
                if len(_STORE_CACHE) >= 32:
                    _STORE_CACHE.clear()
                store = FileStore(self.file_io, self.path, self.name, self.schema, self.branch)
                _STORE_CACHE[k] = store
            return store


# Python workers are reused across tasks: keep their stores (schema and manifest caches) warm
_STORE_CACHE: dict[tuple[Any, ...], FileStore] = {}
_CACHE_LOCK = threading.Lock()
