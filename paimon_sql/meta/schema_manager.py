"""Schema versions of one table: ``schema/schema-<id>``, created exclusively."""

from __future__ import annotations

import re

from paimon_sql.errors import CommitConflictError, CorruptFileError, NotFoundError
from paimon_sql.fs.file_io import FileIO, join
from paimon_sql.meta.decoding import decoding, read_text
from paimon_sql.meta.schema import TableSchema

_SCHEMA_RE = re.compile(r"^schema-(\d+)$")


class SchemaManager:
    def __init__(self, file_io: FileIO, table_path: str, table_name: str = "") -> None:
        self.file_io = file_io
        self.dir = join(table_path, "schema")
        self.table_name = table_name or table_path
        self._cache: dict[int, TableSchema] = {}

    def path(self, schema_id: int) -> str:
        return join(self.dir, f"schema-{schema_id}")

    def schema_ids(self) -> list[int]:
        ids = []
        for name in self.file_io.list_names(self.dir):
            m = _SCHEMA_RE.match(name)
            if m:
                ids.append(int(m.group(1)))
        return sorted(ids)

    def latest(self) -> TableSchema | None:
        """The newest schema, read from its file (not from the cache: ``fast_forward`` replaces
        schema files, as Paimon's does)."""
        ids = self.schema_ids()
        if not ids:
            return None
        self._cache.pop(ids[-1], None)
        return self.schema(ids[-1])

    def invalidate_cache(self) -> None:
        """Forgets the schemas read so far (after schema files were replaced)."""
        self._cache.clear()

    def schema(self, schema_id: int) -> TableSchema:
        cached = self._cache.get(schema_id)
        if cached is not None:
            return cached
        p = self.path(schema_id)
        try:
            text = read_text(self.file_io, p, "schema file")
        except NotFoundError as e:
            raise NotFoundError(f"Schema {schema_id} of table {self.table_name} does not exist") from e
        with decoding("schema file", p):
            s = TableSchema.from_json(text, p)
        if s.id != schema_id:
            raise CorruptFileError(f"Corrupt schema file {p} of table {self.table_name}: it holds schema id {s.id}")
        self._cache[schema_id] = s
        return s

    def commit(self, schema: TableSchema) -> TableSchema:
        """Writes ``schema`` as a new version; fails if that id was taken concurrently."""
        if not self.file_io.try_create_exclusive(self.path(schema.id), schema.to_json().encode()):
            raise CommitConflictError(
                f"Schema {schema.id} of table {self.table_name} was created concurrently; retry the change"
            )
        self._cache[schema.id] = schema
        return schema
