"""The three Java-written tables of /work/shared/fixtures/java-written (override with
$PAIMON_JAVA_WRITTEN) must read at every snapshot exactly as expected/<table>.snapshot-<n>.jsonl says
(JSON lines, then '# count=N'). The tables are only read, never copied or written.

All three are deletion-vector primary-key tables (test_pk_vector_golden also has a VECTOR column): a
read that raises paimon_sql.errors.UnsupportedError is an expected failure (xfail, with the message);
any other exception or any wrong row fails.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
from pathlib import Path
from types import ModuleType
from typing import Any

import pyarrow as pa
import pytest

from tests.helpers.corpus_rows import canonical_rows, rows_diff, sort_rows

ROOT = Path(os.environ.get("PAIMON_JAVA_WRITTEN", "/work/shared/fixtures/java-written"))
DATABASE = "default"


def _expected_files() -> dict[str, dict[int, Path]]:
    out: dict[str, dict[int, Path]] = {}
    for path in sorted((ROOT / "expected").glob("*.snapshot-*.jsonl")):
        table, _, snap = path.name[: -len(".jsonl")].rpartition(".snapshot-")
        out.setdefault(table, {})[int(snap)] = path
    return out


EXPECTED = _expected_files()


def _load(path: Path) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    count = None
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line:
            continue
        if line.startswith("#"):
            assert line.startswith("# count="), f"{path}: unexpected comment {line!r}"
            count = int(line.split("=", 1)[1])
            continue
        rows.append(json.loads(line))
    assert count == len(rows), f"{path}: '# count={count}' but {len(rows)} rows"
    return sort_rows(rows)


def _cases() -> list[Any]:
    cases = []
    for table, snaps in EXPECTED.items():
        for sid in sorted(snaps):
            cases.append(pytest.param(table, sid, id=f"{table}@{sid}"))
        cases.append(pytest.param(table, None, id=f"{table}@latest"))
    return cases


@pytest.fixture(scope="module")
def engine() -> ModuleType:
    """paimon_sql, imported lazily: these tests skip until paimon_sql.Catalog exists."""
    if not ROOT.is_dir():
        pytest.skip(f"Java-written tables not found at {ROOT}")
    if importlib.util.find_spec("paimon_sql") is None:
        pytest.skip("paimon_sql is not importable")
    module = importlib.import_module("paimon_sql")
    if not hasattr(module, "Catalog"):
        pytest.skip("paimon_sql.Catalog does not exist yet")
    return module


def _schema_names(table: str, snapshot_id: int | None) -> list[str]:
    table_dir = ROOT / f"{DATABASE}.db" / table
    if snapshot_id is None:
        schema_id = max(int(p.name.split("-")[1]) for p in (table_dir / "schema").glob("schema-*"))
    else:
        snapshot = json.loads(
            (table_dir / "snapshot" / f"snapshot-{snapshot_id}").read_text(encoding="utf-8")
        )
        schema_id = snapshot["schemaId"]
    schema = json.loads((table_dir / "schema" / f"schema-{schema_id}").read_text(encoding="utf-8"))
    return [field["name"] for field in schema["fields"]]


@pytest.mark.parametrize(("table", "sid"), _cases())
def test_read_matches_paimon(engine: ModuleType, table: str, sid: int | None) -> None:
    errors = importlib.import_module("paimon_sql.errors")
    snaps = EXPECTED[table]
    expected = _load(snaps[max(snaps) if sid is None else sid])
    try:
        handle = engine.Catalog(str(ROOT)).get_table(f"{DATABASE}.{table}")
        result = handle.read() if sid is None else handle.read(snapshot_id=sid)
    except errors.UnsupportedError as exc:
        pytest.xfail(f"UnsupportedError: {exc}")
    assert isinstance(result, pa.Table)
    assert result.column_names == _schema_names(table, sid)
    diff = rows_diff(canonical_rows(result), expected)
    assert not diff, f"{table} at {'latest' if sid is None else f'snapshot {sid}'}:\n{diff}"


@pytest.mark.parametrize("table", sorted(EXPECTED))
def test_snapshot_ids(engine: ModuleType, table: str) -> None:
    errors = importlib.import_module("paimon_sql.errors")
    try:
        ids = engine.Catalog(str(ROOT)).get_table(f"{DATABASE}.{table}").snapshot_ids()
    except errors.UnsupportedError as exc:
        pytest.xfail(f"UnsupportedError: {exc}")
    assert list(ids) == sorted(EXPECTED[table])


def test_expected_files_cover_every_snapshot() -> None:
    if not ROOT.is_dir():
        pytest.skip(f"Java-written tables not found at {ROOT}")
    tables = sorted(p.name for p in (ROOT / f"{DATABASE}.db").iterdir() if (p / "schema").is_dir())
    assert tables == sorted(EXPECTED)
    for table in tables:
        snaps = sorted(
            int(p.name.split("-")[1])
            for p in (ROOT / f"{DATABASE}.db" / table / "snapshot").glob("snapshot-*")
        )
        assert snaps == sorted(EXPECTED[table]), table
        for path in EXPECTED[table].values():
            _load(path)
