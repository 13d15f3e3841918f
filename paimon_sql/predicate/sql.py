"""``parse_predicate``: SQL text (Spark dialect, via sqlglot) against a table's fields into a
predicate, literals coerced to the column types."""

from __future__ import annotations

import datetime as _dt
import re
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

import numpy as np
import sqlglot
from sqlglot import exp

from paimon_sql import types as pt
from paimon_sql.errors import ValidationError
from paimon_sql.predicate.builders import (
    and_,
    between,
    equal,
    is_in,
    is_not_null,
    is_null,
    like_leaf,
    not_,
    or_,
)
from paimon_sql.predicate.tree import (
    EQ,
    GE,
    GT,
    IN,
    LE,
    LIKE,
    LT,
    MAX_PREDICATE_DEPTH,
    NE,
    NOT_IN,
    Leaf,
    Predicate,
)
from paimon_sql.types import DataField, DataType, DefaultTypeVisitor


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


_COMPARABLE_FAMILIES = ("NUMERIC", "CHARACTER_STRING", "BINARY_STRING", "DATETIME")
"""Type families (with BOOLEAN) whose columns take literal comparisons; the others only IS [NOT] NULL."""

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
            if f.type.root != "BOOLEAN":
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
            if f.type.root != "BOOLEAN":
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
        if not f.type.is_family("CHARACTER_STRING"):
            raise self.unsupported(node, f"LIKE needs a string column, {f.name!r} is {f.type}")
        pat = self.raw(like_node.expression, like_node)
        if pat.kind == "null":
            p: Predicate = Leaf(LIKE, f.name, (None,))
        elif pat.kind != "string":
            raise self.unsupported(node, "LIKE takes a string pattern")
        else:
            try:
                p = like_leaf(f.name, pat.value, escape)
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
        if t.root != "BOOLEAN" and not any(t.is_family(fam) for fam in _COMPARABLE_FAMILIES):
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
    return t.accept(_Coerce(raw))


class _Coerce(DefaultTypeVisitor[Any]):
    """A non-null literal as a value of the visited column type (``_CoerceError`` when it cannot be)."""

    def __init__(self, raw: _Raw) -> None:
        self.kind: str = raw.kind
        self.value: Any = raw.value

    def default(self, t: DataType) -> Any:
        raise _CoerceError("comparisons on this type are not supported")

    def visit_boolean(self, t: pt.BooleanType) -> Any:
        kind, v = self.kind, self.value
        if kind == "bool":
            return v
        if kind == "string" and v.strip().lower() in ("true", "false"):
            return v.strip().lower() == "true"
        raise _CoerceError("expected TRUE or FALSE")

    def integer(self, bits: int) -> int:
        lo, hi = -(2 ** (bits - 1)), 2 ** (bits - 1) - 1
        if self.kind not in ("number", "string"):
            raise _CoerceError("expected an integer")
        d = _parse_decimal(self.value)
        if d != d.to_integral_value():
            raise _CoerceError("not an integer")
        i = int(d)
        if not lo <= i <= hi:
            raise _CoerceError(f"out of range [{lo}, {hi}]")
        return i

    def visit_tinyint(self, t: pt.TinyIntType) -> Any:
        return self.integer(8)

    def visit_smallint(self, t: pt.SmallIntType) -> Any:
        return self.integer(16)

    def visit_int(self, t: pt.IntType) -> Any:
        return self.integer(32)

    def visit_bigint(self, t: pt.BigIntType) -> Any:
        return self.integer(64)

    def floating(self) -> float:
        if self.kind not in ("number", "string"):
            raise _CoerceError("expected a number")
        try:
            return float(self.value.strip())
        except ValueError:
            raise _CoerceError("not a number") from None

    def visit_float(self, t: pt.FloatType) -> Any:
        x = self.floating()
        with np.errstate(over="ignore"):
            return float(np.float32(x))

    def visit_double(self, t: pt.DoubleType) -> Any:
        return self.floating()

    def visit_decimal(self, t: pt.DecimalType) -> Any:
        if self.kind not in ("number", "string"):
            raise _CoerceError("expected a number")
        d = _parse_decimal(self.value)
        if len(d.as_tuple().digits) > 38:
            raise _CoerceError("more than 38 digits")
        return d

    def string(self) -> str:
        if self.kind != "string":
            raise _CoerceError("expected a string literal")
        return str(self.value)

    def visit_char(self, t: pt.CharType) -> Any:
        return self.string()

    def visit_varchar(self, t: pt.VarCharType) -> Any:
        return self.string()

    def binary(self) -> bytes:
        if self.kind == "binary":
            return bytes(self.value)
        if self.kind == "string":
            return str(self.value).encode("utf-8")
        raise _CoerceError("expected a binary (X'..') or string literal")

    def visit_binary(self, t: pt.BinaryType) -> Any:
        return self.binary()

    def visit_varbinary(self, t: pt.VarBinaryType) -> Any:
        return self.binary()

    def visit_date(self, t: pt.DateType) -> Any:
        if self.kind in ("string", "date"):
            m = _TS_RE.fullmatch(self.value.strip())
            if m and m.group(4) is None and m.group(8) is None:
                try:
                    return _dt.date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
                except ValueError as e:
                    raise _CoerceError(str(e)) from None
        raise _CoerceError("expected a date 'yyyy-mm-dd'")

    def visit_time(self, t: pt.TimeType) -> Any:
        if self.kind in ("string", "time"):
            m = _TIME_RE.fullmatch(self.value.strip())
            if m:
                micros = _fraction_micros(m.group(4))
                try:
                    return _dt.time(int(m.group(1)), int(m.group(2)), int(m.group(3) or 0), micros)
                except ValueError as e:
                    raise _CoerceError(str(e)) from None
        raise _CoerceError("expected a time 'hh:mm:ss[.fff]'")

    def timestamp(self, local_zoned: bool) -> _dt.datetime:
        if self.kind in ("string", "timestamp", "date"):
            return _parse_timestamp(self.value.strip(), local_zoned=local_zoned)
        raise _CoerceError("expected a timestamp 'yyyy-mm-dd hh:mm:ss[.ffffff]'")

    def visit_timestamp(self, t: pt.TimestampType) -> Any:
        return self.timestamp(local_zoned=False)

    def visit_local_zoned_timestamp(self, t: pt.LocalZonedTimestampType) -> Any:
        return self.timestamp(local_zoned=True)


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
