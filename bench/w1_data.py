"""Workload W1 data: deterministic rows and a checksum, shared by bench/w1.py (project venv, pyarrow 26)
and bench/pypaimon_w1.py (pypaimon venv, pyarrow 19): only APIs both versions have.

Schema: id BIGINT (primary key for the PK table), k STRING (10 chars), v DOUBLE, ts BIGINT.
Base: ids 0..n-1 in a shuffled order. Upsert: n/8 existing ids (v, k and ts changed: k starts with
'u') plus n/8 new ids n..n+n/8-1, shuffled; for n = 2,000,000 that is 250,000 + 250,000 rows.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.ipc as ipc

SCHEMA = pa.schema([("id", pa.int64()), ("k", pa.string()), ("v", pa.float64()), ("ts", pa.int64())])
BASE_TS = 1_700_000_000_000


def _keys(prefix: str, ids: np.ndarray) -> pa.Array:
    digits = pc.utf8_lpad(
        pc.cast(pa.array(ids % 1_000_000_000, pa.int64()), pa.string()), width=9, padding="0"
    )
    return pc.binary_join_element_wise(pa.scalar(prefix), digits, "")


def base_rows(n: int, seed: int = 1) -> pa.Table:
    rng = np.random.default_rng(seed)
    ids = rng.permutation(np.arange(n, dtype=np.int64))
    return pa.table(
        {
            "id": pa.array(ids, pa.int64()),
            "k": _keys("k", ids),
            "v": pa.array(rng.random(n), pa.float64()),
            "ts": pa.array(BASE_TS + ids * 1000, pa.int64()),
        },
        schema=SCHEMA,
    )


def upsert_rows(n: int, seed: int = 2) -> pa.Table:
    rng = np.random.default_rng(seed)
    quarter = n // 8
    existing = rng.choice(n, size=quarter, replace=False).astype(np.int64)
    new = np.arange(n, n + quarter, dtype=np.int64)
    ids = rng.permutation(np.concatenate([existing, new]))
    return pa.table(
        {
            "id": pa.array(ids, pa.int64()),
            "k": _keys("u", ids),
            "v": pa.array(rng.random(len(ids)), pa.float64()),
            "ts": pa.array(BASE_TS + ids * 1000 + 7, pa.int64()),
        },
        schema=SCHEMA,
    )


def merged_rows(base: pa.Table, upsert: pa.Table) -> pa.Table:
    """The PK table's content after the upsert (last write wins)."""
    keep = pc.invert(pc.is_in(base.column("id"), value_set=upsert.column("id")))
    return pa.concat_tables([base.filter(keep), upsert])


def checksum(table: pa.Table) -> dict[str, int]:
    """Order-independent, exact checksum of W1 rows."""
    v_bits = pc.floor(pc.multiply(table.column("v"), float(2**20)))

    def total(arr: pa.ChunkedArray) -> int:
        value = pc.sum(arr).as_py()
        return 0 if value is None else int(value)

    return {
        "rows": table.num_rows,
        "sum_id": total(table.column("id")),
        "sum_ts": total(pc.subtract(table.column("ts"), BASE_TS)),
        "sum_v": total(pc.cast(v_bits, pa.int64())),
        "k_u": total(pc.cast(pc.starts_with(table.column("k"), "u"), pa.int64())),
        "k_len": total(pc.utf8_length(table.column("k"))),
    }


def save_ipc(table: pa.Table, path: str) -> None:
    with pa.OSFile(path, "wb") as sink, ipc.new_file(sink, table.schema) as writer:
        writer.write_table(table, max_chunksize=65536)


def load_ipc(path: str) -> pa.Table:
    """Memory-maps an IPC file written by save_ipc (zero copy)."""
    return ipc.open_file(pa.memory_map(path, "r")).read_all()
