"""``sql-examples/*.sql`` run through the real ``paimon-sql`` shell; stdout must equal the checked
``*.out`` file, after replacing what differs between runs (the warehouse path, file UUIDs,
timestamps). Regenerate the outputs with ``PAIMON_SQL_UPDATE_EXAMPLES=1 pytest tests/spark/test_spark_sql_examples.py``."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "sql-examples"
SCRIPTS = sorted(EXAMPLES.glob("*.sql"))

_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(\.\d+)?")


def normalize(text: str, warehouse: str) -> str:
    text = text.replace(warehouse, "<warehouse>")
    text = _UUID.sub("<uuid>", text)
    return _TIMESTAMP.sub("<timestamp>", text)


def test_every_example_has_a_checked_output() -> None:
    assert len(SCRIPTS) >= 3
    for script in SCRIPTS:
        assert script.with_suffix(".out").is_file(), f"{script.name} has no checked output"


@pytest.mark.spark
@pytest.mark.slow
@pytest.mark.parametrize("script", SCRIPTS, ids=[s.stem for s in SCRIPTS])
def test_example_output(script: Path, tmp_path: Path) -> None:
    exe = Path(sys.executable).parent / "paimon-sql"
    warehouse = str(tmp_path / "wh")
    out = subprocess.run(
        [str(exe), "--warehouse", warehouse, "-f", str(script)],
        cwd=tmp_path, capture_output=True, text=True, timeout=600,
    )
    assert out.returncode == 0, out.stderr[-4000:]
    got = normalize(out.stdout, warehouse)
    expected_file = script.with_suffix(".out")
    if os.environ.get("PAIMON_SQL_UPDATE_EXAMPLES") == "1":
        expected_file.write_text(got)
    assert got == expected_file.read_text()
