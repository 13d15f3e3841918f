"""ManifestFileMeta: one entry of a manifest list (describes one manifest file)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from paimon_sql.meta.avro_schema import RECORD_NS, opt, req, simple_stats_record
from paimon_sql.meta.simple_stats import SimpleStats

VERSION = 2

MANIFEST_FILE_META_AVRO_SCHEMA: dict[str, Any] = {
    "type": "record",
    "name": RECORD_NS,
    "fields": [
        req("_VERSION", "int"),
        req("_FILE_NAME", "string"),
        req("_FILE_SIZE", "long"),
        req("_NUM_ADDED_FILES", "long"),
        req("_NUM_DELETED_FILES", "long"),
        req("_PARTITION_STATS", simple_stats_record(RECORD_NS + "__PARTITION_STATS")),
        req("_SCHEMA_ID", "long"),
        opt("_MIN_BUCKET", "int"),
        opt("_MAX_BUCKET", "int"),
        opt("_MIN_LEVEL", "int"),
        opt("_MAX_LEVEL", "int"),
        opt("_MIN_ROW_ID", "long"),
        opt("_MAX_ROW_ID", "long"),
    ],
}


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
