"""``python -m paimon_sql.spark``: what plain Spark users need to use the ``paimon`` catalog.

    python -m paimon_sql.spark jar                       # the shim jar's path
    python -m paimon_sql.spark conf [--warehouse W] [--catalog NAME] [--python PY] [--catalog-option K=V ...]
                                                         # the catalog settings as --conf flags
    python -m paimon_sql.spark args [same options]       # --jars <jar> and the --conf flags

``args`` prints everything ``spark-submit``, ``pyspark`` or ``spark-sql`` need on one line:
``spark-sql $(python -m paimon_sql.spark args --warehouse /shared/wh)``. The executors' Python must
have paimon_sql installed too; ``--python`` sets ``spark.pyspark.python`` (default: not set, so
Spark uses its own PYSPARK_PYTHON).
"""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Mapping, Sequence

from paimon_sql.errors import PaimonError
from paimon_sql.spark import jar_path
from paimon_sql.spark.session import DEFAULT_CATALOG, DEFAULT_WAREHOUSE, catalog_conf, parse_catalog_options

PYTHON_KEYS = ("spark.pyspark.python", "spark.pyspark.driver.python")


def conf_flags(
    warehouse: str, catalog: str, python: str | None, catalog_options: Mapping[str, str] | None = None
) -> list[str]:
    conf = catalog_conf(warehouse, catalog, default_catalog=True, python=python, catalog_options=catalog_options)
    if python is None:  # the cluster's own PYSPARK_PYTHON, not this interpreter
        for key in PYTHON_KEYS:
            conf.pop(key)
    flags: list[str] = []
    for key, value in conf.items():
        flags += ["--conf", f"{key}={value}"]
    return flags


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m paimon_sql.spark", description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("what", choices=["jar", "conf", "args"])
    parser.add_argument("--warehouse", default=DEFAULT_WAREHOUSE)
    parser.add_argument("--catalog", default=DEFAULT_CATALOG)
    parser.add_argument("--python", default=None)
    parser.add_argument("--catalog-option", action="append", default=[])
    ns = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    try:
        if ns.what == "jar":
            print(jar_path())
            return 0
        flags = conf_flags(ns.warehouse, ns.catalog, ns.python, parse_catalog_options(ns.catalog_option))
        if ns.what == "args":
            flags = ["--jars", jar_path(), *flags]
        print(" ".join(shlex.quote(f) for f in flags))
    except PaimonError as e:
        print(f"python -m paimon_sql.spark: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
