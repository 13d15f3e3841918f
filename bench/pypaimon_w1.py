"""W1 with pypaimon 2.1.0. Runs INSIDE the pypaimon venv (bench/w1.py starts it); times each phase in
this process and prints one JSON object: {phase: {"seconds": s, "rows": n, "checksum_ok": bool}}.

Usage: .venv-pypaimon/bin/python bench/pypaimon_w1.py --dir DIR   (DIR holds base.arrow, upsert.arrow)
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import pyarrow as pa  # noqa: E402
from pypaimon import CatalogFactory, Schema  # noqa: E402
from w1_data import SCHEMA, checksum, load_ipc, merged_rows  # noqa: E402


def _write(table: Any, data: pa.Table) -> None:
    builder = table.new_batch_write_builder()
    writer = builder.new_write()
    committer = builder.new_commit()
    writer.write_arrow(data)
    committer.commit(writer.prepare_commit())
    writer.close()
    committer.close()


def _read(table: Any) -> pa.Table:
    builder = table.new_read_builder()
    return builder.new_read().to_arrow(builder.new_scan().plan().splits())


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--dir", required=True)
    args = parser.parse_args()
    base = load_ipc(os.path.join(args.dir, "base.arrow"))
    upsert = load_ipc(os.path.join(args.dir, "upsert.arrow"))
    catalog = CatalogFactory.create({"warehouse": os.path.join(args.dir, "pypaimon-warehouse")})
    catalog.create_database("db", True)
    catalog.create_table(
        "db.pk", Schema.from_pyarrow_schema(SCHEMA, primary_keys=["id"], options={"bucket": "4"}), False
    )
    catalog.create_table("db.append", Schema.from_pyarrow_schema(SCHEMA), False)
    results: dict[str, Any] = {}

    def timed(name: str, fn: Any, expect: pa.Table | None = None) -> None:
        start = time.perf_counter()
        out = fn()
        seconds = time.perf_counter() - start
        entry: dict[str, Any] = {"seconds": seconds}
        if expect is not None:
            entry["rows"] = out.num_rows
            entry["checksum_ok"] = checksum(out) == checksum(expect)
        results[name] = entry

    pk = catalog.get_table("db.pk")
    timed("pk_write", lambda: _write(pk, base))
    timed("pk_upsert", lambda: _write(catalog.get_table("db.pk"), upsert))
    timed("pk_read", lambda: _read(catalog.get_table("db.pk")), merged_rows(base, upsert))
    timed("append_write", lambda: _write(catalog.get_table("db.append"), base))
    timed("append_read", lambda: _read(catalog.get_table("db.append")), base)
    results["peak_rss_bytes"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(json.dumps(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
