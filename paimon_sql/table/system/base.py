"""The base of all system tables: a read-only view of one table's metadata as an Arrow table.

A system table is named ``<db>.<table>$<name>`` (or ``<db>.<table>$branch_<b>$<name>``). Its columns
are exactly those of Apache Paimon's system table of that name (``TABLE_TYPE`` in
``org.apache.paimon.table.system.*Table``): names, types and nullability. ``read`` computes only the
columns asked for (plus those the filter needs), applies the filter (SQL text over the system
table's columns, or a ``Predicate``) and returns the rows in Paimon's order.

The system tables that describe one snapshot's files (``files``, ``manifests``, ``partitions``,
``buckets``) read the snapshot picked by ``snapshot_id`` / ``tag`` / ``timestamp_ms`` (the latest by
default), as Paimon does with ``scan.snapshot-id`` / ``scan.tag-name`` / ``scan.timestamp-millis``;
the others ignore time travel, as Paimon's do.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

import pyarrow as pa

from paimon_sql.errors import ValidationError
from paimon_sql.meta.file_store import FileStore
from paimon_sql.meta.snapshot import Snapshot
from paimon_sql.meta.travel import TimeTravel, resolve
from paimon_sql.predicate import (
    BETWEEN,
    EQ,
    GE,
    GT,
    IN,
    LE,
    LT,
    Leaf,
    Predicate,
    parse_predicate,
    referenced_columns,
    split_and,
    to_arrow_expression,
)
from paimon_sql.table.system._format import arrow_field, check_time_zone, local_timestamps
from paimon_sql.types import DataField

if TYPE_CHECKING:
    from paimon_sql.table.table import Table

ColumnFn = Callable[[], pa.Array]
_K = TypeVar("_K", int, str)
_M = TypeVar("_M", bound="MetadataTable")


@dataclasses.dataclass(frozen=True)
class ReadContext:
    """What one ``read`` works on: the data table's store (with the schema the snapshot was
    written with when time travelling), the snapshot (None: the table has none), the columns
    needed and the parsed filter."""

    store: FileStore
    snapshot: Snapshot | None
    needed: frozenset[str]
    predicate: Predicate | None


class MetadataTable:
    """A read-only table of metadata with Apache Paimon's columns: what the system tables of one
    table (``SystemTable``) and the global ones of database ``sys``
    (``paimon_sql.catalog.global_tables``) share."""

    SYSTEM_NAME: ClassVar[str] = ""
    FIELDS: ClassVar[tuple[DataField, ...]] = ()
    TIME_TRAVEL: ClassVar[bool] = False
    name: str
    # the zone whose wall clock shows instants (commit times): None is the process's local zone,
    # as Paimon uses its JVM's default zone; the Spark shim passes its JVM's (with_time_zone)
    time_zone: str | None = None

    def with_time_zone(self: _M, time_zone: str | None) -> _M:
        """A copy of this table that shows instants as the wall clock of ``time_zone`` (an IANA
        name, ``UTC`` or an offset such as ``+08:00``; None: the process's local zone)."""
        out = copy.copy(self)
        out.time_zone = None if time_zone is None else check_time_zone(time_zone, f"system table {self.name}")
        return out

    def _local_timestamps(self, epoch_ms: Sequence[int | None]) -> pa.Array:
        """Epoch milliseconds as the wall clock of this table's zone (``TIMESTAMP(3)``)."""
        return local_timestamps(epoch_ms, self.time_zone)

    # -- metadata --------------------------------------------------------------------------------
    @property
    def fields(self) -> tuple[DataField, ...]:
        """The columns as Paimon declares them (types with nullability)."""
        return self.FIELDS

    @property
    def arrow_schema(self) -> pa.Schema:
        return pa.schema([arrow_field(f) for f in self.fields])

    @property
    def column_names(self) -> list[str]:
        return [f.name for f in self.fields]

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"

    # -- helpers ---------------------------------------------------------------------------------
    def _needed(self, columns: Sequence[str] | None, filter: str | Predicate | None
                ) -> tuple[list[str], Predicate | None, set[str]]:
        """The output columns, the parsed filter and the columns to compute (output + filter)."""
        out_cols = self._check_columns(columns)
        pred = self._parse_filter(filter)
        needed = set(out_cols)
        if pred is not None:
            needed |= referenced_columns(pred)
        return out_cols, pred, needed

    def _assemble(
        self, n: int, producers: Mapping[str, ColumnFn], needed: set[str],
        pred: Predicate | None, out_cols: list[str],
    ) -> pa.Table:
        """The ``n`` rows the producers compute, filtered by ``pred``, projected to ``out_cols``."""
        schema = self.arrow_schema
        names = [c for c in self.column_names if c in needed]
        fields = [schema.field(c) for c in names]
        if names:
            arrays = [_conform(producers[c]() if n else pa.array([], f.type), f) for c, f in zip(names, fields)]
            table = pa.Table.from_arrays(arrays, schema=pa.schema(fields))
        else:
            table = pa.table({"_": pa.nulls(n)})
        if pred is not None and table.num_rows:
            table = table.filter(to_arrow_expression(pred))
        return table.select(out_cols)

    def _check_columns(self, columns: Sequence[str] | None) -> list[str]:
        if columns is None:
            return self.column_names
        if isinstance(columns, str):
            raise ValidationError(f"columns of system table {self.name} must be a list of names, got {columns!r}")
        known = self.column_names
        out = []
        for c in columns:
            if c in known:
                out.append(c)
                continue
            folded = [k for k in known if k.lower() == str(c).lower()]
            if len(folded) != 1:
                raise ValidationError(
                    f"Column {c!r} does not exist in system table {self.name}; columns are {known}"
                )
            out.append(folded[0])
        return out

    def _parse_filter(self, filter: str | Predicate | None) -> Predicate | None:
        if filter is None:
            return None
        if isinstance(filter, str):
            return parse_predicate(filter, list(self.fields))
        unknown = referenced_columns(filter) - set(self.column_names)
        if unknown:
            raise ValidationError(
                f"Filter of system table {self.name} uses unknown columns {sorted(unknown)}; "
                f"columns are {self.column_names}"
            )
        return filter


class SystemTable(MetadataTable):
    """A read-only metadata table of one data table (or branch)."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.name = f"{table.name}${self.SYSTEM_NAME}"

    # -- reading ---------------------------------------------------------------------------------
    def read(
        self,
        columns: Sequence[str] | None = None,
        filter: str | Predicate | None = None,
        snapshot_id: int | None = None,
        tag: str | None = None,
        timestamp_ms: int | None = None,
    ) -> pa.Table:
        """The rows of this system table, projected to ``columns`` and filtered by ``filter``."""
        out_cols, pred, needed = self._needed(columns, filter)
        store, snap = self._resolve(snapshot_id, tag, timestamp_ms)
        ctx = ReadContext(store, snap, frozenset(needed), pred)
        n, producers = self._columns(ctx)
        return self._assemble(n, producers, needed, pred, out_cols)

    def _columns(self, ctx: ReadContext) -> tuple[int, Mapping[str, ColumnFn]]:
        """The number of rows and, for every column, a function computing it (lazily)."""
        raise NotImplementedError

    def _resolve(
        self, snapshot_id: int | None, tag: str | None, timestamp_ms: int | None
    ) -> tuple[FileStore, Snapshot | None]:
        store = self.table.store
        travel = TimeTravel(snapshot_id, tag, timestamp_ms).check(f"a read of {self.name}")
        if not self.TIME_TRAVEL:
            return store, None
        snap, store, _ = resolve(store, travel, f"a read of {self.name}")
        return store, snap


def _conform(arr: pa.Array | pa.ChunkedArray, field: pa.Field) -> pa.Array:
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    if not arr.type.equals(field.type):
        arr = arr.cast(field.type)
    return arr


def constant(n: int, value: object, type: pa.DataType) -> ColumnFn:
    return lambda: pa.array([value] * n, type)


def id_candidates(pred: Predicate | None, column: str, ids: Sequence[_K]) -> list[_K]:
    """The ``ids`` a row with ``column`` = id could match ``pred`` for, judged from its top-level
    conjuncts on ``column`` (=, <, <=, >, >=, IN, BETWEEN); the filter itself is applied later.
    Lets ``$snapshots`` / ``$schemas`` read only the files a query asks for, as Paimon does."""
    if pred is None:
        return list(ids)
    keep = list(ids)
    lits: tuple[Any, ...]
    for c in split_and(pred):
        if not isinstance(c, Leaf) or c.column != column or any(v is None for v in c.literals):
            continue
        lits = c.literals
        try:
            if c.op == EQ:
                keep = [i for i in keep if i == lits[0]]
            elif c.op == IN:
                wanted = set(lits)
                keep = [i for i in keep if i in wanted]
            elif c.op == LT:
                keep = [i for i in keep if i < lits[0]]
            elif c.op == LE:
                keep = [i for i in keep if i <= lits[0]]
            elif c.op == GT:
                keep = [i for i in keep if i > lits[0]]
            elif c.op == GE:
                keep = [i for i in keep if i >= lits[0]]
            elif c.op == BETWEEN:
                keep = [i for i in keep if lits[0] <= i <= lits[1]]
        except TypeError:
            continue
    return keep
