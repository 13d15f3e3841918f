"""Stores travel to other processes (the Spark data source's executors, a procedure's tasks) as
small picklable references and are rebuilt (and cached) there."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from paimon_sql.fs.file_io import FileIO
from paimon_sql.meta.file_store import FileStore
from paimon_sql.meta.schema import TableSchema
from paimon_sql.process_state import ProcessCache, process_cache


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
        return _STORES.get_or_create(
            self.key(), lambda: FileStore(self.file_io, self.path, self.name, self.schema, self.branch))


# Python workers are reused across tasks: keep their stores (schema and manifest caches) warm
_STORES: ProcessCache[tuple[Any, ...], FileStore] = process_cache("meta.stores", 32)
