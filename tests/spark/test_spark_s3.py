"""Spark SQL on a warehouse in an S3-compatible store (moto's server on 127.0.0.1): a second Paimon
catalog of the running session with Paimon's ``s3.*`` catalog options; reads go through the Python
path (Spark's parquet reader would need Hadoop's S3A, which pyspark does not ship)."""

from __future__ import annotations

from typing import Any

import pytest

from paimon_sql.catalog.factory import load_catalog
from paimon_sql.table.table import Table
from tests.helpers.s3_server import SECRET_KEY, S3Warehouse, s3_server_fixture, s3_warehouse_fixture  # noqa: F401

pytestmark = pytest.mark.spark


@pytest.fixture()
def s3cat(spark: Any, s3_warehouse: S3Warehouse) -> str:
    from paimon_sql.spark import CATALOG_CLASS
    from paimon_sql.spark.session import catalog_conf

    name = "s3p_" + s3_warehouse.bucket.replace("-", "_")
    conf = catalog_conf(s3_warehouse.uri, name, default_catalog=False, catalog_options=s3_warehouse.options)
    assert conf[f"spark.sql.catalog.{name}"] == CATALOG_CLASS
    for k, v in conf.items():
        if k.startswith(f"spark.sql.catalog.{name}"):
            spark.conf.set(k, v)
    return name


def test_insert_select_compact_on_s3(spark: Any, s3cat: str, s3_warehouse: S3Warehouse) -> None:
    spark.sql(f"CREATE DATABASE IF NOT EXISTS {s3cat}.db")
    spark.sql(f"CREATE TABLE {s3cat}.db.t (id INT, v STRING, dt STRING) PARTITIONED BY (dt) "
              "TBLPROPERTIES ('primary-key' = 'id,dt', 'bucket' = '2')")
    spark.sql(f"INSERT INTO {s3cat}.db.t VALUES (1, 'a', 'd1'), (2, 'b', 'd1'), (3, 'c', 'd2')")
    spark.sql(f"INSERT INTO {s3cat}.db.t VALUES (2, 'B', 'd1')")
    rows = spark.sql(f"SELECT id, v, dt FROM {s3cat}.db.t ORDER BY id").collect()
    assert [tuple(r) for r in rows] == [(1, "a", "d1"), (2, "B", "d1"), (3, "c", "d2")]
    assert spark.sql(f"SELECT count(*) FROM {s3cat}.db.t WHERE dt = 'd1'").collect()[0][0] == 2
    plan = "\n".join(r[0] for r in spark.sql(f"EXPLAIN EXTENDED SELECT * FROM {s3cat}.db.t WHERE id > 1").collect())
    assert SECRET_KEY not in plan  # the options the workers get are not shown in query plans
    spark.sql(f"USE {s3cat}")
    try:
        assert spark.sql("CALL sys.compact(table => 'db.t')").collect()[0][0] is True
    finally:
        spark.sql("USE paimon")
    snaps = spark.sql(f"SELECT snapshot_id, commit_kind FROM {s3cat}.db.`t$snapshots` ORDER BY snapshot_id").collect()
    assert [tuple(r) for r in snaps][-1][1] == "COMPACT"
    rows = spark.sql(f"SELECT id, v FROM {s3cat}.db.t VERSION AS OF 1 ORDER BY id").collect()
    assert [tuple(r) for r in rows] == [(1, "a"), (2, "b"), (3, "c")]
    # by path: the session's catalog on that warehouse lends its s3.* options
    by_path = spark.read.format("paimon").load(f"{s3_warehouse.uri}/db.db/t")
    assert sorted(r[0] for r in by_path.select("id").collect()) == [1, 2, 3]
    # the engine sees what Spark wrote, in the bucket
    t = load_catalog(s3_warehouse.uri, s3_warehouse.options).get_table("db.t")
    assert isinstance(t, Table) and t.read().num_rows == 3
    keys = s3_warehouse.server.keys(s3_warehouse.bucket)
    assert any(k.startswith("warehouse/db.db/t/dt=d1/bucket-") for k in keys)


def test_wrong_endpoint_fails_naming_the_option(spark: Any, s3_warehouse: S3Warehouse) -> None:
    import socket

    from paimon_sql.spark.session import catalog_conf

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    name = "s3bad_" + s3_warehouse.bucket.replace("-", "_")
    opts = {**s3_warehouse.options, "s3.endpoint": f"http://127.0.0.1:{port}"}
    for k, v in catalog_conf(s3_warehouse.uri, name, default_catalog=False, catalog_options=opts).items():
        if k.startswith(f"spark.sql.catalog.{name}"):
            spark.conf.set(k, v)
    with pytest.raises(Exception, match="s3.endpoint"):
        spark.sql(f"SHOW DATABASES IN {name}").collect()
