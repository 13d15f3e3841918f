"""The data source's option parsing (``spark/source_options.py``, no Spark session)."""

from __future__ import annotations

import pytest

from paimon_sql.errors import ValidationError
from paimon_sql.spark.source_options import _bool_option


def test_a_flag_is_true_or_false_and_its_error_names_the_option_and_the_table() -> None:
    assert _bool_option({"paimon.filter-pushdown": " TRUE "}, "paimon.filter-pushdown") is True
    assert _bool_option({"table": "db.t"}, "paimon.filter-pushdown") is False  # unset
    with pytest.raises(ValidationError, match=r"^Option 'write.merge-schema' of table db.t must be true or false, "
                                              r"got 'yes'$"):
        _bool_option({"table": "db.t", "write.merge-schema": "yes"}, "write.merge-schema")
    with pytest.raises(ValidationError, match=r"of table /w/db.db/t must be true or false"):
        _bool_option({"path": "/w/db.db/t", "write.merge-schema": "1"}, "write.merge-schema")
    with pytest.raises(ValidationError, match=r"^Option 'x' must be true or false, got 'no'$"):  # no table named
        _bool_option({"x": "no"}, "x")
