from __future__ import annotations

import pytest

from paimon_sql import Catalog


@pytest.fixture()
def catalog(tmp_path) -> Catalog:  # type: ignore[no-untyped-def]
    cat = Catalog(str(tmp_path / "warehouse"))
    cat.create_database("db")
    return cat
