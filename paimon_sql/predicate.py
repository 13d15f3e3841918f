"""Predicates: filters for reads, deletes and file pruning.

A predicate is an immutable tree of ``Leaf`` (one column compared with literals), ``And``, ``Or``
and ``Not``. It is evaluated with SQL's three-valued logic: a comparison with a null operand is
NULL, and a row matches only when the whole predicate is TRUE.

- builders: ``equal``, ``not_equal``, ``less_than`` ... ``is_in``, ``between``, ``starts_with``,
  ``and_``, ``or_``, ``not_``;
- ``parse_predicate``: SQL text (Spark dialect, via sqlglot) against a table's fields, literals
  coerced to the column types;
- ``to_arrow_expression``: a ``pyarrow.compute.Expression`` for ``Table.filter`` / datasets;
- ``might_match``: vectorised, conservative pruning of many files (or partitions, manifests) at
  once from their min / max / null-count statistics;
- ``referenced_columns``, ``rename_columns``, ``split_and``, ``partition_only``.

Literal values are plain Python values: ``int``, ``float``, ``decimal.Decimal``, ``str``,
``bytes``, ``bool``, ``datetime.date``, ``datetime.datetime`` (aware, in UTC, for TIMESTAMP WITH
LOCAL TIME ZONE columns), ``datetime.time``, or ``None`` (SQL NULL).
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import functools
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import sqlglot
from sqlglot import exp

from paimon_sql.errors import ValidationError
from paimon_sql.types import (
    BigIntType,
    BinaryType,
    BooleanType,
    CharType,
    DataField,
    DataType,
    DateType,
    DecimalType,
    DoubleType,
    FloatType,
    IntType,
    LocalZonedTimestampType,
    SmallIntType,
    TimestampType,
    TimeType,
    TinyIntType,
    VarBinaryType,
    VarCharType,
)

# ----------------------------------------------------------------------------------------------
# The tree
# ----------------------------------------------------------------------------------------------

EQ = "eq"
NE = "ne"
LT = "lt"
LE = "le"
GT = "gt"
GE = "ge"
IS_NULL = "is_null"
IS_NOT_NULL = "is_not_null"
IN = "in"
NOT_IN = "not_in"
BETWEEN = "between"
STARTS_WITH = "starts_with"  # LIKE 'abc%'
ENDS_WITH = "ends_with"  # LIKE '%abc'
CONTAINS = "contains"  # LIKE '%abc%'
LIKE = "like"  # any other LIKE pattern; escape character '\'

_ARITY: dict[str, int | None] = {
    EQ: 1,
    NE: 1,
    LT: 1,
    LE: 1,
    GT: 1,
    GE: 1,
    IS_NULL: 0,
    IS_NOT_NULL: 0,
    IN: None,
    NOT_IN: None,
    BETWEEN: 2,
    STARTS_WITH: 1,
    ENDS_WITH: 1,
    CONTAINS: 1,
    LIKE: 1,
}
OPS = tuple(_ARITY)
_STRING_OPS = (STARTS_WITH, ENDS_WITH, CONTAINS, LIKE)
_SQL_CMP = {EQ: "=", NE: "<>", LT: "<", LE: "<=", GT: ">", GE: ">="}


@dataclass(frozen=True)
class Leaf:
    """``column <op> literals``; ``literals`` holds one value, two for between, one or more for
    in / not_in, none for is_null / is_not_null."""

    op: str
    column: str
    literals: tuple[Any, ...] = ()

    def __post_init__(self) -> None:
        if self.op not in _ARITY:
            raise ValidationError(f"Unknown predicate operator {self.op!r} (known: {', '.join(OPS)})")
        arity = _ARITY[self.op]
        n = len(self.literals)
        if (arity is None and n < 1) or (arity is not None and n != arity):
            want = "at least one literal" if arity is None else f"{arity} literal(s)"
            raise ValidationError(f"Predicate {self.op} on column {self.column!r} takes {want}, got {n}")
        if self.op in _STRING_OPS and not isinstance(self.literals[0], (str, type(None))):
            raise ValidationError(
                f"Predicate {self.op} on column {self.column!r} takes a string pattern, "
                f"got {self.literals[0]!r}"
            )

    def __str__(self) -> str:
        c = _sql_ident(self.column)
        lits = self.literals
        if self.op in _SQL_CMP:
            return f"{c} {_SQL_CMP[self.op]} {_sql_literal(lits[0])}"
        if self.op == IS_NULL:
            return f"{c} IS NULL"
        if self.op == IS_NOT_NULL:
            return f"{c} IS NOT NULL"
        if self.op in (IN, NOT_IN):
            kw = "IN" if self.op == IN else "NOT IN"
            return f"{c} {kw} ({', '.join(_sql_literal(v) for v in lits)})"
        if self.op == BETWEEN:
            return f"{c} BETWEEN {_sql_literal(lits[0])} AND {_sql_literal(lits[1])}"
        v = lits[0]
        if v is None:
            return f"{c} LIKE NULL"
        if self.op == STARTS_WITH:
            pattern = _escape_like(v) + "%"
        elif self.op == ENDS_WITH:
            pattern = "%" + _escape_like(v)
        elif self.op == CONTAINS:
            pattern = "%" + _escape_like(v) + "%"
        else:
            pattern = v
        return f"{c} LIKE {_sql_literal(pattern)}"


@dataclass(frozen=True)
class And:
    children: tuple[Predicate, ...]

    def __str__(self) -> str:
        return " AND ".join(_paren(c, And) for c in self.children)


@dataclass(frozen=True)
class Or:
    children: tuple[Predicate, ...]

    def __str__(self) -> str:
        return " OR ".join(_paren(c, Or) for c in self.children)


@dataclass(frozen=True)
class Not:
    child: Predicate

    def __str__(self) -> str:
        return f"NOT ({self.child})"


Predicate = Leaf | And | Or | Not


def _paren(p: Predicate, parent: type) -> str:
    return f"({p})" if isinstance(p, (And, Or)) and not isinstance(p, parent) else str(p)


_PLAIN_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _sql_ident(name: str) -> str:
    return name if _PLAIN_IDENT.fullmatch(name) else "`" + name.replace("`", "``") + "`"


def _sql_literal(v: Any) -> str:
    if v is None:
        return "NULL"
    if isinstance(v, bool):
        return "TRUE" if v else "FALSE"
    if isinstance(v, (int, float, Decimal)):
        return str(v)
    if isinstance(v, str):
        return "'" + v.replace("\\", "\\\\").replace("'", "\\'") + "'"
    if isinstance(v, bytes):
        return "X'" + v.hex().upper() + "'"
    if isinstance(v, _dt.datetime):
        if v.tzinfo is not None:
            v = v.astimezone(_dt.timezone.utc).replace(tzinfo=None)
        return f"TIMESTAMP '{v.isoformat(sep=' ')}'"
    if isinstance(v, _dt.date):
        return f"DATE '{v.isoformat()}'"
    if isinstance(v, _dt.time):
        return f"TIME '{v.isoformat()}'"
    return repr(v)


# ----------------------------------------------------------------------------------------------
# Builders
# ----------------------------------------------------------------------------------------------


def equal(column: str, value: Any) -> Leaf:
    return Leaf(EQ, column, (value,))


def not_equal(column: str, value: Any) -> Leaf:
    return Leaf(NE, column, (value,))


def less_than(column: str, value: Any) -> Leaf:
    return Leaf(LT, column, (value,))


def less_or_equal(column: str, value: Any) -> Leaf:
    return Leaf(LE, column, (value,))


def greater_than(column: str, value: Any) -> Leaf:
    return Leaf(GT, column, (value,))


def greater_or_equal(column: str, value: Any) -> Leaf:
    return Leaf(GE, column, (value,))


def is_null(column: str) -> Leaf:
    return Leaf(IS_NULL, column)


def is_not_null(column: str) -> Leaf:
    return Leaf(IS_NOT_NULL, column)


def is_in(column: str, values: Iterable[Any]) -> Leaf:
    return Leaf(IN, column, tuple(values))


def is_not_in(column: str, values: Iterable[Any]) -> Leaf:
    return Leaf(NOT_IN, column, tuple(values))


def between(column: str, low: Any, high: Any) -> Leaf:
    """``low <= column <= high`` (both ends included, as SQL's BETWEEN)."""
    return Leaf(BETWEEN, column, (low, high))


def starts_with(column: str, prefix: str) -> Leaf:
    return Leaf(STARTS_WITH, column, (prefix,))


def ends_with(column: str, suffix: str) -> Leaf:
    return Leaf(ENDS_WITH, column, (suffix,))


def contains(column: str, substring: str) -> Leaf:
    return Leaf(CONTAINS, column, (substring,))


def like(column: str, pattern: str) -> Leaf:
    """SQL LIKE with ``%`` / ``_`` wildcards and ``\\`` as escape character."""
    return Leaf(LIKE, column, (pattern,))


def and_(*predicates: Predicate) -> Predicate:
    """Conjunction; nested Ands are flattened and a single predicate is returned as is."""
    return _junction(And, predicates)


def or_(*predicates: Predicate) -> Predicate:
    """Disjunction; nested Ors are flattened and a single predicate is returned as is."""
    return _junction(Or, predicates)


def _junction(cls: type[And] | type[Or], predicates: Sequence[Predicate]) -> Predicate:
    flat: list[Predicate] = []
    for p in predicates:
        if isinstance(p, cls):
            flat.extend(p.children)
        elif isinstance(p, (Leaf, And, Or, Not)):
            flat.append(p)
        else:
            raise ValidationError(f"Not a predicate: {p!r}")
    if not flat:
        raise ValidationError(f"{cls.__name__} of no predicates")
    if len(flat) == 1:
        return flat[0]
    return cls(tuple(flat))


def not_(predicate: Predicate) -> Predicate:
    """Negation (``NOT NOT p`` is ``p``)."""
    if isinstance(predicate, Not):
        return predicate.child
    return Not(predicate)


# ----------------------------------------------------------------------------------------------
# Structure helpers
# ----------------------------------------------------------------------------------------------


def referenced_columns(p: Predicate) -> set[str]:
    if isinstance(p, Leaf):
        return {p.column}
    if isinstance(p, Not):
        return referenced_columns(p.child)
    out: set[str] = set()
    for c in p.children:
        out |= referenced_columns(c)
    return out


def rename_columns(p: Predicate, mapping: Mapping[str, str]) -> Predicate:
    """``p`` with columns renamed by ``mapping`` (columns not in it keep their names)."""
    if isinstance(p, Leaf):
        new = mapping.get(p.column, p.column)
        return p if new == p.column else Leaf(p.op, new, p.literals)
    if isinstance(p, Not):
        return Not(rename_columns(p.child, mapping))
    return type(p)(tuple(rename_columns(c, mapping) for c in p.children))


def split_and(p: Predicate) -> list[Predicate]:
    """The conjuncts of ``p`` (nested Ands flattened); ``[p]`` when it is not an And."""
    if isinstance(p, And):
        out: list[Predicate] = []
        for c in p.children:
            out.extend(split_and(c))
        return out
    return [p]


def partition_only(p: Predicate, partition_keys: Iterable[str]) -> Predicate | None:
    """The conjuncts of ``p`` that reference partition columns only (None if there are none).

    Every row matching ``p`` matches the result, so it can prune partitions."""
    keys = set(partition_keys)
    kept = [c for c in split_and(p) if referenced_columns(c) <= keys]
    return and_(*kept) if kept else None


# ----------------------------------------------------------------------------------------------
# Arrow expressions
# ----------------------------------------------------------------------------------------------

_NULL_BOOL = pa.scalar(None, pa.bool_())


def _lit(v: Any) -> pa.Scalar:
    # Untyped on purpose: Arrow then compares in the common type of column and literal, which is
    # exact (a typed scalar could be silently truncated, e.g. microseconds into a ms timestamp).
    return v if isinstance(v, pa.Scalar) else pa.scalar(v)


def _value_set(values: Sequence[Any]) -> pa.Array:
    return pa.array(list(values))


def to_arrow_expression(p: Predicate) -> pc.Expression:
    """The predicate as an Arrow expression with SQL semantics (NULL never matches a filter)."""
    if isinstance(p, And):
        return functools.reduce(lambda a, b: a & b, (to_arrow_expression(c) for c in p.children))
    if isinstance(p, Or):
        return functools.reduce(lambda a, b: a | b, (to_arrow_expression(c) for c in p.children))
    if isinstance(p, Not):
        return ~to_arrow_expression(p.child)
    return _leaf_expression(p)


def _leaf_expression(leaf: Leaf) -> pc.Expression:
    f = pc.field(leaf.column)
    op, lits = leaf.op, leaf.literals
    if op == IS_NULL:
        return f.is_null()
    if op == IS_NOT_NULL:
        return f.is_valid()
    null = pc.scalar(_NULL_BOOL)
    if op in (IN, NOT_IN):
        values = [v for v in lits if v is not None]
        has_null = len(values) < len(lits)
        if not values:
            return null  # x IN (NULL) / x NOT IN (NULL): never TRUE
        hit = pc.is_in(f, value_set=_value_set(values), skip_nulls=True)  # null x -> false
        if op == IN:
            # match -> TRUE; no match -> FALSE, or NULL when x is NULL or the list holds a NULL
            return pc.if_else(hit, True, null) if has_null else pc.if_else(f.is_null(), null, hit)
        if has_null:
            return pc.if_else(hit, False, null)
        return pc.if_else(f.is_null(), null, ~hit)
    if op == BETWEEN:
        lo, hi = lits
        if lo is None or hi is None:
            left = null if lo is None else f >= _lit(lo)
            right = null if hi is None else f <= _lit(hi)
            return left & right
        return (f >= _lit(lo)) & (f <= _lit(hi))
    v = lits[0]
    if v is None:
        return null
    if op == EQ:
        return f == _lit(v)
    if op == NE:
        return f != _lit(v)
    if op == LT:
        return f < _lit(v)
    if op == LE:
        return f <= _lit(v)
    if op == GT:
        return f > _lit(v)
    if op == GE:
        return f >= _lit(v)
    if op == STARTS_WITH:
        return pc.starts_with(f, pattern=v)
    if op == ENDS_WITH:
        return pc.ends_with(f, pattern=v)
    if op == CONTAINS:
        return pc.match_substring(f, pattern=v)
    return pc.match_like(f, pattern=v)


# ----------------------------------------------------------------------------------------------
# Statistics pruning
# ----------------------------------------------------------------------------------------------


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

    leaf: Leaf


_Node = Leaf | And | Or | _NotLeaf

_NEGATED = {
    EQ: NE,
    NE: EQ,
    LT: GE,
    LE: GT,
    GT: LE,
    GE: LT,
    IS_NULL: IS_NOT_NULL,
    IS_NOT_NULL: IS_NULL,
    IN: NOT_IN,
    NOT_IN: IN,
}


def _nnf(p: Predicate, negate: bool = False) -> _Node:
    """Negation normal form; valid in three-valued logic (De Morgan and ``NOT (x < v)`` =
    ``x >= v`` hold there, a NULL staying NULL)."""
    if isinstance(p, Not):
        return _nnf(p.child, not negate)
    if isinstance(p, (And, Or)):
        kids = tuple(_nnf(c, negate) for c in p.children)
        cls: type[And] | type[Or] = (Or if isinstance(p, And) else And) if negate else type(p)
        return cls(kids)  # type: ignore[arg-type]
    if not negate:
        return p
    if p.op in _NEGATED:
        return Leaf(_NEGATED[p.op], p.column, p.literals)
    if p.op == BETWEEN:
        lo, hi = p.literals
        return Or((Leaf(LT, p.column, (lo,)), Leaf(GT, p.column, (hi,))))
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
        res = fn(a, _lit(v))
    except _SAFE_ERRORS:
        return np.ones(len(a), dtype=bool)
    return np.asarray(res.fill_null(True).to_numpy(zero_copy_only=False), dtype=bool)


def _eq_exact(a: pa.Array, v: Any) -> np.ndarray:
    """``a == v`` per file, unknown -> False."""
    try:
        res = pc.equal(a, _lit(v))
    except _SAFE_ERRORS:
        return np.zeros(len(a), dtype=bool)
    return np.asarray(res.fill_null(False).to_numpy(zero_copy_only=False), dtype=bool)


def might_match(p: Predicate, stats: Mapping[str, ColumnStats], row_count: np.ndarray) -> np.ndarray:
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
    if isinstance(node, And):
        out = np.ones(n, dtype=bool)
        for c in node.children:
            out &= _might(c, column, n)  # type: ignore[arg-type]
        return out
    if isinstance(node, Or):
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
    return _might_leaf(node, col, n) & (col.has_null if node.op == IS_NULL else col.has_value)


def _might_leaf(leaf: Leaf, col: _Column, n: int) -> np.ndarray:
    op, lits = leaf.op, leaf.literals
    ones = np.ones(n, dtype=bool)
    if op in (IS_NULL, IS_NOT_NULL):
        return ones  # decided by the null counts alone
    if op == IN:
        return _might_in([v for v in lits if v is not None], col, n)
    if op == NOT_IN:
        if any(v is None for v in lits):
            return np.zeros(n, dtype=bool)  # x NOT IN (..., NULL) is never TRUE
        if col.floating:
            return ones  # NaN rows may hide behind the bounds
        return ~_single_value_in(col, lits)
    if any(v is None for v in lits):
        return np.zeros(n, dtype=bool)  # comparisons with NULL are never TRUE
    mn, mx = col.min, col.max
    if op == EQ:
        v = lits[0]
        return _cmp(pc.less_equal, mn, v) & _cmp(pc.greater_equal, mx, v)
    if op == NE:
        if col.floating:
            return ones
        v = lits[0]
        return ~(_eq_exact(mn, v) & _eq_exact(mx, v))
    if op == LT:
        return _cmp(pc.less, mn, lits[0])
    if op == LE:
        return _cmp(pc.less_equal, mn, lits[0])
    if op == GT:
        return _cmp(pc.greater, mx, lits[0])
    if op == GE:
        return _cmp(pc.greater_equal, mx, lits[0])
    if op == BETWEEN:
        lo, hi = lits
        return _cmp(pc.greater_equal, mx, lo) & _cmp(pc.less_equal, mn, hi)
    if op == STARTS_WITH:
        return _might_prefix(lits[0], col, n)
    if op == LIKE:
        return _might_prefix(_like_prefix(lits[0]), col, n)
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
        member = pc.is_in(mn, value_set=_value_set(values)).fill_null(False)
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
            lits = _value_set(values).cast(mn.type)  # safe cast: raises rather than loses data
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


# ----------------------------------------------------------------------------------------------
# LIKE patterns
# ----------------------------------------------------------------------------------------------


def _like_tokens(pattern: str, escape: str | None) -> list[tuple[bool, str]]:
    """(is_wildcard, char) pairs of a LIKE pattern."""
    out: list[tuple[bool, str]] = []
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if escape is not None and ch == escape:
            if i + 1 >= len(pattern):
                raise ValueError("the pattern ends with the escape character")
            out.append((False, pattern[i + 1]))
            i += 2
            continue
        out.append((ch in "%_", ch))
        i += 1
    return out


def _escape_like(s: str) -> str:
    return s.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _like_prefix(pattern: str) -> str:
    """The literal characters before the first wildcard of a LIKE pattern (escape ``\\``)."""
    try:
        tokens = _like_tokens(pattern, "\\")
    except ValueError:
        return ""
    prefix = []
    for wild, ch in tokens:
        if wild:
            break
        prefix.append(ch)
    return "".join(prefix)


def _like_leaf(column: str, pattern: str, escape: str | None) -> Leaf:
    """The simplest leaf for ``column LIKE pattern``."""
    tokens = _like_tokens(pattern, escape)
    wild = [w for w, _ in tokens]
    text = "".join(ch for _, ch in tokens)
    if not any(wild):
        return equal(column, text)
    if "_" not in [ch for w, ch in tokens if w]:
        lead = 0
        while lead < len(tokens) and tokens[lead][0]:
            lead += 1
        trail = len(tokens)
        while trail > lead and tokens[trail - 1][0]:
            trail -= 1
        middle = tokens[lead:trail]
        if not any(w for w, _ in middle):
            literal = "".join(ch for _, ch in middle)
            if lead == 0 or not literal:
                return starts_with(column, literal)
            if trail == len(tokens):
                return ends_with(column, literal)
            return contains(column, literal)
    canonical = "".join(ch if w else _escape_like(ch) for w, ch in tokens)
    return like(column, canonical)


# ----------------------------------------------------------------------------------------------
# SQL parsing
# ----------------------------------------------------------------------------------------------


def parse_predicate(sql: str, fields: Sequence[DataField]) -> Predicate:
    """Parse a SQL boolean expression (Spark dialect) over ``fields`` into a predicate.

    Supported: comparisons (either side may be the column), ``<=>``, ``[NOT] IN``,
    ``[NOT] BETWEEN``, ``IS [NOT] NULL``, ``IS [NOT] TRUE/FALSE``, ``[NOT] LIKE`` (with
    ``ESCAPE``), ``AND`` / ``OR`` / ``NOT``, parentheses, a bare BOOLEAN column. Literals are
    coerced to the column's type. Column names match case-sensitively first, then
    case-insensitively when that is unambiguous. Anything else raises ``ValidationError`` naming
    the expression and the original text.
    """
    if not isinstance(sql, str) or not sql.strip():
        raise ValidationError(f"Empty predicate {sql!r}")
    if _nesting_depth(sql) > MAX_PREDICATE_DEPTH:
        raise ValidationError(
            f"Predicate {sql[:60]!r}... nests parentheses deeper than {MAX_PREDICATE_DEPTH} levels"
        )
    try:
        trees = [t for t in sqlglot.parse(sql, dialect="spark") if t is not None]
        if len(trees) != 1:
            raise ValidationError(f"Predicate {sql!r} must be a single expression, found {len(trees)}")
        return _Parser(sql, fields).predicate(trees[0])
    except sqlglot.errors.SqlglotError as e:
        detail = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise ValidationError(f"Cannot parse predicate {sql!r}: {detail}") from None
    except RecursionError:
        raise ValidationError(f"Predicate {sql[:60]!r}... is nested too deeply") from None


MAX_PREDICATE_DEPTH = 200


def _nesting_depth(sql: str) -> int:
    """The deepest parenthesis nesting of ``sql`` outside string literals (cheap, before parsing)."""
    depth = deepest = 0
    quote: str | None = None
    for c in sql:
        if quote is not None:
            if c == quote:
                quote = None
        elif c in "'\"`":
            quote = c
        elif c == "(":
            depth += 1
            deepest = max(deepest, depth)
        elif c == ")":
            depth -= 1
    return deepest


_INT_RANGES: dict[type, tuple[int, int]] = {
    TinyIntType: (-(2**7), 2**7 - 1),
    SmallIntType: (-(2**15), 2**15 - 1),
    IntType: (-(2**31), 2**31 - 1),
    BigIntType: (-(2**63), 2**63 - 1),
}

_TS_RE = re.compile(
    r"(\d{4})-(\d{1,2})-(\d{1,2})"
    r"(?:[ T](\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?"
    r"\s*(Z|[+-]\d{2}:?\d{2})?"
)
_TIME_RE = re.compile(r"(\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?")

_TEMPORAL_CASTS = {
    exp.DataType.Type.DATE: "date",
    exp.DataType.Type.TIMESTAMP: "timestamp",
    exp.DataType.Type.TIMESTAMPTZ: "timestamp",
    exp.DataType.Type.TIMESTAMPLTZ: "timestamp",
    exp.DataType.Type.TIMESTAMPNTZ: "timestamp",
    exp.DataType.Type.DATETIME: "timestamp",
    exp.DataType.Type.TIME: "time",
}


@dataclass(frozen=True)
class _Raw:
    """A literal before coercion: kind is null, bool, number (text), string, binary, date,
    timestamp (text) or time (text)."""

    kind: str
    value: Any
    sql: str


# sqlglot's node base class moved between versions (Expression / Expr): annotate loosely.
_SqlNode = Any


class _Parser:
    def __init__(self, text: str, fields: Sequence[DataField]) -> None:
        self.text = text
        self.fields = list(fields)

    # --- errors ---------------------------------------------------------------------------
    def error(self, detail: str) -> ValidationError:
        return ValidationError(f"{detail} (in predicate {self.text!r})")

    def unsupported(self, node: _SqlNode, why: str) -> ValidationError:
        return self.error(f"Unsupported expression {node.sql(dialect='spark')!r}: {why}")

    # --- predicates -----------------------------------------------------------------------
    def predicate(self, node: _SqlNode) -> Predicate:
        if isinstance(node, exp.Paren):
            return self.predicate(node.this)
        if isinstance(node, exp.And):
            return and_(self.predicate(node.left), self.predicate(node.right))
        if isinstance(node, exp.Or):
            return or_(self.predicate(node.left), self.predicate(node.right))
        if isinstance(node, exp.Not):
            return self.negated(node.this)
        if isinstance(node, (exp.EQ, exp.NEQ, exp.LT, exp.LTE, exp.GT, exp.GTE, exp.NullSafeEQ)):
            return self.comparison(node)
        if isinstance(node, exp.Is):
            return self.is_(node)
        if isinstance(node, exp.In):
            p = self.in_(node)
            return not_(p) if node.args.get("negate") else p
        if isinstance(node, exp.Between):
            p = self.between(node)
            return not_(p) if node.args.get("negate") else p
        if isinstance(node, (exp.Like, exp.Escape)):
            return self.like(node)
        if isinstance(node, exp.Column):
            f = self.field(node)
            if not isinstance(f.type, BooleanType):
                raise self.unsupported(node, f"column {f.name!r} is {f.type} and not a BOOLEAN condition")
            return equal(f.name, True)
        if isinstance(node, (exp.ILike, exp.RegexpLike)):
            raise self.unsupported(node, "only LIKE is supported (not ILIKE / RLIKE)")
        if isinstance(node, (exp.Subquery, exp.Select, exp.Exists)):
            raise self.unsupported(node, "subqueries are not supported")
        if isinstance(node, exp.Alias):
            raise self.error(f"Unexpected text after {node.this.sql(dialect='spark')!r}")
        if isinstance(node, (exp.Func, exp.Anonymous)):
            raise self.unsupported(node, "function calls are not supported")
        if isinstance(node, exp.Binary):
            raise self.unsupported(node, "only comparisons of a column with literals are supported")
        raise self.unsupported(node, "not a condition on a column")

    def negated(self, inner: _SqlNode) -> Predicate:
        while isinstance(inner, exp.Paren):
            inner = inner.this
        if isinstance(inner, exp.Is) and isinstance(inner.expression, exp.Null):
            return is_not_null(self.field(self.column_node(inner.this, inner)).name)
        p = self.predicate(inner)
        if isinstance(p, Leaf) and p.op == IN:
            return Leaf(NOT_IN, p.column, p.literals)
        return not_(p)

    def comparison(self, node: _SqlNode) -> Predicate:
        left, right = node.left, node.right
        lcol, rcol = self.is_column(left), self.is_column(right)
        if lcol and rcol:
            raise self.unsupported(node, "comparing two columns is not supported")
        if not lcol and not rcol:
            for side in (left, right):
                if side.find(exp.Column) is not None:
                    if isinstance(side, (exp.Func, exp.Anonymous)):
                        raise self.unsupported(node, "function calls are not supported")
                    raise self.unsupported(node, "only comparisons of a column with literals are supported")
            raise self.unsupported(node, "a comparison needs a column on one side")
        col_node, lit_node = (left, right) if lcol else (right, left)
        f = self.field(col_node)
        self.check_comparable(f, node)
        value = self.literal(lit_node, f, node)
        if isinstance(node, exp.NullSafeEQ):
            if value is None:
                return is_null(f.name)
            return and_(is_not_null(f.name), equal(f.name, value))
        op = {exp.EQ: EQ, exp.NEQ: NE, exp.LT: LT, exp.LTE: LE, exp.GT: GT, exp.GTE: GE}[type(node)]
        if not lcol:
            op = {EQ: EQ, NE: NE, LT: GT, LE: GE, GT: LT, GE: LE}[op]
        return Leaf(op, f.name, (value,))

    def is_(self, node: exp.Is) -> Predicate:
        f = self.field(self.column_node(node.this, node))
        target = node.expression
        if isinstance(target, exp.Null):
            return is_null(f.name)
        if isinstance(target, exp.Boolean):
            if not isinstance(f.type, BooleanType):
                raise self.unsupported(node, f"column {f.name!r} is {f.type}, not BOOLEAN")
            # x IS TRUE is never NULL: TRUE exactly when x is TRUE
            return and_(is_not_null(f.name), equal(f.name, bool(target.this)))
        raise self.unsupported(node, "IS takes NULL, TRUE or FALSE")

    def in_(self, node: exp.In) -> Predicate:
        if node.args.get("query") is not None or node.args.get("unnest") is not None:
            raise self.unsupported(node, "IN takes a list of literals (no subqueries)")
        if node.args.get("field") is not None:
            raise self.unsupported(node, "IN takes a list of literals")
        f = self.field(self.column_node(node.this, node))
        self.check_comparable(f, node)
        items = node.expressions
        if not items:
            raise self.unsupported(node, "IN needs at least one value")
        return is_in(f.name, [self.literal(e, f, node) for e in items])

    def between(self, node: exp.Between) -> Predicate:
        f = self.field(self.column_node(node.this, node))
        self.check_comparable(f, node)
        lo = self.literal(node.args["low"], f, node)
        hi = self.literal(node.args["high"], f, node)
        return between(f.name, lo, hi)

    def like(self, node: _SqlNode) -> Predicate:
        escape: str | None = "\\"
        like_node = node
        if isinstance(node, exp.Escape):
            like_node = node.this
            esc = self.raw(node.expression, node)
            if esc.kind != "string" or len(esc.value) != 1:
                raise self.unsupported(node, "ESCAPE takes a single character")
            escape = esc.value
        if not isinstance(like_node, exp.Like):
            raise self.unsupported(node, "ESCAPE goes with LIKE only")
        f = self.field(self.column_node(like_node.this, like_node))
        if not isinstance(f.type, (CharType, VarCharType)):
            raise self.unsupported(node, f"LIKE needs a string column, {f.name!r} is {f.type}")
        pat = self.raw(like_node.expression, like_node)
        if pat.kind == "null":
            p: Predicate = Leaf(LIKE, f.name, (None,))
        elif pat.kind != "string":
            raise self.unsupported(node, "LIKE takes a string pattern")
        else:
            try:
                p = _like_leaf(f.name, pat.value, escape)
            except ValueError as e:
                raise self.unsupported(node, f"bad LIKE pattern: {e}") from None
        return not_(p) if like_node.args.get("negate") else p

    # --- columns --------------------------------------------------------------------------
    @staticmethod
    def is_column(node: _SqlNode) -> bool:
        while isinstance(node, exp.Paren):
            node = node.this
        return isinstance(node, exp.Column)

    def column_node(self, node: _SqlNode, parent: _SqlNode) -> exp.Column:
        while isinstance(node, exp.Paren):
            node = node.this
        if not isinstance(node, exp.Column):
            raise self.unsupported(parent, f"{node.sql(dialect='spark')!r} is not a column")
        return node

    def field(self, node: _SqlNode) -> DataField:
        node = self.column_node(node, node)
        if isinstance(node.this, exp.Star):
            raise self.unsupported(node, "* is not a column")
        if node.args.get("table") is not None:
            raise self.unsupported(node, "qualified column names are not supported (quote names with dots)")
        name = node.name
        exact = [f for f in self.fields if f.name == name]
        if exact:
            return exact[0]
        folded = [f for f in self.fields if f.name.lower() == name.lower()]
        if len(folded) == 1:
            return folded[0]
        if len(folded) > 1:
            names = ", ".join(repr(f.name) for f in folded)
            raise self.error(f"Column {name!r} is ambiguous: it matches {names}")
        known = ", ".join(f.name for f in self.fields)
        raise self.error(f"Unknown column {name!r} (columns: {known})")

    def check_comparable(self, f: DataField, node: _SqlNode) -> None:
        t = f.type
        if not isinstance(
            t,
            (
                BooleanType,
                TinyIntType,
                SmallIntType,
                IntType,
                BigIntType,
                FloatType,
                DoubleType,
                DecimalType,
                CharType,
                VarCharType,
                BinaryType,
                VarBinaryType,
                DateType,
                TimeType,
                TimestampType,
                LocalZonedTimestampType,
            ),
        ):
            raise self.unsupported(node, f"column {f.name!r} is {t}; only IS [NOT] NULL applies to it")

    # --- literals -------------------------------------------------------------------------
    def raw(self, node: _SqlNode, parent: _SqlNode) -> _Raw:
        sql = node.sql(dialect="spark")
        if isinstance(node, exp.Paren):
            return self.raw(node.this, parent)
        if isinstance(node, exp.Null):
            return _Raw("null", None, sql)
        if isinstance(node, exp.Boolean):
            return _Raw("bool", bool(node.this), sql)
        if isinstance(node, exp.Literal):
            if node.is_string:
                return _Raw("string", node.this, sql)
            return _Raw("number", str(node.this), sql)
        if isinstance(node, exp.Neg):
            inner = self.raw(node.this, parent)
            if inner.kind != "number":
                raise self.unsupported(parent, f"cannot negate {inner.sql}")
            text = inner.value[1:] if inner.value.startswith("-") else "-" + inner.value
            return _Raw("number", text, sql)
        if isinstance(node, exp.Concat) and all(
            isinstance(e, exp.Literal) and e.is_string for e in node.expressions
        ):
            # Spark joins adjacent string literals: 'a' 'b' is 'ab'
            return _Raw("string", "".join(e.this for e in node.expressions), sql)
        if isinstance(node, exp.HexString):
            try:
                return _Raw("binary", bytes.fromhex(node.this), sql)
            except ValueError:
                raise self.unsupported(parent, f"bad hex literal {sql}") from None
        if isinstance(node, (exp.Cast, exp.TryCast)):
            inner = self.raw(node.this, parent)
            to = node.to
            if inner.kind == "null":
                return inner
            if to.this in _TEMPORAL_CASTS:
                if inner.kind not in ("string", "date", "timestamp", "time"):
                    raise self.unsupported(parent, f"cannot cast {inner.sql} to {to.sql(dialect='spark')}")
                return _Raw(_TEMPORAL_CASTS[to.this], inner.value, sql)
            if to.is_type(*exp.DataType.TEXT_TYPES):
                if inner.kind in ("string", "number"):
                    return _Raw("string", str(inner.value), sql)
            elif to.is_type(*exp.DataType.NUMERIC_TYPES):
                if inner.kind in ("number", "string"):
                    return _Raw("number", str(inner.value).strip(), sql)
            elif to.is_type(exp.DataType.Type.BOOLEAN):
                if inner.kind == "bool":
                    return inner
                if inner.kind == "string" and inner.value.strip().lower() in ("true", "false"):
                    return _Raw("bool", inner.value.strip().lower() == "true", sql)
            elif to.is_type(exp.DataType.Type.BINARY, exp.DataType.Type.VARBINARY):
                if inner.kind in ("binary", "string"):
                    return inner
            raise self.unsupported(parent, f"cannot cast {inner.sql} to {to.sql(dialect='spark')}")
        if isinstance(node, exp.Column):
            raise self.unsupported(parent, "comparing two columns is not supported")
        if isinstance(node, (exp.Func, exp.Anonymous)):
            raise self.unsupported(parent, f"{sql!r} is a function call, not a literal")
        raise self.unsupported(parent, f"{sql!r} is not a literal")

    def literal(self, node: _SqlNode, f: DataField, parent: _SqlNode) -> Any:
        raw = self.raw(node, parent)
        if raw.kind == "null":
            return None
        try:
            return _coerce(raw, f.type)
        except _CoerceError as e:
            raise self.error(
                f"Literal {raw.sql} cannot be used with column {f.name!r} of type {f.type}: {e}"
            ) from None


class _CoerceError(Exception):
    """A literal that cannot take the column's type (turned into a ValidationError by the caller)."""


def _parse_decimal(text: str) -> Decimal:
    try:
        d = Decimal(text.strip())
    except InvalidOperation:
        raise _CoerceError("not a number") from None
    if not d.is_finite():
        raise _CoerceError("not a finite number")
    return d


def _coerce(raw: _Raw, t: DataType) -> Any:
    kind, v = raw.kind, raw.value
    if isinstance(t, BooleanType):
        if kind == "bool":
            return v
        if kind == "string" and v.strip().lower() in ("true", "false"):
            return v.strip().lower() == "true"
        raise _CoerceError("expected TRUE or FALSE")
    int_range = _INT_RANGES.get(type(t))
    if int_range is not None:
        if kind not in ("number", "string"):
            raise _CoerceError("expected an integer")
        d = _parse_decimal(v)
        if d != d.to_integral_value():
            raise _CoerceError("not an integer")
        i = int(d)
        if not int_range[0] <= i <= int_range[1]:
            raise _CoerceError(f"out of range [{int_range[0]}, {int_range[1]}]")
        return i
    if isinstance(t, (FloatType, DoubleType)):
        if kind not in ("number", "string"):
            raise _CoerceError("expected a number")
        text = v.strip()
        try:
            x = float(text)
        except ValueError:
            raise _CoerceError("not a number") from None
        if isinstance(t, FloatType):
            with np.errstate(over="ignore"):
                x = float(np.float32(x))
        return x
    if isinstance(t, DecimalType):
        if kind not in ("number", "string"):
            raise _CoerceError("expected a number")
        d = _parse_decimal(v)
        if len(d.as_tuple().digits) > 38:
            raise _CoerceError("more than 38 digits")
        return d
    if isinstance(t, (CharType, VarCharType)):
        if kind != "string":
            raise _CoerceError("expected a string literal")
        return v
    if isinstance(t, (BinaryType, VarBinaryType)):
        if kind == "binary":
            return v
        if kind == "string":
            return v.encode("utf-8")
        raise _CoerceError("expected a binary (X'..') or string literal")
    if isinstance(t, DateType):
        if kind in ("string", "date"):
            m = _TS_RE.fullmatch(v.strip())
            if m and m.group(4) is None and m.group(8) is None:
                try:
                    return _dt.date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
                except ValueError as e:
                    raise _CoerceError(str(e)) from None
        raise _CoerceError("expected a date 'yyyy-mm-dd'")
    if isinstance(t, TimeType):
        if kind in ("string", "time"):
            m = _TIME_RE.fullmatch(v.strip())
            if m:
                micros = _fraction_micros(m.group(4))
                try:
                    return _dt.time(int(m.group(1)), int(m.group(2)), int(m.group(3) or 0), micros)
                except ValueError as e:
                    raise _CoerceError(str(e)) from None
        raise _CoerceError("expected a time 'hh:mm:ss[.fff]'")
    if isinstance(t, (TimestampType, LocalZonedTimestampType)):
        if kind in ("string", "timestamp", "date"):
            return _parse_timestamp(v.strip(), local_zoned=isinstance(t, LocalZonedTimestampType))
        raise _CoerceError("expected a timestamp 'yyyy-mm-dd hh:mm:ss[.ffffff]'")
    raise _CoerceError("comparisons on this type are not supported")


def _fraction_micros(frac: str | None) -> int:
    if not frac:
        return 0
    if len(frac) > 6 and int(frac[6:]) != 0:
        raise _CoerceError("sub-microsecond precision is not supported in literals")
    return int(frac[:6].ljust(6, "0"))


def _parse_timestamp(text: str, local_zoned: bool) -> _dt.datetime:
    m = _TS_RE.fullmatch(text)
    if not m:
        raise _CoerceError("expected a timestamp 'yyyy-mm-dd hh:mm:ss[.ffffff]'")
    year, month, day, hh, mm, ss, frac, zone = m.groups()
    try:
        value = _dt.datetime(
            int(year), int(month), int(day), int(hh or 0), int(mm or 0), int(ss or 0), _fraction_micros(frac)
        )
    except ValueError as e:
        raise _CoerceError(str(e)) from None
    if zone is not None:
        if not local_zoned:
            raise _CoerceError("a TIMESTAMP column takes a local date-time without a time zone")
        if zone == "Z":
            offset = _dt.timedelta(0)
        else:
            digits = zone[1:].replace(":", "")
            offset = _dt.timedelta(hours=int(digits[:2]), minutes=int(digits[2:]))
            if zone[0] == "-":
                offset = -offset
        return (value - offset).replace(tzinfo=_dt.timezone.utc)
    if local_zoned:
        # paimon_sql's session time zone is UTC
        return value.replace(tzinfo=_dt.timezone.utc)
    return value
