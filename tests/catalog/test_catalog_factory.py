"""load_catalog: the ``metastore`` catalog option picks the catalog, as Paimon's CatalogFactory."""

from __future__ import annotations

import pyarrow as pa
import pytest

from paimon_sql import Catalog, load_catalog
from paimon_sql.catalog.base import AbstractCatalog
from paimon_sql.errors import UnsupportedError, ValidationError


def test_default_and_filesystem_give_the_filesystem_catalog(tmp_path) -> None:  # type: ignore[no-untyped-def]
    for options in (None, {}, {"metastore": "filesystem"}, {"metastore": " FileSystem "}):
        cat = load_catalog(str(tmp_path / "wh"), options)
        assert isinstance(cat, Catalog) and isinstance(cat, AbstractCatalog)
    cat = load_catalog(tmp_path / "wh", {"metastore": "filesystem"})
    cat.create_database("db")
    t = cat.create_table("db.t", pa.schema([("id", pa.int64())]))
    t.write(pa.table({"id": [1, 2]}))
    # the same warehouse through the class itself
    assert Catalog(str(tmp_path / "wh")).get_table("db.t").read().column("id").to_pylist() == [1, 2]


@pytest.mark.parametrize("kind", ["hive", "rest", "HIVE"])
def test_paimons_other_metastores_are_refused_naming_the_option(tmp_path, kind) -> None:  # type: ignore[no-untyped-def]
    for make in (load_catalog, Catalog):
        with pytest.raises(UnsupportedError, match=rf"'metastore' = '{kind}'.*not implemented"):
            make(str(tmp_path / "wh"), {"metastore": kind})
    assert not (tmp_path / "wh").exists()  # nothing created


def test_unknown_metastore_and_bad_arguments(tmp_path) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValidationError, match=r"'metastore' has unknown value 'mysql'.*filesystem"):
        load_catalog(str(tmp_path / "wh"), {"metastore": "mysql"})
    with pytest.raises(ValidationError, match="catalog options must be a dict"):
        load_catalog(str(tmp_path / "wh"), [("metastore", "x")])  # type: ignore[arg-type]
    with pytest.raises(ValidationError, match="warehouse must be a path"):
        load_catalog(42)  # type: ignore[arg-type]
    assert not (tmp_path / "wh").exists()


def test_every_implemented_metastore_has_a_factory() -> None:
    from paimon_sql.catalog.base import METASTORES
    from paimon_sql.catalog.factory import FACTORIES

    assert set(FACTORIES) == set(METASTORES)
