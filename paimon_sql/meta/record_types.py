"""The row types of Paimon's metadata records, and the file schemas derived from them.

Each on-disk record (manifest entry, data file meta, manifest file meta, index manifest entry)
declares its Paimon row type once, in its module, as Paimon's ``SCHEMA`` constants do. The Avro
schema of Avro manifests and the Arrow schema of ORC / Parquet manifests are derived from it here,
with the converters data files use (``format.avro_data.row_avro_schema``, ``types.to_arrow_schema``),
so the three formats cannot disagree (e.g. ``_KIND`` is TINYINT: an Avro ``int``, an 8-bit integer
in ORC and Parquet).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

import pyarrow as pa

from paimon_sql.format.avro_data import row_avro_schema
from paimon_sql.types import DataField, IntType, RowType, to_arrow_schema

VERSION_FIELD = "_VERSION"


def versioned_row_type(fields: Sequence[DataField]) -> RowType:
    """``fields`` behind the ``_VERSION INT NOT NULL`` column Paimon's ``VersionedObjectSerializer``
    puts first (field ids shifted by one)."""
    return RowType(
        (DataField(0, VERSION_FIELD, IntType(nullable=False)),
         *(DataField(f.id + 1, f.name, f.type) for f in fields)),
        nullable=False,
    )


@cache
def avro_schema_of(row: RowType) -> dict[str, Any]:
    """The Avro schema of records of ``row`` (Paimon's names and nullable unions)."""
    return row_avro_schema(row.fields)


@cache
def arrow_schema_of(row: RowType) -> pa.Schema:
    """The Arrow schema of ORC / Parquet metadata files of ``row``."""
    return to_arrow_schema(row.fields)
