"""``t$consumers``: the consumers of the table (or branch), ``consumer/consumer-<id>`` files holding
``{"nextSnapshot": N}``, in Java ``HashMap`` order as Paimon lists them."""

from __future__ import annotations

import json
from collections.abc import Mapping

import pyarrow as pa

from paimon_sql.errors import CorruptFileError, NotFoundError
from paimon_sql.fs.file_io import FileIO, join
from paimon_sql.table.system._format import java_hash_map_order
from paimon_sql.table.system.base import ColumnFn, ReadContext, SystemTable
from paimon_sql.types import BigIntType, DataField, VarCharType

CONSUMER_PREFIX = "consumer-"


def read_consumers(file_io: FileIO, meta_path: str) -> dict[str, int]:
    """Consumer id -> next snapshot id of every consumer file of a table or branch."""
    folder = join(meta_path, "consumer")
    out: dict[str, int] = {}
    for name in file_io.list_names(folder):
        if not name.startswith(CONSUMER_PREFIX) or len(name) == len(CONSUMER_PREFIX):
            continue
        path = join(folder, name)
        try:
            text = file_io.read_text(path)
        except NotFoundError:
            continue  # deleted since the listing
        try:
            obj = json.loads(text)
            nxt = obj["nextSnapshot"]
            if isinstance(nxt, bool) or not isinstance(nxt, int):
                raise TypeError(f"nextSnapshot is {nxt!r}")
        except (ValueError, KeyError, TypeError) as e:
            raise CorruptFileError(f"Corrupt consumer file {path}: {e}") from e
        out[name[len(CONSUMER_PREFIX):]] = nxt
    return out


class ConsumersTable(SystemTable):
    SYSTEM_NAME = "consumers"
    FIELDS = (
        DataField(0, "consumer_id", VarCharType(nullable=False)),
        DataField(1, "next_snapshot_id", BigIntType(nullable=False)),
    )

    def _columns(self, ctx: ReadContext) -> tuple[int, Mapping[str, ColumnFn]]:
        consumers = read_consumers(ctx.store.file_io, ctx.store.meta_path)
        ids = java_hash_map_order(consumers)
        return len(ids), {
            "consumer_id": lambda: pa.array(ids, pa.string()),
            "next_snapshot_id": lambda: pa.array([consumers[i] for i in ids], pa.int64()),
        }
