"""Every table of the Java-written corpus must read, at every snapshot, as Apache Paimon reads it.

Expectations live in tests/fixtures/corpus/<warehouse>/<table>.json (how they were derived:
tests/fixtures/corpus/README.md). The corpus itself (/work/shared/fixtures/java-corpus, override with
$PAIMON_JAVA_CORPUS) is only read, never copied or written.

A read that raises paimon_sql.errors.UnsupportedError is an expected failure (xfail, with the message)
when the table lists engine features in "needs"; any other exception or any wrong row fails.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import subprocess
from decimal import Decimal
from pathlib import Path
from types import ModuleType
from typing import Any

import pyarrow as pa
import pytest

from tests.helpers.corpus_rows import canonical_rows, format_date, format_timestamp, rows_diff

CORPUS = Path(os.environ.get("PAIMON_JAVA_CORPUS", "/work/shared/fixtures/java-corpus"))
EXPECTED = Path(__file__).parent / "fixtures" / "corpus"


def _load_expectations() -> list[dict[str, Any]]:
    docs = []
    for path in sorted(EXPECTED.glob("*/*.json")):
        doc = json.loads(path.read_text(encoding="utf-8"))
        doc["_key"] = f"{path.parent.name}/{path.stem}"
        docs.append(doc)
    return docs


DOCS = _load_expectations()


def _cases() -> list[Any]:
    cases = []
    for doc in DOCS:
        for sid, expected in doc["snapshots"].items():
            cases.append(pytest.param(doc, None, sid, expected, id=f"{doc['_key']}@{sid}"))
        cases.append(pytest.param(doc, None, "latest", doc["latest"], id=f"{doc['_key']}@latest"))
        for branch, bdoc in doc.get("branches", {}).items():
            for sid, expected in bdoc["snapshots"].items():
                cases.append(
                    pytest.param(doc, branch, sid, expected, id=f"{doc['_key']}$branch_{branch}@{sid}")
                )
            cases.append(
                pytest.param(
                    doc, branch, "latest", bdoc["latest"], id=f"{doc['_key']}$branch_{branch}@latest"
                )
            )
    return cases


@pytest.fixture(scope="module")
def engine() -> ModuleType:
    """paimon_sql, imported lazily: the corpus tests skip until paimon_sql.Catalog exists."""
    if not CORPUS.is_dir():
        pytest.skip(f"Java corpus not found at {CORPUS}")
    if importlib.util.find_spec("paimon_sql") is None:
        pytest.skip("paimon_sql is not importable")
    module = importlib.import_module("paimon_sql")
    if not hasattr(module, "Catalog"):
        pytest.skip("paimon_sql.Catalog does not exist yet")
    return module


def _errors() -> ModuleType:
    return importlib.import_module("paimon_sql.errors")


def _identifier(doc: dict[str, Any], branch: str | None) -> str:
    return doc["table"] if branch is None else f"{doc['table']}$branch_{branch}"


def _table_dir(doc: dict[str, Any], branch: str | None) -> Path:
    db, name = doc["table"].split(".", 1)
    base = CORPUS / doc["warehouse"] / f"{db}.db" / name
    return base if branch is None else base / "branch" / f"branch-{branch}"


def _schema_field_names(doc: dict[str, Any], branch: str | None, schema_id: int) -> list[str]:
    schema = json.loads(
        (_table_dir(doc, branch) / "schema" / f"schema-{schema_id}").read_text(encoding="utf-8")
    )
    return [field["name"] for field in schema["fields"]]


def _unsupported(doc: dict[str, Any], exc: Exception) -> None:
    """xfail a read the engine declares unsupported, if the table needs features beyond the basics."""
    needs = doc.get("needs", [])
    if needs:
        pytest.xfail(f"UnsupportedError (table needs {', '.join(needs)}): {exc}")
    raise exc


def _read(engine: ModuleType, doc: dict[str, Any], branch: str | None, sid: str) -> pa.Table:
    catalog = engine.Catalog(str(CORPUS / doc["warehouse"]))
    table = catalog.get_table(_identifier(doc, branch))
    result = table.read() if sid == "latest" else table.read(snapshot_id=int(sid))
    assert isinstance(result, pa.Table), f"read() returned {type(result).__name__}, not a pyarrow.Table"
    return result


@pytest.mark.parametrize(("doc", "branch", "sid", "expected"), _cases())
def test_read_matches_paimon(
    engine: ModuleType, doc: dict[str, Any], branch: str | None, sid: str, expected: dict[str, Any]
) -> None:
    errors = _errors()
    where = f"{_identifier(doc, branch)} ({doc['warehouse']}) at {'the latest snapshot' if sid == 'latest' else 'snapshot ' + sid}"
    if "java_error" in expected:
        # Apache Paimon refuses this read; the engine must refuse it too rather than return rows.
        try:
            result = _read(engine, doc, branch, sid)
        except errors.UnsupportedError as exc:
            _unsupported(doc, exc)
            return
        except errors.PaimonError:
            return
        pytest.fail(
            f"{where}: Paimon raises ({expected['java_error']}) but the engine returned {result.num_rows} rows"
        )
    try:
        result = _read(engine, doc, branch, sid)
    except errors.UnsupportedError as exc:
        _unsupported(doc, exc)
        return
    assert result.column_names == expected["fields"], f"{where}: columns {result.column_names}"
    schema_id = expected.get("schema_id")
    if schema_id is not None:
        # the columns of the schema the read must use (the snapshot's for time travel, else the latest)
        assert result.column_names == _schema_field_names(doc, branch, schema_id), (
            f"{where}: columns differ from schema-{schema_id}"
        )
    diff = rows_diff(canonical_rows(result), expected["rows"])
    notes = "\n".join(f"note: {n}" for n in (expected.get("note"), doc.get("note")) if n)
    assert not diff, f"{where}:\n{diff}\n{notes}"


@pytest.mark.parametrize("doc", DOCS, ids=[doc["_key"] for doc in DOCS])
def test_snapshot_ids(engine: ModuleType, doc: dict[str, Any]) -> None:
    errors = _errors()
    try:
        table = engine.Catalog(str(CORPUS / doc["warehouse"])).get_table(doc["table"])
        ids = table.snapshot_ids()
    except errors.UnsupportedError as exc:
        _unsupported(doc, exc)
        return
    assert list(ids) == sorted(int(sid) for sid in doc["snapshots"])


def test_expectations_cover_the_corpus() -> None:
    """One expectation file per corpus table and one expectation per snapshot file."""
    if not CORPUS.is_dir():
        pytest.skip(f"Java corpus not found at {CORPUS}")
    on_disk = {}
    for table_dir in sorted(CORPUS.glob("*/*.db/*")):
        if not (table_dir / "schema").is_dir():
            continue
        key = f"{table_dir.parent.parent.name}/{table_dir.name}"
        on_disk[key] = (
            sorted(int(p.name.split("-")[1]) for p in (table_dir / "snapshot").glob("snapshot-*"))
            if (table_dir / "snapshot").is_dir()
            else []
        )
    expected = {doc["_key"]: sorted(int(s) for s in doc["snapshots"]) for doc in DOCS}
    assert expected == on_disk
    for doc in DOCS:
        assert _table_dir(doc, None).is_dir(), doc["table"]
        for branch in doc.get("branches", {}):
            snaps = sorted(
                int(p.name.split("-")[1]) for p in (_table_dir(doc, branch) / "snapshot").glob("snapshot-*")
            )
            assert snaps == sorted(int(s) for s in doc["branches"][branch]["snapshots"]), (
                doc["_key"],
                branch,
            )


def test_expected_rows_are_canonical_and_sorted() -> None:
    for doc in DOCS:
        entries = list(doc["snapshots"].values()) + [doc["latest"]]
        for bdoc in doc.get("branches", {}).values():
            entries += list(bdoc["snapshots"].values()) + [bdoc["latest"]]
        for entry in entries:
            if "java_error" in entry:
                continue
            rows = entry["rows"]
            assert rows == sorted(rows, key=lambda r: json.dumps(r, sort_keys=True)), doc["_key"]
            assert all(list(r) == entry["fields"] for r in rows), doc["_key"]


# --------------------------------------------------------------------------- pypaimon cross-check
# The expectation files record how pypaimon 2.1.0 (a second implementation, in its own virtualenv made by
# scripts/pypaimon_venv.sh) compares: which reads agree, which disagree (each explained in the notes), and
# which raise. This re-checks those records whenever that virtualenv exists.

PYPAIMON_SCRIPT = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
from tests.helpers.corpus_rows import canonical_rows
from pypaimon import CatalogFactory
out = {}
for req in json.load(sys.stdin):
    catalog = CatalogFactory.create({"warehouse": req["warehouse"]})
    try:
        table = catalog.get_table(req["identifier"])
        if req["snapshot"] != "latest":
            table = table.copy({"scan.snapshot-id": req["snapshot"]})
        builder = table.new_read_builder()
        result = builder.new_read().to_arrow(builder.new_scan().plan().splits())
        out[req["key"]] = {"fields": result.column_names, "rows": canonical_rows(result)}
    except Exception as exc:
        out[req["key"]] = {"error": type(exc).__name__ + ": " + str(exc)}
json.dump(out, sys.stdout)
"""


def _pypaimon_requests() -> list[tuple[str, dict[str, Any], dict[str, Any], dict[str, Any]]]:
    """(key, request, expected entry, recorded comparison) for every read the expectations compared."""
    out = []
    for doc in DOCS:
        groups: list[tuple[str | None, dict[str, Any]]] = [(None, doc)]
        groups += list(doc.get("branches", {}).items())
        for branch, group in groups:
            record = group.get("pypaimon_2_1_0")
            if not record:
                continue
            entries = dict(group["snapshots"])
            entries["latest"] = group["latest"]
            for sid, expected in entries.items():
                key = f"{doc['_key']}{'' if branch is None else '$branch_' + branch}@{sid}"
                request = {
                    "key": key,
                    "warehouse": str(CORPUS / doc["warehouse"]),
                    "identifier": _identifier(doc, branch),
                    "snapshot": sid,
                }
                out.append((key, request, expected, record))
    return out


@pytest.fixture(scope="module")
def pypaimon_reads() -> dict[str, dict[str, Any]]:
    if not CORPUS.is_dir():
        pytest.skip(f"Java corpus not found at {CORPUS}")
    python = Path(
        os.environ.get(
            "PYPAIMON_PYTHON", Path(__file__).resolve().parent.parent / ".venv-pypaimon" / "bin" / "python"
        )
    )
    if not python.exists():
        pytest.skip(f"no pypaimon virtualenv at {python} (run scripts/pypaimon_venv.sh)")
    requests = [request for _, request, _, _ in _pypaimon_requests()]
    done = subprocess.run(
        [str(python), "-c", PYPAIMON_SCRIPT, str(Path(__file__).resolve().parent)],
        input=json.dumps(requests),
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    reads: dict[str, dict[str, Any]] = json.loads(done.stdout)
    return reads


def test_pypaimon_comparison_is_as_recorded(pypaimon_reads: dict[str, dict[str, Any]]) -> None:
    compared = 0
    for key, _, expected, record in _pypaimon_requests():
        sid = key.rsplit("@", 1)[1]
        got = pypaimon_reads[key]
        if sid in record.get("errors", {}):
            assert "error" in got, f"{key}: pypaimon used to fail ({record['errors'][sid]}) but now reads"
            assert got["error"].split(":")[0] == record["errors"][sid].split(":")[0], (key, got["error"])
            continue
        assert "error" not in got, f"{key}: pypaimon raised {got.get('error')}"
        compared += 1
        same = "java_error" not in expected and got["fields"] == expected["fields"]
        same = same and rows_diff(got["rows"], expected["rows"]) == ""
        if sid in record.get("disagreed", []):
            assert not same, f"{key}: recorded as a pypaimon disagreement but pypaimon now agrees"
        else:
            assert same, f"{key}: pypaimon disagrees: {rows_diff(got['rows'], expected.get('rows', []))}"
    assert compared > 0


def test_canonical_forms() -> None:
    table = pa.table(
        {
            "ts": pa.array([2000000000000001001, -2208988800000000000 + 1001, None], pa.timestamp("ns")),
            "ltz": pa.array([1, 2000, None], pa.timestamp("us", tz="UTC")),
            "d": pa.array([-1234, 0, None], pa.date32()),
            "dec": pa.array([Decimal("0"), Decimal("-0.00000"), Decimal("-123.45")], pa.decimal128(23, 5)),
            "bin": pa.array([b"add", None, b""]),
            "f": pa.array([3.1, None, 0.5], pa.float32()),
            "m": pa.array([[(1, 2)], None, []], pa.map_(pa.int8(), pa.int16())),
            "s": pa.array([{"a": 1, "b": [1, None]}, None, {"a": None, "b": None}]),
        }
    )
    rows = canonical_rows(table)
    by_bin = {json.dumps(r["bin"]): r for r in rows}
    first = by_bin['{"hex": "616464"}']
    assert first["ts"] == "2033-05-18T03:33:20.000001001"
    assert first["ltz"] == "1970-01-01T00:00:00.000001000Z"
    assert first["d"] == "1966-08-16"
    assert first["dec"] == "0.00000"
    assert first["f"] == 3.0999999046325684
    assert first["m"] == [[1, 2]]
    assert first["s"] == {"a": 1, "b": [1, None]}
    second = by_bin["null"]
    assert second["ts"] == "1900-01-01T00:00:00.000001001"
    assert second["m"] is None and second["s"] is None and second["f"] is None
    assert second["dec"] == "0.00000"
    assert by_bin['{"hex": ""}']["dec"] == "-123.45000"
    assert by_bin['{"hex": ""}']["m"] == []
    assert format_date(19909) == "2024-07-05"
    assert format_timestamp(-1, "ms") == "1969-12-31T23:59:59.999000000"
