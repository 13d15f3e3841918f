"""The merge-engine and aggregate-function registries agree with the option declarations (the
options layer sits below lsm and lists the names Paimon accepts), and their capabilities hold."""

from __future__ import annotations

from paimon_sql.lsm.aggregate import AGGREGATORS
from paimon_sql.lsm.engines import MERGE_ENGINES
from paimon_sql.options import CoreOptions
from paimon_sql.options.merge import AGGREGATE_FUNCTIONS
from paimon_sql.options.merge import MERGE_ENGINES as ENGINE_NAMES


def test_registries_match_the_option_enums() -> None:
    assert sorted(MERGE_ENGINES) == sorted(ENGINE_NAMES)
    assert sorted(AGGREGATORS) == sorted(AGGREGATE_FUNCTIONS)
    assert all(a.name == n for n, a in AGGREGATORS.items())


def test_engine_capabilities() -> None:
    o = CoreOptions({})
    assert [n for n, e in MERGE_ENGINES.items() if e.newest_record_wins] == ["deduplicate"]
    assert [n for n, e in MERGE_ENGINES.items() if not e.resequences] == ["first-row"]
    assert [n for n, e in MERGE_ENGINES.items() if e.skips_level0] == ["first-row"]
    assert [n for n, e in MERGE_ENGINES.items() if e.deletes_allowed(o)] == ["deduplicate"]
    grouped = CoreOptions({"merge-engine": "partial-update", "fields.s.sequence-group": "a"})
    assert [n for n, e in MERGE_ENGINES.items() if e.merges_all_fields(grouped)] == ["partial-update"]
