"""ManifestFileMeta: one entry of a manifest list (describes one manifest file)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from paimon_sql.meta.record_types import versioned_row_type
from paimon_sql.meta.simple_stats import SIMPLE_STATS_TYPE, SimpleStats
from paimon_sql.types import BigIntType, DataField, IntType, VarCharType

VERSION = 2

# Paimon's ManifestFileMeta.SCHEMA behind the ``_VERSION`` of its serializer
MANIFEST_FILE_META_TYPE = versioned_row_type((
    DataField(0, "_FILE_NAME", VarCharType(nullable=False)),
    DataField(1, "_FILE_SIZE", BigIntType(nullable=False)),
    DataField(2, "_NUM_ADDED_FILES", BigIntType(nullable=False)),
    DataField(3, "_NUM_DELETED_FILES", BigIntType(nullable=False)),
    DataField(4, "_PARTITION_STATS", SIMPLE_STATS_TYPE),
    DataField(5, "_SCHEMA_ID", BigIntType(nullable=False)),
    DataField(6, "_MIN_BUCKET", IntType()),
    DataField(7, "_MAX_BUCKET", IntType()),
    DataField(8, "_MIN_LEVEL", IntType()),
    DataField(9, "_MAX_LEVEL", IntType()),
    DataField(10, "_MIN_ROW_ID", BigIntType()),
    DataField(11, "_MAX_ROW_ID", BigIntType()),
))


@dataclass(frozen=True)
class ManifestFileMeta:
    file_name: str
    file_size: int
    num_added_files: int
    num_deleted_files: int
    partition_stats: SimpleStats
    schema_id: int
    min_bucket: int | None = None
    max_bucket: int | None = None
    min_level: int | None = None
    max_level: int | None = None
    min_row_id: int | None = None
    max_row_id: int | None = None

    def to_avro(self) -> dict[str, Any]:
        return {
            "_VERSION": VERSION,
            "_FILE_NAME": self.file_name,
            "_FILE_SIZE": self.file_size,
            "_NUM_ADDED_FILES": self.num_added_files,
            "_NUM_DELETED_FILES": self.num_deleted_files,
            "_PARTITION_STATS": self.partition_stats.to_avro(),
            "_SCHEMA_ID": self.schema_id,
            "_MIN_BUCKET": self.min_bucket,
            "_MAX_BUCKET": self.max_bucket,
            "_MIN_LEVEL": self.min_level,
            "_MAX_LEVEL": self.max_level,
            "_MIN_ROW_ID": self.min_row_id,
            "_MAX_ROW_ID": self.max_row_id,
        }

    @staticmethod
    def from_avro(rec: dict[str, Any]) -> ManifestFileMeta:
        return ManifestFileMeta(
            file_name=rec["_FILE_NAME"],
            file_size=int(rec["_FILE_SIZE"]),
            num_added_files=int(rec["_NUM_ADDED_FILES"]),
            num_deleted_files=int(rec["_NUM_DELETED_FILES"]),
            partition_stats=SimpleStats.from_avro(rec["_PARTITION_STATS"]),
            schema_id=int(rec["_SCHEMA_ID"]),
            min_bucket=rec.get("_MIN_BUCKET"),
            max_bucket=rec.get("_MAX_BUCKET"),
            min_level=rec.get("_MIN_LEVEL"),
            max_level=rec.get("_MAX_LEVEL"),
            min_row_id=rec.get("_MIN_ROW_ID"),
            max_row_id=rec.get("_MAX_ROW_ID"),
        )
