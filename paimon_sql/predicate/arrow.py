"""Predicates as ``pyarrow.compute`` expressions (for ``Table.filter`` and datasets), with SQL's
three-valued logic: a row matches only when the whole predicate is TRUE."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from paimon_sql.predicate import tree

_NULL_BOOL = pa.scalar(None, pa.bool_())


def literal(v: Any) -> pa.Scalar:
    # Untyped on purpose: Arrow then compares in the common type of column and literal, which is
    # exact (a typed scalar could be silently truncated, e.g. microseconds into a ms timestamp).
    return v if isinstance(v, pa.Scalar) else pa.scalar(v)


def value_set(values: Sequence[Any]) -> pa.Array:
    return pa.array(list(values))


def to_arrow_expression(p: tree.Predicate) -> pc.Expression:
    """The predicate as an Arrow expression with SQL semantics (NULL never matches a filter)."""
    if isinstance(p, tree.And):
        return functools.reduce(lambda a, b: a & b, (to_arrow_expression(c) for c in p.children))
    if isinstance(p, tree.Or):
        return functools.reduce(lambda a, b: a | b, (to_arrow_expression(c) for c in p.children))
    if isinstance(p, tree.Not):
        return ~to_arrow_expression(p.child)
    return _leaf_expression(p)


def _leaf_expression(leaf: tree.Leaf) -> pc.Expression:
    f = pc.field(leaf.column)
    op, lits = leaf.op, leaf.literals
    if op == tree.IS_NULL:
        return f.is_null()
    if op == tree.IS_NOT_NULL:
        return f.is_valid()
    null = pc.scalar(_NULL_BOOL)
    if op in (tree.IN, tree.NOT_IN):
        values = [v for v in lits if v is not None]
        has_null = len(values) < len(lits)
        if not values:
            return null  # x IN (NULL) / x NOT IN (NULL): never TRUE
        hit = pc.is_in(f, value_set=value_set(values), skip_nulls=True)  # null x -> false
        if op == tree.IN:
            # match -> TRUE; no match -> FALSE, or NULL when x is NULL or the list holds a NULL
            return pc.if_else(hit, True, null) if has_null else pc.if_else(f.is_null(), null, hit)
        if has_null:
            return pc.if_else(hit, False, null)
        return pc.if_else(f.is_null(), null, ~hit)
    if op == tree.BETWEEN:
        lo, hi = lits
        if lo is None or hi is None:
            left = null if lo is None else f >= literal(lo)
            right = null if hi is None else f <= literal(hi)
            return left & right
        return (f >= literal(lo)) & (f <= literal(hi))
    v = lits[0]
    if v is None:
        return null
    if op == tree.EQ:
        return f == literal(v)
    if op == tree.NE:
        return f != literal(v)
    if op == tree.LT:
        return f < literal(v)
    if op == tree.LE:
        return f <= literal(v)
    if op == tree.GT:
        return f > literal(v)
    if op == tree.GE:
        return f >= literal(v)
    if op == tree.STARTS_WITH:
        return pc.starts_with(f, pattern=v)
    if op == tree.ENDS_WITH:
        return pc.ends_with(f, pattern=v)
    if op == tree.CONTAINS:
        return pc.match_substring(f, pattern=v)
    return pc.match_like(f, pattern=v)


