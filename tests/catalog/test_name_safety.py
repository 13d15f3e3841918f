"""No name leads out of the warehouse: every public catalog and table entry point that takes a
database, table, branch or tag name refuses escaping names in every form (str, tuple, Identifier)
and symlinks to elsewhere, and nothing outside the warehouse is read, created, changed or deleted."""

from __future__ import annotations

import hashlib
import inspect
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from paimon_sql import Catalog
from paimon_sql.catalog.identifier import Identifier
from paimon_sql.errors import PaimonError, ValidationError
from paimon_sql.meta.file_store import branch_path
from paimon_sql.names import check_name
from paimon_sql.ops import rollback as rollback_ops
from paimon_sql.ops import tags as tag_ops
from paimon_sql.table.table import Table

BAD_DATABASES = ["../victim", "..", ".", "a/b", "a\\b", "x\x00y", "ctl\x01", "del\x7f", "", "   ",
                 "n" * 256, "é" * 128, "../wh/../victim", "/abs"]
BAD_TABLES = ["../../victim.db/t2", "../t2", "..", ".", "t/../../x", "a\\b", "x\x00y", "ctl\n", "",
              " ", "t" * 256, "/tmp/x", ".hidden"]
BAD_BRANCHES = ["../../../victim.db/t2", "..", "a/b", "x\x00", "\t", "b" * 300]
BAD_TAGS = ["../../snapshot/snapshot-1", "..", "a/b", "a\\b", "x\x00", "", "\x1f", "g" * 300]
SCHEMA = pa.schema([("id", pa.int64()), ("v", pa.string())])
ROWS = pa.table({"id": [1, 2], "v": ["a", "b"]})


def _state(root: Path, skip: Path) -> dict[str, Any]:
    """Every file and folder under ``root`` but ``skip``: (kind, size, mtime, content hash)."""
    out: dict[str, Any] = {}
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        d = Path(dirpath)
        if d == skip or skip in d.parents:
            dirnames[:] = []
            continue
        out[str(d.relative_to(root))] = ("dir", os.lstat(d).st_mtime_ns)
        for f in filenames:
            p = d / f
            st = os.lstat(p)
            digest = hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else os.readlink(p)
            out[str(p.relative_to(root))] = ("file", st.st_size, st.st_mtime_ns, digest)
    return out


@pytest.fixture()
def world(tmp_path: Path) -> dict[str, Any]:
    """``root/wh`` is the warehouse under test; everything else under ``root`` is the sentinel: a
    real Paimon table ``root/victim.db/t2`` (reachable as ``../victim`` or ``../../victim.db/t2``),
    a folder ``root/victim2.db`` with a plain file, and symlinks from the warehouse to them."""
    root = tmp_path / "outside"
    victim = Catalog(str(root))
    victim.create_database("victim")
    vt = victim.create_table("victim.t2", SCHEMA, primary_keys=["id"], options={"bucket": "1"})
    assert isinstance(vt, Table)
    vt.write(ROWS)
    tag_ops.create_tag(vt.store, "vtag", None, None)
    (root / "victim2.db").mkdir()
    (root / "victim2.db" / "keep.txt").write_text("keep")
    wh = root / "wh"
    cat = Catalog(str(wh))
    cat.create_database("default")
    t = cat.create_table("default.t", SCHEMA, primary_keys=["id"], options={"bucket": "1"})
    assert isinstance(t, Table)
    t.write(ROWS)
    (wh / "default.db" / "link").symlink_to(root / "victim.db" / "t2", target_is_directory=True)
    (wh / "evil.db").symlink_to(root / "victim.db", target_is_directory=True)
    return {"root": root, "wh": wh, "cat": cat, "t": t, "before": _state(root, wh)}


def _refused(call: Callable[[], Any], what: str) -> None:
    try:
        result = call()
    except ValidationError:
        return
    except PaimonError as e:  # any other engine error is wrong here: the name itself is bad
        raise AssertionError(f"{what}: {type(e).__name__} instead of ValidationError: {e}") from e
    raise AssertionError(f"{what}: accepted, returned {result!r}")


def _table_forms(db: str, table: str) -> list[Any]:
    forms: list[Any] = [(db, table)]
    if "." not in db and "." not in table and "`" not in db + table:
        forms.append(f"{db}.{table}")
    return forms


# every public method of Catalog and what the test calls it with, for a bad name ``n``
CATALOG_CASES: dict[str, list[Callable[[Catalog, str], Any]]] = {
    "database_path": [lambda c, n: c.database_path(n)],
    "database_exists": [lambda c, n: c.database_exists(n)],
    "create_database": [lambda c, n: c.create_database(n), lambda c, n: c.create_database(n, True)],
    "drop_database": [lambda c, n: c.drop_database(n, cascade=True),
                      lambda c, n: c.drop_database(n, ignore_if_not_exists=True, cascade=True)],
    "list_databases": [],  # no name argument; symlink and listing cases below
    "list_tables": [lambda c, n: c.list_tables(n)],
    "table_path": [lambda c, n: c.table_path(Identifier(n, "t"))],
    "table_exists": [lambda c, n: c.table_exists((n, "t2"))],
    "get_table": [lambda c, n: c.get_table((n, "t2")), lambda c, n: c.get_table((n, "t2")).read()],
    "create_table": [lambda c, n: c.create_table((n, "t9"), SCHEMA)],
    "create_table_like": [lambda c, n: c.create_table_like((n, "t9"), c.get_table("default.t"))],
    "drop_table": [lambda c, n: c.drop_table((n, "t2")), lambda c, n: c.drop_table((n, "t2"), True)],
    "rename_table": [lambda c, n: c.rename_table((n, "t2"), "default.stolen"),
                     lambda c, n: c.rename_table("default.t", (n, "moved"))],
    "sync_table": [lambda c, n: c.sync_table((n, "t2"))],
}
TABLE_NAME_CASES: dict[str, list[Callable[[Catalog, str], Any]]] = {
    "table_path": [lambda c, n: c.table_path(Identifier("default", n))],
    "table_exists": [lambda c, n: c.table_exists(("default", n))],
    "get_table": [lambda c, n: c.get_table(("default", n)), lambda c, n: c.get_table(("default", n)).read()],
    "create_table": [lambda c, n: c.create_table(("default", n), SCHEMA)],
    "create_table_like": [lambda c, n: c.create_table_like(("default", n), c.get_table("default.t"))],
    "drop_table": [lambda c, n: c.drop_table(("default", n)), lambda c, n: c.drop_table(("default", n), True)],
    "rename_table": [lambda c, n: c.rename_table(("default", n), "default.stolen"),
                     lambda c, n: c.rename_table("default.t", ("default", n))],
    "sync_table": [lambda c, n: c.sync_table(("default", n))],
}
# Table methods that take a tag or branch name (the others take none)
TABLE_METHODS_WITH_NAMES = {
    "read", "plan", "resolve_read", "scan", "create_tag", "delete_tag", "replace_tag", "rename_tag",
    "create_tag_from_timestamp", "rollback", "create_branch", "fast_forward",
}


def test_every_public_catalog_method_has_cases() -> None:
    public = {n for n, _ in inspect.getmembers(Catalog, inspect.isfunction) if not n.startswith("_")}
    assert public == set(CATALOG_CASES), f"add cases for {public ^ set(CATALOG_CASES)}"


def test_table_methods_taking_names_are_covered() -> None:
    takes_names = {
        n for n, f in inspect.getmembers(Table, inspect.isfunction)
        if not n.startswith("_") and {"tag", "branch"} & set(inspect.signature(f).parameters)
    }
    assert takes_names == TABLE_METHODS_WITH_NAMES


@pytest.mark.parametrize("bad", BAD_DATABASES)
def test_bad_database_names_are_refused_everywhere(world: dict[str, Any], bad: str) -> None:
    cat = world["cat"]
    for method, calls in CATALOG_CASES.items():
        for i, call in enumerate(calls):
            _refused(lambda call=call: call(cat, bad), f"{method}[{i}]({bad!r})")
    for form in _table_forms(bad, "t2"):
        _refused(lambda form=form: Identifier.parse(form), f"Identifier.parse({form!r})")
    _refused(lambda: Identifier(bad, "t2"), f"Identifier({bad!r}, 't2')")
    assert _state(world["root"], world["wh"]) == world["before"]


@pytest.mark.parametrize("bad", BAD_TABLES)
def test_bad_table_names_are_refused_everywhere(world: dict[str, Any], bad: str) -> None:
    cat = world["cat"]
    for method, calls in TABLE_NAME_CASES.items():
        for i, call in enumerate(calls):
            _refused(lambda call=call: call(cat, bad), f"{method}[{i}]({bad!r})")
    _refused(lambda: Identifier("default", bad), f"Identifier('default', {bad!r})")
    assert _state(world["root"], world["wh"]) == world["before"]
    assert cat.list_tables("default") == ["t"]


def test_string_identifiers_with_escaping_parts(world: dict[str, Any]) -> None:
    cat = world["cat"]
    for ident in ["`../victim`.t2", "default.`../../victim.db/t2`", "default.t$branch_../../../x",
                  "default.t$branch_a/b", "default.t$../x", "../victim.t2"]:
        _refused(lambda ident=ident: cat.get_table(ident), f"get_table({ident!r})")
        _refused(lambda ident=ident: cat.drop_table(ident), f"drop_table({ident!r})")
        _refused(lambda ident=ident: cat.table_exists(ident), f"table_exists({ident!r})")
    assert _state(world["root"], world["wh"]) == world["before"]


@pytest.mark.parametrize("bad", BAD_BRANCHES)
def test_bad_branch_names_are_refused(world: dict[str, Any], bad: str) -> None:
    cat, t = world["cat"], world["t"]
    _refused(lambda: Identifier("default", "t", branch=bad), f"branch {bad!r}")
    _refused(lambda: branch_path(t.path, bad), f"branch_path({bad!r})")
    _refused(lambda: t.store.for_branch(bad, t.schema), f"for_branch({bad!r})")
    _refused(lambda: cat.get_table(("default", f"t$branch_{bad}")), f"get_table(t$branch_{bad!r})")
    t.create_branch("okb", ignore_if_exists=True)
    _refused(lambda: t.create_branch(bad), f"create_branch({bad!r})")
    _refused(lambda: t.create_branch(bad, ignore_if_exists=True), f"create_branch({bad!r}, ignore)")
    _refused(lambda: t.delete_branch(bad), f"delete_branch({bad!r})")
    _refused(lambda: t.delete_branch([bad]), f"delete_branch([{bad!r}])")
    _refused(lambda: t.rename_branch(bad, "x"), f"rename_branch({bad!r}, 'x')")
    _refused(lambda: t.rename_branch("okb", bad), f"rename_branch('okb', {bad!r})")
    _refused(lambda: t.fast_forward(bad), f"fast_forward({bad!r})")
    _refused(lambda: t.switch_to_branch(bad), f"switch_to_branch({bad!r})")
    for key in ("scan.fallback-branch", "branch"):  # options naming a branch folder
        _refused(lambda key=key: t.alter(set_options={key: bad}), f"{key}={bad!r}")
        _refused(lambda key=key: cat.create_table("default.t5", SCHEMA, options={key: bad}), f"{key}={bad!r}")
    assert _state(world["root"], world["wh"]) == world["before"]


@pytest.mark.parametrize("bad", BAD_TAGS)
def test_bad_tag_names_are_refused(world: dict[str, Any], bad: str) -> None:
    t = world["t"]
    _refused(lambda: t.read(tag=bad), f"read(tag={bad!r})")
    _refused(lambda: t.plan(tag=bad), f"plan(tag={bad!r})")
    _refused(lambda: t.resolve_read(tag=bad), f"resolve_read(tag={bad!r})")
    _refused(lambda: t.scan(tag=bad).plan(), f"scan(tag={bad!r})")
    _refused(lambda: t.read(incremental_between=(bad, bad)), f"read(incremental_between=({bad!r}, {bad!r}))")
    _refused(lambda: tag_ops.create_tag(t.store, bad, None, None), f"create_tag({bad!r})")
    _refused(lambda: tag_ops.delete_tag(t.store, bad), f"delete_tag({bad!r})")
    _refused(lambda: rollback_ops.rollback(t.store, tag=bad), f"rollback(tag={bad!r})")
    _refused(lambda: t.store.tags.exists(bad), f"tags.exists({bad!r})")
    if not t.store.tags.exists("oktag"):
        t.create_tag("oktag", 1)
    _refused(lambda: t.create_tag(bad), f"Table.create_tag({bad!r})")
    _refused(lambda: t.delete_tag(bad), f"Table.delete_tag({bad!r})")
    _refused(lambda: t.replace_tag(bad), f"replace_tag({bad!r})")
    _refused(lambda: t.rename_tag(bad, "x"), f"rename_tag({bad!r}, 'x')")
    _refused(lambda: t.rename_tag("oktag", bad), f"rename_tag('oktag', {bad!r})")
    _refused(lambda: t.create_tag_from_timestamp(bad, 0), f"create_tag_from_timestamp({bad!r})")
    _refused(lambda: t.rollback(tag=bad), f"Table.rollback(tag={bad!r})")
    _refused(lambda: t.create_branch("from_bad", tag=bad), f"create_branch(tag={bad!r})")
    assert _state(world["root"], world["wh"]) == world["before"]
    assert t.snapshot_ids() == [1]


def test_symlinks_out_of_the_warehouse_are_neither_listed_nor_followed(world: dict[str, Any]) -> None:
    cat = world["cat"]
    assert cat.list_databases() == ["default"]
    assert cat.list_tables("default") == ["t"]
    for call, what in [
        (lambda: cat.get_table("default.link"), "get_table(link)"),
        (lambda: cat.get_table("default.link").read(), "read(link)"),
        (lambda: cat.table_exists("default.link"), "table_exists(link)"),
        (lambda: cat.drop_table("default.link"), "drop_table(link)"),
        (lambda: cat.rename_table("default.link", "default.stolen"), "rename_table(link)"),
        (lambda: cat.create_table("default.link", SCHEMA), "create_table(link)"),
        (lambda: cat.database_exists("evil"), "database_exists(evil)"),
        (lambda: cat.list_tables("evil"), "list_tables(evil)"),
        (lambda: cat.get_table("evil.t2"), "get_table(evil.t2)"),
        (lambda: cat.drop_database("evil", cascade=True), "drop_database(evil)"),
        (lambda: cat.create_table("evil.t3", SCHEMA), "create_table(evil.t3)"),
    ]:
        _refused(call, what)
    assert _state(world["root"], world["wh"]) == world["before"]


def test_valid_unusual_names_still_work(tmp_path: Path) -> None:
    cat = Catalog(str(tmp_path / "wh"))
    for db in ["d-1", "Déjà vu", "x" * 252]:  # 252 + ".db" = 255 bytes, the file-name limit
        cat.create_database(db)
        t = cat.create_table((db, "t.v1 ü"), SCHEMA)
        assert isinstance(t, Table)
        t.write(ROWS)
        assert cat.list_tables(db) == ["t.v1 ü"]
        assert cat.get_table((db, "t.v1 ü")).read().num_rows == 2  # type: ignore[union-attr]
    assert check_name("tag", "2024-01-01 12:00") == "2024-01-01 12:00"
