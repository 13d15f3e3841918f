"""Column default values kept in the schema (Paimon 1.3+ ``DataField.defaultValue``): writers
write a column's default for its nulls (Paimon's ``DefaultValueRow`` in ``TableWriteImpl``);
a value that does not cast is refused when set, with Paimon's message."""

from __future__ import annotations

import json

import pyarrow as pa
import pytest

from paimon_sql.catalog.catalog import Catalog
from paimon_sql.errors import UnsupportedError


def test_writes_fill_nulls_with_the_column_defaults(catalog: Catalog) -> None:
    catalog.create_database("db", ignore_if_exists=True)
    schema = pa.schema([("a", pa.int32()), ("b", pa.int32()), ("c", pa.string()), ("d", pa.float64())])
    t = catalog.create_table("db.t", schema, column_defaults={"b": "2", "c": "'my_value'"})
    stored = json.loads(t.schema.to_json())["fields"]
    assert [f.get("defaultValue") for f in stored] == [None, "2", "'my_value'", None]
    t.write(pa.table({"a": [1, 2, 3], "b": [None, 5, None], "c": ["x", None, None], "d": [None, 1.0, None]},
                     schema=schema))
    rows = sorted(catalog.get_table("db.t").read().to_pylist(), key=lambda r: r["a"])
    assert rows == [
        {"a": 1, "b": 2, "c": "x", "d": None},
        {"a": 2, "b": 5, "c": "my_value", "d": 1.0},
        {"a": 3, "b": 2, "c": "my_value", "d": None},
    ]


def test_a_default_that_does_not_cast_is_refused(catalog: Catalog) -> None:
    catalog.create_database("db", ignore_if_exists=True)
    with pytest.raises(UnsupportedError, match=r"Unsupported default value `current_timestamp\(\)` for type INT"):
        catalog.create_table("db.t", pa.schema([("a", pa.int32())]), column_defaults={"a": "current_timestamp()"})
    assert not catalog.table_exists("db.t")
