"""Cold start: each entry module Spark or the shim starts a Python process with imports only what
its step runs (issue 22). Every check runs in a fresh interpreter and reads ``sys.modules``; a
module bound by ``paimon_sql.lazy.lazy_module`` but never used does not count as imported."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

_PROBE = """
import json, sys
{statement}
def loaded(name):
    m = sys.modules.get(name)
    return m is not None and type(m).__name__ != "_LazyModule"
print(json.dumps(sorted(n for n in sys.modules if loaded(n))))
"""

# what no entry module may import before a statement needs it
HEAVY_EXTRAS = ("sqlglot", "paimon_sql.procedures", "paimon_sql.table.system", "paimon_sql.spark.handlers")


def _imported(statement: str) -> set[str]:
    out = subprocess.run(
        [sys.executable, "-c", _PROBE.format(statement=statement)],
        check=True, capture_output=True, text=True, timeout=120,
    )
    return set(json.loads(out.stdout.strip().splitlines()[-1]))


def _under(modules: set[str], prefix: str) -> set[str]:
    return {m for m in modules if m == prefix or m.startswith(prefix + ".")}


def test_the_package_imports_no_engine() -> None:
    mods = _imported("import paimon_sql")
    assert _under(mods, "paimon_sql") == {"paimon_sql", "paimon_sql.errors", "paimon_sql.lazy"}
    assert "pyarrow" not in mods


def test_the_data_source_lookup_imports_only_pyspark() -> None:
    # Spark's lookup worker imports every pyspark_* module once per JVM, in a process of its own
    mods = _imported("import pyspark_paimon_sql")
    assert _under(mods, "paimon_sql") <= {
        "paimon_sql", "paimon_sql.errors", "paimon_sql.lazy", "paimon_sql.spark", "paimon_sql.spark.session",
        "paimon_sql.spark.datasource",
    }
    assert not {"pyarrow", "numpy", "fastavro", "pyroaring"} & mods


@pytest.mark.parametrize("entry", [
    "import paimon_sql.spark.writer",  # the write planning, every write task, the commit
    "import paimon_sql.spark.reader",  # the read planning and every read task
    "import paimon_sql.table.table",
])
def test_the_write_and_read_paths_import_no_sql_parser_procedures_or_system_tables(entry: str) -> None:
    mods = _imported(entry)
    assert not any(_under(mods, heavy) for heavy in HEAVY_EXTRAS), sorted(
        m for heavy in HEAVY_EXTRAS for m in _under(mods, heavy))
    # the operation modules the Table facade names load when an operation runs
    assert not {"paimon_sql.ops.alter", "paimon_sql.ops.branches", "paimon_sql.ops.rescale"} & mods


def test_the_bridge_imports_no_sql_parser_or_procedures_until_asked() -> None:
    mods = _imported("import paimon_sql.spark.bridge")
    assert not {"sqlglot", "paimon_sql.procedures.registry"} & mods


def test_parsing_a_predicate_imports_sqlglot_on_first_use() -> None:
    mods = _imported(
        "from paimon_sql.predicate import parse_predicate\n"
        "from paimon_sql import types as pt\n"
        "assert 'sqlglot' not in sys.modules\n"
        "print(parse_predicate('a > 1', [pt.DataField(0, 'a', pt.BigIntType())]))"
    )
    assert "sqlglot" in mods


def test_a_lazy_module_runs_its_code_on_first_attribute_use() -> None:
    mods = _imported(
        "from paimon_sql.lazy import is_loaded, lazy_module\n"
        "m = lazy_module('paimon_sql.ops.rescale')\n"
        "assert m is sys.modules['paimon_sql.ops.rescale'] and not is_loaded('paimon_sql.ops.rescale')\n"
        "assert callable(m.rescale) and is_loaded('paimon_sql.ops.rescale')\n"
        "assert lazy_module('paimon_sql.ops.rescale') is m"
    )
    assert "paimon_sql.ops.rescale" in mods
