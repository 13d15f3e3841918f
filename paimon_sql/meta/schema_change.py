"""Schema changes as values (Paimon's ``SchemaChange`` family, pyiceberg's ``UpdateSchema`` steps):
one frozen class per kind of change, applied in order by ``ops.alter.apply_changes``.

Columns are named by their path (``field_names``: one name for a top-level column, more for a
nested field), as Paimon names them; a nested path steps into ROW fields, ``element``
into an ARRAY's elements and ``value`` into a MAP's values. ``Move`` places an added or moved
column (FIRST, AFTER / BEFORE a column, LAST).
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

import pyarrow as pa

from paimon_sql.errors import ValidationError
from paimon_sql.types import DataType, fields_from_arrow_schema, from_arrow_type

FieldPath = tuple[str, ...]


def field_path(names: str | Sequence[str]) -> FieldPath:
    """A column path from one name or a sequence of names (outermost first)."""
    path = (names,) if isinstance(names, str) else tuple(names)
    if not path or not all(isinstance(n, str) for n in path):
        raise ValidationError(f"A column is named by a non-empty list of names, got {names!r}")
    return path


class MoveType(enum.Enum):
    FIRST = "FIRST"
    AFTER = "AFTER"
    BEFORE = "BEFORE"
    LAST = "LAST"


@dataclass(frozen=True)
class Move:
    """Where column ``field_name`` goes: first, last, or after / before ``reference``."""

    field_name: str
    reference: str | None
    type: MoveType

    @staticmethod
    def first(field_name: str) -> Move:
        return Move(field_name, None, MoveType.FIRST)

    @staticmethod
    def last(field_name: str) -> Move:
        return Move(field_name, None, MoveType.LAST)

    @staticmethod
    def after(field_name: str, reference: str) -> Move:
        return Move(field_name, reference, MoveType.AFTER)

    @staticmethod
    def before(field_name: str, reference: str) -> Move:
        return Move(field_name, reference, MoveType.BEFORE)


@dataclass(frozen=True)
class SchemaChange:
    """One change of a table's schema; the subclasses are the kinds."""


@dataclass(frozen=True)
class SetOption(SchemaChange):
    key: str
    value: str


@dataclass(frozen=True)
class RemoveOption(SchemaChange):
    key: str


@dataclass(frozen=True)
class UpdateComment(SchemaChange):
    """The table's comment; None removes it."""

    comment: str | None


@dataclass(frozen=True)
class AddColumn(SchemaChange):
    field_names: FieldPath
    data_type: DataType
    comment: str | None = None
    move: Move | None = None

    @staticmethod
    def of(name: str | Sequence[str], data_type: DataType, comment: str | None = None,
           move: Move | None = None) -> AddColumn:
        return AddColumn(field_path(name), data_type, comment, move)

    @staticmethod
    def of_arrow(field: pa.Field, move: Move | None = None) -> AddColumn:
        """A column from an Arrow field (its ``paimon.type`` / ``paimon.comment`` metadata honoured)."""
        (f,), _ = fields_from_arrow_schema(pa.schema([field]))
        return AddColumn((f.name,), f.type, f.description, move)


@dataclass(frozen=True)
class RenameColumn(SchemaChange):
    field_names: FieldPath
    new_name: str

    @staticmethod
    def of(name: str | Sequence[str], new_name: str) -> RenameColumn:
        return RenameColumn(field_path(name), new_name)


@dataclass(frozen=True)
class DropColumn(SchemaChange):
    field_names: FieldPath

    @staticmethod
    def of(name: str | Sequence[str]) -> DropColumn:
        return DropColumn(field_path(name))


@dataclass(frozen=True)
class UpdateColumnType(SchemaChange):
    """A column's new type; with ``keep_nullability`` the column keeps its nullability."""

    field_names: FieldPath
    new_type: DataType
    keep_nullability: bool = True

    @staticmethod
    def of(name: str | Sequence[str], new_type: DataType, keep_nullability: bool = True) -> UpdateColumnType:
        return UpdateColumnType(field_path(name), new_type, keep_nullability)

    @staticmethod
    def of_arrow(name: str | Sequence[str], arrow_type: pa.DataType) -> UpdateColumnType:
        return UpdateColumnType(field_path(name), from_arrow_type(arrow_type), True)


@dataclass(frozen=True)
class UpdateColumnComment(SchemaChange):
    """A column's comment; None (or empty) removes it."""

    field_names: FieldPath
    comment: str | None

    @staticmethod
    def of(name: str | Sequence[str], comment: str | None) -> UpdateColumnComment:
        return UpdateColumnComment(field_path(name), comment)


@dataclass(frozen=True)
class UpdateColumnNullability(SchemaChange):
    """A column's nullability (Paimon's ``UpdateColumnNullability``): ``nullable`` False is NOT NULL."""

    field_names: FieldPath
    nullable: bool

    @staticmethod
    def of(name: str | Sequence[str], nullable: bool) -> UpdateColumnNullability:
        return UpdateColumnNullability(field_path(name), bool(nullable))


@dataclass(frozen=True)
class UpdateColumnPosition(SchemaChange):
    """Moves an existing column (Paimon's ``UpdateColumnPosition``): ``move.field_name`` goes first,
    last, or after / before ``move.reference``. ``parent`` names the ROW column (path) whose fields
    are reordered; empty for the table's top-level columns."""

    move: Move
    parent: FieldPath = ()

    @staticmethod
    def of(move: Move, parent: str | Sequence[str] = ()) -> UpdateColumnPosition:
        return UpdateColumnPosition(move, () if not parent else field_path(parent))
