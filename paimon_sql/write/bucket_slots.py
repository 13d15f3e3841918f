"""The per-(partition, bucket) state of one ``TableWrite``: Paimon's ``AbstractFileStoreWrite``
keeps one ``WriterContainer`` per partition and bucket (its writer, the files restored from the
base snapshot, the last sequence number); here a :class:`BucketSlot`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field

from paimon_sql.meta.data_file_meta import DataFileMeta
from paimon_sql.meta.file_store import FileStore
from paimon_sql.meta.snapshot import Snapshot
from paimon_sql.write.bucket_writer import BucketWriter
from paimon_sql.write.file_writer import FileNamer

# makes the file namer of one (partition, bucket): one per bucket, like Paimon's DataFilePathFactory
NamerFactory = Callable[[], FileNamer]


@dataclass(eq=False)
class BucketSlot:
    """One (partition, bucket) of a write."""

    partition: bytes
    bucket: int
    next_seq: int = 0  # the sequence number of the next record written
    # the bucket's live files in the base snapshot (primary-key tables that keep previous files)
    restored: list[DataFileMeta] = field(default_factory=list)
    values: list[object] | None = None  # the partition values, once known
    namer: FileNamer | None = None  # created on the first file written
    writer: BucketWriter | None = None  # primary-key buckets written (or compacted): their LSM


class BucketSlots:
    """The slots of one write, restored lazily from the base snapshot on first use: each
    bucket's next sequence number, (``restore_files``) its live files, and each partition's bucket
    count."""

    def __init__(self, store: FileStore, base: Snapshot | None, restore_files: bool, namers: NamerFactory) -> None:
        self.store = store
        self.base = base
        self.restore_files = restore_files
        self.namers = namers
        self._slots: dict[tuple[bytes, int], BucketSlot] | None = None
        self._partition_buckets: dict[bytes, int] = {}

    def get(self, partition: bytes, bucket: int) -> BucketSlot:
        slots = self._load()
        slot = slots.get((partition, bucket))
        if slot is None:
            slot = slots[(partition, bucket)] = BucketSlot(partition, bucket)
        return slot

    def namer(self, slot: BucketSlot) -> FileNamer:
        if slot.namer is None:
            slot.namer = self.namers()
        return slot.namer

    def partition_buckets(self) -> Mapping[bytes, int]:
        """Each partition's bucket count in the base snapshot (fixed-bucket files only)."""
        self._load()
        return self._partition_buckets

    def restored(self) -> list[tuple[bytes, int]]:
        """The (partition, bucket) of every bucket with restored files, sorted."""
        return sorted(k for k, s in self._load().items() if s.restored)

    def writers(self) -> Iterator[BucketSlot]:
        """The slots holding a bucket writer, by (partition, bucket)."""
        if self._slots is None:
            return iter(())
        return iter(sorted((s for s in self._slots.values() if s.writer is not None),
                           key=lambda s: (s.partition, s.bucket)))

    def _load(self) -> dict[tuple[bytes, int], BucketSlot]:
        if self._slots is not None:
            return self._slots
        slots: dict[tuple[bytes, int], BucketSlot] = {}
        if self.base is not None:
            for e in self.store.manifests.live_entries(self.base):
                k = (e.partition, e.bucket)
                slot = slots.get(k)
                if slot is None:
                    slot = slots[k] = BucketSlot(e.partition, e.bucket)
                slot.next_seq = max(slot.next_seq, e.file.max_sequence_number + 1)
                if e.total_buckets > 0:
                    self._partition_buckets[e.partition] = e.total_buckets
                if self.restore_files:
                    slot.restored.append(e.file)
        self._slots = slots
        return slots
