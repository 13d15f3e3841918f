"""Statistics pruning: ``might_match`` decides, vectorised over many files (or partitions,
manifests) at once, which of them may hold a row matching a predicate, from their min / max /
null-count statistics. Conservative: unknown statistics never skip a file."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from paimon_sql.errors import ValidationError
from paimon_sql.predicate import tree
from paimon_sql.predicate.arrow import literal, value_set
from paimon_sql.predicate.like_pattern import like_prefix


@dataclass(frozen=True, eq=False)
class ColumnStats:
    """Statistics of one column over N files: ``min`` / ``max`` bounds (null = unknown) and null
    counts (None = unknown)."""

    min: pa.Array
    max: pa.Array
    null_count: np.ndarray | None = None


@dataclass(frozen=True)
class _NotLeaf:
    """Internal: the negation of a leaf that has no negated operator (NOT LIKE ...)."""

    leaf: tree.Leaf


_Node = tree.Leaf | tree.And | tree.Or | _NotLeaf

_NEGATED = {
    tree.EQ: tree.NE,
    tree.NE: tree.EQ,
    tree.LT: tree.GE,
    tree.LE: tree.GT,
    tree.GT: tree.LE,
    tree.GE: tree.LT,
    tree.IS_NULL: tree.IS_NOT_NULL,
    tree.IS_NOT_NULL: tree.IS_NULL,
    tree.IN: tree.NOT_IN,
    tree.NOT_IN: tree.IN,
}


def _nnf(p: tree.Predicate, negate: bool = False) -> _Node:
    """Negation normal form; valid in three-valued logic (De Morgan and ``NOT (x < v)`` =
    ``x >= v`` hold there, a NULL staying NULL)."""
    if isinstance(p, tree.Not):
        return _nnf(p.child, not negate)
    if isinstance(p, (tree.And, tree.Or)):
        kids = tuple(_nnf(c, negate) for c in p.children)
        cls: type[tree.And] | type[tree.Or] = (tree.Or if isinstance(p, tree.And) else tree.And) if negate else type(p)
        return cls(kids)  # type: ignore[arg-type]
    if not negate:
        return p
    if p.op in _NEGATED:
        return tree.Leaf(_NEGATED[p.op], p.column, p.literals)
    if p.op == tree.BETWEEN:
        lo, hi = p.literals
        return tree.Or((tree.Leaf(tree.LT, p.column, (lo,)), tree.Leaf(tree.GT, p.column, (hi,))))
    return _NotLeaf(p)


class _Column:
    """Normalised statistics of one column."""

    def __init__(self, name: str, s: ColumnStats, row_count: np.ndarray) -> None:
        n = len(row_count)
        self.min = _normalise_bound(s.min, name, n)
        self.max = _normalise_bound(s.max, name, n)
        self.floating = pa.types.is_floating(self.min.type) or pa.types.is_floating(self.max.type)
        if s.null_count is None:
            self.all_null = np.zeros(n, dtype=bool)
            self.has_null = np.ones(n, dtype=bool)
        else:
            nc = np.asarray(s.null_count, dtype=np.int64)
            if nc.shape != (n,):
                raise ValidationError(
                    f"Null counts of column {name!r} have shape {nc.shape}, expected ({n},)"
                )
            self.all_null = nc >= row_count
            self.has_null = nc > 0
        self.has_value = ~self.all_null


def _normalise_bound(a: Any, name: str, n: int) -> pa.Array:
    if isinstance(a, pa.ChunkedArray):
        a = a.combine_chunks()
    if not isinstance(a, pa.Array):
        a = pa.array(a)
    if len(a) != n:
        raise ValidationError(f"Statistics of column {name!r} have {len(a)} entries, expected {n}")
    if pa.types.is_dictionary(a.type):
        a = a.dictionary_decode()
    if pa.types.is_floating(a.type):
        # NaN bounds say nothing usable: treat them as unknown
        a = pc.if_else(pc.is_nan(a), pa.scalar(None, a.type), a)
    return a


_SAFE_ERRORS = (
    pa.ArrowInvalid,
    pa.ArrowNotImplementedError,
    pa.ArrowTypeError,
    TypeError,
    ValueError,
    OverflowError,
)


def _cmp(fn: Callable[..., pa.Array], a: pa.Array, v: Any) -> np.ndarray:
    """``fn(a, v)`` per file, unknown (null bound or incomparable types) -> True."""
    try:
        res = fn(a, literal(v))
    except _SAFE_ERRORS:
        return np.ones(len(a), dtype=bool)
    return np.asarray(res.fill_null(True).to_numpy(zero_copy_only=False), dtype=bool)


def _eq_exact(a: pa.Array, v: Any) -> np.ndarray:
    """``a == v`` per file, unknown -> False."""
    try:
        res = pc.equal(a, literal(v))
    except _SAFE_ERRORS:
        return np.zeros(len(a), dtype=bool)
    return np.asarray(res.fill_null(False).to_numpy(zero_copy_only=False), dtype=bool)


def might_match(p: tree.Predicate, stats: Mapping[str, ColumnStats], row_count: np.ndarray) -> np.ndarray:
    """Per file: False only when no row of the file can satisfy ``p`` (so the file can be skipped).

    ``stats`` maps column names to their statistics over the same files (a column without
    statistics is unknown); ``row_count`` gives each file's number of rows."""
    rc = np.asarray(row_count, dtype=np.int64)
    if rc.ndim != 1:
        raise ValidationError(f"row_count must be one-dimensional, got shape {rc.shape}")
    cache: dict[str, _Column | None] = {}

    def column(name: str) -> _Column | None:
        if name not in cache:
            s = stats.get(name)
            cache[name] = None if s is None else _Column(name, s, rc)
        return cache[name]

    return _might(_nnf(p), column, len(rc))


def _might(node: _Node, column: Callable[[str], _Column | None], n: int) -> np.ndarray:
    if isinstance(node, tree.And):
        out = np.ones(n, dtype=bool)
        for c in node.children:
            out &= _might(c, column, n)  # type: ignore[arg-type]
        return out
    if isinstance(node, tree.Or):
        out = np.zeros(n, dtype=bool)
        for c in node.children:
            out |= _might(c, column, n)  # type: ignore[arg-type]
        return out
    if isinstance(node, _NotLeaf):
        leaf = node.leaf
        if any(v is None for v in leaf.literals):
            return np.zeros(n, dtype=bool)
        col = column(leaf.column)
        return np.ones(n, dtype=bool) if col is None else col.has_value.copy()
    col = column(node.column)
    if col is None:
        return np.ones(n, dtype=bool)
    return _might_leaf(node, col, n) & (col.has_null if node.op == tree.IS_NULL else col.has_value)


def _might_leaf(leaf: tree.Leaf, col: _Column, n: int) -> np.ndarray:
    op, lits = leaf.op, leaf.literals
    ones = np.ones(n, dtype=bool)
    if op in (tree.IS_NULL, tree.IS_NOT_NULL):
        return ones  # decided by the null counts alone
    if op == tree.IN:
        return _might_in([v for v in lits if v is not None], col, n)
    if op == tree.NOT_IN:
        if any(v is None for v in lits):
            return np.zeros(n, dtype=bool)  # x NOT IN (..., NULL) is never TRUE
        if col.floating:
            return ones  # NaN rows may hide behind the bounds
        return ~_single_value_in(col, lits)
    if any(v is None for v in lits):
        return np.zeros(n, dtype=bool)  # comparisons with NULL are never TRUE
    mn, mx = col.min, col.max
    if op == tree.EQ:
        v = lits[0]
        return _cmp(pc.less_equal, mn, v) & _cmp(pc.greater_equal, mx, v)
    if op == tree.NE:
        if col.floating:
            return ones
        v = lits[0]
        return ~(_eq_exact(mn, v) & _eq_exact(mx, v))
    if op == tree.LT:
        return _cmp(pc.less, mn, lits[0])
    if op == tree.LE:
        return _cmp(pc.less_equal, mn, lits[0])
    if op == tree.GT:
        return _cmp(pc.greater, mx, lits[0])
    if op == tree.GE:
        return _cmp(pc.greater_equal, mx, lits[0])
    if op == tree.BETWEEN:
        lo, hi = lits
        return _cmp(pc.greater_equal, mx, lo) & _cmp(pc.less_equal, mn, hi)
    if op == tree.STARTS_WITH:
        return _might_prefix(lits[0], col, n)
    if op == tree.LIKE:
        return _might_prefix(like_prefix(lits[0]), col, n)
    return ones  # ends_with / contains: only null counts help


def _might_prefix(prefix: str, col: _Column, n: int) -> np.ndarray:
    """Some string in [min, max] may start with ``prefix``: max >= prefix and min's first
    len(prefix) characters <= prefix."""
    ones = np.ones(n, dtype=bool)
    if not prefix:
        return ones
    mn, mx = col.min, col.max
    if not (pa.types.is_string(mn.type) or pa.types.is_large_string(mn.type)):
        return ones
    if not (pa.types.is_string(mx.type) or pa.types.is_large_string(mx.type)):
        return ones
    try:
        head = pc.utf8_slice_codeunits(mn, 0, len(prefix))
    except _SAFE_ERRORS:
        return ones
    return _cmp(pc.greater_equal, mx, prefix) & _cmp(pc.less_equal, head, prefix)


def _single_value_in(col: _Column, values: Sequence[Any]) -> np.ndarray:
    """Files whose non-null values are all one value that is in ``values`` (min == max)."""
    mn, mx = col.min, col.max
    try:
        same = pc.equal(mn, mx).fill_null(False)
        member = pc.is_in(mn, value_set=value_set(values)).fill_null(False)
        res = pc.and_(same, member)
    except _SAFE_ERRORS:
        return np.zeros(len(mn), dtype=bool)
    return np.asarray(res.to_numpy(zero_copy_only=False), dtype=bool)


def _might_in(values: list[Any], col: _Column, n: int) -> np.ndarray:
    """Some value of ``values`` lies in [min, max]."""
    values = [v for v in values if not (isinstance(v, float) and v != v)]  # NaN never matches
    if not values:
        return np.zeros(n, dtype=bool)
    mn, mx = col.min, col.max
    if mn.type == mx.type:
        with contextlib.suppress(*_SAFE_ERRORS):  # literals the stats type cannot hold: slow path
            lits = value_set(values).cast(mn.type)  # safe cast: raises rather than loses data
            return _might_in_sorted(lits, mn, mx)
    out = np.zeros(n, dtype=bool)
    for v in values:
        out |= _cmp(pc.less_equal, mn, v) & _cmp(pc.greater_equal, mx, v)
    return out


def _might_in_sorted(lits: pa.Array, mn: pa.Array, mx: pa.Array) -> np.ndarray:
    """Binary search of each file's min in the sorted literals: the first literal >= min must
    be <= max."""
    lits = pc.array_take(lits, pc.array_sort_indices(lits))
    sorted_lits = lits.to_numpy(zero_copy_only=False)
    k = len(sorted_lits)
    unknown = np.asarray(pc.or_(mn.is_null(), mx.is_null()).to_numpy(zero_copy_only=False), dtype=bool)
    fill = lits[0]
    lo = pc.fill_null(mn, fill).to_numpy(zero_copy_only=False)
    hi = pc.fill_null(mx, fill).to_numpy(zero_copy_only=False)
    idx = np.searchsorted(sorted_lits, lo, side="left")
    cand = sorted_lits[np.minimum(idx, k - 1)]
    hit = (idx < k) & np.asarray(cand <= hi, dtype=bool)
    return hit | unknown


