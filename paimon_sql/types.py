"""Paimon data types: type strings, schema JSON and the Arrow mapping.

Facts follow Apache Paimon's ``org.apache.paimon.types`` (``DataTypeJsonParser``, each type's
``asSQLString``/``serializeJson``):

* Atomic types serialise to their SQL string (``BIGINT NOT NULL``, ``STRING`` for
  ``VARCHAR(2147483647)``, ``BYTES`` for ``VARBINARY(2147483647)``, ``DECIMAL(23, 5)``,
  ``TIMESTAMP(6)``, ``TIMESTAMP(3) WITH LOCAL TIME ZONE``).
* ``ARRAY``/``MAP``/``MULTISET``/``ROW``/``VECTOR`` serialise to JSON objects whose ``type`` is the
  root name, with `` NOT NULL`` appended when not nullable; ``ROW`` fields are full field objects
  (``id``, ``name``, ``type``, then ``description``/``defaultValue`` only when set).
* Field ids: a top-level column takes the next id, then the ids inside its type are assigned;
  inside a nested ``ROW`` each field's type is assigned before the field itself (Paimon's
  ``Schema.Builder.column`` + ``ReassignFieldId``).

Every type is a frozen dataclass with a keyword-only ``nullable`` flag (default ``True``).
Code that depends on the kind of a type does not test classes by hand: it is a ``TypeVisitor``
(an abstract method per type, so a conversion missing a type cannot be created) or a
``DefaultTypeVisitor`` (a ``default`` for the types it treats alike), called as
``t.accept(visitor)``; ``ToArrowType`` is the Arrow mapping. ``t.is_family(...)`` answers
Paimon's type-family questions (``NUMERIC``, ``CHARACTER_STRING``...).
``root`` is a short name: ``BOOLEAN TINYINT SMALLINT INT BIGINT FLOAT DOUBLE DECIMAL CHAR VARCHAR
BINARY VARBINARY DATE TIME TIMESTAMP TIMESTAMP_LTZ VARIANT BLOB ARRAY MAP MULTISET ROW VECTOR``.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar, Generic, TypeVar

import pyarrow as pa

from paimon_sql.errors import UnsupportedError, ValidationError

MAX_LENGTH = 2147483647
"""Length of ``STRING`` (``VARCHAR``) and ``BYTES`` (``VARBINARY``)."""

DECIMAL_MAX_PRECISION = 38
DECIMAL_MAX_COMPACT_PRECISION = 18
TIMESTAMP_MAX_COMPACT_PRECISION = 3

PARQUET_FIELD_ID_KEY = b"PARQUET:field_id"
ARROW_COMMENT_KEY = b"paimon.comment"
"""Arrow field-metadata key of a column's comment (Paimon's field description) in a new table's schema."""
ARROW_TYPE_KEY = b"paimon.type"
"""Arrow field-metadata key of a column's exact Paimon type (``CHAR(5)``, ``VARCHAR(20)``) in a new
table's schema, where the Arrow type alone cannot tell it; it must map to the field's Arrow type."""
"""Arrow field-metadata key that pyarrow turns into a parquet field id (value: decimal string)."""

_T = TypeVar("_T")


# ----------------------------------------------------------------------------------------------
# Types
# ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DataType:
    """Base of all Paimon data types."""

    nullable: bool = field(default=True, kw_only=True)

    ROOT: ClassVar[str] = ""

    @property
    def root(self) -> str:
        return self.ROOT

    def copy(self, nullable: bool) -> DataType:
        """This type with the given nullability (Paimon's ``DataType.copy(boolean)``)."""
        return replace(self, nullable=nullable)

    def _sql(self) -> str:
        raise NotImplementedError

    def accept(self, visitor: TypeVisitor[_T]) -> _T:
        """``visitor.visit_<type>(self)``: the one dispatch on the kind of a type (see ``TypeVisitor``)."""
        raise NotImplementedError(f"{type(self).__name__} has no visitor method")

    def is_family(self, family: str) -> bool:
        """Whether the type belongs to one of Paimon's ``DataTypeFamily`` (``NUMERIC``,
        ``CHARACTER_STRING``, ``TIMESTAMP``...; see ``TYPE_FAMILIES``)."""
        return family in TYPE_FAMILIES[self.ROOT]

    def to_string(self) -> str:
        """Paimon's SQL type string (``asSQLString``), e.g. ``BIGINT NOT NULL``."""
        s = self._sql()
        return s if self.nullable else s + " NOT NULL"

    def __str__(self) -> str:
        return self.to_string()


@dataclass(frozen=True)
class BooleanType(DataType):
    ROOT: ClassVar[str] = "BOOLEAN"

    def accept(self, visitor: TypeVisitor[_T]) -> _T:
        return visitor.visit_boolean(self)

    def _sql(self) -> str:
        return "BOOLEAN"


@dataclass(frozen=True)
class TinyIntType(DataType):
    ROOT: ClassVar[str] = "TINYINT"

    def accept(self, visitor: TypeVisitor[_T]) -> _T:
        return visitor.visit_tinyint(self)

    def _sql(self) -> str:
        return "TINYINT"


@dataclass(frozen=True)
class SmallIntType(DataType):
    ROOT: ClassVar[str] = "SMALLINT"

    def accept(self, visitor: TypeVisitor[_T]) -> _T:
        return visitor.visit_smallint(self)

    def _sql(self) -> str:
        return "SMALLINT"


@dataclass(frozen=True)
class IntType(DataType):
    ROOT: ClassVar[str] = "INT"

    def accept(self, visitor: TypeVisitor[_T]) -> _T:
        return visitor.visit_int(self)

    def _sql(self) -> str:
        return "INT"


@dataclass(frozen=True)
class BigIntType(DataType):
    ROOT: ClassVar[str] = "BIGINT"

    def accept(self, visitor: TypeVisitor[_T]) -> _T:
        return visitor.visit_bigint(self)

    def _sql(self) -> str:
        return "BIGINT"


@dataclass(frozen=True)
class FloatType(DataType):
    ROOT: ClassVar[str] = "FLOAT"

    def accept(self, visitor: TypeVisitor[_T]) -> _T:
        return visitor.visit_float(self)

    def _sql(self) -> str:
        return "FLOAT"


@dataclass(frozen=True)
class DoubleType(DataType):
    ROOT: ClassVar[str] = "DOUBLE"

    def accept(self, visitor: TypeVisitor[_T]) -> _T:
        return visitor.visit_double(self)

    def _sql(self) -> str:
        return "DOUBLE"


@dataclass(frozen=True)
class DecimalType(DataType):
    precision: int = 10
    scale: int = 0
    ROOT: ClassVar[str] = "DECIMAL"

    def accept(self, visitor: TypeVisitor[_T]) -> _T:
        return visitor.visit_decimal(self)

    def __post_init__(self) -> None:
        if not 1 <= self.precision <= DECIMAL_MAX_PRECISION:
            raise ValidationError(
                f"DECIMAL precision must be between 1 and {DECIMAL_MAX_PRECISION}: {self.precision}"
            )
        if not 0 <= self.scale <= self.precision:
            raise ValidationError(
                f"DECIMAL scale must be between 0 and the precision {self.precision}: {self.scale}"
            )

    @property
    def is_compact(self) -> bool:
        """Stored as an unscaled long in a BinaryRow (precision <= 18)."""
        return self.precision <= DECIMAL_MAX_COMPACT_PRECISION

    def _sql(self) -> str:
        return f"DECIMAL({self.precision}, {self.scale})"


def _check_length(kind: str, length: int) -> None:
    if not 1 <= length <= MAX_LENGTH:
        raise ValidationError(f"{kind} length must be between 1 and {MAX_LENGTH}: {length}")


@dataclass(frozen=True)
class CharType(DataType):
    length: int = 1
    ROOT: ClassVar[str] = "CHAR"

    def accept(self, visitor: TypeVisitor[_T]) -> _T:
        return visitor.visit_char(self)

    def __post_init__(self) -> None:
        _check_length("CHAR", self.length)

    def _sql(self) -> str:
        return f"CHAR({self.length})"


@dataclass(frozen=True)
class VarCharType(DataType):
    """``VARCHAR(n)``; the default length is ``MAX_LENGTH``, i.e. ``STRING``."""

    length: int = MAX_LENGTH
    ROOT: ClassVar[str] = "VARCHAR"

    def accept(self, visitor: TypeVisitor[_T]) -> _T:
        return visitor.visit_varchar(self)

    def __post_init__(self) -> None:
        _check_length("VARCHAR", self.length)

    def _sql(self) -> str:
        return "STRING" if self.length == MAX_LENGTH else f"VARCHAR({self.length})"


@dataclass(frozen=True)
class BinaryType(DataType):
    length: int = 1
    ROOT: ClassVar[str] = "BINARY"

    def accept(self, visitor: TypeVisitor[_T]) -> _T:
        return visitor.visit_binary(self)

    def __post_init__(self) -> None:
        _check_length("BINARY", self.length)

    def _sql(self) -> str:
        return f"BINARY({self.length})"


@dataclass(frozen=True)
class VarBinaryType(DataType):
    """``VARBINARY(n)``; the default length is ``MAX_LENGTH``, i.e. ``BYTES``."""

    length: int = MAX_LENGTH
    ROOT: ClassVar[str] = "VARBINARY"

    def accept(self, visitor: TypeVisitor[_T]) -> _T:
        return visitor.visit_varbinary(self)

    def __post_init__(self) -> None:
        _check_length("VARBINARY", self.length)

    def _sql(self) -> str:
        return "BYTES" if self.length == MAX_LENGTH else f"VARBINARY({self.length})"


@dataclass(frozen=True)
class DateType(DataType):
    ROOT: ClassVar[str] = "DATE"

    def accept(self, visitor: TypeVisitor[_T]) -> _T:
        return visitor.visit_date(self)

    def _sql(self) -> str:
        return "DATE"


def _check_precision(kind: str, precision: int) -> None:
    if not 0 <= precision <= 9:
        raise ValidationError(f"{kind} precision must be between 0 and 9: {precision}")


@dataclass(frozen=True)
class TimeType(DataType):
    precision: int = 0
    ROOT: ClassVar[str] = "TIME"

    def accept(self, visitor: TypeVisitor[_T]) -> _T:
        return visitor.visit_time(self)

    def __post_init__(self) -> None:
        _check_precision("TIME", self.precision)

    def _sql(self) -> str:
        return f"TIME({self.precision})"


@dataclass(frozen=True)
class TimestampType(DataType):
    precision: int = 6
    ROOT: ClassVar[str] = "TIMESTAMP"

    def accept(self, visitor: TypeVisitor[_T]) -> _T:
        return visitor.visit_timestamp(self)

    def __post_init__(self) -> None:
        _check_precision("TIMESTAMP", self.precision)

    @property
    def is_compact(self) -> bool:
        """Stored as epoch millis in a BinaryRow slot (precision <= 3)."""
        return self.precision <= TIMESTAMP_MAX_COMPACT_PRECISION

    def _sql(self) -> str:
        return f"TIMESTAMP({self.precision})"


@dataclass(frozen=True)
class LocalZonedTimestampType(DataType):
    precision: int = 6
    ROOT: ClassVar[str] = "TIMESTAMP_LTZ"

    def accept(self, visitor: TypeVisitor[_T]) -> _T:
        return visitor.visit_local_zoned_timestamp(self)

    def __post_init__(self) -> None:
        _check_precision("TIMESTAMP WITH LOCAL TIME ZONE", self.precision)

    @property
    def is_compact(self) -> bool:
        return self.precision <= TIMESTAMP_MAX_COMPACT_PRECISION

    def _sql(self) -> str:
        return f"TIMESTAMP({self.precision}) WITH LOCAL TIME ZONE"


@dataclass(frozen=True)
class VariantType(DataType):
    ROOT: ClassVar[str] = "VARIANT"

    def accept(self, visitor: TypeVisitor[_T]) -> _T:
        return visitor.visit_variant(self)

    def _sql(self) -> str:
        return "VARIANT"


@dataclass(frozen=True)
class BlobType(DataType):
    ROOT: ClassVar[str] = "BLOB"

    def accept(self, visitor: TypeVisitor[_T]) -> _T:
        return visitor.visit_blob(self)

    def _sql(self) -> str:
        return "BLOB"


@dataclass(frozen=True)
class ArrayType(DataType):
    element: DataType
    ROOT: ClassVar[str] = "ARRAY"

    def accept(self, visitor: TypeVisitor[_T]) -> _T:
        return visitor.visit_array(self)

    def _sql(self) -> str:
        return f"ARRAY<{self.element.to_string()}>"


@dataclass(frozen=True)
class MultisetType(DataType):
    element: DataType
    ROOT: ClassVar[str] = "MULTISET"

    def accept(self, visitor: TypeVisitor[_T]) -> _T:
        return visitor.visit_multiset(self)

    def _sql(self) -> str:
        return f"MULTISET<{self.element.to_string()}>"


@dataclass(frozen=True)
class MapType(DataType):
    key: DataType
    value: DataType
    ROOT: ClassVar[str] = "MAP"

    def accept(self, visitor: TypeVisitor[_T]) -> _T:
        return visitor.visit_map(self)

    def _sql(self) -> str:
        return f"MAP<{self.key.to_string()}, {self.value.to_string()}>"


@dataclass(frozen=True)
class VectorType(DataType):
    element: DataType
    length: int
    ROOT: ClassVar[str] = "VECTOR"

    def accept(self, visitor: TypeVisitor[_T]) -> _T:
        return visitor.visit_vector(self)

    def __post_init__(self) -> None:
        _check_length("VECTOR", self.length)

    def _sql(self) -> str:
        return f"VECTOR<{self.element.to_string()}, {self.length}>"


@dataclass(frozen=True)
class DataField:
    """A named, id'd field of a ROW (or a table column)."""

    id: int
    name: str
    type: DataType
    description: str | None = None
    default_value: str | None = None

    def to_string(self) -> str:
        """``DataField.asSQLString``: `` `name` TYPE [COMMENT '...'] [DEFAULT ...]``."""
        s = "`" + self.name.replace("`", "``") + "` " + self.type.to_string()
        if self.description:
            s += " COMMENT '" + self.description.replace("'", "''") + "'"
        if self.default_value is not None:
            s += " DEFAULT " + self.default_value
        return s

    def with_type(self, t: DataType) -> DataField:
        return replace(self, type=t)


@dataclass(frozen=True)
class RowType(DataType):
    fields: tuple[DataField, ...]
    ROOT: ClassVar[str] = "ROW"

    def accept(self, visitor: TypeVisitor[_T]) -> _T:
        return visitor.visit_row(self)

    def __post_init__(self) -> None:
        if not isinstance(self.fields, tuple):
            object.__setattr__(self, "fields", tuple(self.fields))
        names = [f.name for f in self.fields]
        if len(set(names)) != len(names):
            dups = sorted({n for n in names if names.count(n) > 1})
            raise ValidationError(f"ROW field names must be unique, duplicated: {dups}")

    @property
    def field_names(self) -> list[str]:
        return [f.name for f in self.fields]

    @property
    def field_types(self) -> list[DataType]:
        return [f.type for f in self.fields]

    def field(self, name: str) -> DataField:
        for f in self.fields:
            if f.name == name:
                return f
        raise ValidationError(f"ROW has no field named {name!r}; fields: {self.field_names}")

    def _sql(self) -> str:
        return "ROW<" + ", ".join(f.to_string() for f in self.fields) + ">"


# ----------------------------------------------------------------------------------------------
# Type families and visitors
# ----------------------------------------------------------------------------------------------

_INTEGER_FAMILIES = ("PREDEFINED", "NUMERIC", "INTEGER_NUMERIC", "EXACT_NUMERIC")
TYPE_FAMILIES: dict[str, tuple[str, ...]] = {
    "CHAR": ("PREDEFINED", "CHARACTER_STRING"),
    "VARCHAR": ("PREDEFINED", "CHARACTER_STRING"),
    "BOOLEAN": ("PREDEFINED",),
    "BINARY": ("PREDEFINED", "BINARY_STRING"),
    "VARBINARY": ("PREDEFINED", "BINARY_STRING"),
    "DECIMAL": ("PREDEFINED", "NUMERIC", "EXACT_NUMERIC"),
    "TINYINT": _INTEGER_FAMILIES,
    "SMALLINT": _INTEGER_FAMILIES,
    "INT": _INTEGER_FAMILIES,
    "BIGINT": _INTEGER_FAMILIES,
    "FLOAT": ("PREDEFINED", "NUMERIC", "APPROXIMATE_NUMERIC"),
    "DOUBLE": ("PREDEFINED", "NUMERIC", "APPROXIMATE_NUMERIC"),
    "DATE": ("PREDEFINED", "DATETIME"),
    "TIME": ("PREDEFINED", "DATETIME", "TIME"),
    "TIMESTAMP": ("PREDEFINED", "DATETIME", "TIMESTAMP"),
    "TIMESTAMP_LTZ": ("PREDEFINED", "DATETIME", "TIMESTAMP", "EXTENSION"),
    "VARIANT": ("PREDEFINED",),
    "BLOB": ("PREDEFINED",),
    "ARRAY": ("CONSTRUCTED", "COLLECTION"),
    "VECTOR": ("CONSTRUCTED", "COLLECTION"),
    "MULTISET": ("CONSTRUCTED", "COLLECTION"),
    "MAP": ("CONSTRUCTED", "EXTENSION"),
    "ROW": ("CONSTRUCTED",),
}
"""Each type root's ``DataTypeFamily`` members in Paimon's order (``DataTypeRoot``); ``DataType.is_family``."""


class TypeVisitor(ABC, Generic[_T]):
    """One conversion of Paimon types (Paimon's ``DataTypeVisitor``): an abstract method per type,
    so a conversion that misses a type cannot be instantiated. ``t.accept(visitor)`` (or
    ``visitor.visit(t)``) calls the method of ``t``'s type; nested types recurse through
    ``visit``. A conversion that treats most types alike extends ``DefaultTypeVisitor``."""

    def visit(self, t: DataType) -> _T:
        return t.accept(self)

    @abstractmethod
    def visit_boolean(self, t: BooleanType) -> _T: ...

    @abstractmethod
    def visit_tinyint(self, t: TinyIntType) -> _T: ...

    @abstractmethod
    def visit_smallint(self, t: SmallIntType) -> _T: ...

    @abstractmethod
    def visit_int(self, t: IntType) -> _T: ...

    @abstractmethod
    def visit_bigint(self, t: BigIntType) -> _T: ...

    @abstractmethod
    def visit_float(self, t: FloatType) -> _T: ...

    @abstractmethod
    def visit_double(self, t: DoubleType) -> _T: ...

    @abstractmethod
    def visit_decimal(self, t: DecimalType) -> _T: ...

    @abstractmethod
    def visit_char(self, t: CharType) -> _T: ...

    @abstractmethod
    def visit_varchar(self, t: VarCharType) -> _T: ...

    @abstractmethod
    def visit_binary(self, t: BinaryType) -> _T: ...

    @abstractmethod
    def visit_varbinary(self, t: VarBinaryType) -> _T: ...

    @abstractmethod
    def visit_date(self, t: DateType) -> _T: ...

    @abstractmethod
    def visit_time(self, t: TimeType) -> _T: ...

    @abstractmethod
    def visit_timestamp(self, t: TimestampType) -> _T: ...

    @abstractmethod
    def visit_local_zoned_timestamp(self, t: LocalZonedTimestampType) -> _T: ...

    @abstractmethod
    def visit_variant(self, t: VariantType) -> _T: ...

    @abstractmethod
    def visit_blob(self, t: BlobType) -> _T: ...

    @abstractmethod
    def visit_array(self, t: ArrayType) -> _T: ...

    @abstractmethod
    def visit_multiset(self, t: MultisetType) -> _T: ...

    @abstractmethod
    def visit_map(self, t: MapType) -> _T: ...

    @abstractmethod
    def visit_vector(self, t: VectorType) -> _T: ...

    @abstractmethod
    def visit_row(self, t: RowType) -> _T: ...


class DefaultTypeVisitor(TypeVisitor[_T]):
    """A ``TypeVisitor`` whose every method falls back to ``default(t)``: override the types the
    conversion treats specially (Paimon's ``DataTypeDefaultVisitor``)."""

    @abstractmethod
    def default(self, t: DataType) -> _T: ...

    def visit_boolean(self, t: BooleanType) -> _T:
        return self.default(t)

    def visit_tinyint(self, t: TinyIntType) -> _T:
        return self.default(t)

    def visit_smallint(self, t: SmallIntType) -> _T:
        return self.default(t)

    def visit_int(self, t: IntType) -> _T:
        return self.default(t)

    def visit_bigint(self, t: BigIntType) -> _T:
        return self.default(t)

    def visit_float(self, t: FloatType) -> _T:
        return self.default(t)

    def visit_double(self, t: DoubleType) -> _T:
        return self.default(t)

    def visit_decimal(self, t: DecimalType) -> _T:
        return self.default(t)

    def visit_char(self, t: CharType) -> _T:
        return self.default(t)

    def visit_varchar(self, t: VarCharType) -> _T:
        return self.default(t)

    def visit_binary(self, t: BinaryType) -> _T:
        return self.default(t)

    def visit_varbinary(self, t: VarBinaryType) -> _T:
        return self.default(t)

    def visit_date(self, t: DateType) -> _T:
        return self.default(t)

    def visit_time(self, t: TimeType) -> _T:
        return self.default(t)

    def visit_timestamp(self, t: TimestampType) -> _T:
        return self.default(t)

    def visit_local_zoned_timestamp(self, t: LocalZonedTimestampType) -> _T:
        return self.default(t)

    def visit_variant(self, t: VariantType) -> _T:
        return self.default(t)

    def visit_blob(self, t: BlobType) -> _T:
        return self.default(t)

    def visit_array(self, t: ArrayType) -> _T:
        return self.default(t)

    def visit_multiset(self, t: MultisetType) -> _T:
        return self.default(t)

    def visit_map(self, t: MapType) -> _T:
        return self.default(t)

    def visit_vector(self, t: VectorType) -> _T:
        return self.default(t)

    def visit_row(self, t: RowType) -> _T:
        return self.default(t)


# ----------------------------------------------------------------------------------------------
# Type strings
# ----------------------------------------------------------------------------------------------

_TOKEN_RE = re.compile(
    r"\s*(?:(?P<int>\d+)|(?P<word>[A-Za-z_][A-Za-z_0-9$]*)|(?P<sym>[(),<>])"
    r"|`(?P<ident>(?:[^`]|``)*)`|'(?P<str>(?:[^']|'')*)')"
)


def _tokenize(s: str) -> tuple[list[str], list[str]]:
    """Normalised tokens (keywords upper-cased; a quoted identifier is "`", a string literal "'")
    and their raw values (unescaped)."""
    toks: list[str] = []
    raw: list[str] = []
    pos = 0
    s = s.rstrip()
    while pos < len(s):
        m = _TOKEN_RE.match(s, pos)
        if m is None or m.end() == pos:
            raise ValidationError(f"Could not parse type string {s!r} at position {pos}")
        if m.group("ident") is not None:
            toks.append("`")
            raw.append(m.group("ident").replace("``", "`"))
        elif m.group("str") is not None:
            toks.append("'")
            raw.append(m.group("str").replace("''", "'"))
        else:
            tok = m.group("int") or m.group("word") or m.group("sym")
            toks.append(tok.upper() if m.group("word") else tok)
            raw.append(tok)
        pos = m.end()
    return toks, raw


class _TypeStringParser:
    """Parses the type strings Paimon's ``DataTypeJsonParser`` accepts (atomic types, ``VECTOR<..>``
    and the ``<type> ARRAY`` / ``<type> MULTISET`` suffix notation) plus the SQL forms
    ``ARRAY<..>``, ``MULTISET<..>``, ``MAP<.., ..>`` and ``ROW<name type [COMMENT '..'], ..>``
    (whose fields are numbered from 0 as Paimon numbers new columns)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens, self.raw = _tokenize(text)
        self.pos = 0

    def error(self, cause: str) -> ValidationError:
        return ValidationError(f"Could not parse type string {self.text!r}: {cause}")

    def peek(self, offset: int = 0) -> str | None:
        i = self.pos + offset
        return self.tokens[i] if i < len(self.tokens) else None

    def next(self) -> str:
        tok = self.peek()
        if tok is None:
            raise self.error("unexpected end")
        self.pos += 1
        return tok

    def expect(self, tok: str) -> None:
        got = self.next()
        if got != tok:
            raise self.error(f"expected {tok!r} but found {got!r}")

    def next_int(self) -> int:
        tok = self.next()
        if not tok.isdigit():
            raise self.error(f"expected an integer but found {tok!r}")
        return int(tok)

    def parse(self) -> DataType:
        t = self.parse_with_nullability()
        if self.peek() is not None:
            raise self.error(f"unexpected token {self.peek()!r}")
        return t

    def parse_nullability(self) -> bool:
        if self.peek() == "NOT" and self.peek(1) == "NULL":
            self.pos += 2
            return False
        if self.peek() == "NULL":
            self.pos += 1
        return True

    def parse_with_nullability(self) -> DataType:
        t = self.parse_by_keyword()
        t = t.copy(self.parse_nullability())
        if self.peek() == "ARRAY":
            self.pos += 1
            return ArrayType(t, nullable=self.parse_nullability())
        if self.peek() == "MULTISET":
            self.pos += 1
            return MultisetType(t, nullable=self.parse_nullability())
        return t

    def optional_param(self) -> int | None:
        if self.peek() == "(":
            self.pos += 1
            v = self.next_int()
            self.expect(")")
            return v
        return None

    def parse_by_keyword(self) -> DataType:
        kw = self.next()
        if kw == "CHAR":
            n = self.optional_param()
            return CharType(1 if n is None else n)
        if kw == "VARCHAR":
            n = self.optional_param()
            return VarCharType(1 if n is None else n)
        if kw == "STRING":
            return VarCharType(MAX_LENGTH)
        if kw == "BOOLEAN":
            return BooleanType()
        if kw == "BINARY":
            n = self.optional_param()
            return BinaryType(1 if n is None else n)
        if kw == "VARBINARY":
            n = self.optional_param()
            return VarBinaryType(1 if n is None else n)
        if kw == "BYTES":
            return VarBinaryType(MAX_LENGTH)
        if kw in ("DECIMAL", "NUMERIC", "DEC"):
            precision, scale = 10, 0
            if self.peek() == "(":
                self.pos += 1
                precision = self.next_int()
                if self.peek() == ",":
                    self.pos += 1
                    scale = self.next_int()
                self.expect(")")
            return DecimalType(precision, scale)
        if kw == "TINYINT":
            return TinyIntType()
        if kw == "SMALLINT":
            return SmallIntType()
        if kw in ("INT", "INTEGER"):
            return IntType()
        if kw == "BIGINT":
            return BigIntType()
        if kw == "FLOAT":
            return FloatType()
        if kw == "DOUBLE":
            if self.peek() == "PRECISION":
                self.pos += 1
            return DoubleType()
        if kw == "DATE":
            return DateType()
        if kw == "TIME":
            p = self.optional_param()
            if self.peek() == "WITHOUT":
                self.pos += 1
                self.expect("TIME")
                self.expect("ZONE")
            return TimeType(0 if p is None else p)
        if kw == "TIMESTAMP":
            p = self.optional_param()
            precision = 6 if p is None else p
            if self.peek() == "WITHOUT":
                self.pos += 1
                self.expect("TIME")
                self.expect("ZONE")
            elif self.peek() == "WITH":
                self.pos += 1
                if self.peek() == "LOCAL":
                    self.pos += 1
                    self.expect("TIME")
                    self.expect("ZONE")
                    return LocalZonedTimestampType(precision)
            return TimestampType(precision)
        if kw == "TIMESTAMP_LTZ":
            p = self.optional_param()
            return LocalZonedTimestampType(6 if p is None else p)
        if kw in ("ARRAY", "MULTISET") and self.peek() == "<":
            self.pos += 1
            element = self.parse_with_nullability()
            self.expect(">")
            return ArrayType(element) if kw == "ARRAY" else MultisetType(element)
        if kw == "MAP":
            self.expect("<")
            key = self.parse_with_nullability()
            self.expect(",")
            value = self.parse_with_nullability()
            self.expect(">")
            return MapType(key, value)
        if kw == "ROW":
            return self.parse_row()
        if kw == "VARIANT":
            return VariantType()
        if kw == "BLOB":
            return BlobType()
        if kw == "VECTOR":
            self.expect("<")
            element = self.parse_with_nullability()
            self.expect(",")
            length = self.next_int()
            self.expect(">")
            return VectorType(element, length)
        if kw in ("GEOMETRY", "GEOGRAPHY"):
            raise UnsupportedError(f"Paimon type {kw} is not supported (in {self.text!r})")
        raise self.error(f"unsupported type {kw!r}")

    def parse_row(self) -> DataType:
        closing = ">" if self.peek() == "<" else ")"
        if self.peek() not in ("<", "("):
            raise self.error("expected '<' after ROW")
        self.pos += 1
        cols: list[tuple[str, DataType, str | None]] = []
        while self.peek() != closing:
            if cols:
                self.expect(",")
            tok = self.peek()
            if tok is None or tok in ("<", ">", "(", ")", ",", "'"):
                raise self.error("expected a field name")
            name = self.raw[self.pos]
            self.pos += 1
            ftype = self.parse_with_nullability()
            desc = None
            if self.peek() == "COMMENT":
                self.pos += 1
            if self.peek() == "'":
                desc = self.raw[self.pos]
                self.pos += 1
            cols.append((name, ftype, desc))
        self.pos += 1
        fields, _ = assign_field_ids(cols)
        return RowType(tuple(fields))


def parse_type_string(s: str) -> DataType:
    """Parse an atomic Paimon type string such as ``INT NOT NULL`` or ``DECIMAL(23, 5)``."""
    return _TypeStringParser(s).parse()


# ----------------------------------------------------------------------------------------------
# Schema JSON
# ----------------------------------------------------------------------------------------------


def _nullable_of(type_name: str) -> bool:
    return "NOT NULL" not in type_name


def parse_data_type(obj: str | dict[str, Any]) -> DataType:
    """Parse the JSON of a type as written in Paimon's schema files."""
    if isinstance(obj, str):
        return parse_type_string(obj)
    if not isinstance(obj, dict) or not isinstance(obj.get("type"), str):
        raise ValidationError(f"Can not parse data type from JSON: {obj!r}")
    name: str = obj["type"]
    nullable = _nullable_of(name)
    try:
        if name.startswith("ARRAY"):
            return ArrayType(parse_data_type(obj["element"]), nullable=nullable)
        if name.startswith("VECTOR"):
            return VectorType(parse_data_type(obj["element"]), int(obj["length"]), nullable=nullable)
        if name.startswith("MULTISET"):
            return MultisetType(parse_data_type(obj["element"]), nullable=nullable)
        if name.startswith("MAP"):
            return MapType(parse_data_type(obj["key"]), parse_data_type(obj["value"]), nullable=nullable)
        if name.startswith("ROW"):
            return RowType(tuple(parse_data_field(f) for f in obj["fields"]), nullable=nullable)
    except KeyError as e:
        raise ValidationError(f"Data type JSON {obj!r} lacks the key {e}") from None
    raise ValidationError(f"Can not parse data type from JSON: {obj!r}")


def data_type_to_json(t: DataType) -> str | dict[str, Any]:
    """The JSON Paimon writes for a type in schema files."""
    suffix = "" if t.nullable else " NOT NULL"
    if isinstance(t, ArrayType):
        return {"type": "ARRAY" + suffix, "element": data_type_to_json(t.element)}
    if isinstance(t, VectorType):
        return {"type": "VECTOR" + suffix, "element": data_type_to_json(t.element), "length": t.length}
    if isinstance(t, MultisetType):
        return {"type": "MULTISET" + suffix, "element": data_type_to_json(t.element)}
    if isinstance(t, MapType):
        return {"type": "MAP" + suffix, "key": data_type_to_json(t.key), "value": data_type_to_json(t.value)}
    if isinstance(t, RowType):
        return {"type": "ROW" + suffix, "fields": [data_field_to_json(f) for f in t.fields]}
    return t.to_string()


def parse_data_field(obj: dict[str, Any]) -> DataField:
    """Parse a field object of a schema file (``id``, ``name``, ``type``, optional
    ``description`` and ``defaultValue``)."""
    if not isinstance(obj, dict):
        raise ValidationError(f"Data field JSON must be an object: {obj!r}")
    try:
        fid = int(obj["id"])
        name = str(obj["name"])
        t = obj["type"]
    except KeyError as e:
        raise ValidationError(f"Data field JSON {obj!r} lacks the key {e}") from None
    desc = obj.get("description")
    default = obj.get("defaultValue")
    return DataField(
        fid,
        name,
        parse_data_type(t),
        None if desc is None else str(desc),
        None if default is None else str(default),
    )


def data_field_to_json(f: DataField) -> dict[str, Any]:
    out: dict[str, Any] = {"id": f.id, "name": f.name, "type": data_type_to_json(f.type)}
    if f.description is not None:
        out["description"] = f.description
    if f.default_value is not None:
        out["defaultValue"] = f.default_value
    return out


# ----------------------------------------------------------------------------------------------
# Field ids
# ----------------------------------------------------------------------------------------------


def collect_field_ids(t: DataType) -> list[int]:
    """All field ids nested inside a type (not including the field holding it)."""
    out: list[int] = []
    if isinstance(t, RowType):
        for f in t.fields:
            out.append(f.id)
            out.extend(collect_field_ids(f.type))
    elif isinstance(t, (ArrayType, MultisetType, VectorType)):
        out.extend(collect_field_ids(t.element))
    elif isinstance(t, MapType):
        out.extend(collect_field_ids(t.key))
        out.extend(collect_field_ids(t.value))
    return out


SYSTEM_FIELD_ID_START = MAX_LENGTH // 2
"""Field ids from here on belong to system fields (``_KEY_`` / ``_SEQUENCE_NUMBER`` ...)."""


def highest_field_id(fields: Iterable[DataField]) -> int:
    """Paimon's ``RowType.currentHighestFieldId``: the largest id of the fields and every nested
    field, system fields excluded; -1 when there is none."""
    ids: list[int] = []
    for f in fields:
        ids.append(f.id)
        ids.extend(collect_field_ids(f.type))
    ids = [i for i in ids if i < SYSTEM_FIELD_ID_START]
    return max(ids, default=-1)


class _Counter:
    def __init__(self, value: int) -> None:
        self.value = value

    def next(self) -> int:
        self.value += 1
        return self.value


def _reassign(t: DataType, counter: _Counter) -> DataType:
    # Paimon's ReassignFieldId: the type of a nested field is visited before the field gets its id.
    if isinstance(t, RowType):
        new_fields = []
        for f in t.fields:
            nt = _reassign(f.type, counter)
            new_fields.append(replace(f, id=counter.next(), type=nt))
        return replace(t, fields=tuple(new_fields))
    if isinstance(t, ArrayType):
        return replace(t, element=_reassign(t.element, counter))
    if isinstance(t, MultisetType):
        return replace(t, element=_reassign(t.element, counter))
    if isinstance(t, VectorType):
        return replace(t, element=_reassign(t.element, counter))
    if isinstance(t, MapType):
        return replace(t, key=_reassign(t.key, counter), value=_reassign(t.value, counter))
    return t


def assign_field_ids(
    columns: Sequence[tuple[str, DataType] | tuple[str, DataType, str | None]], start_id: int = 0
) -> tuple[list[DataField], int]:
    """Give columns ids as Paimon's ``Schema.Builder.column`` does: each column takes the next id,
    then the ROW fields inside its type are numbered. Returns the fields and the highest id used
    (``start_id - 1`` when there are no columns)."""
    counter = _Counter(start_id - 1)
    out: list[DataField] = []
    for col in columns:
        name, t = col[0], col[1]
        desc = col[2] if len(col) > 2 else None
        fid = counter.next()
        out.append(DataField(fid, name, _reassign(t, counter), desc))
    return out, counter.value


# ----------------------------------------------------------------------------------------------
# Arrow
# ----------------------------------------------------------------------------------------------


def timestamp_unit(precision: int) -> str:
    """Arrow unit used for a timestamp of the given precision: ms (<= 3), us (<= 6), else ns."""
    if precision <= 3:
        return "ms"
    if precision <= 6:
        return "us"
    return "ns"


class ToArrowType(TypeVisitor[pa.DataType]):
    """The Arrow type engine arrays of a Paimon type have."""

    def visit_boolean(self, t: BooleanType) -> pa.DataType:
        return pa.bool_()

    def visit_tinyint(self, t: TinyIntType) -> pa.DataType:
        return pa.int8()

    def visit_smallint(self, t: SmallIntType) -> pa.DataType:
        return pa.int16()

    def visit_int(self, t: IntType) -> pa.DataType:
        return pa.int32()

    def visit_bigint(self, t: BigIntType) -> pa.DataType:
        return pa.int64()

    def visit_float(self, t: FloatType) -> pa.DataType:
        return pa.float32()

    def visit_double(self, t: DoubleType) -> pa.DataType:
        return pa.float64()

    def visit_decimal(self, t: DecimalType) -> pa.DataType:
        return pa.decimal128(t.precision, t.scale)

    def visit_char(self, t: CharType) -> pa.DataType:
        return pa.string()

    def visit_varchar(self, t: VarCharType) -> pa.DataType:
        return pa.string()

    def visit_binary(self, t: BinaryType) -> pa.DataType:
        return pa.binary()

    def visit_varbinary(self, t: VarBinaryType) -> pa.DataType:
        return pa.binary()

    def visit_blob(self, t: BlobType) -> pa.DataType:
        return pa.binary()

    def visit_date(self, t: DateType) -> pa.DataType:
        return pa.date32()

    def visit_time(self, t: TimeType) -> pa.DataType:
        return pa.time32("ms")

    def visit_timestamp(self, t: TimestampType) -> pa.DataType:
        return pa.timestamp(timestamp_unit(t.precision))

    def visit_local_zoned_timestamp(self, t: LocalZonedTimestampType) -> pa.DataType:
        return pa.timestamp(timestamp_unit(t.precision), tz="UTC")

    def visit_variant(self, t: VariantType) -> pa.DataType:
        raise UnsupportedError(f"Paimon type {t.to_string()} has no Arrow mapping")

    def visit_array(self, t: ArrayType) -> pa.DataType:
        return pa.list_(pa.field("element", t.element.accept(self), t.element.nullable))

    def visit_vector(self, t: VectorType) -> pa.DataType:
        return pa.list_(pa.field("element", t.element.accept(self), t.element.nullable), t.length)

    def visit_map(self, t: MapType) -> pa.DataType:
        return pa.map_(
            pa.field("key", t.key.accept(self), False),
            pa.field("value", t.value.accept(self), t.value.nullable),
        )

    def visit_multiset(self, t: MultisetType) -> pa.DataType:
        # Paimon's multiset is a map from element to its count (INT NOT NULL).
        return pa.map_(pa.field("key", t.element.accept(self), False), pa.field("value", pa.int32(), False))

    def visit_row(self, t: RowType) -> pa.DataType:
        return pa.struct([to_arrow_field(f) for f in t.fields])


_TO_ARROW = ToArrowType()


def to_arrow_type(t: DataType) -> pa.DataType:
    """The Arrow type engine arrays of a Paimon type have (``ToArrowType``)."""
    return t.accept(_TO_ARROW)


def to_arrow_field(f: DataField) -> pa.Field:
    """Arrow field of a Paimon field: same name and nullability, the field id in the metadata."""
    return pa.field(
        f.name,
        to_arrow_type(f.type),
        f.type.nullable,
        metadata={PARQUET_FIELD_ID_KEY: str(f.id).encode()},
    )


def to_arrow_schema(fields: Iterable[DataField]) -> pa.Schema:
    return pa.schema([to_arrow_field(f) for f in fields])


_TIME_PRECISION = {"s": 0, "ms": 3, "us": 6, "ns": 9}


def from_arrow_type(t: pa.DataType, nullable: bool = True) -> DataType:
    """The Paimon type of an Arrow type. Nested ROW fields get id -1 here: use
    ``fields_from_arrow_schema`` (or ``assign_field_ids``) to number them."""
    pt = pa.types
    if pt.is_dictionary(t):
        return from_arrow_type(t.value_type, nullable)
    if pt.is_boolean(t):
        return BooleanType(nullable=nullable)
    if pt.is_int8(t):
        return TinyIntType(nullable=nullable)
    if pt.is_int16(t):
        return SmallIntType(nullable=nullable)
    if pt.is_int32(t):
        return IntType(nullable=nullable)
    if pt.is_int64(t):
        return BigIntType(nullable=nullable)
    if pt.is_float32(t):
        return FloatType(nullable=nullable)
    if pt.is_float64(t):
        return DoubleType(nullable=nullable)
    if pt.is_decimal(t):
        if t.precision > DECIMAL_MAX_PRECISION:
            raise UnsupportedError(f"Arrow type {t} exceeds Paimon's maximum DECIMAL precision 38")
        return DecimalType(t.precision, t.scale, nullable=nullable)
    if pt.is_string(t) or pt.is_large_string(t) or pt.is_string_view(t):
        return VarCharType(MAX_LENGTH, nullable=nullable)
    if pt.is_fixed_size_binary(t):
        return BinaryType(t.byte_width, nullable=nullable)
    if pt.is_binary(t) or pt.is_large_binary(t) or pt.is_binary_view(t):
        return VarBinaryType(MAX_LENGTH, nullable=nullable)
    if pt.is_date(t):
        return DateType(nullable=nullable)
    if pt.is_time(t):
        return TimeType(_TIME_PRECISION[t.unit], nullable=nullable)
    if pt.is_timestamp(t):
        p = _TIME_PRECISION[t.unit]
        if t.tz is not None:
            return LocalZonedTimestampType(p, nullable=nullable)
        return TimestampType(p, nullable=nullable)
    if pt.is_fixed_size_list(t):
        vf = t.value_field
        return VectorType(from_arrow_type(vf.type, vf.nullable), t.list_size, nullable=nullable)
    if pt.is_list(t) or pt.is_large_list(t) or pt.is_list_view(t) or pt.is_large_list_view(t):
        vf = t.value_field
        return ArrayType(from_arrow_type(vf.type, vf.nullable), nullable=nullable)
    if pt.is_map(t):
        return MapType(
            from_arrow_type(t.key_type, False),
            from_arrow_type(t.item_type, t.item_field.nullable),
            nullable=nullable,
        )
    if pt.is_struct(t):
        fields = tuple(
            DataField(-1, t.field(i).name, from_arrow_type(t.field(i).type, t.field(i).nullable))
            for i in range(t.num_fields)
        )
        return RowType(fields, nullable=nullable)
    raise UnsupportedError(f"Arrow type {t} has no Paimon mapping")


def fields_from_arrow_schema(schema: pa.Schema, start_id: int = 0) -> tuple[list[DataField], int]:
    """Paimon fields of an Arrow schema, numbered from ``start_id`` as Paimon numbers new columns
    (nested ROW fields included). Returns the fields and the highest id used. A column's
    ``paimon.comment`` metadata becomes its description, its ``paimon.type`` metadata its exact
    type (see ``ARROW_TYPE_KEY``)."""
    cols: list[tuple[str, DataType, str | None]] = []
    for f in schema:
        meta = f.metadata or {}
        t = from_arrow_type(f.type, f.nullable)
        declared = meta.get(ARROW_TYPE_KEY)
        if declared is not None:
            exact = parse_type_string(declared.decode()).copy(f.nullable)
            if not to_arrow_type(exact).equals(to_arrow_type(t)):
                raise ValidationError(
                    f"Column {f.name!r}: declared Paimon type {exact.to_string()} does not match its "
                    f"Arrow type {f.type}"
                )
            t = exact
        comment = meta.get(ARROW_COMMENT_KEY)
        cols.append((f.name, t, comment.decode() if comment is not None else None))
    return assign_field_ids(cols, start_id)


# ----------------------------------------------------------------------------------------------
# Helpers for the binary formats
# ----------------------------------------------------------------------------------------------


def is_fixed_width(t: DataType) -> bool:
    """True when a value of the type always lives entirely in a BinaryRow's 8-byte slot."""
    if isinstance(
        t,
        (
            BooleanType,
            TinyIntType,
            SmallIntType,
            IntType,
            BigIntType,
            FloatType,
            DoubleType,
            DateType,
            TimeType,
        ),
    ):
        return True
    if isinstance(t, DecimalType):
        return t.is_compact
    if isinstance(t, (TimestampType, LocalZonedTimestampType)):
        return t.is_compact
    return False


def is_nested(t: DataType) -> bool:
    return isinstance(t, (ArrayType, MapType, MultisetType, RowType, VectorType))
