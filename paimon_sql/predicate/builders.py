"""Builders of predicates: one function per leaf operator, ``and_`` / ``or_`` / ``not_``, and
``like_leaf`` (the simplest leaf for a LIKE pattern)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from paimon_sql.errors import ValidationError
from paimon_sql.predicate.like_pattern import escape_like, like_tokens
from paimon_sql.predicate.tree import (
    BETWEEN,
    CONTAINS,
    ENDS_WITH,
    EQ,
    GE,
    GT,
    IN,
    IS_NOT_NULL,
    IS_NULL,
    LE,
    LIKE,
    LT,
    NE,
    NOT_IN,
    STARTS_WITH,
    And,
    Leaf,
    Not,
    Or,
    Predicate,
)


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



def like_leaf(column: str, pattern: str, escape: str | None) -> Leaf:
    """The simplest leaf for ``column LIKE pattern``."""
    tokens = like_tokens(pattern, escape)
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
    canonical = "".join(ch if w else escape_like(ch) for w, ch in tokens)
    return like(column, canonical)

