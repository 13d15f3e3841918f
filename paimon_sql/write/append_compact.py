"""Compaction of append tables (no primary key): small files merged into files of about
``target-file-size``, as Paimon decides.

- Bucket-unaware tables (``bucket`` = -1; Paimon's AppendCompactCoordinator): per partition, the
  files smaller than ``compactionFileSize`` (target-file-size x compaction.small-file-ratio) are
  sorted by size and packed into bins; a bin is compacted once it has two or more files whose size
  (plus ``source.split.open-file-cost`` each) reaches twice the target size, and what is left is
  compacted when it has at least ``compaction.min.file-num`` files.
- Fixed-bucket tables (Paimon's BucketedAppendCompactManager, full compaction): the bucket's files
  in sequence order; leading large files are skipped; the rest is rewritten when it holds more small
  files than large ones and at least three files.

With ``deletion-vectors.enabled`` (Paimon's rules for such tables):

- bucket-unaware: a file is also a candidate when its deleted rows exceed
  ``compaction.delete-ratio-threshold`` of its rows (or their count is unknown); the candidates
  with deletion vectors are grouped by the index file holding their vector, the groups (smallest
  first) packed into bins closed at twice the target size, and what is left of them is compacted
  too (a file with deleted rows always is); the candidates without vectors are packed as above.
- fixed buckets: leading large files are skipped only when they have no deletion vector, and the
  rest is always rewritten.

Rewrites leave out the deleted rows, and the vectors of the rewritten files are dropped.

A rewrite reads the files in sequence order and writes their rows, in that order, into files of
about the target size; sequence numbers count on from the first file's minimum (Paimon's append
rewriter). Files come out at level 0 with file source COMPACT.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import pyarrow as pa

from paimon_sql.meta.data_file_meta import DataFileMeta
from paimon_sql.meta.file_store import FileStore
from paimon_sql.scan.reader import read_data_file
from paimon_sql.scan.split import DataSplit, DeletionFile
from paimon_sql.write.compact_rewriter import CompactResult, rows_per_file_of, sequence_counter, write_rolling
from paimon_sql.write.file_writer import FileNamer, append_arrow_schema

FULL_COMPACT_MIN_FILE = 3


def pack_unaware(
    files: Sequence[DataFileMeta], target_file_size: int, compaction_file_size: int, min_file_num: int,
    open_file_cost: int,
) -> list[list[DataFileMeta]]:
    """The compaction groups of one partition of a bucket-unaware table (Paimon's SubCoordinator.pack)."""
    small = sorted((f for f in files if f.file_size < compaction_file_size), key=lambda f: f.file_size)
    out, last = _bin_pack([[f] for f in small], target_file_size, open_file_cost)
    if len(last) >= min_file_num:
        out.append(last)
    return out


def _bin_pack(
    groups: Sequence[Sequence[DataFileMeta]], target_file_size: int, open_file_cost: int,
) -> tuple[list[list[DataFileMeta]], list[DataFileMeta]]:
    """Groups of files (kept together) filled into bins in order, a bin closed once it holds more
    than one file and twice ``target_file_size`` (files' sizes plus the open cost each); returns
    the closed bins and the last, open one."""
    out: list[list[DataFileMeta]] = []
    bin_: list[DataFileMeta] = []
    size = 0
    for group in groups:
        for f in group:
            bin_.append(f)
            size += f.file_size + open_file_cost
        if len(bin_) > 1 and size >= target_file_size * 2:
            out.append(bin_)
            bin_, size = [], 0
    return out, bin_


def pack_unaware_dv(
    files: Sequence[DataFileMeta], index_file_of: Mapping[str, str], target_file_size: int, min_file_num: int,
    open_file_cost: int,
) -> list[list[DataFileMeta]]:
    """The compaction groups of the candidate ``files`` of one partition of a bucket-unaware
    deletion-vector table (Paimon's packInDeletionVectorVMode); ``index_file_of``: the index file
    holding a file's vector, for the files that have one."""
    groups: dict[str, list[DataFileMeta]] = {}
    rest: list[DataFileMeta] = []
    for f in files:
        holder = index_file_of.get(f.file_name)
        if holder is None:
            rest.append(f)
        else:
            groups.setdefault(holder, []).append(f)
    ordered = sorted(groups.values(), key=lambda g: sum(f.file_size for f in g))
    out, last = _bin_pack(ordered, target_file_size, open_file_cost)
    if last:
        out.append(last)
    if len(rest) > 1:
        out += pack_unaware(rest, target_file_size, 1 << 62, min_file_num, open_file_cost)  # all candidates
    return out


def pick_bucketed_full_dv(
    files: Sequence[DataFileMeta], compaction_file_size: int, has_vector: Callable[[str], bool],
) -> list[DataFileMeta]:
    """The files a full compaction of one fixed bucket of a deletion-vector table rewrites
    (Paimon's FullCompactTask with a deletion-vector maintainer): the leading large files without a
    vector are skipped, the rest is rewritten."""
    ordered = sorted(files, key=lambda f: (f.min_sequence_number, f.max_sequence_number))
    i = 0
    while i < len(ordered) and ordered[i].file_size >= compaction_file_size and not has_vector(ordered[i].file_name):
        i += 1
    return ordered[i:]


def pick_bucketed_full(files: Sequence[DataFileMeta], compaction_file_size: int) -> list[DataFileMeta]:
    """The files a full compaction of one fixed bucket rewrites (Paimon's FullCompactTask); empty
    when it would not rewrite anything."""
    ordered = sorted(files, key=lambda f: (f.min_sequence_number, f.max_sequence_number))
    if len(ordered) < FULL_COMPACT_MIN_FILE:
        return []
    i = 0
    while i < len(ordered) and ordered[i].file_size >= compaction_file_size:
        i += 1
    rest = ordered[i:]
    small = sum(1 for f in rest if f.file_size < compaction_file_size)
    if small > len(rest) - small and len(rest) >= FULL_COMPACT_MIN_FILE:
        return rest
    return []


def pick_bucketed_best_effort(
    files: Sequence[DataFileMeta], min_file_num: int, target_file_size: int,
) -> list[DataFileMeta]:
    """The files a best-effort compaction of one fixed bucket rewrites (Paimon's
    ``BucketedAppendCompactManager.pickCompactBefore``): in sequence order, the first window of
    ``min_file_num`` files, a window dropping its oldest file once it holds ``2 * target_file_size``
    bytes; empty when no window fills."""
    window: list[DataFileMeta] = []
    total = 0
    for f in sorted(files, key=lambda f: (f.min_sequence_number, f.max_sequence_number)):
        window.append(f)
        total += f.file_size
        if len(window) >= min_file_num:
            return window
        if total >= target_file_size * 2:
            total -= window.pop(0).file_size
    return []


def pick_bucketed(
    files: Sequence[DataFileMeta], full: bool, compaction_file_size: int, min_file_num: int, target_file_size: int,
    has_vector: Callable[[str], bool] | None = None,
) -> list[DataFileMeta]:
    """The files a compaction of one fixed bucket rewrites, as Paimon's batch ``compact`` of an
    append bucket does (``AppendOnlyWriter.compact`` then ``prepareCommit``): a full compaction
    submits a ``FullCompactTask`` when the bucket has a deletion-vector maintainer (``has_vector``)
    or at least 3 files (``pick_bucketed_full[_dv]``); otherwise, and for a minor compaction, the
    best-effort pick (``pick_bucketed_best_effort``) that ``prepareCommit`` triggers runs."""
    if full and files and (has_vector is not None or len(files) >= FULL_COMPACT_MIN_FILE):
        if has_vector is not None:
            return pick_bucketed_full_dv(files, compaction_file_size, has_vector)
        return pick_bucketed_full(files, compaction_file_size)
    return pick_bucketed_best_effort(files, min_file_num, target_file_size)


def rewrite_append(
    store: FileStore, partition: bytes, partition_values: Sequence[object], bucket: int, total_buckets: int,
    files: Sequence[DataFileMeta], namer: FileNamer, deletion_files: Mapping[str, DeletionFile] | None = None,
) -> CompactResult:
    """The rows of ``files`` (in sequence order; without the rows their ``deletion_files`` delete)
    rewritten into files of about the target size."""
    ordered = sorted(files, key=lambda f: (f.min_sequence_number, f.max_sequence_number))
    split = DataSplit(0, partition, tuple(partition_values), bucket, total_buckets,
                      store.bucket_dir(list(partition_values), bucket), (),
                      deletion_files=dict(deletion_files or {}))
    fields = list(store.schema.fields)
    table = pa.concat_tables([read_data_file(store, split, f, fields) for f in ordered])
    table = table.cast(append_arrow_schema(store))
    result = CompactResult(before=list(ordered))
    per_file = rows_per_file_of(ordered, store.options.target_file_size(False))
    first = ordered[0].min_sequence_number if ordered else 0
    write_rolling(store, split.bucket_dir, namer, table, per_file, 0, sequence_counter(first), result)
    return result
