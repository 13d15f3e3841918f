"""The predicate tree: ``Leaf`` (one column compared with literals), ``And``, ``Or`` and ``Not``,
their operators, their SQL rendering (``str(p)``) and walks over the tree
(``referenced_columns``, ``rename_columns``, ``split_and``, ``partition_only``)."""

from __future__ import annotations

import datetime as _dt
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from paimon_sql.errors import ValidationError
from paimon_sql.predicate.like_pattern import escape_like

# the deepest parenthesis nesting ``parse_predicate`` accepts (deeper text is refused before parsing)
MAX_PREDICATE_DEPTH = 200

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
            pattern = escape_like(v) + "%"
        elif self.op == ENDS_WITH:
            pattern = "%" + escape_like(v)
        elif self.op == CONTAINS:
            pattern = "%" + escape_like(v) + "%"
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
    if not kept:
        return None
    return kept[0] if len(kept) == 1 else And(tuple(kept))  # split_and left no And to flatten

