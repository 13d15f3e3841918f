"""Vectorised grouping of a batch by (partition, bucket)."""

from __future__ import annotations

from collections.abc import Sequence

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

