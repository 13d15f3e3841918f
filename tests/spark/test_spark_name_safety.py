"""Every kind of SQL statement refuses database, table and tag names that lead out of the
warehouse, and nothing outside it is read, created, changed or deleted."""

from __future__ import annotations

import hashlib
import os
import uuid
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from paimon_sql import Catalog
from paimon_sql.table.table import Table

pytestmark = pytest.mark.spark


def _state(*roots: Path) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for root in roots:
        for dirpath, _, filenames in os.walk(root):
            d = Path(dirpath)
            out[str(d)] = ("dir", os.lstat(d).st_mtime_ns)
            for f in filenames:
                p = d / f
                st = os.lstat(p)
                out[str(p)] = (st.st_size, st.st_mtime_ns, hashlib.sha256(p.read_bytes()).hexdigest())
    return out


def test_escaping_names_in_sql_touch_nothing_outside(spark: Any, db: str, spark_warehouse: str) -> None:
    outside = Path(spark_warehouse).parent
    tag = uuid.uuid4().hex[:8]
    victim_db, victim2 = f"victim_{tag}", f"victim2_{tag}"
    victim = Catalog(str(outside))
    victim.create_database(victim_db)
    vt = victim.create_table(
        f"{victim_db}.t2", pa.schema([("id", pa.int64()), ("v", pa.string())]), primary_keys=["id"],
        options={"bucket": "1"},
    )
    assert isinstance(vt, Table)
    vt.write(pa.table({"id": [1, 2], "v": ["secret", "b"]}))
    (outside / f"{victim2}.db").mkdir()
    (outside / f"{victim2}.db" / "keep.txt").write_text("keep")
    spark.sql(f"CREATE TABLE {db}.t (id BIGINT, v STRING)")
    spark.sql(f"INSERT INTO {db}.t VALUES (1, 'a')")
    roots = [outside / f"{victim_db}.db", outside / f"{victim2}.db"]
    before = _state(*roots)
    esc = f"default.`../../{victim_db}.db/t2`"
    statements = [
        f"SELECT * FROM {esc}",
        f"SELECT * FROM `../{victim_db}`.t2",
        f"DESCRIBE TABLE {esc}",
        f"SHOW CREATE TABLE {esc}",
        f"INSERT INTO {esc} VALUES (3, 'c')",
        f"INSERT OVERWRITE {esc} VALUES (3, 'c')",
        f"DELETE FROM {esc} WHERE id = 1",
        f"TRUNCATE TABLE {esc}",
        f"DROP TABLE {esc}",
        f"DROP TABLE IF EXISTS {esc}",
        f"ALTER TABLE {esc} RENAME TO {db}.stolen",
        f"ALTER TABLE {db}.t RENAME TO default.`../../{victim_db}.db/moved`",
        f"ALTER TABLE {esc} ADD COLUMNS (x INT)",
        f"ALTER TABLE {esc} SET TBLPROPERTIES ('a' = 'b')",
        f"CREATE TABLE default.`../../{victim_db}.db/t9` (a INT)",
        f"CREATE TABLE {db}.`t$branch_../../../../{victim_db}.db/t2` (a INT)",
        f"SELECT * FROM {db}.`t$branch_../../../../{victim_db}.db/t2`",
        f"CREATE NAMESPACE `../{victim2}`",
        f"DROP NAMESPACE `../{victim2}` CASCADE",
        f"DROP NAMESPACE `../{victim_db}` CASCADE",
        f"SHOW TABLES IN `../{victim_db}`",
        f"CALL sys.create_tag(table => '`../{victim_db}`.t2', tag => 'x')",
        f"CALL sys.create_tag(table => '{db}.t', tag => '../../x')",
        f"CALL sys.delete_tag(table => '{db}.t', tag => '../snapshot/snapshot-1')",
        f"CALL sys.rollback(table => '{db}.t', version => '../../../{victim_db}.db/t2/tag/x')",
        f"CALL sys.rollback(table => 'default.`../../{victim_db}.db/t2`', version => '1')",
        f"SELECT * FROM {db}.t VERSION AS OF '../../../{victim_db}.db/t2/snapshot/snapshot-1'",
    ]
    accepted = []
    for stmt in statements:
        try:
            rows = spark.sql(stmt).collect()
        except Exception as e:  # noqa: BLE001 (any Spark error will do: the point is what it left)
            assert "secret" not in str(e), stmt
            continue
        accepted.append((stmt, rows))
    assert accepted == [], accepted
    assert _state(*roots) == before
    assert not (outside / f"{victim_db}.db" / "moved").exists()
    assert [tuple(r) for r in spark.sql(f"SELECT * FROM {db}.t").collect()] == [(1, "a")]
