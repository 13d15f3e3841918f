"""Incremental batch reads: what changed between two snapshots (Paimon's ``incremental-between*``
options, ``IncrementalDeltaStartingScanner``, ``IncrementalDiffStartingScanner`` and
``IncrementalDiffSplitRead``).

:class:`IncrementalSpec` is what a read asks for (the options, or the Python keywords); :func:`resolve`
turns it into an :class:`IncrementalRange` over snapshot ids with a concrete mode; :func:`plan_range`
gives the range's splits:

- ``delta``: the files the APPEND snapshots of (start, end] added (COMPACT and OVERWRITE snapshots
  are skipped), read record by record with their row kinds, unmerged (Paimon's streaming splits);
- ``changelog``: the changelog files of every snapshot in the range but OVERWRITE ones, read the same
  way;
- ``diff``: per bucket, the files of the start snapshot and of the end snapshot minus the files both
  have (``before_files`` / ``files`` of one split), each side merged by key with retractions kept,
  and a key whose merged record differs read as the end's record (a key only the start has reads as
  -D of its start value); an append table reads the end's files the start lacks.

``auto`` is ``changelog`` when the table has a changelog producer, else ``delta``. Two tags (without
``incremental-between-tag-to-snapshot``) and ``incremental-to-auto-tag`` read ``diff``.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from paimon_sql.errors import NotFoundError, UnsupportedError, ValidationError
from paimon_sql.format.binary_row import decode_row
from paimon_sql.lsm.merge import KIND, SEQ
from paimon_sql.meta.file_store import FileStore
from paimon_sql.meta.kinds import CommitKind, FileKind
from paimon_sql.meta.manifest_entry import ManifestEntry
from paimon_sql.meta.snapshot import Snapshot
from paimon_sql.predicate import Predicate, to_arrow_expression
from paimon_sql.scan.changes import changelog_entries, delta_entries, entry_splits
from paimon_sql.scan.planner import deletion_files, live_entries
from paimon_sql.scan.split import DataSplit
from paimon_sql.types import DataField

BETWEEN = "incremental-between"
BETWEEN_TIMESTAMP = "incremental-between-timestamp"
SCAN_MODE = "incremental-between-scan-mode"
TO_AUTO_TAG = "incremental-to-auto-tag"
TAG_TO_SNAPSHOT = "incremental-between-tag-to-snapshot"
INCREMENTAL_OPTIONS = (BETWEEN, BETWEEN_TIMESTAMP, SCAN_MODE, TO_AUTO_TAG, TAG_TO_SNAPSHOT)
MODES = ("auto", "delta", "changelog", "diff")
_EPOCH = _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)

class InconsistentBucketError(UnsupportedError):
    """A diff between two snapshots whose bucket counts differ (Paimon's
    ``InconsistentTagBucketException``); ``start_id`` / ``end_id`` name the two snapshots."""

    def __init__(self, message: str, start_id: int, end_id: int) -> None:
        super().__init__(message)
        self.start_id = start_id
        self.end_id = end_id


# row kinds (the _VALUE_KIND byte)
INSERT, UPDATE_BEFORE, UPDATE_AFTER, DELETE = 0, 1, 2, 3


@dataclass(frozen=True)
class IncrementalSpec:
    """What an incremental read asks for: ``between`` (two snapshot ids or tag names, start
    exclusive), or ``between_timestamp`` (two epoch millis), or ``to_auto_tag`` (an automatic
    tag: the changes since the automatic tag before it); ``scan_mode`` one of :data:`MODES`."""

    between: tuple[str, str] | None = None
    between_timestamp: tuple[int, int] | None = None
    to_auto_tag: str | None = None
    scan_mode: str = "auto"
    tag_to_snapshot: bool = False

    @staticmethod
    def of_options(options: Mapping[str, str], table: str) -> IncrementalSpec | None:
        """The incremental read a table's (or one read's) options ask for; None when they ask for
        none. Paimon's rules: ``incremental-between`` wins over ``incremental-between-timestamp``,
        which wins over ``incremental-to-auto-tag``."""
        opts = {k: str(v) for k, v in options.items() if v is not None}
        mode = opts.get(SCAN_MODE, "auto").strip().lower()
        if mode not in MODES:
            raise ValidationError(
                f"Option {SCAN_MODE!r} of table {table} must be one of {list(MODES)}, got {opts[SCAN_MODE]!r}"
            )
        tag_to_snapshot = opts.get(TAG_TO_SNAPSHOT, "false").strip().lower()
        if tag_to_snapshot not in ("true", "false"):
            raise ValidationError(f"Option {TAG_TO_SNAPSHOT!r} of table {table} must be true or false, "
                                  f"got {opts[TAG_TO_SNAPSHOT]!r}")
        common = {"scan_mode": mode, "tag_to_snapshot": tag_to_snapshot == "true"}
        if BETWEEN in opts:
            parts = opts[BETWEEN].split(",")
            if len(parts) != 2 or not all(p for p in parts):
                raise ValidationError(
                    f"Option {BETWEEN!r} of table {table} must be 'start,end' (start exclusive, end inclusive: "
                    f"'5,10' means the changes of snapshots 6 to 10, or two tag names), got {opts[BETWEEN]!r}"
                )
            return IncrementalSpec(between=(parts[0], parts[1]), **common)  # type: ignore[arg-type]
        if BETWEEN_TIMESTAMP in opts:
            return IncrementalSpec(between_timestamp=parse_timestamps(opts[BETWEEN_TIMESTAMP], table),
                                   **common)  # type: ignore[arg-type]
        if TO_AUTO_TAG in opts:
            return IncrementalSpec(to_auto_tag=opts[TO_AUTO_TAG], **common)  # type: ignore[arg-type]
        return None

    @staticmethod
    def of_between(value: object, table: str, scan_mode: str = "auto") -> IncrementalSpec:
        """The Python keyword ``incremental_between``: a (start, end) pair of snapshot ids or tag
        names, or the option's 'start,end' text."""
        if isinstance(value, str):
            spec = IncrementalSpec.of_options({BETWEEN: value, SCAN_MODE: scan_mode}, table)
            assert spec is not None
            return spec
        if not isinstance(value, (tuple, list)) or len(value) != 2 or not all(
            isinstance(v, (int, str)) and not isinstance(v, bool) for v in value
        ):
            raise ValidationError(
                f"incremental_between of a read of table {table} must be a (start, end) pair of snapshot ids "
                f"or tag names, got {value!r}"
            )
        spec = IncrementalSpec.of_options({BETWEEN: f"{value[0]},{value[1]}", SCAN_MODE: scan_mode}, table)
        assert spec is not None
        return spec


def parse_timestamps(text: str, table: str) -> tuple[int, int]:
    """``incremental-between-timestamp``: two epoch millis, or two local 'yyyy-MM-dd HH:mm:ss[.SSS]'
    times (Paimon parses them in the JVM's default zone; here the process's local zone)."""
    parts = text.split(",")
    bad = ValidationError(
        f"Option {BETWEEN_TIMESTAMP!r} of table {table} must be 'start,end' (start exclusive): two epoch "
        f"milliseconds or two 'yyyy-MM-dd HH:mm:ss' times, got {text!r}"
    )
    if len(parts) != 2:
        raise bad
    with contextlib.suppress(ValueError):  # not two epoch millis: two local times, parsed below
        return int(parts[0]), int(parts[1])
    out = []
    for p in parts:
        try:
            t = _dt.datetime.fromisoformat(p.strip())
        except ValueError:
            raise bad from None
        if t.tzinfo is None:
            t = t.astimezone()
        out.append((t - _EPOCH) // _dt.timedelta(milliseconds=1))
    return out[0], out[1]


@dataclass(frozen=True)
class IncrementalRange:
    """A resolved incremental read: ``mode`` ``delta`` / ``changelog`` over the snapshots
    (``start_id``, ``end_id``], or ``diff`` between snapshots ``start`` and ``end`` (which may be
    tags' snapshots, expired since), or ``empty``."""

    mode: str
    start_id: int = 0
    end_id: int = 0
    start: Snapshot | None = None
    end: Snapshot | None = None

    @property
    def snapshot_id(self) -> int | None:
        """The snapshot the read's splits name (the end)."""
        if self.end is not None:
            return self.end.id
        return self.end_id if self.mode != "empty" else None


EMPTY = IncrementalRange("empty")


def _snapshot_mode(store: FileStore, mode: str) -> str:
    """Paimon's ``toSnapshotScanMode``: auto is changelog when the table has a producer."""
    if mode == "auto":
        return "delta" if store.options.get("changelog-producer") == "none" else "changelog"
    return mode


def between_snapshot_ids(store: FileStore, start: int, end: int, mode: str) -> IncrementalRange:
    """Paimon's ``IncrementalDeltaStartingScanner.betweenSnapshotIds``: the range must lie in the
    snapshots the table has (the start may be the one before the earliest)."""
    sm = store.snapshots
    earliest, latest = sm.earliest_id(), sm.latest_id()
    if earliest is None or latest is None or not (start >= earliest - 1 and end <= latest):
        raise NotFoundError(
            f"Option {BETWEEN!r} of table {store.name}: the specified scan snapshotId range [{start}, {end}] "
            f"is out of available snapshotId range [{earliest}, {latest}]"
            + (" (the start has expired)" if earliest is not None and start < earliest - 1 else "")
        )
    return IncrementalRange(_snapshot_mode(store, mode), start, end)


def resolve(store: FileStore, spec: IncrementalSpec) -> IncrementalRange:
    """The range ``spec`` means on ``store`` (Paimon's ``createIncrementalStartingScanner``);
    ``to_auto_tag`` must have been turned into tags by the caller (``resolve_auto_tag``)."""
    sm = store.snapshots
    if spec.between is not None:
        s, e = spec.between
        tags = store.tags
        start_tag = s if _tag_exists(store, s) else None
        end_tag = e if _tag_exists(store, e) else None
        if start_tag is not None and end_tag is not None:
            start_snap, end_snap = tags.tagged_snapshot(start_tag), tags.tagged_snapshot(end_tag)
            if spec.tag_to_snapshot:
                mode = spec.scan_mode if spec.scan_mode != "diff" else "auto"
                if spec.scan_mode == "diff":
                    raise ValidationError(f"Option {SCAN_MODE!r} = 'diff' of table {store.name} cannot read "
                                          f"tags as snapshots ({TAG_TO_SNAPSHOT!r} is true)")
                return between_snapshot_ids(store, start_snap.id, end_snap.id, mode)
            if end_snap.id < start_snap.id:
                raise ValidationError(
                    f"Option {BETWEEN!r} of table {store.name}: Tag end {e} with snapshot id {end_snap.id} "
                    f"should be >= tag start {s} with snapshot id {start_snap.id}"
                )
            if start_snap.id == end_snap.id:
                return EMPTY
            return IncrementalRange("diff", start_snap.id, end_snap.id, start_snap, end_snap)
        try:
            start_id, end_id = int(s.strip()), int(e.strip())
        except ValueError:
            known = sorted(tags.tag_names())
            raise NotFoundError(
                f"Option {BETWEEN!r} of table {store.name}: Didn't find two tags for start '{s}' and end '{e}', "
                f"and they are not two snapshot Ids. Please set two tags or two snapshot Ids. "
                f"(tags: {known or 'none'})"
            ) from None
        if end_id < start_id:
            raise ValidationError(
                f"Option {BETWEEN!r} of table {store.name}: Ending snapshotId should >= starting snapshotId "
                f"(got start {start_id}, end {end_id})"
            )
        if sm.earliest_id() is None or start_id == end_id:
            return EMPTY
        if spec.scan_mode == "diff":
            for sid in (start_id, end_id):
                if not sm.exists(sid):
                    raise NotFoundError(f"Option {BETWEEN!r} of table {store.name}: snapshot {sid} does not exist "
                                        f"(snapshots {sm.earliest_id()}..{sm.latest_id()})")
            return IncrementalRange("diff", start_id, end_id, sm.snapshot(start_id), sm.snapshot(end_id))
        return between_snapshot_ids(store, start_id, end_id, spec.scan_mode)
    if spec.between_timestamp is not None:
        t1, t2 = spec.between_timestamp
        earliest, latest = sm.earliest_id(), sm.latest()
        if earliest is None or latest is None:
            return EMPTY
        if t2 < t1:
            raise ValidationError(f"Option {BETWEEN_TIMESTAMP!r} of table {store.name}: Ending timestamp {t2} "
                                  f"should be >= starting timestamp {t1}")
        first = sm.snapshot(earliest)
        if t1 == t2 or t1 > latest.time_millis or t2 < first.time_millis:
            return EMPTY
        t_start = sm.snapshot_at_or_before(t1)
        t_end = sm.snapshot_at_or_before(t2) or latest
        if spec.scan_mode == "diff":
            if t_start is None:
                if first.id == 1:  # Paimon: everything up to the end (a full read of it)
                    return IncrementalRange("diff", 0, t_end.id, None, t_end)
                t_start = first
            return IncrementalRange("diff", t_start.id, t_end.id, t_start, t_end)
        start_id = first.id - 1 if t_start is None or first.time_millis > t1 else t_start.id
        return IncrementalRange(_snapshot_mode(store, spec.scan_mode), start_id, t_end.id)
    raise ValidationError(f"Table {store.name}: an incremental read needs {BETWEEN!r}, {BETWEEN_TIMESTAMP!r} "
                          f"or {TO_AUTO_TAG!r}")


def _tag_exists(store: FileStore, name: str) -> bool:
    """Whether tag ``name`` exists; a name no tag can have (a path, ...) is a ValidationError."""
    return store.tags.exists(name)


# -- planning -------------------------------------------------------------------------------------


def plan_range(store: FileStore, rng: IncrementalRange, predicate: Predicate | None) -> list[DataSplit]:
    """The splits of a resolved range (see the module's text)."""
    if rng.mode == "empty":
        return []
    if rng.mode == "diff":
        return diff_splits(store, rng.start, rng.end, predicate)
    sm = store.snapshots
    entries: list[ManifestEntry] = []
    for sid in range(rng.start_id + 1, rng.end_id + 1):
        if not sm.exists(sid):
            raise NotFoundError(f"Snapshot {sid} of table {store.name} (in the range of {BETWEEN!r}) does not exist "
                                "(it has expired)")
        snap = sm.snapshot(sid)
        if rng.mode == "delta":
            if snap.commit_kind != CommitKind.APPEND:
                continue  # COMPACT and OVERWRITE snapshots add no change
            entries += [e for e in delta_entries(store, snap) if e.kind == FileKind.ADD]
        elif rng.mode == "changelog":
            if snap.commit_kind == CommitKind.OVERWRITE:
                continue
            entries += [e for e in changelog_entries(store, snap) if e.kind == FileKind.ADD]
        else:
            raise UnsupportedError(f"Unsupported incremental scan mode {rng.mode!r} (table {store.name})")
    end = sm.snapshot(rng.end_id)
    return entry_splits(store, end, entries, predicate)


def _file_key(e: ManifestEntry) -> tuple[object, ...]:
    f = e.file
    return (f.file_name, f.level, f.external_path, f.row_count, f.file_size)


def diff_splits(
    store: FileStore, start: Snapshot | None, end: Snapshot | None, predicate: Predicate | None
) -> list[DataSplit]:
    """One split per (partition, bucket) of either snapshot: ``before_files`` the start's files the
    end lacks, ``files`` the end's files the start lacks (Paimon's ``readIncrementalDiff``)."""
    from paimon_sql.predicate import partition_only
    from paimon_sql.scan.split import DeletionFile

    assert end is not None
    part_pred = partition_only(predicate, list(store.schema.partition_keys)) if predicate is not None else None

    def grouped(snap: Snapshot | None) -> dict[tuple[bytes, int], list[ManifestEntry]]:
        out: dict[tuple[bytes, int], list[ManifestEntry]] = defaultdict(list)
        if snap is not None:
            for e in live_entries(store, snap, part_pred):
                out[(e.partition, e.bucket)].append(e)
        return out

    def dvs(snap: Snapshot | None) -> dict[tuple[bytes, int], dict[str, DeletionFile]]:
        if snap is None or not store.options.deletion_vectors_enabled:
            return {}
        return deletion_files(store, snap)

    before, after = grouped(start), grouped(end)
    _check_bucket_numbers(store, start, before, end, after)
    before_dv, after_dv = dvs(start), dvs(end)
    splits = []
    for key in sorted(set(before) | set(after)):
        b, a = before.get(key, []), after.get(key, [])
        common = {_file_key(e) for e in b} & {_file_key(e) for e in a}
        b = [e for e in b if _file_key(e) not in common]
        a = [e for e in a if _file_key(e) not in common]
        if not b and not a:
            continue
        partition, bucket = key
        pvals = tuple(decode_row(partition, store.partition_types))
        first = (a or b)[0]
        bfiles = tuple(sorted((e.file for e in b), key=lambda f: (f.level, f.min_sequence_number)))
        afiles = tuple(sorted((e.file for e in a), key=lambda f: (f.level, f.min_sequence_number)))
        splits.append(DataSplit(
            snapshot_id=end.id, partition=partition, partition_values=pvals, bucket=bucket,
            total_buckets=first.total_buckets, bucket_dir=store.bucket_dir(list(pvals), bucket), files=afiles,
            deletion_files={n: d for n, d in after_dv.get(key, {}).items() if n in {f.file_name for f in afiles}},
            raw_convertible=not store.has_primary_key,
            before_files=bfiles,
            before_deletion_files={n: d for n, d in before_dv.get(key, {}).items()
                                   if n in {f.file_name for f in bfiles}},
        ))
    return splits


def _check_bucket_numbers(
    store: FileStore, start: Snapshot | None, before: Mapping[tuple[bytes, int], list[ManifestEntry]],
    end: Snapshot, after: Mapping[tuple[bytes, int], list[ManifestEntry]],
) -> None:
    """Paimon's ``checkRescaleBucketForIncrementalDiffQuery``: a partition whose bucket count
    changed between the two snapshots cannot be diffed bucket by bucket."""
    if start is None or store.options.get("bucket") == -1:
        return
    counts_b: dict[bytes, set[int]] = defaultdict(set)
    counts_a: dict[bytes, set[int]] = defaultdict(set)
    for (p, _), es in before.items():
        counts_b[p] |= {e.total_buckets for e in es}
    for (p, _), es in after.items():
        counts_a[p] |= {e.total_buckets for e in es}
    for p, nb in counts_b.items():
        na = counts_a.get(p)
        if na is None:
            continue
        if len(nb) == 1 and nb == na:
            continue
        raise InconsistentBucketError(
            f"Table {store.name}: the bucket number of two snapshots are different "
            f"({'/'.join(map(str, sorted(nb)))}, {'/'.join(map(str, sorted(na)))}), which is not supported in "
            f"incremental diff query (snapshots {start.id} and {end.id})",
            start.id, end.id,
        )


# -- reading a diff split -------------------------------------------------------------------------


def read_diff_split(
    store: FileStore, split: DataSplit, fields: Sequence[DataField], predicate: Predicate | None,
    keep_delete: bool, sequence_number: bool = False,
) -> pa.Table:
    """The rows of a diff split as ``fields`` plus ``_VALUE_KIND`` (Paimon's ``DiffMerger``): per key,
    the end's merged record when the start's differs (value or add/retract), -D of the start's
    value when only the start has the key; ``keep_delete`` False keeps only +I/+U rows."""
    from paimon_sql.scan.reader import output_schema, read_split

    schema = output_schema(fields).append(pa.field(KIND, pa.int8(), False))
    seq = [SEQ] if sequence_number else []
    if sequence_number:
        schema = schema.insert(0, pa.field(SEQ, pa.int64(), False))
    before_split = _side(split, True)
    after_split = _side(split, False)
    if not store.has_primary_key:  # Paimon's raw read ignores the before files
        out = read_split(store, after_split, fields, None, keep_row_kind=True, sequence_number=sequence_number)
    else:
        all_fields = list(store.schema.fields)
        empty = output_schema(all_fields).append(pa.field(KIND, pa.int8(), False))
        if sequence_number:
            empty = empty.insert(0, pa.field(SEQ, pa.int64(), False))
        before = read_split(store, before_split, all_fields, None, keep_row_kind=True,
                            sequence_number=sequence_number) if split.before_files else empty.empty_table()
        after = read_split(store, after_split, all_fields, None, keep_row_kind=True,
                           sequence_number=sequence_number) if split.files else empty.empty_table()
        out = _diff(store, before, after)
    if not keep_delete:
        kinds = out.column(KIND)
        out = out.filter(pc.or_(pc.equal(kinds, INSERT), pc.equal(kinds, UPDATE_AFTER)))
    if predicate is not None and out.num_rows:
        out = out.filter(to_arrow_expression(predicate))
    return out.select(seq + [f.name for f in fields] + [KIND]).cast(schema)


def _side(split: DataSplit, before: bool) -> DataSplit:
    import dataclasses

    files = split.before_files if before else split.files
    dv = split.before_deletion_files if before else split.deletion_files
    return dataclasses.replace(split, files=tuple(files or ()), deletion_files=dict(dv), before_files=None,
                               before_deletion_files={}, raw_convertible=len(files or ()) <= 1)


def _diff(store: FileStore, before: pa.Table, after: pa.Table) -> pa.Table:
    keys = [k.name for k in store.key_fields]
    side = "__paimon_side"
    both = pa.concat_tables([
        before.append_column(side, pa.array(np.zeros(before.num_rows, dtype=np.int8))),
        after.append_column(side, pa.array(np.ones(after.num_rows, dtype=np.int8))),
    ])
    n = both.num_rows
    if n == 0:
        return before
    order = pc.sort_indices(both, sort_keys=[(k, "ascending") for k in keys] + [(side, "ascending")])
    both = both.take(order)
    same_next = np.zeros(n, dtype=bool)
    if n > 1:
        eq = np.ones(n - 1, dtype=bool)
        for k in keys:
            col = both.column(k).combine_chunks()
            eq &= _equal(col.slice(0, n - 1), col.slice(1), with_nulls=True)
        same_next[:-1] = eq
    same_prev = np.zeros(n, dtype=bool)
    same_prev[1:] = same_next[:-1]
    sides = both.column(side).to_numpy()
    kinds = both.column(KIND).to_numpy().astype(np.int8)
    is_add = (kinds == INSERT) | (kinds == UPDATE_AFTER)
    single = ~same_next & ~same_prev
    keep = np.zeros(n, dtype=bool)
    new_kind = kinds.copy()
    # a key only the start has: -D of its start value (when it was an add)
    only_before = single & (sides == 0) & is_add
    keep |= only_before
    new_kind[only_before] = DELETE
    # a key only the end has: its record
    keep |= single & (sides == 1)
    # a key both have (before at i, after at i + 1): the end's record when they differ
    pair_first = np.flatnonzero(same_next)
    if pair_first.size:
        b_idx, a_idx = pair_first, pair_first + 1
        equal = is_add[b_idx] == is_add[a_idx]
        for f in store.schema.fields:
            col = both.column(f.name).combine_chunks()
            equal &= _equal(col.take(pa.array(b_idx)), col.take(pa.array(a_idx)), with_nulls=True)
        keep[a_idx[~equal]] = True
    out = both.filter(pa.array(keep))
    out = out.set_column(out.schema.get_field_index(KIND), KIND, pa.array(new_kind[keep], pa.int8()))
    return out.drop_columns([side])


def _equal(a: pa.Array, b: pa.Array, with_nulls: bool) -> np.ndarray:
    """Element-wise equality of two arrays (nulls equal to nulls), for any column type."""
    try:
        eq = pc.equal(a, b)
        both_null = pc.and_(pc.is_null(a), pc.is_null(b))
        res = pc.or_kleene(pc.fill_null(eq, False), both_null)
        return np.asarray(res.to_numpy(zero_copy_only=False), dtype=bool)
    except (pa.ArrowNotImplementedError, pa.ArrowInvalid, TypeError):
        # nested types: compare their Python values
        return np.fromiter((x == y for x, y in zip(a.to_pylist(), b.to_pylist())), dtype=bool, count=len(a))


def check_no_time_travel(options: Mapping[str, str], table: str) -> None:
    """An incremental read picks its own snapshots: refuse time-travel options next to it."""
    from paimon_sql.meta.travel import TRAVEL_OPTIONS

    given = [k for k in TRAVEL_OPTIONS if options.get(k) not in (None, "")]
    if given:
        raise ValidationError(
            f"Table {table}: an incremental read ({BETWEEN!r}, {BETWEEN_TIMESTAMP!r} or {TO_AUTO_TAG!r}) cannot "
            f"be combined with time travel ({', '.join(given)})"
        )
