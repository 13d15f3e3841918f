"""Damaged metadata (snapshot, schema, manifest list, manifest, index manifest, tag, hints) gives a
CorruptFileError naming the file, for reads and for the next commit, which never writes a snapshot
with a wrong id."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path

import pyarrow as pa
import pytest

from paimon_sql import Catalog
from paimon_sql.errors import CorruptFileError
from paimon_sql.ops import tags as tag_ops
from paimon_sql.table.table import Table

SCHEMA = pa.schema([("id", pa.int64()), ("v", pa.string())])


@pytest.fixture()
def t(tmp_path: Path) -> Table:
    cat = Catalog(str(tmp_path / "wh"))
    cat.create_database("db")
    t = cat.create_table("db.t", SCHEMA, primary_keys=["id"], options={"bucket": "-1"})
    t.write(pa.table({"id": [1, 2], "v": ["a", "b"]}))
    t.write(pa.table({"id": [2, 3], "v": ["c", "d"]}))
    tag_ops.create_tag(t.store, "v1", 1, None)
    return t


def _garbles(data: bytes, seed: int) -> list[tuple[str, bytes]]:
    rng = random.Random(seed)
    out = [("empty", b""), ("half", data[: len(data) // 2]), ("random", rng.randbytes(max(len(data), 16))),
           ("nul", data.replace(b"-", b"\x00", 1) if b"-" in data else b"\x00" + data)]
    for pos in [0, 1, len(data) // 3, len(data) // 2, len(data) - 2]:
        if 0 <= pos < len(data):
            flipped = bytearray(data)
            flipped[pos] ^= 0xFF
            out.append((f"flip@{pos}", bytes(flipped)))
    return out


def _metadata_files(t: Table) -> dict[str, Path]:
    snap = t.latest_snapshot()
    assert snap is not None and snap.index_manifest is not None
    manifests = t.store.manifests
    delta = manifests.read_manifest_list(snap.delta_manifest_list)[0].file_name
    root = Path(t.path)
    return {
        "snapshot": root / "snapshot" / f"snapshot-{snap.id}",
        "schema": root / "schema" / "schema-0",
        "base manifest list": root / "manifest" / snap.base_manifest_list,
        "delta manifest list": root / "manifest" / snap.delta_manifest_list,
        "manifest": root / "manifest" / delta,
        "index manifest": root / "manifest" / snap.index_manifest,
    }


def _read_or_corrupt(call: Callable[[], object], path: Path, what: str) -> bool:
    """True when ``call`` raised a CorruptFileError naming ``path``; False when it went through."""
    try:
        call()
    except CorruptFileError as e:
        assert path.name in str(e), f"{what}: the error does not name {path.name}: {e}"
        return True
    return False


@pytest.mark.parametrize("kind", ["snapshot", "schema", "base manifest list", "delta manifest list",
                                  "manifest", "index manifest"])
def test_garbled_metadata_is_a_corrupt_file_error(t: Table, kind: str) -> None:
    path = _metadata_files(t)[kind]
    original = path.read_bytes()
    want = t.read().sort_by("id")
    fresh = Catalog(str(Path(t.path).parent.parent))
    detected = 0
    for name, data in _garbles(original, hash(kind) % 1000):
        path.write_bytes(data)
        t.store.manifests._entries_cache.clear()
        table = fresh.get_table("db.t") if kind != "schema" else None
        if kind == "schema":
            ok = _read_or_corrupt(lambda: fresh.get_table("db.t"), path, f"{kind} {name}")
        else:
            assert isinstance(table, Table)
            ok = _read_or_corrupt(lambda: table.read(), path, f"{kind} {name}")  # noqa: B023
            if not ok:
                assert table.read().sort_by("id").equals(want), f"{kind} {name}: rows changed silently"
        detected += ok
        if kind in ("snapshot", "manifest", "delta manifest list", "index manifest") and table is not None:
            before = sorted(p.name for p in (Path(t.path) / "snapshot").glob("snapshot-*"))
            try:
                table.write(pa.table({"id": [9], "v": ["z"]}))
            except CorruptFileError as e:
                assert path.name in str(e)
                assert sorted(p.name for p in (Path(t.path) / "snapshot").glob("snapshot-*")) == before
            else:
                assert ok is False, f"{kind} {name}: a commit went through on a table that does not read"
                newest = sorted(p.name for p in (Path(t.path) / "snapshot").glob("snapshot-*"))[-1]
                Path(t.path, "snapshot", newest).unlink()  # undo, for the next garble
        path.write_bytes(original)
    assert detected >= len(_garbles(original, 0)) - 3, f"{kind}: only {detected} garbles detected"


def test_snapshot_holding_another_id_is_refused(t: Table) -> None:
    s2 = Path(t.path) / "snapshot" / "snapshot-2"
    doc = json.loads(s2.read_text())
    doc["id"] = 100
    s2.write_text(json.dumps(doc))
    with pytest.raises(CorruptFileError, match="snapshot-2.*holds snapshot id 100"):
        t.read()
    with pytest.raises(CorruptFileError, match="snapshot-2"):
        t.write(pa.table({"id": [5], "v": ["x"]}))
    assert sorted(p.name for p in (Path(t.path) / "snapshot").glob("snapshot-*")) == ["snapshot-1", "snapshot-2"]
    schema0 = Path(t.path) / "schema" / "schema-0"
    sdoc = json.loads(schema0.read_text())
    sdoc["id"] = 7
    schema0.write_text(json.dumps(sdoc))
    with pytest.raises(CorruptFileError, match="schema-0.*holds schema id 7"):
        Catalog(str(Path(t.path).parent.parent)).get_table("db.t")


def test_garbled_tag_and_hints(t: Table) -> None:
    tag = Path(t.path) / "tag" / "tag-v1"
    original = tag.read_bytes()
    for name, data in _garbles(original, 3):
        tag.write_bytes(data)
        ok = _read_or_corrupt(lambda: t.read(tag="v1"), tag, f"tag {name}")
        assert ok or t.read(tag="v1").num_rows == 2, name
    tag.write_bytes(original)
    want = t.read().sort_by("id")
    for hint in ("LATEST", "EARLIEST"):
        p = Path(t.path) / "snapshot" / hint
        for garbage in (b"", b"\xff\xfe", b"99999999999999999999999", b"-3", b"abc", b"1\x00"):
            p.write_bytes(garbage)
            assert t.read().sort_by("id").equals(want)
            assert t.store.snapshots.latest_id() == 2 and t.store.snapshots.earliest_id() == 1
    assert t.write(pa.table({"id": [4], "v": ["e"]})) == 3
