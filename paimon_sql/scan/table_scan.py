"""The scan object: one frozen value saying what a read of a table reads (Paimon's ``ReadBuilder`` +
``SnapshotReader.withMode``, pyiceberg's ``DataScan``).

A :class:`TableScan` holds the snapshot choice (a :class:`~paimon_sql.meta.travel.TimeTravel`, or a
pinned latest snapshot), the mode (:class:`ScanMode`: ALL rows of a snapshot, the DELTA or
CHANGELOG files of one snapshot, or an INCREMENTAL range), the projection, the filter, whether
row kinds are kept, a row limit and the read-optimized flag. ``plan()`` gives the splits (each with
the store to read it with), ``to_batches()`` reads them one split at a time (memory bounded by one
split), ``to_arrow()`` reads them all (on a few threads). ``Table.plan`` / ``Table.read`` and the
system tables build one; the ``with_*`` methods return changed copies.

Rows of DELTA, CHANGELOG and incremental delta / changelog reads are the files' records as they
are (Paimon's streaming splits: unmerged, retractions included); with ``keep_row_kind`` a last
``_VALUE_KIND`` column (int8: 0 +I, 1 -U, 2 +U, 3 -D) says each row's kind. A diff read (two tags,
or ``incremental-between-scan-mode`` = diff) keeps only +I/+U rows unless ``keep_row_kind``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from enum import Enum

import pyarrow as pa

from paimon_sql.errors import NotFoundError, ValidationError
from paimon_sql.lsm.merge import KIND, SEQ
from paimon_sql.meta.file_store import MAIN_BRANCH, FileStore
from paimon_sql.meta.snapshot import Snapshot
from paimon_sql.meta.travel import TimeTravel, resolve
from paimon_sql.predicate import Predicate, parse_predicate, referenced_columns
from paimon_sql.scan import incremental as inc
from paimon_sql.scan.changes import changelog_splits, delta_splits
from paimon_sql.scan.planner import created_since, creation_time_floor, ensure_no_full_scan, live_entries
from paimon_sql.scan.planner import plan as plan_snapshot
from paimon_sql.scan.reader import READ_THREADS, output_schema, read_split
from paimon_sql.scan.split import DataSplit
from paimon_sql.types import DataField

FALLBACK_BRANCH = "scan.fallback-branch"


class ScanMode(str, Enum):
    """Which files of the chosen snapshot(s) a scan reads (Paimon's ``ScanMode`` plus the
    incremental range of ``IncrementalStartingScanner``)."""

    ALL = "all"  # every live file of the snapshot, merged by key
    DELTA = "delta"  # the files the snapshot added
    CHANGELOG = "changelog"  # the snapshot's changelog files
    INCREMENTAL = "incremental"  # a range of snapshots (IncrementalSpec / IncrementalRange)


@dataclass(frozen=True)
class ScanPlan:
    """What ``TableScan.plan()`` found: the store (schema) the read uses, the splits with the store
    to read each with, the parsed filter and the snapshot the read sees (None: an empty table or
    an empty range)."""

    store: FileStore
    splits: tuple[tuple[FileStore, DataSplit], ...]
    predicate: Predicate | None
    snapshot_id: int | None


@dataclass(frozen=True)
class TableScan:
    store: FileStore
    travel: TimeTravel = TimeTravel()
    latest_snapshot_id: int | None = None
    mode: ScanMode = ScanMode.ALL
    incremental: inc.IncrementalSpec | inc.IncrementalRange | None = None
    columns: tuple[str, ...] | None = None
    filter: str | Predicate | None = None
    keep_row_kind: bool = False
    limit: int | None = None
    read_optimized: bool = False
    # a first _SEQUENCE_NUMBER column (primary-key tables; Paimon's key-value.sequence_number.enabled)
    sequence_number: bool = False

    # -- building --------------------------------------------------------------------------------
    def select(self, columns: Sequence[str] | None) -> TableScan:
        if columns is not None and (isinstance(columns, (str, bytes)) or not isinstance(columns, Sequence)
                                    or not all(isinstance(c, str) for c in columns)):
            raise ValidationError(
                f"columns of a read of table {self.store.name} must be a list of column names, got {columns!r}"
            )
        return dataclasses.replace(self, columns=None if columns is None else tuple(columns))

    def where(self, filter: str | Predicate | None) -> TableScan:
        return dataclasses.replace(self, filter=filter)

    def with_snapshot(self, travel: TimeTravel) -> TableScan:
        return dataclasses.replace(self, travel=travel)

    def with_mode(self, mode: ScanMode) -> TableScan:
        return dataclasses.replace(self, mode=ScanMode(mode))

    def with_incremental(self, spec: inc.IncrementalSpec | inc.IncrementalRange) -> TableScan:
        return dataclasses.replace(self, mode=ScanMode.INCREMENTAL, incremental=spec)

    def with_row_kind(self, keep: bool = True) -> TableScan:
        return dataclasses.replace(self, keep_row_kind=keep)

    def with_sequence_number(self, on: bool = True) -> TableScan:
        return dataclasses.replace(self, sequence_number=on)

    def with_limit(self, limit: int | None) -> TableScan:
        if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 0):
            raise ValidationError(f"limit of a read of table {self.store.name} must be a non-negative integer, "
                                  f"got {limit!r}")
        return dataclasses.replace(self, limit=limit)

    @property
    def where_text(self) -> str:
        return f"a read of table {self.store.name}"

    # -- planning --------------------------------------------------------------------------------
    def effective_mode(self) -> ScanMode:
        """The mode the scan runs in: ALL turns INCREMENTAL when the table's (dynamic) options ask
        for an incremental read, as Paimon's default startup mode does."""
        if self.mode == ScanMode.ALL and self._incremental_spec() is not None:
            return ScanMode.INCREMENTAL
        return self.mode

    def _incremental_spec(self) -> inc.IncrementalSpec | inc.IncrementalRange | None:
        if self.incremental is not None:
            return self.incremental
        return inc.IncrementalSpec.of_options(self.store.schema.options, self.store.name)

    def resolve(self) -> tuple[Snapshot | None, FileStore, bool]:
        """The snapshot a non-incremental scan sees, the store (schema) it reads with, and whether
        it travels in time."""
        if self.latest_snapshot_id is not None:
            if self.travel.given():
                raise ValidationError("latest_snapshot_id cannot be combined with time travel")
            return self.store.snapshots.snapshot(self.latest_snapshot_id), self.store, False
        return resolve(self.store, self.travel, self.where_text)

    def _parse_filter(self, store: FileStore) -> Predicate | None:
        f = self.filter
        if f is None:
            return None
        if isinstance(f, str):
            return parse_predicate(f, list(store.schema.fields))
        if not isinstance(f, Predicate):
            raise ValidationError(f"filter of {self.where_text} must be SQL text or a Predicate, got {f!r}")
        return f

    def resolve_range(self) -> inc.IncrementalRange:
        spec = self._incremental_spec()
        if spec is None:
            raise ValidationError(f"{self.where_text}: an incremental scan needs '{inc.BETWEEN}', "
                                  f"'{inc.BETWEEN_TIMESTAMP}' or '{inc.TO_AUTO_TAG}'")
        if self.travel.given() or self.latest_snapshot_id is not None:
            raise ValidationError(f"Table {self.store.name}: an incremental read cannot be combined with time travel "
                                  f"({', '.join(self.travel.given()) or 'latest_snapshot_id'})")
        inc.check_no_time_travel(self.store.schema.options, self.store.name)
        if isinstance(spec, inc.IncrementalRange):
            return spec
        if spec.to_auto_tag is not None and spec.between is None and spec.between_timestamp is None:
            raise ValidationError(f"Table {self.store.name}: option '{inc.TO_AUTO_TAG}' is resolved by the table "
                                  "(Table.scan), not by a bare TableScan")
        return inc.resolve(self.store, spec)

    def plan(self) -> ScanPlan:
        mode = self.effective_mode()
        if mode == ScanMode.INCREMENTAL:
            rng = self.resolve_range()
            store = self.store
            pred = self._parse_filter(store)
            splits = inc.plan_range(store, rng, pred)
            if rng.mode in ("delta", "changelog"):
                splits = [dataclasses.replace(s, streaming=True) for s in splits]
            return ScanPlan(store, tuple((store, s) for s in splits), pred, rng.snapshot_id)
        snap, store, travelled = self.resolve()
        pred = self._parse_filter(store)
        out: list[tuple[FileStore, DataSplit]] = []
        if snap is not None:
            if mode == ScanMode.ALL:
                planned = plan_snapshot(store, snap, pred, top_level_only=self.read_optimized)
                ensure_no_full_scan(store, snap, planned)
                planned = created_since(planned, creation_time_floor(store, travelled))
            elif mode == ScanMode.DELTA:
                planned = [dataclasses.replace(s, streaming=True) for s in delta_splits(store, snap, pred)]
            else:
                planned = [dataclasses.replace(s, streaming=True) for s in changelog_splits(store, snap, pred)]
            out = [(store, s) for s in planned]
        fallback = self.store.schema.options.get(FALLBACK_BRANCH)
        if mode == ScanMode.ALL and fallback and self.store.branch == MAIN_BRANCH and not self.read_optimized:
            out += fallback_splits(store, snap, fallback, pred, travelled)
        return ScanPlan(store, tuple(out), pred, snap.id if snap is not None else None)

    # -- reading ---------------------------------------------------------------------------------
    def output_fields(self, store: FileStore) -> list[DataField]:
        return project(store, self.columns)

    def output_schema(self, store: FileStore | None = None) -> pa.Schema:
        schema = output_schema(self.output_fields(store or self.store))
        if self.keep_row_kind:
            schema = schema.append(pa.field(KIND, pa.int8(), False))
        if self.sequence_number:
            schema = schema.insert(0, pa.field(SEQ, pa.int64(), False))
        return schema

    def _jobs(self, p: ScanPlan) -> tuple[list[DataField], list[tuple[FileStore, DataSplit, list[DataField]]]]:
        out_fields = self.output_fields(p.store)
        read_fields = list(out_fields)
        if p.predicate is not None:
            names = {f.name for f in read_fields}
            read_fields += [p.store.schema.field(c) for c in sorted(referenced_columns(p.predicate)) if c not in names]
        return out_fields, [(st, s, same_fields(st, read_fields)) for st, s in p.splits]

    def _finish(self, part: pa.Table, out_fields: list[DataField]) -> pa.Table:
        schema = output_schema(out_fields)
        names = [f.name for f in out_fields]
        if self.keep_row_kind:
            schema = schema.append(pa.field(KIND, pa.int8(), False))
            names.append(KIND)
        if self.sequence_number:
            schema = schema.insert(0, pa.field(SEQ, pa.int64(), False))
            names.insert(0, SEQ)
        return part.select(names).cast(schema)

    def split_tables(self, plan: ScanPlan | None = None) -> Iterator[tuple[DataSplit, pa.Table]]:
        """Each split of the plan with its rows (the limit applied), one split read at a time."""
        p = plan or self.plan()
        out_fields, jobs = self._jobs(p)
        left = self.limit
        for st, split, fields in jobs:
            if left is not None and left <= 0:
                return
            part = self._finish(self._read_one(p, st, split, fields), out_fields)
            if left is not None:
                part = part.slice(0, left)
                left -= part.num_rows
            yield split, part

    def to_batches(self, plan: ScanPlan | None = None) -> Iterator[pa.RecordBatch]:
        """The rows as record batches, one split read at a time."""
        for _, part in self.split_tables(plan):
            yield from part.to_batches()

    def to_arrow(self, plan: ScanPlan | None = None) -> pa.Table:
        """The rows as one table (splits read on a few threads; order kept). A read of the latest
        snapshot whose files expiry deleted meanwhile (after newer commits landed) is planned and
        read again on the new latest, up to 3 times in all."""
        if plan is not None or not self._reads_latest():
            return self._to_arrow(plan or self.plan())
        read = self.store.snapshots.read_latest(
            lambda snap: self._to_arrow(dataclasses.replace(self, latest_snapshot_id=snap.id).plan()))
        return read[1] if read is not None else self._to_arrow(self.plan())  # an empty table

    def _reads_latest(self) -> bool:
        """Whether the scan reads the latest snapshot: no time travel, by argument or by the
        table's options, and not incremental."""
        return (self.effective_mode() == ScanMode.ALL and not self.travel.given()
                and self.latest_snapshot_id is None
                and not TimeTravel.of_options(self.store.schema.options, self.store).given())

    def _to_arrow(self, p: ScanPlan) -> pa.Table:
        out_fields, jobs = self._jobs(p)
        if self.limit is not None:
            return pa.Table.from_batches(list(self.to_batches(p)), schema=self.output_schema(p.store))
        if len(jobs) <= 1:
            parts = [self._read_one(p, st, sp, f) for st, sp, f in jobs]
        else:
            with ThreadPoolExecutor(max_workers=READ_THREADS) as pool:
                parts = list(pool.map(lambda j: self._read_one(p, j[0], j[1], j[2]), jobs))
        tables = [self._finish(t, out_fields) for t in parts if t.num_rows]
        if not tables:
            return self.output_schema(p.store).empty_table()
        return pa.concat_tables(tables)

    def _read_one(self, p: ScanPlan, store: FileStore, split: DataSplit, fields: list[DataField]) -> pa.Table:
        try:
            return read_planned_split(store, split, fields, p.predicate, self.keep_row_kind, self.sequence_number)
        except NotFoundError as e:
            raise expired_while_read(store, split, e) from e


def expired_while_read(store: FileStore, split: DataSplit, e: NotFoundError) -> NotFoundError:
    """The error of a split read that found a file missing: when the split's snapshot is gone,
    one that says it expired while it was read, and what keeps snapshots longer; else ``e``."""
    if store.snapshots.exists(split.snapshot_id):
        return e
    return NotFoundError(
        f"Snapshot {split.snapshot_id} of table {store.name} was expired while it was read ({e}); "
        "to keep snapshots longer, raise 'snapshot.num-retained.min' or 'snapshot.time-retained'"
    )


def read_planned_split(
    store: FileStore, split: DataSplit, fields: Sequence[DataField], predicate: Predicate | None,
    keep_row_kind: bool = False, sequence_number: bool = False,
) -> pa.Table:
    """One planned split's rows as ``fields`` (+ ``_VALUE_KIND`` when ``keep_row_kind``, a first
    ``_SEQUENCE_NUMBER`` when ``sequence_number``): a diff split by key comparison, a streaming
    (delta / changelog) split record by record with retractions, any other by the merge read."""
    if split.before_files is not None:
        out = inc.read_diff_split(store, split, fields, predicate, keep_delete=keep_row_kind,
                                  sequence_number=sequence_number)
    elif split.streaming:
        out = read_split(store, split, fields, predicate, keep_row_kind=True, sequence_number=sequence_number)
    else:
        return read_split(store, split, fields, predicate, keep_row_kind=keep_row_kind,
                          sequence_number=sequence_number)
    return out if keep_row_kind else out.drop_columns([KIND])


def same_fields(store: FileStore, fields: list[DataField]) -> list[DataField]:
    """``fields`` as ``store`` (e.g. a fallback branch with its own field ids) has them, by name."""
    own = set(store.schema.fields)
    return fields if all(f in own for f in fields) else [store.schema.field(f.name) for f in fields]


def project(store: FileStore, columns: Sequence[str] | None) -> list[DataField]:
    if columns is None:
        return list(store.schema.fields)
    if isinstance(columns, (str, bytes)) or not isinstance(columns, Sequence) or not all(
        isinstance(c, str) for c in columns
    ):
        raise ValidationError(f"columns of a read of table {store.name} must be a list of column names, got {columns!r}")
    dup = sorted({c for c in columns if list(columns).count(c) > 1})
    if dup:
        raise ValidationError(f"columns of a read of table {store.name} name {dup[0]!r} more than once")
    try:
        return [store.schema.field(c) for c in columns]
    except ValidationError as e:
        raise ValidationError(f"Cannot read table {store.name}: {e}") from None


def fallback_splits(
    main: FileStore, snap: Snapshot | None, branch: str, pred: Predicate | None, time_travel: bool
) -> list[tuple[FileStore, DataSplit]]:
    """Splits of the ``scan.fallback-branch`` for the partitions the main branch does not have."""
    probe = main.for_branch(branch, main.schema)
    latest = probe.schemas.latest()
    if latest is None:
        raise NotFoundError(f"Fallback branch {branch!r} of table {main.name} does not exist")
    other_snap: Snapshot | None
    if time_travel and snap is not None:
        other_snap = probe.snapshots.snapshot_at_or_before(snap.time_millis)
        if other_snap is None and probe.snapshots.exists(1):
            other_snap = probe.snapshots.snapshot(1)
    else:
        other_snap = probe.snapshots.latest()
    schema = latest
    if time_travel and other_snap is not None and other_snap.schema_id != latest.id:
        schema = probe.schemas.schema(other_snap.schema_id)
    other = main.for_branch(branch, schema)
    main_types = [(f.name, f.type.copy(True)) for f in main.schema.fields]
    other_types = [(f.name, f.type.copy(True)) for f in other.schema.fields]
    if main_types != other_types:
        raise ValidationError(
            f"Branch main and {branch} of table {main.name} do not have the same row type, but "
            f"'{FALLBACK_BRANCH}' is '{branch}': the fallback branch must have the same schema "
            f"(main: {[f.to_string() for f in main.schema.fields]}, "
            f"{branch}: {[f.to_string() for f in other.schema.fields]})"
        )
    if other_snap is None:
        return []
    complete = {e.partition for e in live_entries(main, snap, None)} if snap is not None else set()
    return [(other, s) for s in plan_snapshot(other, other_snap, pred) if s.partition not in complete]
