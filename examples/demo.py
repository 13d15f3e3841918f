"""A short tour of paimon_sql on a local warehouse: create, write, upsert, delete, time travel."""

from __future__ import annotations

import argparse
import shutil
import tempfile

import pyarrow as pa

from paimon_sql import Catalog


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--warehouse", help="warehouse folder (default: a temporary folder)")
    args = ap.parse_args()
    warehouse = args.warehouse or tempfile.mkdtemp(prefix="paimon-demo-")
    try:
        cat = Catalog(warehouse)
        cat.create_database("shop", ignore_if_exists=True)
        schema = pa.schema([
            ("id", pa.int64()), ("name", pa.string()), ("price", pa.float64()), ("dt", pa.string()),
        ])
        cat.drop_table("shop.items", ignore_if_not_exists=True)
        t = cat.create_table("shop.items", schema, primary_keys=["id", "dt"], partition_keys=["dt"],
                             options={"bucket": "2"})
        print(f"created {t.name} in {warehouse}")

        s1 = t.write(pa.table({"id": [1, 2, 3], "name": ["apple", "pear", "plum"],
                               "price": [1.0, 2.0, 3.0], "dt": ["2024-01-01"] * 3}))
        print(f"\nsnapshot {s1}: first write")
        _show(t.read())

        s2 = t.write(pa.table({"id": [2, 4], "name": ["pear", "kiwi"], "price": [2.5, 4.0],
                               "dt": ["2024-01-01", "2024-01-02"]}))
        print(f"\nsnapshot {s2}: upsert id 2 (new price) and insert id 4")
        _show(t.read())

        s3 = t.delete("id = 1")
        print(f"\nsnapshot {s3}: delete id = 1")
        _show(t.read())

        print(f"\ntime travel to snapshot {s1}:")
        _show(t.read(snapshot_id=s1))
        print("\nfilter price > 2 AND dt = '2024-01-01':")
        _show(t.read(filter="price > 2 AND dt = '2024-01-01'"))
        print(f"\nsnapshots: {t.snapshot_ids()}")
    finally:
        if not args.warehouse:
            shutil.rmtree(warehouse, ignore_errors=True)


def _show(table: pa.Table) -> None:
    t = table.sort_by([(c, "ascending") for c in ("dt", "id") if c in table.column_names])
    cols = t.column_names
    print("  " + "\t".join(cols))
    for row in t.to_pylist():
        print("  " + "\t".join(str(row[c]) for c in cols))


if __name__ == "__main__":
    main()
