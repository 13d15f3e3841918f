"""Manifest lists, manifests and index manifests of one table: read (cached) and write."""

from __future__ import annotations

import uuid
from collections import OrderedDict
from collections.abc import Sequence

import pyarrow as pa
import pyarrow.compute as pc

from paimon_sql.format.binary_row import decode_rows, encode_row
from paimon_sql.fs.file_io import FileIO, join
from paimon_sql.meta.decoding import check_file_names, decoding
from paimon_sql.meta.index_file_meta import INDEX_MANIFEST_ENTRY_TYPE, IndexManifestEntry
from paimon_sql.meta.kinds import FileKind
from paimon_sql.meta.manifest_entry import MANIFEST_ENTRY_TYPE, ManifestEntry, merge_entries
from paimon_sql.meta.manifest_file_meta import MANIFEST_FILE_META_TYPE, ManifestFileMeta
from paimon_sql.meta.manifest_io import read_records, write_records
from paimon_sql.meta.simple_stats import SimpleStats
from paimon_sql.meta.snapshot import Snapshot
from paimon_sql.types import DataType

_CACHE_SIZE = 256


class ManifestStore:
    def __init__(
        self,
        file_io: FileIO,
        table_path: str,
        partition_types: Sequence[DataType],
        manifest_format: str = "avro",
        manifest_compression: str = "zstd",
    ) -> None:
        self.file_io = file_io
        self.dir = join(table_path, "manifest")
        self.partition_types = list(partition_types)
        self.manifest_format = manifest_format
        self.manifest_compression = manifest_compression
        self._uuid = str(uuid.uuid4())
        self._counter = 0
        self._entries_cache: OrderedDict[str, list[ManifestEntry]] = OrderedDict()

    def _new_name(self, prefix: str) -> str:
        name = f"{prefix}{self._uuid}-{self._counter}"
        self._counter += 1
        return name

    def path(self, name: str) -> str:
        return join(self.dir, name)

    # -- reading ---------------------------------------------------------------------------------
    def read_manifest_list(self, name: str) -> list[ManifestFileMeta]:
        path = self.path(name)
        with decoding("manifest list", path):
            metas = [ManifestFileMeta.from_avro(r) for r in read_records(self.file_io, path)]
        check_file_names([m.file_name for m in metas], "manifest list", path)
        return metas

    def read_manifest(self, name: str) -> list[ManifestEntry]:
        cached = self._entries_cache.get(name)
        if cached is not None:
            self._entries_cache.move_to_end(name)
            return cached
        path = self.path(name)
        with decoding("manifest", path):
            entries = [ManifestEntry.from_avro(r) for r in read_records(self.file_io, path)]
        check_file_names([n for e in entries for n in (e.file.file_name, *e.file.extra_files)], "manifest", path)
        self._entries_cache[name] = entries
        if len(self._entries_cache) > _CACHE_SIZE:
            self._entries_cache.popitem(last=False)
        return entries

    def read_index_manifest(self, name: str) -> list[IndexManifestEntry]:
        path = self.path(name)
        with decoding("index manifest", path):
            entries = [IndexManifestEntry.from_avro(r) for r in read_records(self.file_io, path)]
        check_file_names([e.index_file.file_name for e in entries], "index manifest", path)
        return entries

    def data_manifests(self, snapshot: Snapshot) -> list[ManifestFileMeta]:
        metas = self.read_manifest_list(snapshot.base_manifest_list)
        metas += self.read_manifest_list(snapshot.delta_manifest_list)
        return metas

    def live_entries(
        self, snapshot: Snapshot, manifests: list[ManifestFileMeta] | None = None
    ) -> list[ManifestEntry]:
        """The data files of ``snapshot``: all ADD entries not cancelled by a later DELETE."""
        metas = manifests if manifests is not None else self.data_manifests(snapshot)
        entries: list[ManifestEntry] = []
        for m in metas:
            entries.extend(self.read_manifest(m.file_name))
        return [e for e in merge_entries(entries) if e.kind == FileKind.ADD]

    def index_entries(self, snapshot: Snapshot) -> list[IndexManifestEntry]:
        if not snapshot.index_manifest:
            return []
        live: dict[tuple[bytes, int, str, str], IndexManifestEntry] = {}
        for e in self.read_index_manifest(snapshot.index_manifest):
            if e.kind == FileKind.ADD:
                live[e.identifier] = e
            else:
                live.pop(e.identifier, None)
        return list(live.values())

    # -- writing ---------------------------------------------------------------------------------
    def partition_stats(self, partitions: Sequence[bytes]) -> SimpleStats:
        if not self.partition_types:
            return SimpleStats.empty()
        if not partitions:
            nulls = [None] * len(self.partition_types)
            return SimpleStats(
                encode_row(nulls, self.partition_types),
                encode_row(nulls, self.partition_types),
                tuple(0 for _ in self.partition_types),
            )
        cols = decode_rows(list(set(partitions)), self.partition_types)
        mins: list[object] = []
        maxs: list[object] = []
        nulls_count: list[int] = []
        for col in cols:
            nulls_count.append(col.null_count)
            if col.null_count == len(col) or pa.types.is_nested(col.type):
                mins.append(None)
                maxs.append(None)
            else:
                mm = pc.min_max(col)
                mins.append(mm["min"].as_py())
                maxs.append(mm["max"].as_py())
        # null counts count entries (files), like Paimon's partition stats collector
        return SimpleStats(
            encode_row(mins, self.partition_types),
            encode_row(maxs, self.partition_types),
            tuple(int(n) for n in nulls_count),
        )

    def write_manifest(self, entries: list[ManifestEntry], schema_id: int) -> ManifestFileMeta:
        name = self._new_name("manifest-")
        size = write_records(
            self.file_io, self.path(name), [e.to_avro() for e in entries], MANIFEST_ENTRY_TYPE,
            self.manifest_format, self.manifest_compression,
        )
        self._entries_cache[name] = list(entries)
        added = sum(1 for e in entries if e.kind == FileKind.ADD)
        buckets = [e.bucket for e in entries]
        levels = [e.file.level for e in entries]
        return ManifestFileMeta(
            file_name=name,
            file_size=size,
            num_added_files=added,
            num_deleted_files=len(entries) - added,
            partition_stats=self.partition_stats([e.partition for e in entries]),
            schema_id=schema_id,
            min_bucket=min(buckets) if buckets else None,
            max_bucket=max(buckets) if buckets else None,
            min_level=min(levels) if levels else None,
            max_level=max(levels) if levels else None,
        )

    def write_manifest_list(self, metas: list[ManifestFileMeta]) -> tuple[str, int]:
        name = self._new_name("manifest-list-")
        size = write_records(
            self.file_io, self.path(name), [m.to_avro() for m in metas], MANIFEST_FILE_META_TYPE,
            self.manifest_format, self.manifest_compression,
        )
        return name, size

    def write_index_manifest(self, entries: list[IndexManifestEntry]) -> str:
        name = self._new_name("index-manifest-")
        write_records(
            self.file_io, self.path(name), [e.to_avro() for e in entries], INDEX_MANIFEST_ENTRY_TYPE,
            self.manifest_format, self.manifest_compression,
        )
        return name

