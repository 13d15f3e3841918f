"""SimpleStats: per-column min/max (as BinaryRows) and null counts of a data file or manifest."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from paimon_sql.format.binary_row import encode_row
from paimon_sql.types import ArrayType, BigIntType, DataField, RowType, VarBinaryType

# Paimon's SimpleStats.SCHEMA
SIMPLE_STATS_TYPE = RowType((
    DataField(0, "_MIN_VALUES", VarBinaryType(nullable=False)),
    DataField(1, "_MAX_VALUES", VarBinaryType(nullable=False)),
    DataField(2, "_NULL_COUNTS", ArrayType(BigIntType())),
), nullable=False)

_EMPTY_ROW: bytes | None = None


def empty_row() -> bytes:
    global _EMPTY_ROW
    if _EMPTY_ROW is None:
        _EMPTY_ROW = encode_row([], [])
    return _EMPTY_ROW


@dataclass(frozen=True)
class SimpleStats:
    min_values: bytes
    max_values: bytes
    null_counts: tuple[int | None, ...] | None

    @staticmethod
    def empty() -> SimpleStats:
        return SimpleStats(empty_row(), empty_row(), ())

    def to_avro(self) -> dict[str, Any]:
        return {
            "_MIN_VALUES": self.min_values,
            "_MAX_VALUES": self.max_values,
            "_NULL_COUNTS": list(self.null_counts) if self.null_counts is not None else None,
        }

    @staticmethod
    def from_avro(rec: dict[str, Any]) -> SimpleStats:
        nc = rec.get("_NULL_COUNTS")
        return SimpleStats(
            bytes(rec["_MIN_VALUES"]), bytes(rec["_MAX_VALUES"]), tuple(nc) if nc is not None else None
        )
