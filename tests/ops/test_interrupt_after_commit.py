"""An interrupt (Ctrl-C, a SystemExit) that arrives after a snapshot landed, while the post-commit
maintenance runs (expiry, tags, partition expiry; synchronous by default), must not make the
operation delete the files it just committed: the table would point at missing files. Every
operation's clean-up on failure deletes its files only when nothing landed."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pyarrow as pa
import pytest

from paimon_sql import Catalog
from paimon_sql.table.table import Table
from paimon_sql.table.table_commit import TableCommit

SCHEMA = pa.schema([("k", pa.int64()), ("v", pa.string())])


def _table(tmp_path: Path, name: str, primary_key: bool, options: dict[str, str]) -> Table:
    cat = Catalog(str(tmp_path / "wh"))
    if "db" not in cat.list_databases():
        cat.create_database("db")
    t = cat.create_table(f"db.{name}", SCHEMA, primary_keys=["k"] if primary_key else None, options=options)
    assert isinstance(t, Table)
    for i in range(3):  # three files a bucket, so that compactions have work
        t.write(pa.table({"k": [i, i + 10], "v": [f"v{i}", f"w{i}"]}, schema=SCHEMA))
    return t


OPERATIONS: dict[str, tuple[bool, dict[str, str], Callable[[Table, Table], object]]] = {
    "write": (True, {"bucket": "1"}, lambda t, _: t.write(pa.table({"k": [99], "v": ["n"]}, schema=SCHEMA))),
    "delete, primary key": (True, {"bucket": "1"}, lambda t, _: t.delete("k = 1")),
    "delete, append": (False, {}, lambda t, _: t.delete("k = 1")),
    "delete, deletion vectors": (False, {"deletion-vectors.enabled": "true"}, lambda t, _: t.delete("k = 1")),
    "compact, primary key": (True, {"bucket": "1"}, lambda t, _: t.maintenance.compact(full=True)),
    "compact, append": (False, {"bucket": "1", "bucket-key": "k"}, lambda t, _: t.maintenance.compact(full=True)),
    "sort compact": (False, {}, lambda t, _: t.maintenance.sort_compact("order", ["v"])),
    "rescale": (True, {"bucket": "1"}, lambda t, _: t.maintenance.rescale(2)),
    "copy": (False, {}, lambda t, target: t.maintenance.copy_files_to(target)),
}


@pytest.mark.parametrize("operation", list(OPERATIONS))
def test_an_interrupt_after_the_commit_keeps_the_committed_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, operation: str
) -> None:
    primary_key, options, run = OPERATIONS[operation]
    t = _table(tmp_path, "t", primary_key, options)
    target = _table(tmp_path, "target", primary_key, options)
    before = t.latest_snapshot()
    assert before is not None

    def interrupted(self: TableCommit) -> None:
        raise KeyboardInterrupt("after the commit")

    monkeypatch.setattr(TableCommit, "after_commit", interrupted)
    with pytest.raises(KeyboardInterrupt):
        run(t, target)
    monkeypatch.undo()
    changed = target if operation == "copy" else t
    latest = changed.latest_snapshot()
    assert latest is not None and latest.id > (before.id if changed is t else 3), "the operation committed"
    missing = [e.file.file_name for e in changed.store.manifests.live_entries(latest)
               if not Path(changed.store.entry_path(e)).exists()]
    assert missing == [], f"{operation}: the committed snapshot refers to deleted files {missing}"
    changed.read()  # and it reads
