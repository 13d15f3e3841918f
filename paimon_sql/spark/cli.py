"""``paimon-sql``: Spark's spark-sql shell with the Paimon catalog as its default catalog.

    paimon-sql [--warehouse DIR|URI] [--catalog NAME] [--catalog-option KEY=VALUE ...] [-e SQL | -f FILE]
               [any spark-sql option]

Runs the ``spark-sql`` of the installed pyspark (``pyspark/bin/spark-sql``, i.e. Spark's
SparkSQLCLIDriver, which the pyspark wheel ships with its Hive jars) with the shim jar, the catalog
``paimon`` (``spark.sql.defaultCatalog``, so ``CREATE TABLE t`` lands in ``paimon.default``) on the
warehouse (default ``./warehouse``), the SQL extensions, Python filter pushdown, this interpreter
as the Python of Spark's workers, and ``--master local[*]`` unless a master is given. Spark's own
catalog is the in-memory one (no Hive metastore folder appears in the current directory) unless
``--conf spark.sql.catalogImplementation=hive`` is given. An interactive shell starts Spark's
Python workers in the background (``spark.paimon_sql.warmup.enabled``, docs/spark.md); ``-e`` and
``-f`` scripts do not, unless that setting is given. ``--catalog-option KEY=VALUE`` sets
an option of the Paimon catalog (e.g. ``s3.endpoint``, ``s3.access-key`` for an ``s3://``
warehouse; docs/install.md). Output is spark-sql's: rows as
tab-separated lines on stdout, logs and timings on stderr.

spark-sql switches worth knowing (``paimon-sql --help`` also lists spark-sql's own options):

    --hiveconf hive.cli.print.header=true   print column names first (a CALL prints ``result``,
                                            then its value; without it, the bare value)
    --hiveconf hive.cli.errors.ignore=true  ``-f`` / ``-e`` scripts go on after a failing statement
                                            (the exit code is then the last statement's)
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from paimon_sql.errors import PaimonError
from paimon_sql.spark import check_spark_version, jar_path
from paimon_sql.spark.session import (
    DEFAULT_CATALOG,
    DEFAULT_MASTER,
    DEFAULT_WAREHOUSE,
    WARMUP_CONF,
    catalog_conf,
    parse_catalog_options,
)

USAGE = ("paimon-sql [--warehouse DIR|URI] [--catalog NAME] [--catalog-option KEY=VALUE ...] [-e SQL | -f FILE] "
         "[spark-sql options]")


def spark_home() -> str:
    import pyspark

    return os.path.dirname(os.path.abspath(pyspark.__file__))


def _has_conf(args: Sequence[str], key: str) -> bool:
    for i, a in enumerate(args):
        if a in ("--conf", "-c") and i + 1 < len(args) and args[i + 1].split("=", 1)[0] == key:
            return True
        if a.startswith("--conf=") and a[len("--conf="):].split("=", 1)[0] == key:
            return True
    return False


def _conf_value(args: Sequence[str], key: str) -> str | None:
    """The value of the last ``--conf key=value`` in ``args``, or None."""
    value = None
    for i, a in enumerate(args):
        if a in ("--conf", "-c") and i + 1 < len(args):
            k, _, v = args[i + 1].partition("=")
        elif a.startswith("--conf="):
            k, _, v = a[len("--conf="):].partition("=")
        else:
            continue
        if k == key:
            value = v
    return value


def build_command(argv: Sequence[str]) -> tuple[list[str], dict[str, str]]:
    """The spark-sql command line and environment for ``paimon-sql argv``."""
    parser = argparse.ArgumentParser(prog="paimon-sql", usage=USAGE, add_help=False)
    parser.add_argument("--warehouse", default=DEFAULT_WAREHOUSE)
    parser.add_argument("--catalog", default=DEFAULT_CATALOG)
    parser.add_argument("--catalog-option", action="append", default=[])
    parser.add_argument("--paimon-help", action="store_true")
    ns, rest = parser.parse_known_args(list(argv))
    home = spark_home()
    cmd = [os.path.join(home, "bin", "spark-sql")]
    if "--master" not in rest and not any(a.startswith("--master=") for a in rest):
        cmd += ["--master", DEFAULT_MASTER]
    jars = jar_path()
    check_spark_version(jar=jars)
    if "--jars" in rest:
        i = rest.index("--jars")
        if i + 1 < len(rest):
            jars = jars + "," + rest[i + 1]
            rest = rest[:i] + rest[i + 2:]
    cmd += ["--jars", jars]
    options = parse_catalog_options(ns.catalog_option)
    conf = catalog_conf(ns.warehouse, ns.catalog, default_catalog=True, catalog_options=options)
    conf.setdefault("spark.ui.enabled", "false")
    conf.setdefault("spark.sql.catalogImplementation", "in-memory")
    if any(a in ("-e", "-f") for a in rest):
        # a script's statements come at once: the background start of the Python workers would
        # only run beside them (it pays off while a user types; docs/spark.md)
        conf.setdefault(WARMUP_CONF, "false")
    for key, value in conf.items():
        if not _has_conf(rest, key):
            cmd += ["--conf", f"{key}={value}"]
    cmd += rest
    env = dict(os.environ)
    env["SPARK_HOME"] = home
    # Spark's Python data source workers (lookup, write planning, commit) run PYSPARK_PYTHON, not
    # spark.pyspark.python: a --conf spark.pyspark.python given by the user must reach them too
    python = _conf_value(rest, "spark.pyspark.python") or conf["spark.pyspark.python"]
    env["PYSPARK_PYTHON"] = python
    env.setdefault("PYSPARK_DRIVER_PYTHON", python)
    return cmd, env


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if "--paimon-help" in args or args in (["-h"], ["--help"]):
        print(__doc__)
        if not args or "--paimon-help" in args:
            return 0
    try:
        cmd, env = build_command(args)
    except PaimonError as e:  # no shim jar, a shim built for another Spark, a bad catalog name
        print(f"paimon-sql: error: {e}", file=sys.stderr)
        return 1
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(cmd[0], cmd, env)
    return 1  # not reached


if __name__ == "__main__":
    raise SystemExit(main())
