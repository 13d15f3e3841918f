"""Conflict checks of a commit against what other commits changed since its writer's base snapshot.

Each check is a pure function of "what changed since the base" (:class:`ChangesSince`, read by
:func:`changes_since`) and of the commit's own changes; it raises a :class:`WriteConflictError`
naming the table, partition and bucket when the commit would land wrong:

- **sequence numbers** (primary-key tables): a writer numbers a bucket's records from the bucket's
  highest sequence number in its base snapshot. A file another commit added to the same bucket
  since then, whose sequence numbers reach ours, would make the older write win some keys.
- **dynamic-bucket index** (``bucket`` = -1): a writer assigns new keys to buckets from the HASH
  index of its base snapshot; another commit that changed the index of the same partition may have
  put the same key in another bucket.
- **schema**: a writer lays out its files (buckets, columns, keys) by the schema it was opened with;
  a newer schema means its files may be laid out wrong.
- **bucket count**: files of a fixed-bucket partition must all have the same total bucket count.

Apache Paimon documents one writer per bucket and leaves these races to the user; paimon_sql
refuses to commit them; ``Table.write`` renumbers a write that lost only the sequence-number race
(``write/resequence.py``) and redoes any other on top of the new snapshot.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa

from paimon_sql.errors import (
    AlreadyCommittedError,
    NotFoundError,
    PaimonError,
    ValidationError,
    WriteConflictError,
)
from paimon_sql.format.binary_row import decode_row
from paimon_sql.format.data_files import file_format_of, read_file
from paimon_sql.format.partition_path import partition_value_string
from paimon_sql.meta.file_store import FileStore
from paimon_sql.meta.index_file_meta import INDEX_TYPE_DELETION_VECTORS, INDEX_TYPE_HASH, IndexManifestEntry
from paimon_sql.meta.kinds import FileKind
from paimon_sql.meta.manifest_entry import ManifestEntry
from paimon_sql.meta.snapshot import Snapshot
from paimon_sql.scan.changes import delta_entries
from paimon_sql.write.file_writer import KEY_PREFIX

BucketKey = tuple[bytes, int]  # (partition BinaryRow, bucket)


class SequenceConflictError(WriteConflictError):
    """The sequence-number conflict: a concurrent commit added a file sharing keys with this
    write's files in a bucket, with sequence numbers reaching ours. The only conflict a write can
    resolve by renumbering its files on the new snapshot (``write/resequence.py``)."""


@dataclass(frozen=True)
class ChangesSince:
    """What the snapshots after a base snapshot changed, up to the latest one."""

    base_id: int | None
    latest_id: int | None
    added: tuple[ManifestEntry, ...] = ()
    # partitions whose dynamic-bucket HASH index changed
    index_partitions: frozenset[bytes] = field(default_factory=frozenset)


def changes_since(store: FileStore, base_id: int | None, latest: Snapshot | None) -> ChangesSince:
    """The data files added and the index partitions changed by the snapshots after ``base_id``
    (None: the table had no snapshot) up to ``latest``.

    Reads the delta manifests of those snapshots; when one of them no longer exists (expired), the
    live files of ``latest`` that ``base_id`` did not have stand for them. When the base itself is
    gone, what happened since cannot be known: a WriteConflictError."""
    latest_id = latest.id if latest is not None else None
    if latest is None or latest_id == base_id:
        return ChangesSince(base_id, latest_id)
    sm, ms = store.snapshots, store.manifests
    ids = range((base_id or 0) + 1, latest.id + 1)
    if all(sm.exists(i) for i in ids):
        try:
            added: list[ManifestEntry] = []
            for i in ids:
                snap = latest if i == latest.id else sm.snapshot(i)
                added.extend(e for e in delta_entries(store, snap) if e.kind == FileKind.ADD)
            base = sm.snapshot(base_id) if base_id is not None else None
            return ChangesSince(base_id, latest_id, tuple(added), _index_partitions_changed(store, base, latest))
        except NotFoundError:
            pass  # a snapshot of the range expired while it was read: compare the live files instead
    try:
        base = sm.snapshot(base_id) if base_id is not None else None
        before = {e.identifier for e in ms.live_entries(base)} if base is not None else set()
        base_index = _index_files(store, base)
    except NotFoundError as e:  # the snapshot file goes last: its manifests may be gone already
        raise WriteConflictError(
            f"Commit to table {store.name}: its base snapshot {base_id} expired while it was "
            "being written, so concurrent changes cannot be checked"
        ) from e
    # a NotFoundError from here on: ``latest`` expired meanwhile, the commit loop starts again
    added = [e for e in ms.live_entries(latest) if e.identifier not in before]
    return ChangesSince(base_id, latest_id, tuple(added), _index_partitions_changed(store, base, latest, base_index))


def _index_files(store: FileStore, snap: Snapshot | None) -> set[tuple[bytes, int, str]]:
    """The dynamic-bucket HASH index files of ``snap``: (partition, bucket, file name)."""
    if snap is None or snap.index_manifest is None:
        return set()
    return {
        (e.partition, e.bucket, e.index_file.file_name)
        for e in store.manifests.index_entries(snap)
        if e.index_file.index_type == INDEX_TYPE_HASH
    }


def _index_partitions_changed(
    store: FileStore, base: Snapshot | None, latest: Snapshot,
    base_index: set[tuple[bytes, int, str]] | None = None,
) -> frozenset[bytes]:
    if (base.index_manifest if base is not None else None) == latest.index_manifest:
        return frozenset()
    before = base_index if base_index is not None else _index_files(store, base)
    return frozenset(p for p, _, _ in before ^ _index_files(store, latest))


def describe_partition(store: FileStore, partition: bytes) -> str:
    """``partition dt=2024-01-01`` (``the table`` for an unpartitioned table)."""
    fields = store.partition_fields
    if not fields:
        return "the table"
    values = decode_row(partition, [f.type for f in fields])
    spec = ", ".join(
        f"{f.name}={partition_value_string(v, f.type, store.options.partition_default_name, False)}"
        for f, v in zip(fields, values)
    )
    return f"partition {spec}"


def describe_bucket(store: FileStore, partition: bytes, bucket: int) -> str:
    """``partition dt=2024-01-01, bucket 3`` (``bucket 3`` for an unpartitioned table)."""
    if not store.partition_fields:
        return f"bucket {bucket}"
    return f"{describe_partition(store, partition)}, bucket {bucket}"


def _by_bucket(entries: Iterable[ManifestEntry]) -> dict[BucketKey, list[ManifestEntry]]:
    out: dict[BucketKey, list[ManifestEntry]] = defaultdict(list)
    for e in entries:
        if e.kind == FileKind.ADD:
            out[(e.partition, e.bucket)].append(e)
    return out


class _SharedKeys:
    """Whether two files of one bucket may hold a common key: first by their key ranges
    (min_key..max_key; keys compare field by field as Paimon orders them, strings by code point),
    then, when the ranges overlap, exactly, by joining their key columns (read only for such
    candidate pairs). A key or file that cannot be decoded or read counts as shared."""

    def __init__(self, store: FileStore) -> None:
        self.store = store
        self.types = [f.type for f in store.key_fields]
        self.columns = [KEY_PREFIX + f.name for f in store.key_fields]
        self.bounds: dict[bytes, tuple[Any, ...] | None] = {}
        self.keys: dict[str, pa.Table | None] = {}

    def _key(self, blob: bytes) -> tuple[Any, ...] | None:
        if blob not in self.bounds:
            try:
                values: tuple[Any, ...] | None = tuple(decode_row(blob, self.types))
            except Exception:  # noqa: BLE001 (an undecodable key: assume the worst)
                values = None
            if values is not None and any(v is None or v != v for v in values):  # NULL or NaN
                values = None
            self.bounds[blob] = values
        return self.bounds[blob]

    def _ranges_overlap(self, a: ManifestEntry, b: ManifestEntry) -> bool:
        lo_a, hi_a = self._key(a.file.min_key), self._key(a.file.max_key)
        lo_b, hi_b = self._key(b.file.min_key), self._key(b.file.max_key)
        if lo_a is None or hi_a is None or lo_b is None or hi_b is None:
            return True
        try:
            return not (hi_a < lo_b or hi_b < lo_a)
        except TypeError:
            return True

    def _key_table(self, e: ManifestEntry) -> pa.Table | None:
        store, f = self.store, e.file
        values = decode_row(e.partition, store.partition_types) if store.partition_fields else []
        path = store.data_file_path(store.bucket_dir(values, e.bucket), f.file_name, f.external_path)
        if path not in self.keys:
            try:
                fmt = file_format_of(f.file_name, store.options.file_format)
                self.keys[path] = read_file(store.file_io, path, fmt, self.columns)
            except PaimonError:
                self.keys[path] = None
        return self.keys[path]

    def shared(self, a: ManifestEntry, b: ManifestEntry) -> bool:
        if not self._ranges_overlap(a, b):
            return False
        ka, kb = self._key_table(a), self._key_table(b)
        if ka is None or kb is None:
            return True
        try:
            return ka.join(kb.select(self.columns), keys=self.columns, join_type="inner").num_rows > 0
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError):
            return True


def check_sequence_numbers(
    store: FileStore, since: ChangesSince, entries: Sequence[ManifestEntry]
) -> None:
    """Primary-key tables: no file added since the base to a bucket this commit writes may carry a
    sequence number at or above that of one of this commit's files there whose key range it shares
    (the older write would win those keys). Files this commit itself deletes (by an overwrite) do
    not count."""
    if not store.has_primary_key or not since.added:
        return
    ours = _by_bucket(entries)
    deleted = {e.identifier for e in entries if e.kind == FileKind.DELETE}
    keys = _SharedKeys(store)
    for e in since.added:
        k = (e.partition, e.bucket)
        if k not in ours or e.identifier in deleted:
            continue
        for o in ours[k]:
            if e.file.max_sequence_number >= o.file.min_sequence_number and keys.shared(e, o):
                raise SequenceConflictError(
                    f"Commit to table {store.name} conflicts with a concurrent commit to "
                    f"{describe_bucket(store, *k)}: since this write's base snapshot {since.base_id} "
                    f"it added file {e.file.file_name} sharing keys with this write's file "
                    f"{o.file.file_name} and sequence numbers up to {e.file.max_sequence_number}, at or "
                    f"above this write's {o.file.min_sequence_number}: keys both wrote would resolve wrongly"
                )


def check_dynamic_bucket_index(
    store: FileStore, since: ChangesSince, index_entries: Sequence[IndexManifestEntry],
    entries: Sequence[ManifestEntry],
) -> None:
    """Dynamic-bucket tables: the HASH index of the partitions this commit assigns keys in must not
    have changed since the base (a key could now live in two buckets)."""
    if not since.index_partitions:
        return
    ours = {e.partition for e in index_entries if e.index_file.index_type == INDEX_TYPE_HASH}
    ours |= {e.partition for e in entries if e.kind == FileKind.ADD} if store.options.bucket == -1 else set()
    clash = sorted(ours & since.index_partitions)
    if clash:
        raise WriteConflictError(
            f"Commit to table {store.name} conflicts with a concurrent commit that changed the "
            f"dynamic-bucket index of {describe_partition(store, clash[0])} since this "
            f"write's base snapshot {since.base_id}: keys may have been assigned to other buckets"
        )


def check_schema(store: FileStore, writer_schema_id: int, latest_schema_id: int | None) -> None:
    """The table's schema must still be the one the writer laid its files out by."""
    if latest_schema_id is not None and latest_schema_id != writer_schema_id:
        raise WriteConflictError(
            f"Commit to table {store.name} conflicts with a schema change: the data was written with "
            f"schema {writer_schema_id}, but the table's schema is now {latest_schema_id}"
        )


def check_total_buckets(
    store: FileStore, live: Iterable[ManifestEntry], entries: Sequence[ManifestEntry]
) -> None:
    """Fixed-bucket partitions: every file of a partition has the same total bucket count (a
    partition rewritten with another count is replaced whole, by an overwrite)."""
    ours: dict[bytes, int] = {}
    for e in entries:
        if e.kind == FileKind.ADD and e.total_buckets > 0:
            ours.setdefault(e.partition, e.total_buckets)
    if not ours:
        return
    deleted = {e.identifier for e in entries if e.kind == FileKind.DELETE}
    for e in live:
        n = ours.get(e.partition)
        if n is not None and e.total_buckets > 0 and e.total_buckets != n and e.identifier not in deleted:
            raise WriteConflictError(
                f"Commit to table {store.name} writes {describe_partition(store, e.partition)} "
                f"with {n} buckets, but its file {e.file.file_name} was written with {e.total_buckets} "
                "buckets: the bucket number changed (overwrite the partition to rescale it)"
            )


def check_one_writer_per_bucket(store: FileStore, changes: Sequence[Sequence[ManifestEntry]]) -> None:
    """Within one commit of several writers (tasks), no two may have written files of the same
    primary-key bucket with overlapping key ranges and overlapping sequence numbers: which of them
    wins a key would be undefined."""
    if not store.has_primary_key or len(changes) < 2:
        return
    keys = _SharedKeys(store)
    seen: dict[BucketKey, list[ManifestEntry]] = defaultdict(list)
    for entries in changes:
        mine = _by_bucket(entries)
        for k, files in mine.items():
            for f in files:
                for other in seen[k]:
                    a, b = f.file, other.file
                    if (a.min_sequence_number <= b.max_sequence_number
                            and b.min_sequence_number <= a.max_sequence_number and keys.shared(f, other)):
                        raise WriteConflictError(
                            f"Commit to table {store.name}: two writers of this commit wrote "
                            f"{describe_bucket(store, *k)} with overlapping keys and sequence numbers "
                            f"(files {b.file_name} and {a.file_name}); a key must be written by one task"
                        )
        for k, files in mine.items():
            seen[k].extend(files)


def check_not_committed(store: FileStore, since: ChangesSince, entries: Sequence[ManifestEntry]) -> None:
    """The files this commit adds must not have been committed already (the same changes given to
    two commits would double their rows)."""
    if not since.added:
        return
    ours = {e.file.file_name for e in entries if e.kind == FileKind.ADD}
    again = sorted(ours & {e.file.file_name for e in since.added})
    if again:
        raise AlreadyCommittedError(
            f"Commit to table {store.name}: its files were committed already (e.g. {again[0]}); "
            "changes can be committed once"
        )


def check_files_of_table(
    store: FileStore, entries: Sequence[ManifestEntry], index_entries: Sequence[IndexManifestEntry]
) -> None:
    """Every data and index file a commit adds must exist where this table keeps it, with the size
    its metadata records, in the table's bucket layout: changes of an aborted write (files gone) or
    of another table are refused with a ValidationError naming the file. One stat per file."""
    n = store.options.bucket
    dirs: dict[BucketKey, str] = {}
    for e in entries:
        if e.kind != FileKind.ADD:
            continue
        f = e.file
        if n > 0 and (e.total_buckets != n or not 0 <= e.bucket < n):
            raise ValidationError(
                f"Cannot commit file {f.file_name} to table {store.name}: it was written for bucket "
                f"{e.bucket} of {e.total_buckets}, but the table has {n} buckets"
            )
        k = (e.partition, e.bucket)
        if k not in dirs:
            values = decode_row(e.partition, store.partition_types) if store.partition_fields else []
            dirs[k] = store.bucket_dir(values, e.bucket)
        path = store.data_file_path(dirs[k], f.file_name, f.external_path)
        _check_file(store, path, f.file_size, f"data file {f.file_name}")
    for ie in index_entries:
        meta = ie.index_file
        path = meta.external_path or store.index_file_path(meta.file_name)
        _check_file(store, path, meta.file_size, f"index file {meta.file_name}")


def _check_file(store: FileStore, path: str, size: int, what: str) -> None:
    try:
        actual = store.file_io.status(path).size
    except (NotFoundError, OSError, ValueError):  # missing, or a path no filesystem accepts
        raise ValidationError(
            f"Cannot commit {what} to table {store.name}: {path} does not exist (were these changes "
            "aborted, or prepared for another table?)"
        ) from None
    if actual != size:
        raise ValidationError(
            f"Cannot commit {what} to table {store.name}: {path} has {actual} bytes, its metadata says {size}"
        )


def check_compacted_buckets_unchanged(
    store: FileStore, since: ChangesSince, entries: Sequence[ManifestEntry], own: Iterable[ManifestEntry] = ()
) -> None:
    """A compaction picks its files and decides to drop retractions (its output being the oldest
    data of the bucket) from the bucket as its base snapshot had it: no other commit may have added
    a file to a bucket it compacts since then (``own``: the files the compacting write itself
    committed just before). Files it removes that are gone are found by the deleted-files check."""
    compacted = {(e.partition, e.bucket) for e in entries}
    if not compacted:
        return
    mine = {e.identifier for e in own}
    for e in since.added:
        if (e.partition, e.bucket) in compacted and e.identifier not in mine:
            raise WriteConflictError(
                f"Compaction of table {store.name} conflicts with a concurrent commit: file "
                f"{e.file.file_name} was added to {describe_bucket(store, e.partition, e.bucket)} "
                f"after the compaction read it (snapshot {since.base_id} -> {since.latest_id})"
            )


def check_append_deletion_vectors(
    store: FileStore, latest: Snapshot | None, live: Sequence[ManifestEntry],
    deletes: Sequence[ManifestEntry], index_entries: Sequence[IndexManifestEntry],
) -> None:
    """Append tables with deletion vectors (Paimon attaches each data file's vector to its entry
    and checks them as one): the DELETION_VECTORS index files this commit replaces must still be
    there; every data file it sets a vector on must still be live, and, like every file it
    removes, must have no vector in ``latest`` other than one in an index file it replaces (a
    concurrent DELETE changed it: the rows it deleted would come back); a fixed bucket's index
    (rewritten whole) must be the one this commit replaces."""
    dv = [e for e in index_entries if e.index_file.index_type == INDEX_TYPE_DELETION_VECTORS]
    if not dv and not (deletes and store.options.deletion_vectors_enabled):
        return
    current = [e for e in store.manifests.index_entries(latest)
               if e.index_file.index_type == INDEX_TYPE_DELETION_VECTORS] if latest is not None else []
    present = {(e.partition, e.bucket, e.index_file.file_name) for e in current}
    holder: dict[tuple[bytes, int, str], str] = {}
    by_bucket: dict[BucketKey, list[str]] = defaultdict(list)
    for e in current:
        by_bucket[(e.partition, e.bucket)].append(e.index_file.file_name)
        for data_file in e.index_file.dv_ranges or {}:
            holder[(e.partition, e.bucket, data_file)] = e.index_file.file_name
    replaced = {(e.partition, e.bucket, e.index_file.file_name) for e in dv if e.kind == FileKind.DELETE}

    def conflict(what: str, partition: bytes, bucket: int) -> WriteConflictError:
        return WriteConflictError(
            f"Commit to table {store.name} conflicts with a concurrent commit to "
            f"{describe_bucket(store, partition, bucket)}: {what}"
        )

    for p, b, name in sorted(replaced - present):
        raise conflict(f"deletion-vector index file {name} it replaces is gone (a concurrent DELETE or "
                       "compaction changed the deletion vectors)", p, b)
    live_ids = {(e.partition, e.bucket, e.file.file_name) for e in live}
    for e in dv:
        if e.kind != FileKind.ADD:
            continue
        for data_file in e.index_file.dv_ranges or {}:
            k = (e.partition, e.bucket, data_file)
            if k not in live_ids:
                raise conflict(f"data file {data_file} it sets a deletion vector on no longer exists", e.partition, e.bucket)
            h = holder.get(k)
            if h is not None and (e.partition, e.bucket, h) not in replaced:
                raise conflict(f"the deletion vector of data file {data_file} changed since it was read", e.partition, e.bucket)
    for d in deletes:
        h = holder.get((d.partition, d.bucket, d.file.file_name))
        if h is not None and (d.partition, d.bucket, h) not in replaced:
            raise conflict(f"data file {d.file.file_name} it rewrites got deletion vectors since it was read",
                           d.partition, d.bucket)
    if store.options.bucket > 0:
        for p, b in sorted({(e.partition, e.bucket) for e in dv if e.kind == FileKind.ADD}):
            for name in by_bucket.get((p, b), []):
                if (p, b, name) not in replaced:
                    raise conflict(f"its deletion-vector index was replaced by {name} since it was read", p, b)
