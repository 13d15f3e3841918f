"""The base of the Table's sub-facades (``table.tags``, ``table.branches``, ``table.snapshots``,
``table.partitions``, ``table.maintenance``): each groups the operations of one kind on one table
handle, as pyiceberg's ``ManageSnapshots`` / ``UpdateSchema`` hang off its ``Table``. A sub-facade
holds nothing but its table; the logic lives in ``paimon_sql/ops`` (one module per operation)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec, Protocol, TypeVar, Union

import pyarrow as pa

if TYPE_CHECKING:
    from paimon_sql.fs.file_io import FileIO
    from paimon_sql.meta.file_store import FileStore
    from paimon_sql.meta.schema import TableSchema
    from paimon_sql.meta.schema_change import SchemaChange
    from paimon_sql.table.table_commit import TableCommit
    from paimon_sql.write.compaction_policy import CompactionPolicy
    from paimon_sql.write.table_write import CommitChanges, TableWrite

Overwrite = Union[bool, Mapping[str, Any], str]  # noqa: UP007
WriteInput = Union[pa.Table, pa.RecordBatchReader, Iterable[pa.RecordBatch]]  # noqa: UP007

P = ParamSpec("P")
R = TypeVar("R")
F = TypeVar("F", bound="Facet")


class TableHandle(Protocol):
    """What the sub-facades and ``reading.py`` / ``writing.py`` use of a table handle: ``Table``
    (``table.py``) is the one implementation; they name this Protocol, not the facade that
    imports them, so that the table package has no import circle."""

    file_io: FileIO
    path: str
    table_name: str
    identifier: str
    store: FileStore

    @property
    def schema(self) -> TableSchema: ...

    def copy(self, dynamic_options: Mapping[str, str]) -> TableHandle: ...

    def refresh(self) -> TableHandle: ...

    def alter(self, *changes: SchemaChange, **arguments: Any) -> TableHandle: ...

    def switch_to_branch(self, name: str) -> TableHandle: ...

    def new_commit(self, batch_write: bool = False) -> TableCommit: ...

    def _committer(self, store: FileStore, maintain: bool = True) -> TableCommit: ...

    def new_write(
        self, overwrite: bool = False, compaction: CompactionPolicy | str = ...,
    ) -> TableWrite: ...

    def write(self, data: WriteInput, overwrite: Overwrite = False) -> int: ...

    def truncate(self) -> int: ...

    def commit_changes(
        self, changes: Sequence[CommitChanges], overwrite: Overwrite = False, _renumber: bool = False,
        commit_identifier: int | None = None,
    ) -> int | None: ...


class Facet:
    """One group of a table's operations; ``table`` is the handle it acts on."""

    __slots__ = ("table",)

    def __init__(self, table: TableHandle) -> None:
        self.table = table

    @property
    def identifier(self) -> str:
        return self.table.identifier

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.table.identifier!r})"


def delegate(
    facet: Callable[[TableHandle], F], method: Callable[Concatenate[F, P], R]
) -> Callable[Concatenate[TableHandle, P], R]:
    """A ``Table`` method that calls ``method`` of the table's ``facet`` (its signature and
    docstring), e.g. ``create_tag = delegate(Tags, Tags.create)``: the flat methods users and the
    procedures call stay one line each."""

    @functools.wraps(method)
    def call(table: TableHandle, /, *args: P.args, **kwargs: P.kwargs) -> R:
        return method(facet(table), *args, **kwargs)

    return call
