"""A row model of the compaction changelog producers (lookup, full-compaction) for the hypothesis
tests: the table's rows per key after each operation, and the changelog Paimon's producers emit
for the keys an operation (or the operations since the last full compaction) touched: +I for a new
key, -D (the old row) for a removed one, -U (old) / +U (new) for a rewritten one, nothing with
``changelog-producer.row-deduplicate`` when the row stayed the same."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa
from hypothesis import strategies as st

from paimon_sql.scan.changes import changelog_splits
from paimon_sql.scan.reader import read_split

SCHEMA = pa.schema([("k", pa.int64()), ("v", pa.int64()), ("w", pa.string())])
KINDS = {0: "+I", 1: "-U", 2: "+U", 3: "-D"}

# the merge engines, with the options that let them take deletes
ENGINES: dict[str, dict[str, str]] = {
    "deduplicate": {},
    "partial-update": {"merge-engine": "partial-update", "partial-update.remove-record-on-delete": "true"},
    "aggregation": {"merge-engine": "aggregation", "fields.v.aggregate-function": "sum",
                    "aggregation.remove-record-on-delete": "true"},
    "first-row": {"merge-engine": "first-row"},
}

Row = tuple[Any, Any]  # (v, w)


@dataclass
class Model:
    engine: str
    dedup: bool = False
    rows: dict[int, Row] = field(default_factory=dict)

    def upsert(self, batch: Iterable[tuple[int, Any, Any]]) -> None:
        for k, v, w in batch:
            old = self.rows.get(k)
            if old is None:
                self.rows[k] = (v, w)
            elif self.engine == "deduplicate":
                self.rows[k] = (v, w)
            elif self.engine == "partial-update":
                self.rows[k] = (old[0] if v is None else v, old[1] if w is None else w)
            elif self.engine == "aggregation":  # v: sum, w: last_non_null_value
                s = old[0] if v is None else (v if old[0] is None else old[0] + v)
                self.rows[k] = (s, old[1] if w is None else w)
            # first-row: the first row stays

    def delete(self, keys: Iterable[int]) -> None:
        for k in keys:
            self.rows.pop(k, None)

    def changes(self, before: dict[int, Row], keys: Iterable[int]) -> dict[int, list[tuple[str, Any, Any]]]:
        """Each touched key's changelog from ``before`` to now (keys without one left out)."""
        out: dict[int, list[tuple[str, Any, Any]]] = {}
        for k in keys:
            old, new = before.get(k), self.rows.get(k)
            if old is None and new is not None:
                out[k] = [("+I", *new)]
            elif old is not None and new is None:
                out[k] = [("-D", *old)]
            elif old is not None and new is not None and self.engine != "first-row":
                if not (self.dedup and old == new):
                    out[k] = [("-U", *old), ("+U", *new)]
        return out


# engines whose merge starts a row again from a -D record's values (Paimon's PartialUpdateMergeFunction
# and AggregateMergeFunction with remove-record-on-delete): a key written again after its delete
# reads the deleted values while the -D record lives in the LSM, not once a compaction dropped it,
# which depends on the levels; the model tests never write a deleted key of these engines again
REVIVING = ("partial-update", "aggregation")


def check_table(model: Model, t: Any) -> None:
    """The table reads as the model."""
    assert table_rows(t) == model.rows


def snapshot_changelog(t: Any, snapshot_id: int) -> list[tuple[str, int, Any, Any]]:
    """The changelog rows of one snapshot: (kind, k, v, w) in file order."""
    store = t.store
    snap = store.snapshots.snapshot(snapshot_id)
    out: list[tuple[str, int, Any, Any]] = []
    for split in changelog_splits(store, snap):
        rows = read_split(store, split, list(store.schema.fields), keep_row_kind=True)
        out += [(KINDS[r["_VALUE_KIND"]], r["k"], r["v"], r["w"]) for r in rows.to_pylist()]
    return out


def by_key(rows: Iterable[tuple[str, int, Any, Any]]) -> dict[int, list[tuple[str, Any, Any]]]:
    out: dict[int, list[tuple[str, Any, Any]]] = {}
    for kind, k, v, w in rows:
        out.setdefault(k, []).append((kind, v, w))
    return out


def fold(state: dict[int, Row], rows: Iterable[tuple[str, int, Any, Any]]) -> None:
    """Applies changelog rows to ``state``, checking each retraction retracts the current row and
    each insert adds an absent key."""
    for kind, k, v, w in rows:
        if kind in ("-U", "-D"):
            assert state.get(k) == (v, w), f"{kind} of key {k} retracts {(v, w)}, the row is {state.get(k)}"
            del state[k]
        else:
            assert k not in state or kind == "+U", f"{kind} of key {k} which is present: {state[k]}"
            state[k] = (v, w)


def table_rows(t: Any, snapshot_id: int | None = None) -> dict[int, Row]:
    read = t.read(snapshot_id=snapshot_id) if snapshot_id is not None else t.read()
    return {r["k"]: (r["v"], r["w"]) for r in read.to_pylist()}


def batch_table(batch: list[tuple[int, Any, Any]]) -> pa.Table:
    return pa.table({"k": [b[0] for b in batch], "v": [b[1] for b in batch], "w": [b[2] for b in batch]},
                    schema=SCHEMA)


def commit_kinds(t: Any, after: int) -> list[str]:
    snaps = t.store.snapshots
    return [snaps.snapshot(i).commit_kind for i in range(after + 1, (snaps.latest_id() or 0) + 1)]


# hypothesis strategies of the model tests: writes of up to 8 keys (values may be null), deletes of
# up to 4 keys, compactions (full or not)
row = st.tuples(st.one_of(st.none(), st.integers(-3, 9)), st.one_of(st.none(), st.sampled_from(["a", "b", "c"])))
write = st.tuples(st.just("write"), st.dictionaries(st.integers(0, 12), row, min_size=1, max_size=8))
delete = st.tuples(st.just("delete"), st.lists(st.integers(0, 12), min_size=1, max_size=4, unique=True))
compact = st.tuples(st.just("compact"), st.booleans())
