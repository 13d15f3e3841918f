"""A plain row-at-a-time model of Apache Paimon's aggregation merge engine, for tests.

It follows Paimon's Java classes one call at a time: ``ReducerMergeFunctionWrapper`` (a key with one
record keeps it unchanged), ``AggregateMergeFunction`` (agg for +I/+U, retract for -U/-D, a -D under
``aggregation.remove-record-on-delete`` replaces the row) and the ``FieldAggregator`` of every function
(Java integer overflow raises, float arithmetic in the column's width, decimals as exact numbers).
Nothing here is shared with the engine's vectorised code.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal, localcontext
from typing import Any

import numpy as np


class ModelError(Exception):
    """Paimon would raise; ``kind`` is "unsupported" (retraction) or "arithmetic"."""

    def __init__(self, kind: str) -> None:
        super().__init__(kind)
        self.kind = kind


@dataclass
class Col:
    """One value column: name, Paimon function, value kind and options."""

    name: str
    function: str
    kind: str  # int8 int16 int32 int64 float32 float64 decimal bool string other
    precision: int = 0
    scale: int = 0
    ignore_retract: bool = False
    delimiter: str = ","
    distinct: bool = False
    state: dict[str, Any] = field(default_factory=dict)


_BITS = {"int8": 8, "int16": 16, "int32": 32, "int64": 64}

_JAVA_WS = set("\t\n\x0b\f\r\x1c\x1d\x1e\x1f \u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2008\u2009\u200a"
               "\u2028\u2029\u205f\u3000")


def is_blank(s: str) -> bool:
    return all(c in _JAVA_WS for c in s)


def _split(s: str, sep: str) -> list[str]:
    if s == "":
        return []
    if sep == "":
        sep = " "
    return s.split(sep)


def _check_int(c: Col, v: int) -> int:
    bits = _BITS[c.kind]
    if not -(1 << (bits - 1)) <= v < (1 << (bits - 1)):
        raise ModelError("arithmetic")
    return v


def _fop(c: Col, a: float, b: float, op: str) -> float:
    t = np.float32 if c.kind == "float32" else np.float64
    with np.errstate(all="ignore"):
        x, y = t(a), t(b)
        r = x + y if op == "+" else x - y if op == "-" else x * y if op == "*" else x / y
    return float(r)


def _dec_fit(c: Col, v: Decimal, compact_unchecked: bool) -> Decimal | None:
    with localcontext() as ctx:
        ctx.prec = 200
        v = v.quantize(Decimal(1).scaleb(-c.scale), rounding=ROUND_HALF_UP)
    if compact_unchecked:
        return v
    # BigDecimal.precision() of the rescaled value: the digits of its unscaled value
    unscaled = abs(int(v.scaleb(c.scale)))
    digits = len(str(unscaled)) if unscaled else 1
    return v if digits <= c.precision else None


def _dec_add(c: Col, a: Decimal, b: Decimal, sub: bool) -> Decimal | None:
    with localcontext() as ctx:
        ctx.prec = 200
        r = a - b if sub else a + b
    compact = c.precision <= 18
    if compact:
        ua, ub = int(a.scaleb(c.scale)), int(b.scaleb(c.scale))
        ur = ua - ub if sub else ua + ub
        if -(1 << 63) <= ur < (1 << 63):
            return r  # Math.addExact fits: Decimal.fromUnscaledLong, no precision check
    return _dec_fit(c, r, False)


def agg(c: Col, acc: Any, x: Any) -> Any:
    f = c.function
    if f in ("last_value", "primary-key"):
        return x
    if f == "last_non_null_value":
        return acc if x is None else x
    if f == "first_value":
        if not c.state.get("init"):
            c.state["init"] = True
            return x
        return acc
    if f in ("first_non_null_value", "first_not_null_value"):
        if not c.state.get("init") and x is not None:
            c.state["init"] = True
            return x
        return acc
    if f in ("sum", "product", "max", "min", "bool_and", "bool_or"):
        if acc is None or x is None:
            return x if acc is None else acc
        if f == "sum":
            if c.kind in _BITS:
                return _check_int(c, acc + x)
            if c.kind == "decimal":
                return _dec_add(c, acc, x, False)
            return _fop(c, acc, x, "+")
        if f == "product":
            if c.kind in _BITS:
                return _check_int(c, acc * x)
            if c.kind == "decimal":
                with localcontext() as ctx:
                    ctx.prec = 200
                    return _dec_fit(c, acc * x, False)
            return _fop(c, acc, x, "*")
        if f in ("max", "min"):
            ka, kx = _order(c, acc), _order(c, x)
            if f == "max":
                return x if ka < kx else acc
            return acc if ka < kx else x
        if f == "bool_and":
            return acc and x
        return acc or x
    if f == "listagg":
        if x is None or is_blank(x):
            return acc
        if acc is None or is_blank(acc):
            return x
        if not c.distinct:
            return acc + c.delimiter + x
        existing = set(_split(acc, c.delimiter))
        out = acc
        for tok in _split(x, c.delimiter):
            if is_blank(tok) or tok in existing:
                continue
            existing.add(tok)
            out += c.delimiter + tok
        return out
    raise AssertionError(f)


def _order(c: Col, v: Any) -> Any:
    if c.kind in ("float32", "float64"):
        # Float.compare / Double.compare
        if math.isnan(v):
            return (2, 0.0)
        if v == 0:
            return (1, 0.0, math.copysign(1, v))
        return (1, v, 0)
    if c.kind == "string":
        return v.encode()
    return v


def retract(c: Col, acc: Any, x: Any) -> Any:
    if c.ignore_retract:
        return acc
    f = c.function
    if f == "primary-key":
        return x
    if f == "last_value":
        return None
    if f == "last_non_null_value":
        return None if x is not None else acc
    if f == "sum":
        if acc is None or x is None:
            if acc is not None:
                return acc
            if x is None:
                return None
            if c.kind in _BITS:
                return _check_int(c, -x)
            if c.kind == "decimal":
                return _dec_add(c, Decimal(0).scaleb(-c.scale), x, True)
            return _fop(c, -0.0, x, "-")
        if c.kind in _BITS:
            return _check_int(c, acc - x)
        if c.kind == "decimal":
            return _dec_add(c, acc, x, True)
        return _fop(c, acc, x, "-")
    if f == "product":
        if acc is None or x is None:
            return acc
        if c.kind in _BITS:
            if x == 0:
                raise ModelError("arithmetic")
            q = abs(acc) // abs(x)
            return _check_int(c, q if (acc >= 0) == (x > 0) else -q)
        if c.kind == "decimal":
            raise AssertionError("decimal product retraction is not modelled")
        return _fop(c, acc, x, "/")
    raise ModelError("unsupported")


def merge_key(rows: Sequence[tuple[int, list[Any]]], cols: Sequence[Col], remove_on_delete: bool) -> tuple[int, list[Any]]:
    """(row kind, values) of one key's records in sequence order, as Paimon merges them."""
    if len(rows) == 1:
        return rows[0][0], list(rows[0][1])
    for c in cols:
        c.state.clear()
    acc: list[Any] = [None] * len(cols)
    deleted = False
    for kind, values in rows:
        deleted = remove_on_delete and kind == 3
        if deleted:
            acc = list(values)
            continue
        is_retract = kind in (1, 3)
        for i, c in enumerate(cols):
            acc[i] = retract(c, acc[i], values[i]) if is_retract else agg(c, acc[i], values[i])
    return (3 if deleted else 0), acc


def merge(records: Sequence[tuple[Any, int, list[Any]]], cols: Sequence[Col], remove_on_delete: bool
          ) -> dict[Any, tuple[int, list[Any]]]:
    """Merges (key, kind, values) records given in sequence order: key -> (kind, values)."""
    by_key: dict[Any, list[tuple[int, list[Any]]]] = {}
    for key, kind, values in records:
        by_key.setdefault(key, []).append((kind, values))
    return {k: merge_key(rs, cols, remove_on_delete) for k, rs in by_key.items()}


def visible(merged: dict[Any, tuple[int, list[Any]]]) -> dict[Any, list[Any]]:
    """What a read returns: retractions dropped."""
    return {k: v for k, (kind, v) in merged.items() if kind in (0, 2)}


def canon(v: Any) -> Any:
    """NaN-equal, -0.0-distinct comparison form of a value."""
    if isinstance(v, float):
        if math.isnan(v):
            return "NaN"
        return (v, math.copysign(1, v))
    if isinstance(v, Decimal):
        return str(v)
    return v


# --------------------------------------------------------------------------------------------------
# partial-update with sequence groups (PartialUpdateMergeFunction.updateWithSequenceGroup /
# retractWithSequenceGroup), behind the ReducerMergeFunctionWrapper


@dataclass
class Group:
    sequence_fields: list[str]
    fields: list[str]


def _compare(a: list[Any], b: list[Any], idx: list[int]) -> int:
    for i in idx:
        x, y = a[i], b[i]
        if x is None and y is None:
            continue
        if x is None:
            return -1
        if y is None:
            return 1
        if x != y:
            return -1 if x < y else 1
    return 0


def partial_update_key(rows: Sequence[tuple[int, list[Any]]], names: Sequence[str], groups: Sequence[Group],
                       aggs: dict[str, Col], primary_keys: Sequence[str], ignore_delete: bool,
                       remove_on: Sequence[str] = ()) -> tuple[int, list[Any]]:
    """``remove_on``: partial-update.remove-record-on-sequence-group (sequence fields)."""
    if len(rows) == 1:
        return rows[0][0], list(rows[0][1])
    pos = {n: i for i, n in enumerate(names)}
    group_of: dict[str, list[int]] = {}
    for g in groups:
        seq_idx = [pos[s] for s in g.sequence_fields]
        for f in (*g.fields, *g.sequence_fields):
            group_of[f] = seq_idx
    for c in aggs.values():
        c.state.clear()
    row: list[Any] = [None] * len(names)
    filled = meet_insert = deleted = False
    for kind, values in rows:
        deleted = False
        if kind in (1, 3):
            if not filled:
                row, filled = list(values), True
            if ignore_delete:
                continue
            processed = [False] * len(names)
            for i, name in enumerate(names):
                seq_idx = group_of.get(name)
                if seq_idx is None or processed[i]:
                    continue
                if all(values[j] is None for j in seq_idx):
                    for j in seq_idx:
                        processed[j] = True
                    continue
                c = aggs.get(name)
                if _compare(values, row, seq_idx) >= 0:
                    if i in seq_idx:
                        for j in seq_idx:
                            if kind == 3 and names[j] in remove_on:
                                row, deleted = list(values), True
                                break
                            row[j] = values[j]
                            processed[j] = True
                        if deleted:
                            break
                    else:
                        row[i] = None if c is None else retract(c, row[i], values[i])
                elif c is not None:
                    row[i] = retract(c, row[i], values[i])
            continue
        processed = [False] * len(names)
        for i, name in enumerate(names):
            seq_idx = group_of.get(name)
            c = aggs.get(name)
            if seq_idx is not None:
                if processed[i]:
                    continue
                if all(values[j] is None for j in seq_idx):
                    for j in seq_idx:
                        processed[j] = True
                    continue
                if _compare(values, row, seq_idx) >= 0:
                    if i in seq_idx:
                        for j in seq_idx:
                            row[j] = values[j]
                            processed[j] = True
                        continue
                    row[i] = values[i] if c is None else agg(c, row[i], values[i])
                elif c is not None:
                    row[i] = agg(c, values[i], row[i])  # aggReversed
            elif name in primary_keys or values[i] is not None:
                row[i] = values[i]
        meet_insert = filled = True
    return (0 if meet_insert and not deleted else 3), row
