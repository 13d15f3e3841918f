"""changelog-producer = full-compaction: a compaction into the highest level (a full compaction)
writes the changelog between the previous full compaction and this one: each key with records
below the top level compared before (its top-level record) and after the merge (Paimon's
FullChangelogMergeFunctionWrapper); ``full-compaction.delta-commits`` > 0 makes every batch write
fully compact the buckets it wrote (Paimon's Spark writer), so each write gives APPEND + COMPACT.

The model test writes, deletes and compacts at random for deduplicate, partial-update and
aggregation (first-row and deletion vectors allow only lookup), with and without delta-commits and
``changelog-producer.row-deduplicate``."""

from __future__ import annotations

import os
import tempfile
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paimon_sql import Catalog
from paimon_sql.errors import PaimonError
from tests.helpers.changelog_model import (
    ENGINES,
    REVIVING,
    SCHEMA,
    Model,
    batch_table,
    by_key,
    check_table,
    commit_kinds,
    compact,
    delete,
    fold,
    snapshot_changelog,
    table_rows,
    write,
)

EXAMPLES = int(os.environ.get("PAIMON_MODEL_EXAMPLES", "12"))

ops = st.lists(st.one_of(write, write, write, delete, compact, compact), min_size=1, max_size=10)

CASES = [
    ("deduplicate", True, False),
    ("deduplicate", False, False),
    ("deduplicate", False, True),
    ("partial-update", True, False),
    ("partial-update", False, True),
    ("aggregation", True, True),
    ("aggregation", False, False),
]


def _create(cat: Catalog, engine: str, delta: bool, dedup: bool, extra: dict[str, str] | None = None) -> Any:
    opts = {"bucket": "1", "changelog-producer": "full-compaction", **ENGINES[engine], **(extra or {})}
    if delta:
        opts["full-compaction.delta-commits"] = "1"
    else:  # only CALL compact (full) reaches the top level
        opts["num-sorted-run.compaction-trigger"] = "100"
        opts["num-sorted-run.stop-trigger"] = "200"
    if dedup:
        opts["changelog-producer.row-deduplicate"] = "true"
    return cat.create_table("db.t", SCHEMA, primary_keys=["k"], options=opts)


def run_model(engine: str, delta: bool, dedup: bool, steps: list[tuple[Any, Any]]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        cat = Catalog(tmp)
        cat.create_database("db")
        t = _create(cat, engine, delta, dedup)
        model = Model(engine, dedup)
        base: dict[int, Any] = {}  # the rows at the last full compaction
        touched: set[int] = set()  # keys written since
        folded: dict[int, Any] = {}
        dead: set[int] = set()  # deleted keys not written again (see REVIVING)
        last = 0
        for kind, arg in steps:
            full = False
            if kind == "write":
                batch = [(k, v, w) for k, (v, w) in sorted(arg.items()) if k not in dead]
                if not batch:
                    continue
                t.write(batch_table(batch))
                model.upsert(batch)
                touched.update(b[0] for b in batch)
                full = delta
                assert commit_kinds(t, last) == (["APPEND", "COMPACT"] if delta else ["APPEND"])
            elif kind == "delete":
                keys = [k for k in arg if k in model.rows]
                if not keys:
                    continue
                t.delete(f"k IN ({', '.join(map(str, keys))})")
                model.delete(keys)
                if engine in REVIVING:
                    dead.update(keys)
                touched.update(keys)
                full = delta
            else:
                t.compact(full=arg)
                full = arg
            check_table(model, t)
            latest = t.store.snapshots.latest_id() or 0
            rows = [r for i in range(last + 1, latest + 1) for r in snapshot_changelog(t, i)]
            expected = model.changes(base, touched) if full else {}
            assert by_key(rows) == expected, (kind, arg)
            fold(folded, rows)
            if full:
                base, touched = dict(model.rows), set()
                assert folded == model.rows
            last = latest


@pytest.mark.parametrize(("engine", "delta", "dedup"), CASES)
def test_full_compaction_changelog_model(engine: str, delta: bool, dedup: bool) -> None:
    @settings(max_examples=EXAMPLES, deadline=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(steps=ops)
    def check(steps: list[tuple[Any, Any]]) -> None:
        run_model(engine, delta, dedup, steps)

    check()


def test_changelog_between_two_full_compactions(catalog: Catalog) -> None:
    """Several writes between two full compactions give one change per key: the diff of the top
    level (an insert then a delete of a new key emits nothing)."""
    t = _create(catalog, "deduplicate", False, False)
    t.write(batch_table([(1, 1, "a"), (2, 2, "b")]))
    t.compact(full=True)
    assert snapshot_changelog(t, 2) == [("+I", 1, 1, "a"), ("+I", 2, 2, "b")]
    t.write(batch_table([(1, 10, "a"), (3, 3, "c")]))
    t.write(batch_table([(1, 11, "a"), (4, 4, "d")]))
    t.delete("k IN (2, 4)")
    assert all(not t.store.snapshots.snapshot(i).changelog_manifest_list for i in (3, 4, 5))
    t.compact(full=True)
    assert snapshot_changelog(t, 6) == [("-U", 1, 1, "a"), ("+U", 1, 11, "a"), ("-D", 2, 2, "b"), ("+I", 3, 3, "c")]
    assert table_rows(t) == {1: (11, "a"), 3: (3, "c")}


def test_minor_compaction_produces_no_changelog(catalog: Catalog) -> None:
    t = _create(catalog, "deduplicate", False, False, {"num-sorted-run.compaction-trigger": "2"})
    t.write(batch_table([(1, 1, "a")]))
    t.write(batch_table([(1, 2, "a")]))
    t.write(batch_table([(1, 3, "a")]))
    for i in range(1, (t.store.snapshots.latest_id() or 0) + 1):
        snap = t.store.snapshots.snapshot(i)
        levels_max = snap.commit_kind == "COMPACT" and all(
            f.level == 5 for _, split in t.plan(snapshot_id=i)[1] for f in split.files)
        assert bool(snapshot_changelog(t, i)) == levels_max


@pytest.mark.parametrize(("options", "message"), [
    ({"merge-engine": "first-row"}, "first-row"),
    ({"deletion-vectors.enabled": "true"}, "deletion vectors"),
])
def test_refused_combinations(catalog: Catalog, options: dict[str, str], message: str) -> None:
    with pytest.raises(PaimonError, match=message):
        catalog.create_table("db.t", SCHEMA, primary_keys=["k"],
                             options={"changelog-producer": "full-compaction", **options})
