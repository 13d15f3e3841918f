"""A reference model of the snapshot lifecycle (hypothesis): random sequences of upserts, partition
overwrites, deletes, compactions, partition drops, tags, tag deletions, rollbacks (to snapshots and
to tags), snapshot expiry, branches (created from tags, written), fast-forwards and orphan removal on
one primary-key table. After every step:

- the table reads what a dictionary model holds;
- every snapshot still on disk, of main and of every branch, reads exactly what it read when it was
  made, and the snapshots and tags on disk are the model's (rollback and fast-forward drop and copy
  what Paimon's rules say);
- every tag reads what its snapshot read when it was tagged;
- after orphan removal no data file is left that no snapshot or tag of any branch references, and
  no referenced file is missing (every read above would fail).
"""

from __future__ import annotations

import datetime as _dt
import os
from pathlib import Path
from typing import Any

import pyarrow as pa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paimon_sql import Catalog

SCHEMA = pa.schema([("id", pa.int64()), ("p", pa.int64()), ("v", pa.string())])
Rows = tuple[tuple[int, int, str], ...]

write = st.tuples(st.just("write"), st.lists(st.integers(0, 9), min_size=1, max_size=5, unique=True), st.integers(0, 2))
overwrite = st.tuples(st.just("overwrite"), st.lists(st.integers(0, 9), max_size=3, unique=True), st.integers(0, 2))
delete = st.tuples(st.just("delete"), st.integers(0, 9), st.integers(1, 4))
simple = st.tuples(st.sampled_from(["compact", "tag", "orphans", "drop", "delete_tag", "rollback_tag",
                                    "rollback_snapshot", "branch", "branch_write", "fast_forward"]),
                   st.integers(0, 50), st.integers(0, 2))
expire = st.tuples(st.just("expire"), st.integers(1, 4), st.integers(0, 2))
steps = st.lists(st.one_of(write, write, write, overwrite, delete, simple, simple, expire), min_size=3, max_size=16)


def _read(t: Any, **kw: Any) -> Rows:
    return tuple(sorted((r["id"], r["p"], r["v"]) for r in t.read(**kw).to_pylist()))


def _as_rows(model: dict[tuple[int, int], str]) -> Rows:
    return tuple(sorted((k[0], k[1], v) for k, v in model.items()))


class Lifecycle:
    def __init__(self, cat: Catalog) -> None:
        self.cat = cat
        cat.create_table("db.t", SCHEMA, primary_keys=["id", "p"], partition_keys=["p"], options={"bucket": "1"})
        self.cur: dict[str, dict[tuple[int, int], str]] = {"main": {}}
        self.snaps: dict[str, dict[int, Rows]] = {"main": {}}
        self.tags: dict[str, dict[str, tuple[int, Rows]]] = {"main": {}}
        self.n = 0

    def table(self, branch: str = "main") -> Any:
        t = self.cat.get_table("db.t")
        return t if branch == "main" else t.switch_to_branch(branch)

    def committed(self, branch: str = "main") -> None:
        """Records the snapshots the last operation made (a write that compacts makes an APPEND and a
        COMPACT snapshot: both read the same rows)."""
        t = self.table(branch)
        sid = t.store.snapshots.latest_id()
        assert sid is not None
        rows = _as_rows(self.cur[branch])
        assert _read(t) == rows, (branch, sid)
        known = max(self.snaps[branch], default=0)
        for new in range(known + 1, sid + 1):
            self.snaps[branch][new] = rows

    def upsert(self, branch: str, ids: list[int], p: int) -> None:
        self.n += 1
        v = f"v{self.n}"
        self.table(branch).write(pa.table({"id": ids, "p": [p] * len(ids), "v": [v] * len(ids)}, schema=SCHEMA))
        for i in ids:
            self.cur[branch][(i, p)] = v
        self.committed(branch)

    def step(self, step: tuple[Any, Any, Any]) -> None:  # noqa: C901 - one branch per operation
        kind, a, b = step
        t = self.table()
        cur = self.cur["main"]
        latest = t.store.snapshots.latest_id()
        if kind == "write":
            self.upsert("main", a, b)
        elif kind == "overwrite":
            self.n += 1
            t.write(pa.table({"id": a, "p": [b] * len(a), "v": [f"o{self.n}"] * len(a)}, schema=SCHEMA),
                    overwrite={"p": str(b)})
            for k in [k for k in cur if k[1] == b]:
                del cur[k]
            for i in a:
                cur[(i, b)] = f"o{self.n}"
            self.committed()
        elif kind == "delete" and latest is not None:
            hit = [k for k in cur if a <= k[0] < a + b]
            t.delete(f"id >= {a} AND id < {a + b}")
            if hit:
                for k in hit:
                    del cur[k]
                self.committed()
        elif kind == "compact" and latest is not None:
            if t.compact().snapshot_id is not None:
                self.committed()
        elif kind == "drop" and latest is not None:
            if t.drop_partitions([{"p": str(b)}]).snapshot_id is not None:
                for k in [k for k in cur if k[1] == b]:
                    del cur[k]
                self.committed()
        elif kind == "tag" and latest is not None:
            name = f"tag{self.n}-{a}"
            if name not in self.tags["main"]:
                t.create_tag(name)
                self.tags["main"][name] = (latest, self.snaps["main"][latest])
        elif kind == "delete_tag" and self.tags["main"]:
            name = sorted(self.tags["main"])[a % len(self.tags["main"])]
            t.delete_tag(name)
            del self.tags["main"][name]
        elif kind == "rollback_snapshot" and self.snaps["main"]:
            sid = sorted(self.snaps["main"])[a % len(self.snaps["main"])]
            t.rollback(snapshot_id=sid)
            self._rolled_back(sid, self.snaps["main"][sid])
        elif kind == "rollback_tag" and self.tags["main"]:
            name = sorted(self.tags["main"])[a % len(self.tags["main"])]
            sid, rows = self.tags["main"][name]
            t.rollback(tag=name)
            self._rolled_back(sid, rows)
        elif kind == "expire" and latest is not None:
            t.expire_snapshots(retain_max=a, retain_min=1, older_than="2999-01-01 00:00:00")
            on_disk = set(t.store.snapshots.snapshot_ids())
            self.snaps["main"] = {s: r for s, r in self.snaps["main"].items() if s in on_disk}
        elif kind == "branch" and self.tags["main"]:
            name = sorted(self.tags["main"])[a % len(self.tags["main"])]
            branch = f"b{len(self.snaps)}"
            t.create_branch(branch, tag=name)
            sid, rows = self.tags["main"][name]
            self.snaps[branch] = {sid: rows}
            self.tags[branch] = {name: (sid, rows)}
            self.cur[branch] = {(r[0], r[1]): r[2] for r in rows}
        elif kind == "branch_write" and len(self.snaps) > 1:
            branch = sorted(set(self.snaps) - {"main"})[a % (len(self.snaps) - 1)]
            self.upsert(branch, [a % 10, (a + 3) % 10], b)
        elif kind == "fast_forward" and len(self.snaps) > 1:
            branch = sorted(set(self.snaps) - {"main"})[a % (len(self.snaps) - 1)]
            earliest = min(self.snaps[branch])
            t.fast_forward(branch)
            self.snaps["main"] = {s: r for s, r in self.snaps["main"].items() if s < earliest}
            self.snaps["main"].update(self.snaps[branch])
            self.tags["main"] = {n: v for n, v in self.tags["main"].items() if v[0] < earliest}
            self.tags["main"].update(self.tags[branch])
            self.cur["main"] = dict(self.cur[branch])
        elif kind == "orphans":
            t.remove_orphan_files(older_than=_dt.datetime.now() + _dt.timedelta(days=1))
            self.check_no_orphans()

    def _rolled_back(self, sid: int, rows: Rows) -> None:
        self.snaps["main"] = {s: r for s, r in self.snaps["main"].items() if s < sid}
        self.snaps["main"][sid] = rows
        self.tags["main"] = {n: v for n, v in self.tags["main"].items() if v[0] <= sid}
        self.cur["main"] = {(r[0], r[1]): r[2] for r in rows}

    def check(self) -> None:
        for branch, snaps in self.snaps.items():
            t = self.table(branch)
            assert sorted(t.store.snapshots.snapshot_ids()) == sorted(snaps), branch
            assert sorted(t.store.tags.tag_names()) == sorted(self.tags[branch]), branch
            for sid, rows in snaps.items():
                assert _read(t, snapshot_id=sid) == rows, (branch, sid)
            for name, (_sid, rows) in self.tags[branch].items():
                assert _read(t, tag=name) == rows, (branch, name)
            assert _read(t) == _as_rows(self.cur[branch]), branch

    def check_no_orphans(self) -> None:
        """Every data file on disk is named by an entry (ADD or DELETE, as Paimon counts them) of a
        manifest of some snapshot or tag of some branch."""
        referenced: set[str] = set()
        for branch in self.snaps:
            t = self.table(branch)
            snaps = [t.store.snapshots.snapshot(s) for s in t.store.snapshots.snapshot_ids()]
            snaps += [t.store.tags.tagged_snapshot(n) for n in t.store.tags.tag_names()]
            for snap in snaps:
                for m in t.store.manifests.data_manifests(snap):
                    referenced.update(e.file.file_name for e in t.store.manifests.read_manifest(m.file_name))
        root = Path(self.table().store.path)
        on_disk = {p.name for p in root.glob("p=*/bucket-*/*") if p.is_file()}
        assert on_disk <= referenced, sorted(on_disk - referenced)


# PAIMON_MODEL_EXAMPLES=500 for an exploratory run
@settings(max_examples=int(os.environ.get("PAIMON_MODEL_EXAMPLES", "15")), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(history=steps)
def test_every_snapshot_tag_and_branch_reads_what_it_read(tmp_path_factory: Any, history: list[tuple[Any, Any, Any]]) -> None:
    cat = Catalog(str(tmp_path_factory.mktemp("wh")))
    cat.create_database("db")
    life = Lifecycle(cat)
    for step in history:
        life.step(step)
        life.check()
    life.step(("orphans", 0, 0))
    life.check()
