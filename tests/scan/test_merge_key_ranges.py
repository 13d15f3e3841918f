"""Merged reads that skip the merge where they can: key ranges of a section that one file alone
holds are read as they are (``key_range_pieces``), and ``_SEQUENCE_NUMBER`` is not read when the
files' sequence ranges do not overlap (``_sequence_by_file``). Every read must equal the full merge
of the section (the two shortcuts off), for every merge engine, with deletes and nulls."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pyarrow as pa
import pytest

from paimon_sql import Catalog
from paimon_sql.scan import reader
from paimon_sql.scan.reader import key_range_pieces

SCHEMA = pa.schema([("k", pa.int64()), ("op", pa.string()), ("a", pa.int64()), ("b", pa.string()),
                    ("ts", pa.int64())])
BASE = {"bucket": "2", "rowkind.field": "op", "write-only": "true"}
ENGINES: dict[str, dict[str, str]] = {
    "deduplicate": {},
    "deduplicate, ignore-delete": {"ignore-delete": "true"},
    "deduplicate, sequence.field": {"sequence.field": "ts"},
    "partial-update": {"merge-engine": "partial-update", "partial-update.remove-record-on-delete": "true"},
    "partial-update, ignore-delete": {"merge-engine": "partial-update", "ignore-delete": "true"},
    "partial-update, sequence group": {"merge-engine": "partial-update", "fields.ts.sequence-group": "a",
                                       "ignore-delete": "true"},
    "aggregation": {"merge-engine": "aggregation", "fields.a.aggregate-function": "sum",
                    "fields.b.aggregate-function": "max", "aggregation.remove-record-on-delete": "true"},
    "first-row": {"merge-engine": "first-row", "rowkind.field": ""},
}
# key ranges of the commits: overlapping, below, above and between the others
RANGES = [(0, 60), (40, 120), (-30, 10), (100, 130), (70, 80)]


def _batch(rng: random.Random, lo: int, hi: int, ops: list[str]) -> pa.Table:
    keys = rng.sample(range(lo, hi), (hi - lo) * 2 // 3)
    rows: list[dict[str, Any]] = [{
        "k": k, "op": rng.choice(ops), "a": rng.choice([None, rng.randrange(-9, 9)]),
        "b": rng.choice([None, "x", "y", "z"]), "ts": rng.choice([None, rng.randrange(5)]),
    } for k in keys]
    return pa.Table.from_pylist(rows, SCHEMA)


def _full_merge(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reader, "key_range_pieces", lambda runs, keys, per=None: None)
    monkeypatch.setattr(reader, "_sequence_by_file", lambda files, spec, seq: False)
    monkeypatch.setattr(reader, "_run_keys", lambda runs, keys: None)  # key codes computed by the merge
    monkeypatch.setattr(reader, "_read_needed", lambda *args: None)  # every file read whole, at once


def _count_pieces(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The number of pieces ``key_range_pieces`` returns, call by call (0: no split)."""
    used: list[int] = []
    real = reader.key_range_pieces

    def spy(runs: Any, keys: Any, per: Any = None) -> Any:
        pieces = real(runs, keys, per)
        used.append(0 if pieces is None else len(pieces))
        return pieces

    monkeypatch.setattr(reader, "key_range_pieces", spy)
    return used


@pytest.mark.parametrize("engine", list(ENGINES))
@pytest.mark.parametrize("seed", range(3))
def test_reads_equal_the_full_merge(catalog: Catalog, monkeypatch: pytest.MonkeyPatch, engine: str,
                                    seed: int) -> None:
    options = {**BASE, **ENGINES[engine]}
    if not options["rowkind.field"]:
        del options["rowkind.field"]
    t = catalog.create_table(f"db.t{seed}", SCHEMA, primary_keys=["k"], options=options)
    rng = random.Random(seed)
    ops = ["+I"] if "rowkind.field" not in options else ["+I", "+I", "+U", "-D"]
    for lo, hi in RANGES:
        t.write(_batch(rng, lo, hi, ops))
    used = _count_pieces(monkeypatch)
    projections: list[list[str] | None] = [None, ["k"], ["a", "k"], ["b"]]
    got = [t.read(columns=c) for c in projections]
    if engine != "first-row":  # first-row's batch reads skip level-0 files (nothing to merge here)
        assert used and max(used) > 1, "no section was split by key range"
    with monkeypatch.context() as m:
        _full_merge(m)
        for c, table in zip(projections, got):
            assert table.equals(t.read(columns=c)), (engine, c)
    assert t.read(columns=["k"]).num_rows > 0 or engine == "first-row"


def test_sequence_numbers_and_row_kinds_are_read_as_before(catalog: Catalog, monkeypatch: pytest.MonkeyPatch) -> None:
    """A read that returns sequence numbers or keeps retractions ($audit_log) merges whole sections."""
    t = catalog.create_table("db.seq", SCHEMA, primary_keys=["k"], options=dict(BASE))
    rng = random.Random(5)
    for lo, hi in RANGES:
        t.write(_batch(rng, lo, hi, ["+I", "+U", "-D"]))
    audit = catalog.get_table("db.seq$audit_log").read()
    with monkeypatch.context() as m:
        _full_merge(m)
        assert audit.equals(catalog.get_table("db.seq$audit_log").read())


def _runs(*key_lists: list[int]) -> list[pa.Table]:
    return [pa.table({"_KEY_k": pa.array(keys, pa.int64())}) for keys in key_lists]


def test_key_range_pieces_in_key_order() -> None:
    runs = _runs(list(range(0, 10)), list(range(5, 20)), [30, 31])
    assert key_range_pieces(runs, ["_KEY_k"]) == [
        (0, 0, 5),  # keys 0-4: run 0 only
        [(0, 5, 10), (1, 0, 5)],  # 5-9: both
        (1, 5, 15),  # 10-19
        (2, 0, 2),  # 30-31
    ]
    # a run inside another: the outer run's rows around it are read as they are
    assert key_range_pieces(_runs([1, 5, 9, 12], [4, 6]), ["_KEY_k"]) == [
        (0, 0, 1), [(0, 1, 2), (1, 0, 2)], (0, 2, 4)]
    # a run left empty (by a deletion vector): nothing to merge
    assert key_range_pieces(_runs([], [1, 2]), ["_KEY_k"]) == [(1, 0, 2)]
    # a boundary key in both runs
    assert key_range_pieces(_runs([1, 2, 3], [3, 4]), ["_KEY_k"]) == [(0, 0, 2), [(0, 2, 3), (1, 0, 1)], (1, 1, 2)]


def test_key_range_pieces_none_when_nothing_is_saved() -> None:
    assert key_range_pieces(_runs([1, 2, 3], [1, 3]), ["_KEY_k"]) is None  # every row shared
    assert key_range_pieces(_runs([1, 2, 3]), ["_KEY_k"]) is None  # one run
    assert key_range_pieces(_runs([1, 3, 2], [9]), ["_KEY_k"]) is None  # not in key order
    composite = [pa.table({"_KEY_s": ["a", "b"], "_KEY_t": ["x", "y"]}),
                 pa.table({"_KEY_s": ["c"], "_KEY_t": ["z"]})]
    assert key_range_pieces(composite, ["_KEY_s", "_KEY_t"]) is None  # no order of its own: one merge
    unsorted = [pa.table({"_KEY_s": ["b", "a"]}), pa.table({"_KEY_s": ["c"]})]
    assert key_range_pieces(unsorted, ["_KEY_s"]) is None
    # two runs of 20 files each whose files overlap pairwise: 20 shared ranges
    many = _runs(*([10 * i, 10 * i + 2] for i in range(20)), *([10 * i + 1, 10 * i + 3] for i in range(20)))
    assert key_range_pieces(many, ["_KEY_k"]) is None
    assert key_range_pieces(_runs([], []), ["_KEY_k"]) is None


def test_key_range_pieces_extreme_keys() -> None:
    big = 2**63 - 1
    runs = _runs([-(2**63), 0, big], [big])
    assert key_range_pieces(runs, ["_KEY_k"]) == [(0, 0, 2), [(0, 2, 3), (1, 0, 1)]]


def test_key_range_pieces_of_string_keys_compare_bytes() -> None:
    """One string (or binary) key: compared by its UTF-8 bytes, as Paimon does ('Z' < 'a' < 'é')."""
    runs = [pa.table({"_KEY_s": ["A", "Z", "a", "b"]}), pa.table({"_KEY_s": ["a", "b\x00", "c", "é"]})]
    # "b\x00" is the key right after "b", the last one the first run covers
    assert key_range_pieces(runs, ["_KEY_s"]) == [(0, 0, 2), [(0, 2, 4), (1, 0, 1)], (1, 1, 4)]
    binary = [pa.table({"_KEY_b": pa.array([b"\x01", b"\x02"])}), pa.table({"_KEY_b": pa.array([b"\x02\x00", b"\xff"])})]
    assert key_range_pieces(binary, ["_KEY_b"]) == [(0, 0, 2), (1, 0, 2)]


@pytest.mark.parametrize("engine", ["deduplicate", "partial-update, ignore-delete", "aggregation"])
def test_string_keys_read_as_the_full_merge(catalog: Catalog, monkeypatch: pytest.MonkeyPatch, engine: str) -> None:
    schema = pa.schema([("s", pa.string()), ("op", pa.string()), ("a", pa.int64()), ("b", pa.string()),
                        ("ts", pa.int64())])
    t = catalog.create_table("db.str", schema, primary_keys=["s"], options={**BASE, **ENGINES[engine]})
    rng = random.Random(11)
    for lo, hi in RANGES:
        batch = _batch(rng, lo, hi, ["+I", "+U", "-D"])
        keys = [f"k{k + 100:04d}" if k % 7 else f"\u00e9{k + 100:04d}" for k in batch.column("k").to_pylist()]
        t.write(pa.table({"s": keys, **{n: batch.column(n) for n in schema.names[1:]}}, schema=schema))
    used = _count_pieces(monkeypatch)
    got = [t.read(), t.read(columns=["b"])]
    assert used and max(used) > 1
    with monkeypatch.context() as m:
        _full_merge(m)
        assert got[0].equals(t.read()) and got[1].equals(t.read(columns=["b"]))


@pytest.mark.parametrize("engine", list(ENGINES))
@pytest.mark.parametrize("seed", range(3))
def test_a_newer_file_that_replaces_every_older_key_reads_as_the_full_merge(
        catalog: Catalog, monkeypatch: pytest.MonkeyPatch, engine: str, seed: int) -> None:
    """A key range where the newest file holds every key of the older ones: a ``deduplicate`` read
    (file order, deletes not ignored) returns the newest file's rows as they are (``_newest_covers``);
    ranges where one older key is missing, and every other engine, merge."""
    options = {**BASE, **ENGINES[engine]}
    if not options["rowkind.field"]:
        del options["rowkind.field"]
    t = catalog.create_table(f"db.cover{seed}", SCHEMA, primary_keys=["k"], options=options)
    rng = random.Random(100 + seed)
    ops = ["+I"] if "rowkind.field" not in options else ["+I", "+I", "+U", "-D"]

    def commit(keys: list[int]) -> None:
        rows = [{"k": k, "op": rng.choice(ops), "a": rng.choice([None, rng.randrange(-9, 9)]),
                 "b": rng.choice([None, "x", "y"]), "ts": rng.choice([None, rng.randrange(5)])} for k in keys]
        t.write(pa.Table.from_pylist(rows, SCHEMA))

    commit(rng.sample(range(0, 80), 50))  # older: part of [0, 80)
    commit(list(range(-10, 90)))  # newer: every key of the older one, and more on both sides
    commit([k for k in range(100, 140, 2)] + [121])  # older: the even keys of [100, 140) and 121
    commit([k for k in range(95, 150) if k != 121])  # newer: more keys, but not 121: no cover
    covered: list[bool] = []
    real = reader._newest_covers

    def spy(per: Any, piece: Any) -> bool:
        covered.append(real(per, piece))
        return covered[-1]

    monkeypatch.setattr(reader, "_newest_covers", spy)
    reads: list[tuple[str, bool]] = []  # (data file, whether more than its key columns were read)
    real_read = reader.read_data_file

    def read_spy(store: Any, split: Any, f: Any, fields: Any, system: Any = (), key_fields: Any = ()) -> Any:
        reads.append((f.file_name, bool(fields) or bool(system)))
        return real_read(store, split, f, fields, system, key_fields)

    monkeypatch.setattr(reader, "read_data_file", read_spy)
    projections: list[list[str] | None] = [None, ["k"], ["a", "k"], ["b"]]
    got = [t.read(columns=c) for c in projections]
    fast = engine == "deduplicate"  # file order, deletes not ignored
    assert any(covered) == fast, covered
    keys_only = {name for name, _ in reads} - {name for name, more in reads if more}
    if fast:
        assert not all(covered)  # the ranges with a missing key were merged
        assert keys_only  # the older file of a covered range: only its keys were read
    else:
        assert not keys_only
    audit = catalog.get_table(f"db.cover{seed}$audit_log").read()  # retractions kept: merged whole
    with monkeypatch.context() as m:
        _full_merge(m)
        for c, table in zip(projections, got):
            assert table.equals(t.read(columns=c)), (engine, c)
        assert audit.equals(catalog.get_table(f"db.cover{seed}$audit_log").read())


def test_newest_covers_needs_runs_strictly_in_key_order_and_every_older_key() -> None:
    from paimon_sql.scan.reader import _IntKeys, _newest_covers

    def covers(*runs: list[int]) -> bool:
        per = [_IntKeys(np.array(r, dtype=np.int64)) for r in runs]
        return _newest_covers(per, [(i, 0, len(r)) for i, r in enumerate(runs)])

    assert covers([2, 4], [1, 2, 3, 4])
    assert covers([2], [3, 4], [2, 3, 4, 9])  # several older runs
    assert not covers([2, 4], [1, 2, 4, 3])  # the newest run out of key order
    assert not covers([2, 4], [2, 2, 4])  # a key twice in a run
    assert not covers([4, 2], [1, 2, 3, 4])
    assert not covers([2, 5], [1, 2, 3, 4])  # 5 beyond the newest keys
    assert not covers([2, 3], [1, 2, 4])  # 3 missing
    assert not covers([0, 10**12], [0, 10**12])  # a span too wide to mark: merged
    low, high = -(2**63), 2**63 - 1
    assert not covers([low, high], [low, 0, high])  # extreme codes: no overflow
    assert covers([low + 1], [low, low + 1, low + 2])
    assert covers([high - 1], [high - 2, high - 1, high])


def test_a_file_whose_values_read_as_skipped_falls_back_to_whole_reads(catalog: Catalog,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Under ``scan.ignore-corrupt-files`` a file can read as no rows; if that happens to a file
    whose keys were read first, the section is read again with every file whole (as the full merge
    reads it) instead of pairing keys and values of different rows."""
    t = catalog.create_table("db.skip", SCHEMA, primary_keys=["k"], options=dict(BASE))
    rng = random.Random(7)
    older = rng.sample(range(0, 60), 40)
    t.write(pa.Table.from_pylist([{"k": k, "op": "+I", "a": k, "b": "o", "ts": 1} for k in older], SCHEMA))
    # the newer commit holds more rows but not every older key: the older files are read keys
    # first, and their values are needed
    newer = [k for k in range(-5, 70) if k not in older[:6]]
    t.write(pa.Table.from_pylist([{"k": k, "op": "+I", "a": k, "b": "n", "ts": 1} for k in newer], SCHEMA))
    real_read = reader.read_data_file
    oldest = min((f for _, s in t.plan()[1] for f in s.files), key=lambda f: f.max_sequence_number).file_name

    def lossy(store: Any, split: Any, f: Any, fields: Any, system: Any = (), key_fields: Any = ()) -> Any:
        out = real_read(store, split, f, fields, system, key_fields)
        return out.slice(0, 0) if f.file_name == oldest and system else out  # its values "skipped"

    fell_back: list[bool] = []
    real_needed = reader._read_needed

    def needed_spy(*args: Any) -> Any:
        out = real_needed(*args)
        fell_back.append(out is None)
        return out

    monkeypatch.setattr(reader, "read_data_file", lossy)
    monkeypatch.setattr(reader, "_read_needed", needed_spy)
    got = t.read()
    assert fell_back == [True, False] or fell_back == [False, True]  # one bucket's older file
    with monkeypatch.context() as m:
        _full_merge(m)
        assert got.equals(t.read())
    assert len(newer) <= got.num_rows < len(newer) + 6


def test_an_older_file_with_more_rows_than_the_newer_ones_is_read_whole(catalog: Catalog,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Newer files with fewer rows cannot hold every key of an older one: it is read in one pass
    (keys first would only split its read in two)."""
    t = catalog.create_table("db.upsert", SCHEMA, primary_keys=["k"], options=dict(BASE))
    rng = random.Random(3)
    t.write(_batch(rng, 0, 90, ["+I"]))
    t.write(_batch(rng, 10, 40, ["+I", "+U", "-D"]))  # an upsert of some keys
    keys_read: list[str] = []
    real = reader._read_keys

    def spy(store: Any, split: Any, f: Any) -> Any:
        keys_read.append(f.file_name)
        return real(store, split, f)

    monkeypatch.setattr(reader, "_read_keys", spy)
    got = t.read()
    assert keys_read == []
    with monkeypatch.context() as m:
        _full_merge(m)
        assert got.equals(t.read())
