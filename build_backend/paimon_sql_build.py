"""The PEP 517 build backend of paimon_sql: setuptools', plus compiling the Spark JVM shim into
every wheel (``pip install .``, ``pip wheel .``, ``python -m build``).

The shim is compiled by ``shim.py`` with ``javac`` against the jars of the pyspark that the build
environment holds (listed below as a wheel build requirement), so the jar matches the Spark it is
installed beside. Editable installs (``pip install -e``) do not build it: developers run
``scripts/setup_env.sh`` (or ``jvm-shim/build.sh``), which builds it into the source tree.
"""

from __future__ import annotations

import re
import sys
from typing import Any

import shim
from setuptools import build_meta as _setuptools
from setuptools.build_meta import (  # noqa: F401  (the hooks this backend passes through as they are)
    build_editable,
    build_sdist,
    get_requires_for_build_editable,
    get_requires_for_build_sdist,
    prepare_metadata_for_build_editable,
    prepare_metadata_for_build_wheel,
)


def pyspark_requirement() -> str:
    """The Spark the shim is compiled against: the runtime pin of pyspark in pyproject.toml."""
    text = (shim.ROOT / "pyproject.toml").read_text(encoding="utf-8")
    m = re.search(r'"(pyspark\s*[=<>~!][^"]*)"', text)
    if not m:
        raise SystemExit("paimon_sql: pyproject.toml has no pinned pyspark dependency")
    return m.group(1)


def get_requires_for_build_wheel(config_settings: dict[str, Any] | None = None) -> list[str]:
    return [*_setuptools.get_requires_for_build_wheel(config_settings), pyspark_requirement()]


def build_wheel(
    wheel_directory: str, config_settings: dict[str, Any] | None = None,
    metadata_directory: str | None = None,
) -> str:
    try:
        shim.build(log=lambda m: print(f"paimon_sql: {m}", file=sys.stderr))
    except shim.ShimBuildError as e:
        # a clear one-line reason instead of a traceback through pip
        raise SystemExit(f"paimon_sql: cannot build the wheel: {e}") from None
    return str(_setuptools.build_wheel(wheel_directory, config_settings, metadata_directory))
