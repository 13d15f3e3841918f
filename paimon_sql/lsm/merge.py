"""Merge engines: how the records of one primary key, ordered by sequence, become one row.

The input of every engine is one Arrow table holding the rows of several sorted runs of a bucket,
with the key columns, ``_SEQUENCE_NUMBER``, ``_VALUE_KIND`` and the value columns. Engines are
vectorised: one stable sort by (key, sequence), then group boundaries found with array compares.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from paimon_sql.errors import UnsupportedError

SEQ = "_SEQUENCE_NUMBER"
KIND = "_VALUE_KIND"
KIND_INSERT, KIND_UPDATE_BEFORE, KIND_UPDATE_AFTER, KIND_DELETE = 0, 1, 2, 3


@dataclass(frozen=True)
class MergeSpec:
    """What a merge needs to know about the table."""

    key_columns: tuple[str, ...]
    sequence_columns: tuple[str, ...] = ()  # the 'sequence.field' columns, compared before _SEQUENCE_NUMBER
    ignore_delete: bool = False


def sort_by_key_and_sequence(table: pa.Table, spec: MergeSpec) -> pa.Table:
    """Stable sort by key, then user sequence fields, then ``_SEQUENCE_NUMBER`` (oldest first)."""
    keys = [(k, "ascending") for k in spec.key_columns]
    keys += [(s, "ascending") for s in spec.sequence_columns]
    keys.append((SEQ, "ascending"))
    idx = pc.sort_indices(table, sort_keys=keys, null_placement="at_start")
    return table.take(idx)


def group_last_mask(table: pa.Table, key_columns: Sequence[str]) -> np.ndarray:
    """For a table sorted by key: True at the last row of every key group."""
    n = table.num_rows
    if n == 0:
        return np.zeros(0, dtype=bool)
    diff = np.zeros(n - 1, dtype=bool)
    for k in key_columns:
        col = table.column(k)
        a, b = col.slice(0, n - 1), col.slice(1)
        ne = pc.fill_null(pc.not_equal(a, b), True)
        # two nulls are the same key
        both_null = pc.and_(pc.is_null(a), pc.is_null(b))
        ne = pc.and_(ne, pc.invert(both_null))
        diff |= np.asarray(ne.to_numpy(zero_copy_only=False), dtype=bool)
    return np.append(diff, True)


def _drop_retracts(table: pa.Table) -> pa.Table:
    kinds = table.column(KIND)
    keep = pc.or_(pc.equal(kinds, KIND_INSERT), pc.equal(kinds, KIND_UPDATE_AFTER))
    return table.filter(keep)


def deduplicate(table: pa.Table, spec: MergeSpec) -> pa.Table:
    """The newest record of each key wins; a key whose newest record is a retraction disappears."""
    if spec.ignore_delete:
        table = _drop_retracts(table)
    t = sort_by_key_and_sequence(table, spec)
    t = t.filter(pa.array(group_last_mask(t, spec.key_columns)))
    return _drop_retracts(t)


def first_row(table: pa.Table, spec: MergeSpec) -> pa.Table:
    """The oldest inserted record of each key wins; retractions are ignored."""
    t = sort_by_key_and_sequence(_drop_retracts(table), spec)
    n = t.num_rows
    if n == 0:
        return t
    last = group_last_mask(t, spec.key_columns)
    first = np.concatenate([[True], last[:-1]])
    return t.filter(pa.array(first))


def _unsupported(engine: str) -> Callable[[pa.Table, MergeSpec], pa.Table]:
    def merge(table: pa.Table, spec: MergeSpec) -> pa.Table:
        raise UnsupportedError(
            f"merge-engine '{engine}' is not supported yet by paimon_sql (reading or writing a "
            f"primary-key table that needs it); supported: deduplicate, first-row"
        )

    return merge


MERGE_ENGINES: dict[str, Callable[[pa.Table, MergeSpec], pa.Table]] = {
    "deduplicate": deduplicate,
    "first-row": first_row,
    "partial-update": _unsupported("partial-update"),
    "aggregation": _unsupported("aggregation"),
}


def merge_engine(name: str) -> Callable[[pa.Table, MergeSpec], pa.Table]:
    try:
        return MERGE_ENGINES[name]
    except KeyError:
        raise UnsupportedError(
            f"Unknown merge-engine {name!r}; known: {sorted(MERGE_ENGINES)}"
        ) from None
