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
def installed_wheel(tmp_path_factory) -> Path:  # type: ignore[no-untyped-def]
    """The python of a new virtualenv holding only paimon_sql's wheel (built from a clean copy of
    this tree) and its dependencies."""
    from tests.helpers.wheel_install import build_wheel, clean_copy, install_into_new_venv

    base = tmp_path_factory.mktemp("wheel")
    src = clean_copy(base / "src")
    wheel = build_wheel(src, base / "dist")
    return install_into_new_venv(wheel, base / "venv")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test that uses the SparkSession fixture carries the ``spark`` marker, so
    ``-m "not spark"`` never starts a JVM (some modules forget ``pytestmark``)."""
    for item in items:
        if "spark" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.spark)
