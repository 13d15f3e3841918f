"""A split: the files of one (partition, bucket) that a reader turns into rows."""

from __future__ import annotations

from dataclasses import dataclass, field

from paimon_sql.meta.data_file_meta import DataFileMeta


@dataclass(frozen=True)
class DeletionFile:
    """Where a data file's deletion vector lives: an index file and a byte range in it."""

    path: str
    offset: int
    length: int
    cardinality: int | None = None


@dataclass(frozen=True)
class DataSplit:
    snapshot_id: int
    partition: bytes
    partition_values: tuple[object, ...]
    bucket: int
    total_buckets: int
    bucket_dir: str
    files: tuple[DataFileMeta, ...]
    deletion_files: dict[str, DeletionFile] = field(default_factory=dict)
    # True when rows can be read file by file without a key merge
    raw_convertible: bool = True
    # a diff split (an incremental read in diff mode, Paimon's IncrementalSplit): the start
    # snapshot's files of this bucket that the end snapshot (``files``) lacks; None otherwise
    before_files: tuple[DataFileMeta, ...] | None = None
    before_deletion_files: dict[str, DeletionFile] = field(default_factory=dict)
    # Paimon's isStreaming: the files' records are read as they are, with their row kinds and
    # retractions, unmerged (the splits of delta and changelog reads)
    streaming: bool = False

    @property
    def row_count(self) -> int:
        return sum(f.row_count for f in self.files)
