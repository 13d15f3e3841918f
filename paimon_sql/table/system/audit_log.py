"""``t$audit_log`` and ``t$binlog``: the table's rows with their row kinds (Paimon's ``AuditLogTable``
and ``BinlogTable``).

``$audit_log``: a first column ``rowkind`` (STRING: ``+I``, ``-U``, ``+U``, ``-D``), then, with the table
option ``table-read.sequence-number.enabled``, ``_SEQUENCE_NUMBER`` (BIGINT NOT NULL, primary-key
tables), then the table's columns. A batch read is the table's merge read with retractions kept
(Paimon's ``forceKeepDelete``: a key whose newest record is a delete not yet compacted away reads as
that -D row). Time travel works as on the table; the incremental options (``incremental-between``
& co., as dynamic options or keywords) read the range with each record's own kind.

``$binlog``: ``rowkind`` (and ``_SEQUENCE_NUMBER``), then every column as an ARRAY of its (nullable)
type: in a batch read ``[value]``; in a delta or changelog read (Paimon's streaming splits) a -U
record and the record after it are packed into one row of the second one's kind,
``[before, after]``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from paimon_sql.errors import UnsupportedError
from paimon_sql.lsm.merge import KIND, SEQ
from paimon_sql.options.scan import TABLE_READ_SEQUENCE_NUMBER_ENABLED
from paimon_sql.predicate import Predicate, and_, referenced_columns, split_and, to_arrow_expression
from paimon_sql.scan.split import DataSplit
from paimon_sql.table.system.base import SystemTable
from paimon_sql.types import ArrayType, BigIntType, DataField, VarCharType, to_arrow_type

ROW_KIND = "rowkind"
ROW_KIND_FIELD = DataField(2**31 - 1 - 4, ROW_KIND, VarCharType())  # Paimon's SpecialFields.ROW_KIND
SEQUENCE_NUMBER_FIELD = DataField(2**31 - 1 - 1, SEQ, BigIntType(nullable=False))
_KIND_TEXT = pa.array(["+I", "-U", "+U", "-D"], pa.string())
_SEQ_BY_HINT = ("table-read.sequence-number.enabled is not supported by hint.")


class AuditLogTable(SystemTable):
    SYSTEM_NAME = "audit_log"
    TIME_TRAVEL = True
    INCREMENTAL = True  # takes the incremental-between options (dynamic options, keywords)

    @property
    def sequence_number(self) -> bool:
        return bool(self.table.store.options.get(TABLE_READ_SEQUENCE_NUMBER_ENABLED))

    @property
    def special_fields(self) -> tuple[DataField, ...]:
        return (ROW_KIND_FIELD, SEQUENCE_NUMBER_FIELD) if self.sequence_number else (ROW_KIND_FIELD,)

    @property
    def fields(self) -> tuple[DataField, ...]:
        return self.special_fields + tuple(self.table.schema.fields)

    def copy(self, dynamic_options: Mapping[str, str]) -> AuditLogTable:
        """This system table over the table with ``dynamic_options`` (Paimon refuses
        ``table-read.sequence-number.enabled`` as one: it is a table option)."""
        opts = {str(k): str(v) for k, v in dynamic_options.items()}
        if opts.get(TABLE_READ_SEQUENCE_NUMBER_ENABLED.key, "false").strip().lower() == "true":
            raise UnsupportedError(f"System table {self.name}: {_SEQ_BY_HINT}")
        return type(self)(self.table.copy(opts))

    def read(
        self,
        columns: Sequence[str] | None = None,
        filter: str | Predicate | None = None,
        snapshot_id: int | None = None,
        tag: str | None = None,
        timestamp_ms: int | None = None,
        **incremental: Any,
    ) -> pa.Table:
        """The rows with their kinds, projected to ``columns`` and filtered by ``filter`` (over this
        system table's columns); ``incremental``: ``Table.read``'s incremental keywords
        (``incremental_between`` ...)."""
        out_cols, pred, needed = self._needed(columns, filter)
        special = {f.name for f in self.special_fields}
        data_cols = [f.name for f in self.table.schema.fields if f.name in needed]
        push = [c for c in split_and(pred) if not referenced_columns(c) & special] if pred is not None else []
        scan = self.table.scan(data_cols, and_(*push) if push else None, snapshot_id, tag, timestamp_ms,
                               keep_row_kind=True, **incremental)
        scan = scan.with_sequence_number(self.sequence_number)
        schema = self.arrow_schema
        parts = [self._rows(split, part) for split, part in scan.split_tables()]
        parts = [p for p in parts if p.num_rows]
        names = [f.name for f in self.special_fields] + data_cols
        out_schema = pa.schema([schema.field(n) for n in names])
        table = pa.concat_tables([p.select(names).cast(out_schema) for p in parts]) if parts \
            else out_schema.empty_table()
        if pred is not None and table.num_rows:
            table = table.filter(to_arrow_expression(pred))
        return table.select(out_cols)

    def _rows(self, split: DataSplit, part: pa.Table) -> pa.Table:
        kinds = part.column(KIND)
        out = part.drop_columns([KIND])
        return out.add_column(0, ROW_KIND, pc.take(_KIND_TEXT, kinds.cast(pa.int32())))


class BinlogTable(AuditLogTable):
    SYSTEM_NAME = "binlog"

    @property
    def fields(self) -> tuple[DataField, ...]:
        return self.special_fields + tuple(
            DataField(f.id, f.name, ArrayType(f.type.copy(True)), f.description) for f in self.table.schema.fields
        )

    def _rows(self, split: DataSplit, part: pa.Table) -> pa.Table:
        kinds = part.column(KIND).to_numpy().astype(np.int8)
        n = len(kinds)
        # (first row, second row or -1) of every output row: in a streaming split a -U record is
        # packed with the record after it (Paimon's PackChangelogReader), greedily from the start
        firsts: list[int] = []
        seconds: list[int] = []
        ub = set(np.flatnonzero(kinds == 1).tolist()) if split.streaming else set()
        if ub:
            i = 0
            while i < n:
                if i in ub and i + 1 < n:
                    firsts.append(i)
                    seconds.append(i + 1)
                    i += 2
                else:
                    firsts.append(i)
                    seconds.append(-1)
                    i += 1
        else:
            firsts, seconds = list(range(n)), [-1] * n
        f_idx = np.asarray(firsts, dtype=np.int64)
        s_idx = np.asarray(seconds, dtype=np.int64)
        paired = s_idx >= 0
        # the kind of a packed row is its second record's
        out_kinds = kinds[f_idx].copy() if n else kinds
        if n:
            out_kinds[paired] = kinds[s_idx[paired]]
        lengths = np.where(paired, 2, 1)
        offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)
        flat = np.empty(int(offsets[-1]), dtype=np.int64)
        flat[offsets[:-1]] = f_idx
        flat[offsets[:-1][paired] + 1] = s_idx[paired]
        take = pa.array(flat)
        cols: dict[str, pa.Array] = {
            ROW_KIND: pc.take(_KIND_TEXT, pa.array(out_kinds.astype(np.int32))),
        }
        if SEQ in part.column_names:
            cols[SEQ] = part.column(SEQ).combine_chunks().take(pa.array(f_idx))
        by_name = {f.name: f for f in self.table.schema.fields}
        for name in part.column_names:
            if name in (KIND, SEQ):
                continue
            values = part.column(name).combine_chunks().take(take)
            list_type = to_arrow_type(ArrayType(by_name[name].type.copy(True)))
            cols[name] = pa.ListArray.from_arrays(pa.array(offsets), values, type=list_type)
        return pa.table(cols)
