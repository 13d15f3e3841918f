"""ManifestEntry: one ADD or DELETE of a data file in a manifest file."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from paimon_sql.meta.data_file_meta import DATA_FILE_META_TYPE, DataFileMeta
from paimon_sql.meta.kinds import FileKind
from paimon_sql.meta.record_types import versioned_row_type
from paimon_sql.types import DataField, IntType, TinyIntType, VarBinaryType

VERSION = 2

# Paimon's ManifestEntry.SCHEMA behind the ``_VERSION`` of its VersionedObjectSerializer
MANIFEST_ENTRY_TYPE = versioned_row_type((
    DataField(0, "_KIND", TinyIntType(nullable=False)),
    DataField(1, "_PARTITION", VarBinaryType(nullable=False)),
    DataField(2, "_BUCKET", IntType(nullable=False)),
    DataField(3, "_TOTAL_BUCKETS", IntType(nullable=False)),
    DataField(4, "_FILE", DATA_FILE_META_TYPE),
))

# (partition, bucket, level, file name, extra files, embedded index, external path): how Paimon
# matches a DELETE entry with the ADD it cancels (FileEntry.Identifier).
Identifier = tuple[bytes, int, int, str, tuple[str, ...], bytes | None, str | None]


@dataclass(frozen=True)
class ManifestEntry:
    kind: int
    partition: bytes
    bucket: int
    total_buckets: int
    file: DataFileMeta

    @property
    def identifier(self) -> Identifier:
        f = self.file
        return (
            self.partition, self.bucket, f.level, f.file_name, f.extra_files,
            f.embedded_file_index, f.external_path,
        )

    def to_avro(self) -> dict[str, Any]:
        return {
            "_VERSION": VERSION,
            "_KIND": self.kind,
            "_PARTITION": self.partition,
            "_BUCKET": self.bucket,
            "_TOTAL_BUCKETS": self.total_buckets,
            "_FILE": self.file.to_avro(),
        }

    @staticmethod
    def from_avro(rec: dict[str, Any]) -> ManifestEntry:
        return ManifestEntry(
            kind=int(rec["_KIND"]),
            partition=bytes(rec["_PARTITION"]),
            bucket=int(rec["_BUCKET"]),
            total_buckets=int(rec["_TOTAL_BUCKETS"]),
            file=DataFileMeta.from_avro(rec["_FILE"]),
        )


def merge_entries(entries: list[ManifestEntry]) -> list[ManifestEntry]:
    """Applies DELETE entries to earlier ADDs (in order) and returns the surviving entries.

    A DELETE whose ADD is not in ``entries`` is kept (it cancels a file of an earlier manifest)."""
    live: dict[Identifier, ManifestEntry] = {}
    for e in entries:
        ident = e.identifier
        if e.kind == FileKind.ADD:
            live[ident] = e
        elif ident in live and live[ident].kind == FileKind.ADD:
            del live[ident]
        else:
            live[ident] = e
    return list(live.values())
