"""``hll_sketch`` / ``theta_sketch`` columns filled by Spark's own sketch functions
(``hll_sketch_agg`` and ``theta_sketch_agg``, datasketches-java inside Spark): the table unions the
sketches of each INSERT, and Spark's estimate functions read the merged sketches."""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.spark


def test_spark_sketches_are_unioned(spark: Any, sql: Any, db: str) -> None:
    spark.sql(
        f"CREATE TABLE {db}.sk (k STRING, users BINARY, items BINARY) TBLPROPERTIES ('primary-key'='k', "
        "'bucket'='1', 'merge-engine'='aggregation', 'fields.users.aggregate-function'='hll_sketch', "
        "'fields.items.aggregate-function'='theta_sketch')"
    )
    batches = [(0, 3000), (2000, 6000), (5990, 6003)]  # ids per batch, every key; the last batch is small
    for lo, hi in batches:
        spark.sql(
            f"INSERT INTO {db}.sk SELECT CAST(id % 2 AS STRING), hll_sketch_agg(id), theta_sketch_agg(id) "
            f"FROM range({lo}, {hi}) GROUP BY id % 2"
        )
    got = dict((k, (h, t)) for k, h, t in sql(
        f"SELECT k, hll_sketch_estimate(users), theta_sketch_estimate(items) FROM {db}.sk"))
    for k in ("0", "1"):
        exact = len({i for lo, hi in batches for i in range(lo, hi) if str(i % 2) == k})  # 3002 / 3001
        h, t = got[k]
        assert abs(h - exact) < exact * 0.03, (k, h, exact)
        assert t == exact  # under 4,096 entries a theta sketch is exact
