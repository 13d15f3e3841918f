"""``REPLACE TABLE`` in place, as Paimon 2.x's ``AbstractCatalog.replaceTable`` does it.

Facts followed (Paimon's catalog and its Spark tests ``DDLTestBase``):

* The table keeps its folder and its history: its rows are first truncated by one OVERWRITE commit
  that keeps no file (time travel to the snapshots before it still reads the old rows, tags and
  branches keep theirs), then the new definition is committed as the next schema id (latest + 1)
  with fresh field ids: the new columns, primary key, options and comment replace the old ones
  entirely (an option not given again is gone).
* Partition keys cannot change in place ("replaceTable does not support changing partition keys");
  the Spark layer drops and re-creates such a table instead, as Paimon's Spark integration does.
* A branch or a system table cannot be replaced.

When the statement's query fails afterwards, :func:`undo_replace` restores the table as it was
(Paimon leaves it truncated with the new schema; restoring is stricter, never weaker).
"""

from __future__ import annotations

import dataclasses

from paimon_sql.errors import PaimonError, UnsupportedError
from paimon_sql.fs.file_io import join
from paimon_sql.meta.schema import TableSchema
from paimon_sql.table.table import Table


@dataclasses.dataclass(frozen=True)
class ReplaceResult:
    """What :func:`replace_table` did: the schema id and latest snapshot id before, the new schema."""

    previous_schema_id: int
    previous_snapshot_id: int | None
    truncate_snapshot_id: int | None
    schema: TableSchema


def replace_table(table: Table, new_schema: TableSchema) -> ReplaceResult:
    """Truncates ``table`` and commits ``new_schema`` (its id ignored) as the next schema id."""
    old = table.schema
    if list(new_schema.partition_keys) != list(old.partition_keys):
        raise UnsupportedError(
            f"replaceTable does not support changing partition keys (old={list(old.partition_keys)}, "
            f"new={list(new_schema.partition_keys)}) of table {table.name}. Drop and re-create the table instead."
        )
    before = table.latest_snapshot()
    truncate_id = table.truncate()
    latest = table.store.schemas.latest()
    next_id = (latest.id if latest is not None else old.id) + 1
    staged = dataclasses.replace(new_schema, id=next_id, time_millis=TableSchema.now_ms())
    table.store.schemas.commit(staged)
    return ReplaceResult(old.id, before.id if before is not None else None, truncate_id, staged)


def undo_replace(table: Table, result: ReplaceResult) -> bool:
    """Puts back the table as it was before :func:`replace_table` when nothing else committed since:
    the truncating snapshot is removed (its data files were the old snapshot's, kept) and the new
    schema file deleted. Returns whether it could; a table written meanwhile is left as it is."""
    latest = table.latest_snapshot()
    if latest is None or result.truncate_snapshot_id is None or latest.id != result.truncate_snapshot_id:
        return False
    schemas = table.store.schemas
    newest = schemas.latest()
    if newest is None or newest.id != result.schema.id:
        return False
    try:
        snapshots = table.store.snapshots
        if result.previous_snapshot_id is None:  # the table had no snapshot: none again
            table.file_io.delete(snapshots.path(latest.id))
            for hint in ("LATEST", "EARLIEST"):
                table.file_io.delete(join(snapshots.dir, hint))
        else:
            table.rollback(result.previous_snapshot_id)
        table.file_io.delete(schemas.path(result.schema.id))
        schemas.invalidate_cache()
    except PaimonError:
        return False
    return True
