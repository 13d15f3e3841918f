"""``sql-examples/*.sql`` run through the real ``paimon-sql`` shell; each script's stdout must equal
its checked ``*.out`` file, after replacing what differs between runs (the warehouse path, file
UUIDs, timestamps). Regenerate the outputs with
``PAIMON_SQL_UPDATE_EXAMPLES=1 pytest tests/spark/test_spark_sql_examples.py``.

All scripts run in ONE shell (one JVM start instead of one per script): each script gets a Paimon
catalog of its own on a warehouse of its own (``SET CATALOG``), and ``RESET`` drops the settings
the script before it made (a name qualified with the catalog ``paimon`` gets the script's catalog
instead); a line ``#### <script>`` printed before each script splits the output."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from paimon_sql.spark.session import catalog_conf

EXAMPLES = Path(__file__).resolve().parents[2] / "sql-examples"
SCRIPTS = sorted(EXAMPLES.glob("*.sql"))

_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(\.\d+)?")
_SECTION = "#### "


def normalize(text: str, warehouse: str) -> str:
    text = text.replace(warehouse, "<warehouse>")
    text = _UUID.sub("<uuid>", text)
    return _TIMESTAMP.sub("<timestamp>", text)


def test_every_example_has_a_checked_output() -> None:
    assert len(SCRIPTS) >= 3
    for script in SCRIPTS:
        assert script.with_suffix(".out").is_file(), f"{script.name} has no checked output"
        assert _SECTION not in script.read_text(), f"{script.name} prints the section marker"


def _catalog(i: int) -> str:
    return f"example{i:02d}"


def _split(stdout: str) -> dict[str, str]:
    """The output of each script, by script name (stem)."""
    sections: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in stdout.splitlines(keepends=True):
        if line.startswith(_SECTION):
            current = sections.setdefault(line[len(_SECTION):].strip(), [])
        elif current is not None:
            current.append(line)
        else:
            raise AssertionError(f"output before the first script: {line!r}")
    return {k: "".join(v) for k, v in sections.items()}


@pytest.mark.spark
@pytest.mark.slow
def test_example_outputs(tmp_path: Path) -> None:
    exe = Path(sys.executable).parent / "paimon-sql"
    warehouses = {s.stem: str(tmp_path / f"wh-{s.stem}") for s in SCRIPTS}
    parts, confs = [], []
    for i, script in enumerate(SCRIPTS):
        catalog = _catalog(i)
        for key, value in catalog_conf(warehouses[script.stem], catalog, default_catalog=False).items():
            if key.startswith(f"spark.sql.catalog.{catalog}"):
                confs += ["--conf", f"{key}={value}"]
        # a script naming the catalog `paimon` names its own
        text = re.sub(r"\bpaimon\.(?=\w+\.)", f"{catalog}.", script.read_text())
        parts.append(f"SELECT '{_SECTION}{script.stem}';\nSET CATALOG {catalog};\nRESET;\n{text}\n")
    combined = tmp_path / "all_examples.sql"
    combined.write_text("".join(parts))
    out = subprocess.run(
        [str(exe), "--warehouse", str(tmp_path / "wh-unused"), *confs, "-f", str(combined)],
        cwd=tmp_path, capture_output=True, text=True, timeout=1800,
    )
    assert out.returncode == 0, out.stderr[-4000:]
    got = _split(out.stdout)
    assert list(got) == [s.stem for s in SCRIPTS], out.stderr[-4000:]
    for script in SCRIPTS:
        text = normalize(got[script.stem], warehouses[script.stem])
        expected_file = script.with_suffix(".out")
        if os.environ.get("PAIMON_SQL_UPDATE_EXAMPLES") == "1":
            expected_file.write_text(text)
        assert text == expected_file.read_text(), f"{script.name}: output differs from {expected_file.name}"
