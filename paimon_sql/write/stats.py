"""Column statistics of a data file (Paimon's SimpleStats, default mode ``truncate(16)``)."""

from __future__ import annotations

from collections.abc import Sequence

import pyarrow as pa
import pyarrow.compute as pc

from paimon_sql.format.binary_row import encode_row, encode_rows
from paimon_sql.meta.simple_stats import SimpleStats
from paimon_sql.types import DataType, to_arrow_type

TRUNCATE_LENGTH = 16


def _stats_mode_length(mode: str) -> int | None:
    """None = full, 0 = none/counts, n = truncate(n)."""
    m = mode.strip().lower()
    if m == "full":
        return None
    if m in ("none", "counts"):
        return 0
    if m.startswith("truncate(") and m.endswith(")"):
        return int(m[len("truncate("):-1])
    return TRUNCATE_LENGTH


def _truncate_max(s: str, n: int) -> str | None:
    """Upper bound of all strings with prefix ``s[:n]``: increment the last code point."""
    prefix = s[:n]
    chars = list(prefix)
    while chars:
        c = ord(chars[-1])
        if c < 0x10FFFF and not (0xD7FF <= c < 0xE000):
            chars[-1] = chr(c + 1)
            return "".join(chars)
        chars.pop()
    return None


def collect_stats(
    columns: Sequence[pa.ChunkedArray | pa.Array], types: Sequence[DataType], stats_mode: str = "truncate(16)"
) -> SimpleStats:
    """min/max/null counts of each column, encoded as Paimon stores them."""
    if not types:
        return SimpleStats.empty()
    trunc = _stats_mode_length(stats_mode)
    mins: list[pa.Array] = []
    maxs: list[pa.Array] = []
    nulls: list[int | None] = []
    for col, t in zip(columns, types):
        at = to_arrow_type(t)
        nulls.append(int(col.null_count))
        lo = hi = None
        comparable = not (pa.types.is_nested(at) or pa.types.is_binary(at) or pa.types.is_large_binary(at))
        if trunc != 0 and comparable and col.null_count < len(col):
            mm = pc.min_max(col)
            lo, hi = mm["min"], mm["max"]
            if (pa.types.is_string(at) or pa.types.is_large_string(at)) and trunc is not None:
                lo_s, hi_s = lo.as_py(), hi.as_py()
                if lo_s is not None and len(lo_s) > trunc:
                    lo = pa.scalar(lo_s[:trunc], at)
                if hi_s is not None and len(hi_s) > trunc:
                    up = _truncate_max(hi_s, trunc)
                    hi = pa.scalar(up, at) if up is not None else None
        mins.append(pa.array([lo], type=at))
        maxs.append(pa.array([hi], type=at))
    min_row = encode_rows(mins, list(types))[0]
    max_row = encode_rows(maxs, list(types))[0]
    return SimpleStats(min_row, max_row, tuple(nulls))


def key_bounds(key_columns: Sequence[pa.ChunkedArray | pa.Array], key_types: Sequence[DataType]) -> tuple[bytes, bytes]:
    """BinaryRows of the first and last key of a key-sorted file."""
    n = len(key_columns[0]) if key_columns else 0
    if not key_columns or n == 0:
        return encode_row([], []), encode_row([], [])
    firsts = [c.slice(0, 1) for c in key_columns]
    lasts = [c.slice(n - 1, 1) for c in key_columns]
    firsts = [c.combine_chunks() if isinstance(c, pa.ChunkedArray) else c for c in firsts]
    lasts = [c.combine_chunks() if isinstance(c, pa.ChunkedArray) else c for c in lasts]
    return encode_rows(firsts, list(key_types))[0], encode_rows(lasts, list(key_types))[0]
