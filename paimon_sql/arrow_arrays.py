"""Arrow columns as single arrays, without copying what is one already."""

from __future__ import annotations

import pyarrow as pa


def one_array(col: pa.ChunkedArray | pa.Array) -> pa.Array:
    """``col``'s values as one array: a column of one chunk is that chunk, not a copy (Arrow's
    ``combine_chunks`` copies even one chunk; the chunk may be a slice: an offset into its
    buffers)."""
    if not isinstance(col, pa.ChunkedArray):
        return col
    return col.chunk(0) if col.num_chunks == 1 else col.combine_chunks()
