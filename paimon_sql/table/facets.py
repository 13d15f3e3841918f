"""The base of the Table's sub-facades (``table.tags``, ``table.branches``, ``table.snapshots``,
``table.partitions``, ``table.maintenance``): each groups the operations of one kind on one table
handle, as pyiceberg's ``ManageSnapshots`` / ``UpdateSchema`` hang off its ``Table``. A sub-facade
holds nothing but its table; the logic lives in ``paimon_sql/ops`` (one module per operation)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Concatenate, ParamSpec, TypeVar

if TYPE_CHECKING:
    from paimon_sql.table.table import Table

P = ParamSpec("P")
R = TypeVar("R")
F = TypeVar("F", bound="Facet")


class Facet:
    """One group of a table's operations; ``table`` is the handle it acts on."""

    __slots__ = ("table",)

    def __init__(self, table: Table) -> None:
        self.table = table

    @property
    def identifier(self) -> str:
        return self.table.identifier

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.table.identifier!r})"


def delegate(facet: Callable[[Table], F], method: Callable[Concatenate[F, P], R]) -> Callable[Concatenate[Table, P], R]:
    """A ``Table`` method that calls ``method`` of the table's ``facet`` (its signature and
    docstring), e.g. ``create_tag = delegate(Tags, Tags.create)``: the flat methods users and the
    procedures call stay one line each."""

    @functools.wraps(method)
    def call(table: Table, /, *args: P.args, **kwargs: P.kwargs) -> R:
        return method(facet(table), *args, **kwargs)

    return call
