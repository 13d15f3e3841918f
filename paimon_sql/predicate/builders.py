"""Builders of predicates: one function per leaf operator, ``and_`` / ``or_`` / ``not_``, and
``like_leaf`` (the simplest leaf for a LIKE pattern)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from paimon_sql.errors import ValidationError
from paimon_sql.predicate import tree
from paimon_sql.predicate.like_pattern import escape_like, like_tokens


def equal(column: str, value: Any) -> tree.Leaf:
    return tree.Leaf(tree.EQ, column, (value,))


def not_equal(column: str, value: Any) -> tree.Leaf:
    return tree.Leaf(tree.NE, column, (value,))


def less_than(column: str, value: Any) -> tree.Leaf:
    return tree.Leaf(tree.LT, column, (value,))


def less_or_equal(column: str, value: Any) -> tree.Leaf:
    return tree.Leaf(tree.LE, column, (value,))


def greater_than(column: str, value: Any) -> tree.Leaf:
    return tree.Leaf(tree.GT, column, (value,))


def greater_or_equal(column: str, value: Any) -> tree.Leaf:
    return tree.Leaf(tree.GE, column, (value,))


def is_null(column: str) -> tree.Leaf:
    return tree.Leaf(tree.IS_NULL, column)


def is_not_null(column: str) -> tree.Leaf:
    return tree.Leaf(tree.IS_NOT_NULL, column)


def is_in(column: str, values: Iterable[Any]) -> tree.Leaf:
    return tree.Leaf(tree.IN, column, tuple(values))


def is_not_in(column: str, values: Iterable[Any]) -> tree.Leaf:
    return tree.Leaf(tree.NOT_IN, column, tuple(values))


def between(column: str, low: Any, high: Any) -> tree.Leaf:
    """``low <= column <= high`` (both ends included, as SQL's BETWEEN)."""
    return tree.Leaf(tree.BETWEEN, column, (low, high))


def starts_with(column: str, prefix: str) -> tree.Leaf:
    return tree.Leaf(tree.STARTS_WITH, column, (prefix,))


def ends_with(column: str, suffix: str) -> tree.Leaf:
    return tree.Leaf(tree.ENDS_WITH, column, (suffix,))


def contains(column: str, substring: str) -> tree.Leaf:
    return tree.Leaf(tree.CONTAINS, column, (substring,))


def like(column: str, pattern: str) -> tree.Leaf:
    """SQL LIKE with ``%`` / ``_`` wildcards and ``\\`` as escape character."""
    return tree.Leaf(tree.LIKE, column, (pattern,))


def and_(*predicates: tree.Predicate) -> tree.Predicate:
    """Conjunction; nested Ands are flattened and a single predicate is returned as is."""
    return _junction(tree.And, predicates)


def or_(*predicates: tree.Predicate) -> tree.Predicate:
    """Disjunction; nested Ors are flattened and a single predicate is returned as is."""
    return _junction(tree.Or, predicates)


def _junction(cls: type[tree.And] | type[tree.Or], predicates: Sequence[tree.Predicate]) -> tree.Predicate:
    flat: list[tree.Predicate] = []
    for p in predicates:
        if isinstance(p, cls):
            flat.extend(p.children)
        elif isinstance(p, (tree.Leaf, tree.And, tree.Or, tree.Not)):
            flat.append(p)
        else:
            raise ValidationError(f"Not a predicate: {p!r}")
    if not flat:
        raise ValidationError(f"{cls.__name__} of no predicates")
    if len(flat) == 1:
        return flat[0]
    return cls(tuple(flat))


def not_(predicate: tree.Predicate) -> tree.Predicate:
    """Negation (``NOT NOT p`` is ``p``)."""
    if isinstance(predicate, tree.Not):
        return predicate.child
    return tree.Not(predicate)



def like_leaf(column: str, pattern: str, escape: str | None) -> tree.Leaf:
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

