"""Vectorised grouping of a batch by (partition, bucket)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc


def group_ids(table: pa.Table, columns: Sequence[str]) -> tuple[np.ndarray, int]:
    """Dense ids (0..k-1) of the distinct value combinations of ``columns``, and k."""
    n = table.num_rows
    if not columns:
        return np.zeros(n, dtype=np.int64), 1 if n else 0
    combined = np.zeros(n, dtype=np.int64)
    for name in columns:
        col = table.column(name)
        enc = pc.dictionary_encode(col, null_encoding="encode").combine_chunks()
        idx = np.asarray(enc.indices.to_numpy(zero_copy_only=False), dtype=np.int64)
        card = len(enc.dictionary)
        combined = combined * max(card, 1) + idx
    uniq, dense = np.unique(combined, return_inverse=True)
    return dense.astype(np.int64), len(uniq)


def split_by(table: pa.Table, keys: np.ndarray) -> Iterator[tuple[int, pa.Table]]:
    """Yields (key, rows with that key) keeping the input order inside each group."""
    if table.num_rows == 0:
        return
    first = keys[0]
    if (keys == first).all():
        yield int(first), table
        return
    order = np.argsort(keys, kind="stable")
    sorted_keys = keys[order]
    bounds = np.flatnonzero(np.diff(sorted_keys)) + 1
    starts = np.concatenate([[0], bounds])
    ends = np.concatenate([bounds, [len(keys)]])
    taken = table.take(pa.array(order))
    for s, e in zip(starts, ends):
        yield int(sorted_keys[s]), taken.slice(int(s), int(e - s))
