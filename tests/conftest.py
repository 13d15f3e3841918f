from __future__ import annotations

from pathlib import Path

import pytest

from paimon_sql import Catalog


@pytest.fixture()
def catalog(tmp_path) -> Catalog:  # type: ignore[no-untyped-def]
    cat = Catalog(str(tmp_path / "warehouse"))
    cat.create_database("db")
    return cat


@pytest.fixture(scope="session")
def built_dist(tmp_path_factory) -> tuple[Path, Path]:  # type: ignore[no-untyped-def]
    """(sdist, wheel) built as ``python -m build`` does from a clean copy of this tree: the sdist
    first (sources, no jar), then the wheel from the sdist (which compiles the shim)."""
    from tests.helpers.wheel_install import build_sdist, build_wheel, clean_copy

    base = tmp_path_factory.mktemp("wheel")
    sdist = build_sdist(clean_copy(base / "src"), base / "sdist")
    return sdist, build_wheel(sdist, base / "dist")


@pytest.fixture(scope="session")
def installed_wheel(built_dist, tmp_path_factory) -> Path:  # type: ignore[no-untyped-def]
    """The python of a new virtualenv holding only paimon_sql's wheel and its dependencies."""
    from tests.helpers.wheel_install import install_into_new_venv

    return install_into_new_venv(built_dist[1], tmp_path_factory.mktemp("wheel-venv") / "venv")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test that uses the SparkSession fixture carries the ``spark`` marker, so
    ``-m "not spark"`` never starts a JVM (some modules forget ``pytestmark``)."""
    for item in items:
        if "spark" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.spark)
