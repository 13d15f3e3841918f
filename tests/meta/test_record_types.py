"""Metadata record types declared once (meta/record_types.py): the Avro schema of Avro manifests and
the Arrow schema of ORC / Parquet manifests derive from the same Paimon row type, with Paimon's
record names, nullability and field types."""

from __future__ import annotations

from typing import Any

import pyarrow as pa
import pytest

from paimon_sql.errors import ValidationError
from paimon_sql.meta.index_file_meta import INDEX_MANIFEST_ENTRY_TYPE
from paimon_sql.meta.manifest_entry import MANIFEST_ENTRY_TYPE
from paimon_sql.meta.manifest_file_meta import MANIFEST_FILE_META_TYPE
from paimon_sql.meta.manifest_io import write_records
from paimon_sql.meta.record_types import arrow_schema_of, avro_schema_of
from paimon_sql.types import RowType

TYPES = [MANIFEST_ENTRY_TYPE, MANIFEST_FILE_META_TYPE, INDEX_MANIFEST_ENTRY_TYPE]


def _avro_names(schema: Any, out: list[str]) -> list[str]:
    if isinstance(schema, list):
        for s in schema:
            _avro_names(s, out)
    elif isinstance(schema, dict):
        if schema.get("type") == "record":
            out.append(schema["name"])
            for f in schema["fields"]:
                _avro_names(f["type"], out)
        elif schema.get("type") == "array":
            _avro_names(schema["items"], out)
    return out


def test_paimon_record_names() -> None:
    top = avro_schema_of(MANIFEST_ENTRY_TYPE)
    assert (top["namespace"], top["name"]) == ("org.apache.paimon.avro.generated", "record")
    assert _avro_names(top, []) == ["record", "record__FILE", "record__FILE__KEY_STATS", "record__FILE__VALUE_STATS"]
    assert _avro_names(avro_schema_of(INDEX_MANIFEST_ENTRY_TYPE), []) == ["record", "record__DELETIONS_VECTORS_RANGES"]
    assert _avro_names(avro_schema_of(MANIFEST_FILE_META_TYPE), []) == ["record", "record__PARTITION_STATS"]


@pytest.mark.parametrize("row", TYPES)
def test_avro_and_arrow_agree(row: RowType) -> None:
    """Same field names, order and nullability at every level; _VERSION first."""
    avro = avro_schema_of(row)
    arrow = arrow_schema_of(row)
    assert [f["name"] for f in avro["fields"]] == arrow.names
    assert arrow.names[0] == "_VERSION" and not arrow.field("_VERSION").nullable
    for af, rf in zip(avro["fields"], arrow):
        assert isinstance(af["type"], list) == rf.nullable, rf.name
        assert ("default" in af) == rf.nullable


def test_tinyint_fields_are_8_bit_in_orc_and_parquet() -> None:
    assert arrow_schema_of(MANIFEST_ENTRY_TYPE).field("_KIND").type == pa.int8()
    assert arrow_schema_of(INDEX_MANIFEST_ENTRY_TYPE).field("_KIND").type == pa.int8()
    file_type = arrow_schema_of(MANIFEST_ENTRY_TYPE).field("_FILE").type
    assert file_type.field("_FILE_SOURCE").type == pa.int8()
    assert file_type.field("_CREATION_TIME").type == pa.timestamp("ms")
    assert avro_schema_of(MANIFEST_ENTRY_TYPE)["fields"][1]["type"] == "int"


def test_manifest_compression_names(tmp_path: Any) -> None:
    from paimon_sql.fs.file_io import FileIO

    fio, root = FileIO.for_uri(str(tmp_path))
    for comp in ("zstd", "snappy", "deflate", "none"):
        assert write_records(fio, f"{root}/m-{comp}", [], MANIFEST_FILE_META_TYPE, "avro", comp) > 0
    for bad in ("lz4", "gzip"):  # not Avro codecs (Paimon's Avro writer refuses them too)
        with pytest.raises(ValidationError, match="manifest.compression"):
            write_records(fio, f"{root}/m-{bad}", [], MANIFEST_FILE_META_TYPE, "avro", bad)
