"""The one registry of process state: bounded LRU caches that close what they evict, and
``close_process_state`` closing every one (the stores of reused workers, the maintenance objects)."""

from __future__ import annotations

import pyarrow as pa

from paimon_sql import Catalog
from paimon_sql.meta.store_ref import StoreRef
from paimon_sql.ops import maintenance
from paimon_sql.process_state import STATE, ProcessCache, close_process_state


def test_a_cache_evicts_the_least_recently_used_and_closes_it() -> None:
    closed: list[str] = []
    cache: ProcessCache[str, str] = ProcessCache("test", 2, closed.append)
    cache.put("a", "A")
    cache.put("b", "B")
    assert cache.get("a") == "A"  # a is now the most recent
    assert cache.get_or_create("c", lambda: "C") == "C"
    assert closed == ["B"] and "b" not in cache and len(cache) == 2
    assert cache.get_or_create("a", lambda: "other") == "A"
    assert cache.get_or_create("a", lambda: "new", usable=lambda v: v != "A") == "new"
    cache.clear()
    assert closed == ["B", "C", "new"] and len(cache) == 0


def test_the_bound_may_be_read_at_every_insertion() -> None:
    limit = [3]
    cache: ProcessCache[int, int] = ProcessCache("test", lambda: limit[0])
    for i in range(3):
        cache.put(i, i)
    limit[0] = 1
    cache.put(3, 3)
    assert [k for k, _ in cache.items()] == [3]


def test_the_engine_caches_are_registered_and_close_together(catalog: Catalog) -> None:
    t = catalog.create_table("db.t", pa.schema([("k", pa.int64())]),
                             options={"snapshot.expire.execution-mode": "async"})
    t.write(pa.table({"k": [1]}))
    m = maintenance.maintenance_of(t.store)
    ref = StoreRef.of(t.store)
    store = ref.open()
    assert ref.open() is store  # a reused worker keeps its store warm
    assert {"ops.maintenance", "meta.stores"} <= set(STATE.names())
    close_process_state()
    assert m.closed and m.pool is None
    assert ref.open() is not store
    assert maintenance.maintenance_of(t.store) is not m  # a closed one is replaced
