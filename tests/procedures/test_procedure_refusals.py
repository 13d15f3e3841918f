"""Refusals whose text Paimon's procedure tests check (CompactProcedureTestBase "compact with wrong
usage" and "reject buckets for dynamic bucket table", RescaleProcedureTest "rescale error cases",
PaimonTagDdlTestBase): our error classes, Paimon's checked text in the message, the table unchanged."""

from __future__ import annotations

from typing import Any

import pyarrow as pa
import pytest

from paimon_sql import Catalog, Table
from paimon_sql.errors import AlreadyExistsError, PaimonError, ValidationError
from paimon_sql.procedures import call_procedure

SCHEMA = pa.schema([("id", pa.int32()), ("value", pa.string()), ("pt", pa.string())])


def _table(catalog: Catalog, name: str, **kwargs: Any) -> Table:
    t = catalog.create_table(name, SCHEMA, **kwargs)
    assert isinstance(t, Table)
    t.write(pa.table({"id": pa.array([1, 2], pa.int32()), "value": ["a", "b"], "pt": ["p1", "p2"]}, schema=SCHEMA))
    return t


def _refused(catalog: Catalog, t: Table, name: str, args: dict[str, Any], text: str,
             error: type[PaimonError] = ValidationError) -> None:
    before = t.snapshot_ids()
    with pytest.raises(error) as e:
        call_procedure(catalog, name, args)
    assert text in str(e.value), str(e.value)
    assert t.snapshot_ids() == before


def test_compact_with_wrong_usage(catalog: Catalog) -> None:
    t = _table(catalog, "db.T", partition_keys=["pt"], options={"bucket": "-1"})
    _refused(catalog, t, "compact", {"table": "db.T", "partitions": 'pt = "p1"', "where": 'pt = "p1"'},
             "partitions and where cannot be used together")
    _refused(catalog, t, "compact", {"table": "db.T", "partitions": "id = 1"}, "Partition keys [id] are invalid")
    _refused(catalog, t, "compact", {"table": "db.T", "where": 'id > 1 AND pt = "p1"'},
             "Only partition predicate is supported")
    _refused(catalog, t, "compact", {"table": "db.T", "order_strategy": "sort", "order_by": "pt"},
             "order_by should not contain partition cols")
    _refused(catalog, t, "compact", {"table": "db.T", "order_strategy": "sort", "order_by": "id",
                                     "partition_idle_time": "5s"},
             "sort compact do not support 'partition_idle_time'")


def test_compact_refuses_buckets_of_a_dynamic_bucket_table(catalog: Catalog) -> None:
    t = _table(catalog, "db.T", primary_keys=["id"], options={"bucket": "-1", "write-only": "true"})
    _refused(catalog, t, "compact", {"table": "db.T", "buckets": "0"},
             "Specifying buckets is only supported for fixed-bucket tables, but the table bucket mode is HASH_DYNAMIC.")
    u = _table(catalog, "db.U", options={"bucket": "-1"})
    _refused(catalog, u, "compact", {"table": "db.U", "buckets": "0"}, "the table bucket mode is BUCKET_UNAWARE.")


def test_rescale_error_cases(catalog: Catalog) -> None:
    empty = catalog.create_table("db.T1", SCHEMA, primary_keys=["id"], options={"bucket": "2"})
    assert isinstance(empty, Table)
    _refused(catalog, empty, "rescale", {"table": "db.T1", "bucket_num": 4}, "has no snapshot")
    t = _table(catalog, "db.T3", primary_keys=["id", "pt"], partition_keys=["pt"], options={"bucket": "2"})
    _refused(catalog, t, "rescale", {"table": "db.T3", "bucket_num": 4, "partitions": 'pt="p1"',
                                     "where": 'pt = "p1"'}, "partitions and where cannot be used together")
    _refused(catalog, t, "rescale", {"table": "db.T3", "bucket_num": 4, "where": "id = 1"},
             "Only partition predicate is supported")


def test_tag_created_twice(catalog: Catalog) -> None:
    t = _table(catalog, "db.T")
    assert call_procedure(catalog, "create_tag", {"table": "db.T", "tag": "tag-1"}).rows == [(True,)]
    # the procedure: Paimon's TagManager text; the statement: Paimon's CreateOrReplaceTagExec text
    _refused(catalog, t, "create_tag", {"table": "db.T", "tag": "tag-1"}, "Tag 'tag-1' already exists.",
             AlreadyExistsError)
    _refused(catalog, t, "alter_table_create_tag", {"table": "db.T", "tag": "tag-1"}, "Tag tag-1 is exists.",
             AlreadyExistsError)
    assert call_procedure(catalog, "alter_table_create_tag",
                          {"table": "db.T", "tag": "tag-1", "if_not_exists": True}).rows == []
