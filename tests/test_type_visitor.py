"""TypeVisitor: one method per Paimon type, dispatch by ``accept``, missing cases fail loudly."""

from __future__ import annotations

import dataclasses
import inspect

import pytest

from paimon_sql import types as pt
from paimon_sql.errors import UnsupportedError

_ONE_OF_EACH: dict[str, pt.DataType] = {
    "boolean": pt.BooleanType(),
    "tinyint": pt.TinyIntType(),
    "smallint": pt.SmallIntType(),
    "int": pt.IntType(),
    "bigint": pt.BigIntType(),
    "float": pt.FloatType(),
    "double": pt.DoubleType(),
    "decimal": pt.DecimalType(10, 2),
    "char": pt.CharType(3),
    "varchar": pt.VarCharType(),
    "binary": pt.BinaryType(2),
    "varbinary": pt.VarBinaryType(),
    "date": pt.DateType(),
    "time": pt.TimeType(3),
    "timestamp": pt.TimestampType(6),
    "local_zoned_timestamp": pt.LocalZonedTimestampType(3),
    "variant": pt.VariantType(),
    "blob": pt.BlobType(),
    "array": pt.ArrayType(pt.IntType()),
    "multiset": pt.MultisetType(pt.IntType()),
    "map": pt.MapType(pt.IntType(), pt.IntType()),
    "vector": pt.VectorType(pt.FloatType(), 3),
    "row": pt.RowType((pt.DataField(0, "a", pt.IntType()),)),
}


class _Names(pt.DefaultTypeVisitor[str]):
    def default(self, t: pt.DataType) -> str:
        return "?"


def test_every_type_class_dispatches_to_its_own_method() -> None:
    classes = {
        c for c in vars(pt).values()
        if inspect.isclass(c) and issubclass(c, pt.DataType) and c is not pt.DataType and dataclasses.is_dataclass(c)
    }
    assert {type(t) for t in _ONE_OF_EACH.values()} == classes
    abstract = {n for n in pt.TypeVisitor.__abstractmethods__}
    assert abstract == {f"visit_{k}" for k in _ONE_OF_EACH}
    for name, t in _ONE_OF_EACH.items():
        calls: list[str] = []

        def record(t: pt.DataType, name: str = name, calls: list[str] = calls) -> str:
            calls.append(name)
            return name

        v = _Names()
        setattr(v, f"visit_{name}", record)
        assert t.accept(v) == name
        assert v.visit(t) == name
        assert calls == [name, name]


def test_a_visitor_missing_a_type_cannot_be_created() -> None:
    class Partial(pt.TypeVisitor[int]):
        def visit_int(self, t: pt.IntType) -> int:
            return 1

    with pytest.raises(TypeError, match="abstract"):
        Partial()  # type: ignore[abstract]


def test_default_visitor_falls_back_to_default() -> None:
    assert {t.accept(_Names()) for t in _ONE_OF_EACH.values()} == {"?"}


def test_families() -> None:
    assert pt.CharType(2).is_family("CHARACTER_STRING")
    assert pt.BigIntType().is_family("INTEGER_NUMERIC")
    assert not pt.DecimalType(10, 2).is_family("INTEGER_NUMERIC")
    assert pt.LocalZonedTimestampType(3).is_family("TIMESTAMP")
    assert set(pt.TYPE_FAMILIES) == {t.root for t in _ONE_OF_EACH.values()}


def test_arrow_visitor_refuses_variant() -> None:
    with pytest.raises(UnsupportedError, match="VARIANT has no Arrow mapping"):
        pt.to_arrow_type(pt.VariantType())
