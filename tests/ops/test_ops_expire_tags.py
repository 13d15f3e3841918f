"""expire_tags (Paimon's ExpireTagsProcedureTest, with a clock instead of sleeps): tags whose
retention passed go, and with older_than those created before it (a tag without retention counts
from its file's time); the rows of the procedure; files only a deleted tag kept go with it."""

from __future__ import annotations

import datetime as _dt
import os
import time
from pathlib import Path

import pyarrow as pa
import pytest

from paimon_sql import Catalog
from paimon_sql.errors import ValidationError
from paimon_sql.ops.tag_expire import expire_tags
from paimon_sql.procedures import call_procedure


def _table(catalog: Catalog) -> object:
    t = catalog.create_table("db.t", pa.schema([("id", pa.int64())]), options={"write-only": "true"})
    for i in range(1, 6):
        t.write(pa.table({"id": [i]}))
    return catalog.get_table("db.t")


def test_expire_tags_that_reached_their_retention(catalog: Catalog) -> None:
    t = _table(catalog)
    t.create_tag("tag-1", 1)  # type: ignore[attr-defined]
    t.create_tag("tag-2", 2, "1 h")  # type: ignore[attr-defined]
    assert call_procedure(catalog, "expire_tags", {"table": "db.t"}).rows == [("No expired tags.",)]
    t.create_tag("tag-3", 3, "1 s")  # type: ignore[attr-defined]
    t.create_tag("tag-4", 4, "1 s")  # type: ignore[attr-defined]
    later = _dt.datetime.now() + _dt.timedelta(seconds=2)
    assert expire_tags(t.store, now=later).expired == ("tag-3", "tag-4")  # type: ignore[attr-defined]
    assert sorted(t.store.tags.tag_names()) == ["tag-1", "tag-2"]  # type: ignore[attr-defined]


def test_expire_tags_older_than(catalog: Catalog) -> None:
    t = _table(catalog)
    t.create_tag("tag-1", 1)  # type: ignore[attr-defined]
    tag1 = Path(t.store.tags.path("tag-1"))  # type: ignore[attr-defined]
    old = time.time() - 60
    os.utime(tag1, (old, old))  # tag-1 has no create time: its file's time counts
    for i in (2, 3, 4):
        t.create_tag(f"tag-{i}", i, "1 d")  # type: ignore[attr-defined]
    assert call_procedure(catalog, "expire_tags", ["db.t"]).rows == [("No expired tags.",)]
    cut = (_dt.datetime.now() - _dt.timedelta(seconds=30)).strftime("%Y-%m-%d %H:%M:%S")
    assert call_procedure(catalog, "expire_tags", {"table": "db.t", "older_than": cut}).rows == [("tag-1",)]
    t.create_tag("tag-5", 5, "1 s")  # type: ignore[attr-defined]
    future = _dt.datetime.now() + _dt.timedelta(minutes=1)
    expired = expire_tags(t.store, older_than=future - _dt.timedelta(seconds=1), now=future)  # type: ignore[attr-defined]
    assert expired.expired == ("tag-2", "tag-3", "tag-4", "tag-5")
    assert t.store.tags.tag_names() == []  # type: ignore[attr-defined]


def test_expired_tag_takes_its_files_and_bad_input(catalog: Catalog) -> None:
    t = catalog.create_table("db.t", pa.schema([("id", pa.int64())]), options={"write-only": "true"})
    t.write(pa.table({"id": [1]}))
    t.create_tag("keep-files", 1, "1 s")
    t.write(pa.table({"id": [2]}), overwrite=True)
    t.write(pa.table({"id": [3]}))
    catalog.get_table("db.t").expire_snapshots(retain_max=1, retain_min=1)
    files_before = {p.name for p in Path(t.path).rglob("data-*")}
    later = _dt.datetime.now() + _dt.timedelta(seconds=5)
    assert expire_tags(catalog.get_table("db.t").store, now=later).expired == ("keep-files",)  # type: ignore[union-attr]
    files_after = {p.name for p in Path(t.path).rglob("data-*")}
    assert len(files_after) == len(files_before) - 1  # the file only the tag kept is gone
    assert catalog.get_table("db.t").read().column("id").to_pylist() == [2, 3]
    with pytest.raises(ValidationError, match="older_than"):
        call_procedure(catalog, "expire_tags", {"table": "db.t", "older_than": "soon"})


def test_default_time_retained_applies_to_tags_created_without_one(catalog: Catalog) -> None:
    """``tag.default-time-retained`` is the retention of ``Table.create_tag`` without one (Paimon's
    ``Table.createTag(name, snapshot)``); the procedure with a null ``time_retained`` keeps none,
    as Paimon's CreateTagProcedure passes its null on."""
    t = catalog.create_table("db.t", pa.schema([("id", pa.int64())]),
                             options={"write-only": "true", "tag.default-time-retained": "1 h"})
    t.write(pa.table({"id": [1]}))
    t.create_tag("api")
    call_procedure(catalog, "create_tag", {"table": "db.t", "tag": "proc"})
    rows = {r["tag_name"]: r["time_retained"] for r in catalog.get_table("db.t$tags").read().to_pylist()}
    assert rows == {"api": "PT1H", "proc": None}
    later = _dt.datetime.now() + _dt.timedelta(hours=2)
    assert expire_tags(t.store, now=later).expired == ("api",)
