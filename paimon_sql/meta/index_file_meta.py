"""Index manifest entries: HASH (dynamic bucket) and DELETION_VECTORS index files of a snapshot."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from paimon_sql.meta.record_types import versioned_row_type
from paimon_sql.types import (
    ArrayType,
    BigIntType,
    DataField,
    IntType,
    RowType,
    TinyIntType,
    VarBinaryType,
    VarCharType,
)

INDEX_TYPE_HASH = "HASH"
INDEX_TYPE_DELETION_VECTORS = "DELETION_VECTORS"
VERSION = 1

# Paimon's DeletionVectorMeta.SCHEMA and IndexManifestEntry.SCHEMA behind the ``_VERSION`` of its
# serializer (``_GLOBAL_INDEX``, which paimon_sql does not write, is read by name when present)
DELETION_VECTOR_META_TYPE = RowType((
    DataField(0, "f0", VarCharType(nullable=False)),
    DataField(1, "f1", IntType(nullable=False)),
    DataField(2, "f2", IntType(nullable=False)),
    DataField(3, "_CARDINALITY", BigIntType()),
))

INDEX_MANIFEST_ENTRY_TYPE = versioned_row_type((
    DataField(0, "_KIND", TinyIntType(nullable=False)),
    DataField(1, "_PARTITION", VarBinaryType(nullable=False)),
    DataField(2, "_BUCKET", IntType(nullable=False)),
    DataField(3, "_INDEX_TYPE", VarCharType(nullable=False)),
    DataField(4, "_FILE_NAME", VarCharType(nullable=False)),
    DataField(5, "_FILE_SIZE", BigIntType(nullable=False)),
    DataField(6, "_ROW_COUNT", BigIntType(nullable=False)),
    DataField(7, "_DELETIONS_VECTORS_RANGES", ArrayType(DELETION_VECTOR_META_TYPE)),
    DataField(8, "_EXTERNAL_PATH", VarCharType()),
))


@dataclass(frozen=True)
class DeletionVectorRange:
    """Where one data file's deletion vector sits inside a DELETION_VECTORS index file."""

    offset: int
    length: int
    cardinality: int | None


@dataclass(frozen=True)
class IndexFileMeta:
    index_type: str
    file_name: str
    file_size: int
    row_count: int
    dv_ranges: dict[str, DeletionVectorRange] | None = None
    external_path: str | None = None
    global_index: dict[str, Any] | None = None


@dataclass(frozen=True)
class IndexManifestEntry:
    kind: int
    partition: bytes
    bucket: int
    index_file: IndexFileMeta

    def to_avro(self) -> dict[str, Any]:
        f = self.index_file
        ranges = None
        if f.dv_ranges is not None:
            ranges = [
                {"f0": name, "f1": r.offset, "f2": r.length, "_CARDINALITY": r.cardinality}
                for name, r in f.dv_ranges.items()
            ]
        return {
            "_VERSION": VERSION,
            "_KIND": self.kind,
            "_PARTITION": self.partition,
            "_BUCKET": self.bucket,
            "_INDEX_TYPE": f.index_type,
            "_FILE_NAME": f.file_name,
            "_FILE_SIZE": f.file_size,
            "_ROW_COUNT": f.row_count,
            "_DELETIONS_VECTORS_RANGES": ranges,
            "_EXTERNAL_PATH": f.external_path,
        }

    @staticmethod
    def from_avro(rec: dict[str, Any]) -> IndexManifestEntry:
        raw = rec.get("_DELETIONS_VECTORS_RANGES")
        ranges = None
        if raw is not None:
            ranges = {
                r["f0"]: DeletionVectorRange(int(r["f1"]), int(r["f2"]), r.get("_CARDINALITY"))
                for r in raw
                if r is not None
            }
        return IndexManifestEntry(
            kind=int(rec["_KIND"]),
            partition=bytes(rec["_PARTITION"]),
            bucket=int(rec["_BUCKET"]),
            index_file=IndexFileMeta(
                index_type=rec["_INDEX_TYPE"],
                file_name=rec["_FILE_NAME"],
                file_size=int(rec["_FILE_SIZE"]),
                row_count=int(rec["_ROW_COUNT"]),
                dv_ranges=ranges,
                external_path=rec.get("_EXTERNAL_PATH"),
                global_index=rec.get("_GLOBAL_INDEX"),
            ),
        )

    @property
    def identifier(self) -> tuple[bytes, int, str, str]:
        return (self.partition, self.bucket, self.index_file.index_type, self.index_file.file_name)
