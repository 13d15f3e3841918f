"""What one write puts in each bucket's file, checked against an independent numpy reference:
rows sorted by key, the newest record of a key in the write wins, sequence numbers in input order
per bucket, and the file meta's statistics (min / max / null counts, key bounds, row and delete
counts) those of the rows in the file. The write gathers a bucket's rows in input order and then
sorts them by key (it used to gather in key order at once): the files must not change."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from paimon_sql import Catalog
from paimon_sql.format.binary_row import encode_rows
from paimon_sql.format.system_fields import KIND, SEQ
from paimon_sql.write.stats import collect_stats

SCHEMA = pa.schema([("id", pa.int64()), ("p", pa.string()), ("s", pa.string()), ("x", pa.float64())])


def _input(n: int, keys: int, parts: int, seed: int) -> pa.Table:
    rng = np.random.default_rng(seed)
    ids = rng.integers(0, keys, n)
    s = pa.array([None if i % 7 == 0 else f"v{int(i) * 31 % 1000:04d}-{j}" for j, i in enumerate(ids)], pa.string())
    x = pa.array(rng.random(n), pa.float64(), mask=rng.random(n) < 0.1)
    p = pa.array([f"p{int(i) % parts}" for i in ids], pa.string())  # the partition follows the key
    return pa.table({"id": ids, "p": p, "s": s, "x": x}, schema=SCHEMA)


def _files(t: object) -> list[tuple[object, pa.Table]]:
    store = t.store  # type: ignore[attr-defined]
    entries = store.manifests.live_entries(store.snapshots.latest())
    return [(e.file, pq.read_table(store.entry_path(e))) for e in entries]


@pytest.mark.parametrize(("parts", "bucket"), [(1, "3"), (260, "1")])
def test_each_bucket_file_is_the_sorted_newest_rows_with_their_stats(catalog: Catalog, parts: int, bucket: str) -> None:
    # 260 partitions x 1 bucket: more than 256 (partition, bucket) groups (the 16-bit group sort)
    data = _input(3_000, 1_300, parts, seed=parts)
    t = catalog.create_table("db.t", SCHEMA, primary_keys=["id", "p"] if parts > 1 else ["id"],
                             partition_keys=["p"] if parts > 1 else [], options={"bucket": bucket})
    t.write(data)
    ids = data.column("id").to_numpy()
    seen: set[int] = set()
    files = _files(t)
    assert len(files) == (3 if parts == 1 else parts)
    for meta, f in files:
        keys = f.column("_KEY_id").to_numpy()
        assert np.all(keys[1:] > keys[:-1])  # sorted, one record per key
        assert not seen & set(keys.tolist())
        seen |= set(keys.tolist())
        # this bucket's input rows, in input order; the expected file: the last record of each key
        rows = np.flatnonzero(np.isin(ids, keys))
        order = np.argsort(ids[rows], kind="stable")
        srt = rows[order]
        last = np.append(ids[srt][1:] != ids[srt][:-1], True)
        want = data.take(pa.array(srt[last]))
        for name in SCHEMA.names:
            assert f.column(name).to_pylist() == want.column(name).to_pylist(), name
        position = np.empty(len(ids), dtype=np.int64)
        position[rows] = np.arange(len(rows))
        assert f.column(SEQ).to_numpy().tolist() == position[srt[last]].tolist()
        assert pc.all(pc.equal(f.column(KIND), 0)).as_py()
        # the file meta describes these rows
        fields = t.store.schema.fields
        assert meta.value_stats == collect_stats([want.column(x.name) for x in fields], [x.type for x in fields])
        assert meta.row_count == want.num_rows and meta.delete_row_count == 0
        key_types = [k.type for k in t.store.key_fields]
        first = [want.column(k.name).slice(0, 1).combine_chunks() for k in t.store.key_fields]
        final = [want.column(k.name).slice(want.num_rows - 1, 1).combine_chunks() for k in t.store.key_fields]
        assert meta.min_key == encode_rows(first, key_types)[0]
        assert meta.max_key == encode_rows(final, key_types)[0]
        assert (meta.min_sequence_number, meta.max_sequence_number) == (
            int(f.column(SEQ).to_numpy().min()), int(f.column(SEQ).to_numpy().max()))
    assert seen == set(np.unique(ids).tolist())
    assert t.read().num_rows == len(seen)


def test_sequence_field_orders_within_the_bucket(catalog: Catalog) -> None:
    """With ``sequence.field`` the bucket's rows are sorted by key and that field (the largest wins,
    ties by input order)."""
    schema = pa.schema([("id", pa.int64()), ("v", pa.int64()), ("s", pa.string())])
    t = catalog.create_table("db.q", schema, primary_keys=["id"], options={"bucket": "2", "sequence.field": "v"})
    rng = np.random.default_rng(9)
    ids, v = rng.integers(0, 300, 3_000), rng.integers(0, 5, 3_000)
    data = pa.table({"id": ids, "v": v, "s": [f"r{i}" for i in range(3_000)]}, schema=schema)
    t.write(data)
    got = t.read().sort_by("id")
    order = np.lexsort((np.arange(len(ids)), v, ids))  # by id, then v, then input position
    srt = order
    last = np.append(ids[srt][1:] != ids[srt][:-1], True)
    want = data.take(pa.array(srt[last]))
    assert got.column("s").to_pylist() == want.column("s").to_pylist()
