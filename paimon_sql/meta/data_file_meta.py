"""DataFileMeta: what a manifest says about one data file (``_FILE`` of a manifest entry)."""

from __future__ import annotations

import datetime as _dt
import time as _time
from dataclasses import dataclass
from typing import Any

from paimon_sql.meta.simple_stats import SIMPLE_STATS_TYPE, SimpleStats
from paimon_sql.types import (
    ArrayType,
    BigIntType,
    DataField,
    IntType,
    RowType,
    TimestampType,
    TinyIntType,
    VarBinaryType,
    VarCharType,
)

# Paimon's DataFileMeta.SCHEMA (the ``_FILE`` of a manifest entry; ``_WRITE_COLS_SEQUENCES``, which
# paimon_sql neither writes nor reads, is left out: readers of every version take records by name)
DATA_FILE_META_TYPE = RowType((
    DataField(0, "_FILE_NAME", VarCharType(nullable=False)),
    DataField(1, "_FILE_SIZE", BigIntType(nullable=False)),
    DataField(2, "_ROW_COUNT", BigIntType(nullable=False)),
    DataField(3, "_MIN_KEY", VarBinaryType(nullable=False)),
    DataField(4, "_MAX_KEY", VarBinaryType(nullable=False)),
    DataField(5, "_KEY_STATS", SIMPLE_STATS_TYPE),
    DataField(6, "_VALUE_STATS", SIMPLE_STATS_TYPE),
    DataField(7, "_MIN_SEQUENCE_NUMBER", BigIntType(nullable=False)),
    DataField(8, "_MAX_SEQUENCE_NUMBER", BigIntType(nullable=False)),
    DataField(9, "_SCHEMA_ID", BigIntType(nullable=False)),
    DataField(10, "_LEVEL", IntType(nullable=False)),
    DataField(11, "_EXTRA_FILES", ArrayType(VarCharType(nullable=False), nullable=False)),
    DataField(12, "_CREATION_TIME", TimestampType(3)),
    DataField(13, "_DELETE_ROW_COUNT", BigIntType()),
    DataField(14, "_EMBEDDED_FILE_INDEX", VarBinaryType()),
    DataField(15, "_FILE_SOURCE", TinyIntType()),
    DataField(16, "_VALUE_STATS_COLS", ArrayType(VarCharType(nullable=False))),
    DataField(17, "_EXTERNAL_PATH", VarCharType()),
    DataField(18, "_FIRST_ROW_ID", BigIntType()),
    DataField(19, "_WRITE_COLS", ArrayType(VarCharType(nullable=False))),
), nullable=False)


@dataclass(frozen=True)
class DataFileMeta:
    file_name: str
    file_size: int
    row_count: int
    min_key: bytes
    max_key: bytes
    key_stats: SimpleStats
    value_stats: SimpleStats
    min_sequence_number: int
    max_sequence_number: int
    schema_id: int
    level: int
    extra_files: tuple[str, ...] = ()
    creation_time_ms: int | None = None
    delete_row_count: int | None = None
    embedded_file_index: bytes | None = None
    file_source: int | None = None
    value_stats_cols: tuple[str, ...] | None = None
    external_path: str | None = None
    first_row_id: int | None = None
    write_cols: tuple[str, ...] | None = None

    def to_avro(self) -> dict[str, Any]:
        return {
            "_FILE_NAME": self.file_name,
            "_FILE_SIZE": self.file_size,
            "_ROW_COUNT": self.row_count,
            "_MIN_KEY": self.min_key,
            "_MAX_KEY": self.max_key,
            "_KEY_STATS": self.key_stats.to_avro(),
            "_VALUE_STATS": self.value_stats.to_avro(),
            "_MIN_SEQUENCE_NUMBER": self.min_sequence_number,
            "_MAX_SEQUENCE_NUMBER": self.max_sequence_number,
            "_SCHEMA_ID": self.schema_id,
            "_LEVEL": self.level,
            "_EXTRA_FILES": list(self.extra_files),
            "_CREATION_TIME": self.creation_time_ms,
            "_DELETE_ROW_COUNT": self.delete_row_count,
            "_EMBEDDED_FILE_INDEX": self.embedded_file_index,
            "_FILE_SOURCE": self.file_source,
            "_VALUE_STATS_COLS": list(self.value_stats_cols) if self.value_stats_cols is not None else None,
            "_EXTERNAL_PATH": self.external_path,
            "_FIRST_ROW_ID": self.first_row_id,
            "_WRITE_COLS": list(self.write_cols) if self.write_cols is not None else None,
        }

    @property
    def creation_time_epoch_ms(self) -> int | None:
        """The creation time as epoch millis: ``_CREATION_TIME`` holds the writer's local wall clock
        (Paimon writes ``LocalDateTime.now()``), read in this machine's time zone as Paimon's
        ``creationTimeEpochMillis`` does."""
        return None if self.creation_time_ms is None else wall_clock_to_epoch_ms(self.creation_time_ms)

    @staticmethod
    def from_avro(rec: dict[str, Any]) -> DataFileMeta:
        ct = rec.get("_CREATION_TIME")
        if ct is not None and not isinstance(ct, int):
            ct = int(ct.timestamp() * 1000)  # fastavro decodes timestamp-millis to datetime
        vsc = rec.get("_VALUE_STATS_COLS")
        wc = rec.get("_WRITE_COLS")
        efi = rec.get("_EMBEDDED_FILE_INDEX")
        return DataFileMeta(
            file_name=rec["_FILE_NAME"],
            file_size=int(rec["_FILE_SIZE"]),
            row_count=int(rec["_ROW_COUNT"]),
            min_key=bytes(rec["_MIN_KEY"]),
            max_key=bytes(rec["_MAX_KEY"]),
            key_stats=SimpleStats.from_avro(rec["_KEY_STATS"]),
            value_stats=SimpleStats.from_avro(rec["_VALUE_STATS"]),
            min_sequence_number=int(rec["_MIN_SEQUENCE_NUMBER"]),
            max_sequence_number=int(rec["_MAX_SEQUENCE_NUMBER"]),
            schema_id=int(rec["_SCHEMA_ID"]),
            level=int(rec["_LEVEL"]),
            extra_files=tuple(rec.get("_EXTRA_FILES") or ()),
            creation_time_ms=ct,
            delete_row_count=rec.get("_DELETE_ROW_COUNT"),
            embedded_file_index=bytes(efi) if efi is not None else None,
            file_source=rec.get("_FILE_SOURCE"),
            value_stats_cols=tuple(vsc) if vsc is not None else None,
            external_path=rec.get("_EXTERNAL_PATH"),
            first_row_id=rec.get("_FIRST_ROW_ID"),
            write_cols=tuple(wc) if wc is not None else None,
        )


_EPOCH = _dt.datetime(1970, 1, 1)


def local_wall_clock_ms(epoch_ms: int | None = None) -> int:
    """``epoch_ms`` (default: now) as the millis of the local wall clock (a TIMESTAMP without time
    zone, as Paimon's ``LocalDateTime.now()`` stores a file's creation time)."""
    ms = int(_time.time() * 1000) if epoch_ms is None else epoch_ms
    offset = _dt.datetime.fromtimestamp(ms / 1000, _dt.timezone.utc).astimezone().utcoffset()
    return ms + (int(offset.total_seconds() * 1000) if offset is not None else 0)


def wall_clock_to_epoch_ms(wall_ms: int) -> int:
    """The epoch millis of local wall-clock millis (``LocalDateTime.atZone(systemDefault())``)."""
    naive = _EPOCH + _dt.timedelta(milliseconds=wall_ms)
    offset = naive.astimezone().utcoffset()
    return wall_ms - (int(offset.total_seconds() * 1000) if offset is not None else 0)
