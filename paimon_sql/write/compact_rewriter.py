"""Executing a compaction of one primary-key bucket: rewriting sorted runs into new files of the
output level, or upgrading a file to it (a metadata-only change), as Paimon's
MergeTreeCompactRewriter does.

A rewrite reads the runs' files (schema evolution by field id, as reads do), merges every key's
records with the table's merge engine in one vectorised pass (the sections of one rewrite hold
disjoint key ranges, so merging them together is merging each), drops retractions when the output
is the oldest data of the bucket (``drop_delete``), keeps sequence numbers, and writes files of
about ``target-file-size`` each (the rows per file estimated from the input files' bytes per row).

Changelog producers (Paimon's ChangelogMergeTreeRewriter): with ``lookup``, a rewrite whose inputs
hold level-0 files and whose output is above level 0 also writes changelog files: each key of the
level-0 records is compared before (its record of the lowest level above 0, among the inputs or
looked up in the levels above the output, file by file, only files whose key range meets the
level-0 files') and after the merge (``paimon_sql.lsm.changelog``); with ``full-compaction``, a
rewrite into the highest level compares each key's record there with the merged one. Tables that
need lookup merge a key's records above level 0 as Paimon's LookupMergeFunction does: only the
lowest level's joins the merge.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from paimon_sql.format.data_files import file_format_of
from paimon_sql.format.system_fields import KEY_PREFIX, KIND, SEQ
from paimon_sql.lsm.changelog import (
    LEVEL,
    before_rows,
    changed_keys,
    changelog_of,
    dedup_fields,
    key_mask,
    lookup_merge_filter,
    lookup_merges_levels,
)
from paimon_sql.lsm.engines import engine_of
from paimon_sql.lsm.levels import KeyComparator
from paimon_sql.lsm.merge import MergeSpec, java_key_order
from paimon_sql.meta.data_file_meta import DataFileMeta, local_wall_clock_ms
from paimon_sql.meta.file_store import FileStore
from paimon_sql.meta.kinds import FileSource
from paimon_sql.scan.reader import read_data_file
from paimon_sql.scan.split import DataSplit
from paimon_sql.types import DataField
from paimon_sql.write.deletion_vectors import BucketDeletionVectors
from paimon_sql.write.file_writer import FileNamer, kv_arrow_schema, write_data_file
from paimon_sql.write.lookup_reader import LookupFileReader, lookup_memory_bytes


@dataclass
class CompactResult:
    """Files a compaction removed from the bucket's levels and the files it put there (an upgraded
    file appears in both, at its old and its new level)."""

    before: list[DataFileMeta] = field(default_factory=list)
    after: list[DataFileMeta] = field(default_factory=list)
    # paths of the files this compaction wrote (to delete if the write is aborted)
    written: list[str] = field(default_factory=list)
    # changelog files the compaction produced (changelog-producer lookup / full-compaction; their
    # paths are in ``written`` too)
    changelog: list[DataFileMeta] = field(default_factory=list)

    def merge(self, other: CompactResult) -> None:
        self.before += other.before
        self.after += other.after
        self.written += other.written
        self.changelog += other.changelog


class CompactRewriter:
    """Rewrites and upgrades the files of one (partition, bucket)."""

    def __init__(
        self, store: FileStore, partition: bytes, partition_values: Sequence[object], bucket: int,
        total_buckets: int, namer: FileNamer, dvs: BucketDeletionVectors | None = None,
    ) -> None:
        self.store = store
        self.namer = namer
        self.dvs = dvs  # deletion-vector tables: the bucket's vectors (applied on read, extended)
        self.split = DataSplit(
            snapshot_id=0, partition=partition, partition_values=tuple(partition_values), bucket=bucket,
            total_buckets=total_buckets, bucket_dir=store.bucket_dir(list(partition_values), bucket), files=(),
        )
        self.engine = engine_of(store.options)
        self.key_names = [KEY_PREFIX + k.name for k in store.key_fields]
        self.spec: MergeSpec = self.engine.spec(
            store.options, self.key_names, list(store.schema.fields), store.schema.primary_keys, store.name
        )
        opts = store.options
        self.producer = opts.changelog_producer
        # changelog-producer lookup (off for overwrites: Paimon's produceChangelog && !ignorePreviousFiles)
        self.lookup_changelog = self.producer == "lookup"
        self.max_level = opts.num_levels - 1
        self.first_row = self.engine.name == "first-row"
        # LookupMergeFunction: a key's records above level 0 merge from the lowest level only
        self.lookup_merge = lookup_merges_levels(opts)
        self.compare = dedup_fields(opts, [f.name for f in store.schema.fields])
        self.changelog_namer = FileNamer(opts.changelog_file_prefix, namer.extension)
        self.key_cmp = KeyComparator([k.type for k in store.key_fields])
        # looked-up files are read in batches bounded by lookup.cache-max-memory-size
        self.looker = LookupFileReader(store, self.split, list(store.schema.fields), (SEQ, KIND), store.key_fields,
                                       self.key_names, lookup_memory_bytes(opts))

    def changelog_mode(self, output_level: int, files: Sequence[DataFileMeta]) -> str | None:
        """'lookup' or 'full' when a rewrite of ``files`` into ``output_level`` produces changelog
        (Paimon's rewriteChangelog), else None."""
        if self.lookup_changelog and output_level > 0 and any(f.level == 0 for f in files):
            return "lookup"
        if self.producer == "full-compaction" and output_level == self.max_level:
            return "full"
        return None

    def upgrade_strategy(self, output_level: int, file: DataFileMeta, lookup: bool) -> str:
        """How moving ``file`` up to ``output_level`` is done (Paimon's upgradeStrategy): 'upgrade'
        (metadata only), 'changelog' (metadata only, plus the changelog of its records) or 'rewrite'
        (rewritten, with changelog when the producer asks). ``lookup``: the table needs lookup."""
        if self.producer == "full-compaction":
            return "changelog" if output_level == self.max_level else "upgrade"
        if not lookup or file.level != 0:
            return "upgrade"
        if self.dvs is not None and (file.delete_row_count is None or file.delete_row_count > 0):
            return "rewrite"  # deletion vectors: its retractions must go
        if output_level == self.max_level:
            return "changelog"
        if self.engine.newest_record_wins and not self.spec.sequence_columns:
            return "changelog"  # the newest record wins: merging cannot change the file's rows
        return "rewrite"

    def upgrade(self, output_level: int, file: DataFileMeta) -> CompactResult:
        """The file moved to ``output_level`` without rewriting it (Paimon's upgrade)."""
        return CompactResult([file], [replace(file, level=output_level)])

    def rewrite(
        self, output_level: int, drop_delete: bool, files: Sequence[DataFileMeta],
        lookup: Sequence[DataFileMeta] = (), data: bool = True,
    ) -> CompactResult:
        """Merges ``files`` (the runs of some key-disjoint sections) into new files at ``output_level``.
        ``lookup``: older files of the bucket outside the compaction (first-row: a key they hold keeps
        its row there, the compaction's records of it are dropped, so that keys stay unique across
        levels, as Paimon's lookup compaction keeps them; changelog-producer lookup: the before rows
        of keys the inputs hold above level 0 only at level 0). ``data=False``: ``files`` move to
        ``output_level`` unchanged and only their changelog is written (Paimon's
        CHANGELOG_NO_REWRITE)."""
        store = self.store
        fields = list(store.schema.fields)
        mode = self.changelog_mode(output_level, files)
        if not data and mode is not None and len(files) == 1 and self._changelog_is_the_file(files[0], output_level, lookup):
            return self._copy_as_changelog(files[0], output_level)
        # oldest file first: the records of a key then arrive in sequence order and the merge
        # (``lsm.merge_runs.sorted_view``) finds nothing to re-sort; the merge's result does not
        # depend on the input order (records are ordered by key and sequence)
        parts = [self._read(f, fields, level=True) for f in sorted(files, key=_max_sequence)]
        table = pa.concat_tables(parts) if len(parts) > 1 else parts[0]
        older: list[tuple[str, np.ndarray]] = []
        if self.dvs is not None and lookup and any(f.level == 0 for f in files):
            # deletion vectors: the older live row of a key this compaction rewrites joins the merge
            # (as its oldest record) and is deleted where it lies (Paimon's lookup compaction)
            table, older = self._with_older_rows(table, lookup, fields)
        elif mode == "lookup" and not self.first_row:
            table = self._with_looked_up(table, [f for f in lookup if f.level > output_level], fields, files)
        if self.lookup_merge:
            table = lookup_merge_filter(table, self.key_names)
        levels = np.asarray(table.column(LEVEL).to_numpy(), dtype=np.int32)
        if len(files) == 1 and table.num_rows == files[0].row_count and not self.first_row \
                and not self.spec.ignore_delete:
            # one file, nothing looked up: its keys are unique and in order, each its own merge
            merged = table.drop_columns([LEVEL])
        elif not data and len(files) == 1 and files[0].level == 0 and self.engine.newest_record_wins \
                and not self.spec.sequence_columns and not self.first_row and not self.spec.ignore_delete:
            # a level-0 file moving up unchanged, the newest record winning: each key's merge is the
            # file's record (the looked-up ones are older); they only serve as the changelog's before
            merged = table.filter(pa.array(levels == 0)).drop_columns([LEVEL])
        else:
            merged = self.engine.merge(table.drop_columns([LEVEL]), self.spec, keep_deletes=True)
        if self.first_row and lookup and self.dvs is None and merged.num_rows:
            merged = self._drop_keys_in(merged, lookup)
        one_level0 = sum(1 for f in files if f.level == 0) == 1
        changelog = self._changelog(mode, table, levels, merged, one_level0) if mode is not None else None
        if drop_delete:
            merged = _drop_retractions(merged)
        if data:
            result = CompactResult(before=list(files))
        else:
            result = CompactResult(list(files), [replace(f, level=output_level) for f in files])
        if self.dvs is not None:
            if data:
                self.dvs.remove_files(f.file_name for f in files)
            for name, positions in older:
                self.dvs.delete(name, positions)
        if changelog is not None and changelog.num_rows:
            self._write_changelog(changelog, output_level, files, result)
        if merged.num_rows == 0 or not data:
            return result
        schema = kv_arrow_schema(store)
        out = merged.select(self.key_names + [SEQ, KIND] + [f.name for f in fields])
        out = pa.Table.from_arrays(out.columns, schema=_relaxed(schema)).cast(schema)
        rows_per_file = rows_per_file_of(files, store.options.target_file_size(True))

        def seq_range(chunk: pa.Table) -> tuple[int, int]:
            mm = pc.min_max(chunk.column(SEQ))
            return int(mm["min"].as_py()), int(mm["max"].as_py())

        write_rolling(store, self.split.bucket_dir, self.namer, out, rows_per_file, output_level, seq_range, result)
        return result

    def _changelog(
        self, mode: str, table: pa.Table, levels: np.ndarray, merged: pa.Table, one_level0: bool = False,
    ) -> pa.Table:
        """The changelog rows of a rewrite: ``table`` its records (with ``LEVEL``), ``levels`` their
        levels, ``merged`` the merge (retractions kept); ``one_level0``: the level-0 records are one
        file's (a key at most once)."""
        keys = self.key_names
        if mode == "lookup" and self.first_row:
            # first-row: a key none of the older levels holds is new (+I); others emit nothing
            known = changed_keys(table, keys, levels > 0)
            return merged.filter(pa.array(~key_mask(merged, known, keys)))
        if mode == "lookup":  # keys with level-0 records; before: their record of the lowest level above
            changed, before = levels == 0, levels > 0
        else:  # full compaction: keys with records below the top; before: their top-level record
            changed, before = levels < self.max_level, levels == self.max_level
        if changed.all() or (mode == "lookup" and one_level0 and merged.num_rows == int(changed.sum())):
            after = merged  # every merged key has a changed record (one level-0 file: keys unique)
        else:
            after = merged.filter(pa.array(key_mask(merged, changed_keys(table, keys, changed), keys)))
        prior = before_rows(table, keys, before).select(merged.column_names)
        return changelog_of(prior, after, keys, self.compare)

    def _changelog_is_the_file(self, f: DataFileMeta, output_level: int, lookup: Sequence[DataFileMeta]) -> bool:
        """True when the changelog of moving level-0 file ``f`` up unchanged is ``f`` itself: all its
        records are inserts (+I), no older level can hold one of its keys (no file above the output
        meets its key range), the merge keeps each record as it is and the changelog files would be
        written with the data file's format, compression and statistics."""
        opts = self.store.options
        if f.level != 0 or self.first_row or self.spec.ignore_delete or self.dvs is not None \
                or f.delete_row_count != 0 or f.extra_files or f.schema_id != self.store.schema.id:
            return False
        fmt = (opts.get("changelog-file.format") or opts.file_format).lower()
        if file_format_of(f.file_name, opts.file_format).lower() != fmt \
                or (opts.get("changelog-file.compression") or opts.file_compression) != opts.file_compression \
                or (opts.get("changelog-file.stats-mode") or opts.metadata_stats_mode) != opts.metadata_stats_mode:
            return False
        for o in lookup:
            if o.level > output_level and self.key_cmp.compare(o.max_key, f.min_key) >= 0 \
                    and self.key_cmp.compare(o.min_key, f.max_key) <= 0:
                return False
        kinds = read_data_file(self.store, self.split, f, [], (KIND,), ()).column(KIND)
        return kinds.null_count == 0 and not pc.any(pc.not_equal(kinds, 0)).as_py()

    def _copy_as_changelog(self, f: DataFileMeta, output_level: int) -> CompactResult:
        """``f`` moved to ``output_level`` unchanged, its bytes copied as the changelog file (every
        record an insert no older level knows: the changelog is the file's rows, as they are)."""
        store = self.store
        result = CompactResult([f], [replace(f, level=output_level)])
        name = self.changelog_namer.next()
        path, external_path = store.new_data_file(self.split.bucket_dir, name)
        src = store.data_file_path(self.split.bucket_dir, f.file_name, f.external_path)
        try:
            with store.file_io.open_input_file(src) as i, store.file_io.open_output_stream(path) as o:
                while chunk := i.read(COPY_CHUNK):
                    o.write(chunk)
        except BaseException:
            store.file_io.delete_quietly(path)
            raise
        result.written.append(path)
        result.changelog.append(replace(
            f, file_name=name, level=output_level, creation_time_ms=local_wall_clock_ms(),
            file_source=FileSource.APPEND, embedded_file_index=None, external_path=external_path,
            first_row_id=None))
        return result

    def _write_changelog(
        self, changelog: pa.Table, level: int, files: Sequence[DataFileMeta], result: CompactResult,
    ) -> None:
        """Writes ``changelog`` as changelog files (``changelog-<uuid>-<n>``, APPEND source, at the
        compaction's output level, as Paimon's rolling changelog writer) into ``result``."""
        store = self.store
        schema = kv_arrow_schema(store)
        out = changelog.select(self.key_names + [SEQ, KIND] + [f.name for f in store.schema.fields])
        out = pa.Table.from_arrays(out.columns, schema=_relaxed(schema)).cast(schema)
        rows_per_file = rows_per_file_of(files, store.options.target_file_size(True))
        try:
            for lo in range(0, out.num_rows, rows_per_file):
                chunk = out.slice(lo, rows_per_file)
                mm = pc.min_max(chunk.column(SEQ))
                meta, path = write_data_file(
                    store, self.split.bucket_dir, self.changelog_namer, chunk, int(mm["min"].as_py()),
                    int(mm["max"].as_py()), level=level, file_source=FileSource.APPEND, changelog=True,
                )
                result.changelog.append(meta)
                result.written.append(path)
        except BaseException:
            for p in result.written:
                store.file_io.delete_quietly(p)
            raise

    def _with_looked_up(
        self, table: pa.Table, lookup: Sequence[DataFileMeta], fields: Sequence[DataField],
        files: Sequence[DataFileMeta],
    ) -> pa.Table:
        """``table`` plus, for each key it holds only at level 0, that key's records in ``lookup``
        (the levels above the output; reads keep the lowest level's). Files are read one at a time,
        only those whose key range meets the level-0 files', in batches bounded by
        ``lookup.cache-max-memory-size``, level by level from the lowest, a key found in one level
        not looked for above (Paimon's LookupLevels; ``paimon_sql.write.lookup_reader``)."""
        levels = np.asarray(table.column(LEVEL).to_numpy(), dtype=np.int32)
        if not lookup or not (levels == 0).any():
            return table
        need = changed_keys(table, self.key_names, levels == 0)
        high = levels > 0
        if high.any():
            need = need.filter(pa.array(~key_mask(need, changed_keys(table, self.key_names, high), self.key_names)))
        if need.num_rows == 0:
            return table
        level0 = [f for f in files if f.level == 0]
        lo = min((f.min_key for f in level0), key=self.key_cmp.key)
        hi = max((f.max_key for f in level0), key=self.key_cmp.key)
        found: list[pa.Table] = []
        by_level: dict[int, list[DataFileMeta]] = {}
        for f in lookup:
            if self.key_cmp.compare(f.max_key, lo) >= 0 and self.key_cmp.compare(f.min_key, hi) <= 0:
                by_level.setdefault(f.level, []).append(f)
        for level in sorted(by_level):
            at_level: list[pa.Table] = []
            for f in by_level[level]:
                keep = self.dvs.keep_mask(f.file_name, f.row_count) if self.dvs is not None else None
                rows = self.looker.matches(f, need, keep)
                if rows is not None:
                    at_level.append(rows.cast(table.schema))
            if at_level:
                found += at_level
                # a key found here is not looked for above (the lowest level's record is the one)
                got = pa.concat_tables(at_level)
                need = need.filter(pa.array(~key_mask(need, got, self.key_names)))
                if need.num_rows == 0:
                    break
        return pa.concat_tables([table, *found]) if found else table

    def _read(
        self, f: DataFileMeta, fields: Sequence[DataField], positions: bool = False, level: bool = False,
    ) -> pa.Table:
        """A file's rows (keys, sequence number, kind, ``fields``) without those its deletion vector
        deletes; ``positions``: with their row positions in the file (``__pos``); ``level``: with the
        file's level (``LEVEL``)."""
        t = read_data_file(self.store, self.split, f, fields, (SEQ, KIND), self.store.key_fields)
        if level:
            t = t.append_column(LEVEL, pa.array(np.full(t.num_rows, f.level, dtype=np.int32)))
        if positions:
            t = t.append_column("__pos", pa.array(np.arange(t.num_rows, dtype=np.int64)))
        keep = self.dvs.keep_mask(f.file_name, t.num_rows) if self.dvs is not None else None
        return t.filter(pa.array(keep)) if keep is not None else t

    def _with_older_rows(
        self, table: pa.Table, lookup: Sequence[DataFileMeta], fields: Sequence[DataField]
    ) -> tuple[pa.Table, list[tuple[str, np.ndarray]]]:
        """``table`` plus the live rows of ``lookup`` files whose key it holds, and those rows'
        positions per file."""
        keys = _order_keys(table.select(self.key_names), self.key_names)
        found: list[pa.Table] = []
        older: list[tuple[str, np.ndarray]] = []
        for f in lookup:
            rows = self._read(f, fields, positions=True, level=True)
            if rows.num_rows == 0:
                continue
            probe = _order_keys(rows.select(self.key_names), self.key_names)
            probe = probe.append_column("__row", pa.array(np.arange(rows.num_rows, dtype=np.int64)))
            hit = probe.join(keys, keys=self.key_names, join_type="left semi").column("__row")
            if len(hit) == 0:
                continue
            matched = rows.take(pc.take(hit, pc.sort_indices(hit)))
            older.append((f.file_name, np.asarray(matched.column("__pos").to_numpy(), dtype=np.int64)))
            found.append(matched.drop_columns(["__pos"]))
        if not found:
            return table, older
        return pa.concat_tables([table, *[t.cast(table.schema) for t in found]]), older

    def _drop_keys_in(self, merged: pa.Table, files: Sequence[DataFileMeta]) -> pa.Table:
        """``merged`` without the rows whose key one of ``files`` holds (in merged's order)."""
        keys = [read_data_file(self.store, self.split, f, [], (), self.store.key_fields) for f in files]
        older = pa.concat_tables(keys).select(self.key_names)
        if older.num_rows == 0:
            return merged
        mine, theirs = _order_keys(merged, self.key_names), _order_keys(older, self.key_names)
        if len(self.key_names) == 1:
            name = self.key_names[0]
            hit = pc.is_in(mine.column(name), value_set=theirs.column(name).combine_chunks())
            return merged.filter(pc.invert(hit))
        rows = mine.append_column("__row", pa.array(range(merged.num_rows), pa.int64()))
        kept = rows.join(theirs, keys=self.key_names, join_type="left anti").column("__row")
        return merged.take(pc.take(kept, pc.sort_indices(kept)))


COPY_CHUNK = 1 << 20  # bytes per read when a data file is copied as a changelog file


def _max_sequence(f: DataFileMeta) -> int:
    return f.max_sequence_number


def _order_keys(table: pa.Table, names: Sequence[str]) -> pa.Table:
    """The key columns as Paimon compares keys (NaN one key, -0.0 and 0.0 two), for joins."""
    return pa.table([java_key_order(table.column(n)) for n in names], names=list(names))


def rows_per_file_of(files: Sequence[DataFileMeta], target_size: int) -> int:
    """Rows that make a file of about ``target_size`` bytes, at the input files' bytes per row."""
    rows = sum(f.row_count for f in files)
    size = sum(f.file_size for f in files)
    if rows == 0 or size == 0:
        return 1 << 20
    return max(1, int(target_size / (size / rows)))


def sequence_counter(first: int) -> Callable[[pa.Table], tuple[int, int]]:
    """Sequence ranges numbering rows on from ``first``, chunk after chunk (Paimon's append rewriter)."""
    nxt = [first]

    def seq_range(chunk: pa.Table) -> tuple[int, int]:
        lo = nxt[0]
        nxt[0] += chunk.num_rows
        return lo, lo + chunk.num_rows - 1

    return seq_range


def write_rolling(
    store: FileStore, bucket_dir: str, namer: FileNamer, table: pa.Table, rows_per_file: int, level: int,
    seq_range: Callable[[pa.Table], tuple[int, int]], result: CompactResult,
) -> None:
    """Writes ``table`` (in the file's physical schema) as COMPACT files of ``rows_per_file`` rows at
    ``level`` into ``result``; on failure the files written so far are deleted."""
    try:
        for lo in range(0, table.num_rows, rows_per_file):
            chunk = table.slice(lo, rows_per_file)
            lo_seq, hi_seq = seq_range(chunk)
            meta, path = write_data_file(
                store, bucket_dir, namer, chunk, lo_seq, hi_seq, level=level, file_source=FileSource.COMPACT,
            )
            result.after.append(meta)
            result.written.append(path)
    except BaseException:
        for p in result.written:
            store.file_io.delete_quietly(p)
        raise


def _drop_retractions(table: pa.Table) -> pa.Table:
    kinds = table.column(KIND)
    if table.num_rows == 0:
        return table
    keep = pc.or_(pc.equal(kinds, 0), pc.equal(kinds, 2))
    if pc.all(keep).as_py():
        return table  # no retraction (the common case): no copy of every column
    return table.filter(keep)


def _relaxed(schema: pa.Schema) -> pa.Schema:
    return pa.schema([f.with_nullable(True) for f in schema])
