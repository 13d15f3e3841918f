"""The typed option registry: Paimon's keys, defaults and parsing rules, validation, docs."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from paimon_sql.errors import ValidationError
from paimon_sql.options import (
    BUCKET,
    DYNAMIC_BUCKET_INITIAL_BUCKETS,
    FIELD_COUNT_LIMIT,
    IGNORE_DELETE,
    MERGE_ENGINE,
    OPTIONS,
    PATTERNS,
    SNAPSHOT_NUM_RETAINED_MIN,
    STRING,
    CoreOptions,
    Family,
    Option,
    enum,
    option_def,
    options_markdown,
    parse_bool,
    parse_double,
    parse_duration_ms,
    parse_int,
    parse_list,
    parse_memory_size,
    parse_stats_mode,
    validate_options,
)
from paimon_sql.options.registry import AREAS

MB = 1024 * 1024
DOCS = Path(__file__).resolve().parent.parent / "docs" / "options.md"
FIXTURES = Path(os.environ.get("PAIMON_FIXTURES", "/work/shared/fixtures"))


# ----------------------------------------------------------------------------------------------
# Value parsing follows Paimon's MemorySize / TimeUtils / OptionsUtils
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, expected",
    [
        ("256 mb", 256 * MB),
        ("64kb", 64 * 1024),
        ("500 B", 500),
        ("1", 1),
        ("0", 0),
        ("2 GB", 2 * 1024**3),
        ("1 t", 1024**4),
        ("10 mebibytes", 10 * MB),
        ("  7   bytes  ", 7),
        ("3k", 3072),
    ],
)
def test_memory_size(text: str, expected: int) -> None:
    assert parse_memory_size(text) == expected


@pytest.mark.parametrize(
    "text", ["", "   ", "mb", "-1 mb", "1.5 mb", "1 xb", "1 m b", "9223372036854775807 kb"]
)
def test_memory_size_rejects(text: str) -> None:
    with pytest.raises(ValidationError):
        parse_memory_size(text)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("1 h", 3_600_000),
        ("30 min", 1_800_000),
        ("10s", 10_000),
        ("100", 100),
        ("1 d", 86_400_000),
        ("2 days", 172_800_000),
        ("5 m", 300_000),
        ("3 hours", 10_800_000),
        ("250 ms", 250),
        ("1500 micros", 1),
        ("5 µs", 0),
        ("2000000 ns", 2),
        ("1 SECONDS", 1000),
    ],
)
def test_duration(text: str, expected: int) -> None:
    assert parse_duration_ms(text) == expected


@pytest.mark.parametrize("text", ["", "h", "1.5 h", "-1 s", "1 fortnight", "PT1H"])
def test_duration_rejects(text: str) -> None:
    with pytest.raises(ValidationError):
        parse_duration_ms(text)


def test_int_bool_double_list_stats_mode() -> None:
    assert parse_int("+5") == 5 and parse_int("-5") == -5
    for bad in (" 5", "1_000", "5.0", "", "0x10", "2147483648"):
        with pytest.raises(ValidationError):
            parse_int(bad)
    assert parse_int("2147483648", -(2**63), 2**63 - 1) == 2**31
    assert parse_bool("TRUE") is True and parse_bool("False") is False
    with pytest.raises(ValidationError):
        parse_bool("yes")
    assert parse_double("0.5") == 0.5 and parse_double("1e3") == 1000.0 and parse_double(" 1.5f ") == 1.5
    assert parse_double("-Infinity") == float("-inf")
    with pytest.raises(ValidationError):
        parse_double("abc")
    assert parse_list("a, b ,c") == ["a", "b", "c"] and parse_list("") == []
    with pytest.raises(ValidationError):
        parse_list("a,,b")
    assert parse_stats_mode("TRUNCATE(32)") == "truncate(32)" and parse_stats_mode("Full") == "full"
    for bad in ("truncate(x)", "truncate()", "min-max"):
        with pytest.raises(ValidationError):
            parse_stats_mode(bad)


# ----------------------------------------------------------------------------------------------
# The registry holds Paimon's keys and defaults
# ----------------------------------------------------------------------------------------------

PAIMON_DEFAULTS = {
    "bucket": "-1",
    "bucket-key": None,
    "primary-key": None,
    "partition": None,
    "file.format": "parquet",
    "file.compression": "zstd",
    "file.compression.zstd-level": "1",
    "manifest.format": "avro",
    "manifest.compression": "zstd",
    "manifest.target-file-size": "8 mb",
    "manifest.merge-min-count": "30",
    "target-file-size": None,
    "write-buffer-size": "256 mb",
    "page-size": "64 kb",
    "merge-engine": "deduplicate",
    "sequence.field": None,
    "rowkind.field": None,
    "ignore-delete": "false",
    "partial-update.remove-record-on-delete": "false",
    "changelog-producer": "none",
    "deletion-vectors.enabled": "false",
    "dynamic-bucket.target-row-num": "2000000",
    "dynamic-bucket.initial-buckets": None,
    "dynamic-bucket.max-buckets": "-1",
    "partition.default-name": "__DEFAULT_PARTITION__",
    "partition.legacy-name": "true",
    "num-sorted-run.compaction-trigger": "5",
    "num-sorted-run.stop-trigger": None,
    "num-levels": None,
    "commit.max-retries": "10",
    "commit.timeout": None,
    "snapshot.num-retained.min": "10",
    "snapshot.num-retained.max": "2147483647",
    "snapshot.time-retained": "1 h",
    "snapshot.expire.limit": "50",
    "metadata.stats-mode": "truncate(16)",
    "fields.default-aggregate-function": None,
    "scan.snapshot-id": None,
    "scan.tag-name": None,
    "scan.timestamp-millis": None,
    "scan.mode": "default",
    "path": None,
    "type": "table",
    "data-file.prefix": "data-",
    "changelog-file.prefix": "changelog-",
    "file-index.in-manifest-threshold": "500 B",
    "branch": "main",
}


def test_paimon_keys_and_defaults() -> None:
    for key, default in PAIMON_DEFAULTS.items():
        assert key in OPTIONS, key
        assert OPTIONS[key].default == default, key
        assert OPTIONS[key].used, key
    assert OPTIONS["merge-engine"].choices == ("deduplicate", "partial-update", "aggregation", "first-row")
    assert OPTIONS["changelog-producer"].choices == ("none", "input", "full-compaction", "lookup")
    assert OPTIONS["ignore-delete"].fallback_keys == (
        "first-row.ignore-delete",
        "deduplicate.ignore-delete",
        "partial-update.ignore-delete",
    )
    assert len(OPTIONS) > 250  # every Paimon 1.4 table option is known
    assert not OPTIONS["lookup.cache-rows"].used


def test_every_default_parses() -> None:
    for d in list(OPTIONS.values()) + [d for _, d in PATTERNS]:
        d.default_value  # noqa: B018  (raises on a default that does not parse)
    assert OPTIONS["write-buffer-size"].default_value == 256 * MB
    assert OPTIONS["snapshot.time-retained"].default_value == 3_600_000
    assert OPTIONS["partition.legacy-name"].default_value is True


def test_option_rejects_bad_definitions() -> None:
    with pytest.raises(ValueError):
        Option("k", "float", None, "doc")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        enum(())  # enum without choices
    assert Option("k", STRING, None, "doc").choices is None
    assert Option("k", enum(("a", "b")), "a", "doc").choices == ("a", "b")


def test_patterns() -> None:
    assert option_def("fields.f1.aggregate-function") is not None
    assert option_def("fields.f1.aggregate-function").key == "fields.<name>.aggregate-function"  # type: ignore[union-attr]
    assert option_def("fields.a,b.sequence-group").key == "fields.<name>.sequence-group"  # type: ignore[union-attr]
    assert option_def("fields.default-aggregate-function") is OPTIONS["fields.default-aggregate-function"]
    assert option_def("file-index.bloom-filter.columns").key == "file-index.<type>.columns"  # type: ignore[union-attr]
    assert option_def("file-index.bloom-filter.c1.fpp").key == "file-index.<type>.<column>.<option>"  # type: ignore[union-attr]
    assert option_def("file-index.bitmap.version").key == "file-index.<type>.<option>"  # type: ignore[union-attr]
    assert option_def("file-index.read.enabled") is OPTIONS["file-index.read.enabled"]
    assert option_def("parquet.block.size") is not None
    assert option_def("first-row.ignore-delete") is OPTIONS["ignore-delete"]
    assert option_def("no.such.option") is None
    assert option_def("fields.a.b.aggregate-function") is None  # field names have no dots in Paimon


# ----------------------------------------------------------------------------------------------
# CoreOptions
# ----------------------------------------------------------------------------------------------


def test_core_options_defaults() -> None:
    o = CoreOptions({})
    assert o.bucket == -1
    assert o.bucket_key == []
    assert o.file_format == "parquet" and o.file_compression == "zstd"
    assert o.manifest_format == "avro" and o.manifest_compression == "zstd"
    assert o.merge_engine == "deduplicate"
    assert o.sequence_fields == [] and o.rowkind_field is None
    assert o.ignore_delete is False and o.deletion_vectors_enabled is False
    assert o.dynamic_bucket_target_row_num == 2_000_000
    assert o.dynamic_bucket_initial_buckets is None
    assert o.partition_default_name == "__DEFAULT_PARTITION__" and o.partition_legacy_name is True
    assert o.write_buffer_size == 256 * MB
    assert o.target_file_size(True) == 128 * MB and o.target_file_size(False) == 256 * MB
    assert o.commit_max_retries == 10 and o.commit_timeout_ms is None
    assert o.snapshot_num_retained_min == 10 and o.snapshot_num_retained_max == 2**31 - 1
    assert o.snapshot_time_retained_ms == 3_600_000
    assert o.num_sorted_run_stop_trigger == 8 and o.num_levels == 6
    assert o.changelog_num_retained_min == 10 and o.changelog_time_retained_ms == 3_600_000
    assert o.metadata_stats_mode == "truncate(16)" and o.field_stats_mode("x") == "truncate(16)"
    assert o.raw == {} and len(o) == 0


def test_core_options_values() -> None:
    raw = {
        "bucket": "4",
        "bucket-key": "a, b",
        "file.format": "ORC",
        "merge-engine": "Partial-Update",
        "sequence.field": "s0,s1",
        "rowkind.field": "op",
        "first-row.ignore-delete": "TRUE",
        "dynamic-bucket.initial-buckets": "3",
        "write-buffer-size": "64mb",
        "target-file-size": "32 mb",
        "commit.timeout": "30 s",
        "snapshot.time-retained": "2 h",
        "num-sorted-run.compaction-trigger": "10",
        "num-sorted-run.stop-trigger": "4",
        "fields.c.aggregate-function": "sum",
        "fields.c.ignore-retract": "true",
        "fields.s0,s1.sequence-group": "c, d",
        "fields.f3.stats-mode": "none",
        "file-index.bloom-filter.columns": "a,b",
        "unknown.key": "kept",
    }
    o = CoreOptions(raw, where="db.t")
    assert o.bucket == 4 and o.bucket_key == ["a", "b"]
    assert o.file_format == "orc"
    assert o.merge_engine == "partial-update"
    assert o.sequence_fields == ["s0", "s1"] and o.rowkind_field == "op"
    assert o.ignore_delete is True  # through Paimon's fallback key
    assert o.contains("ignore-delete") and not o.contains("bucket-function.type")
    assert o.dynamic_bucket_initial_buckets == 3
    assert o.write_buffer_size == 64 * MB
    assert o.target_file_size(True) == 32 * MB == o.target_file_size(False)
    assert o.commit_timeout_ms == 30_000 and o.snapshot_time_retained_ms == 7_200_000
    assert o.num_sorted_run_stop_trigger == 10  # never below the compaction trigger
    assert o.field_aggregate_function("c") == "sum" and o.field_aggregate_function("d") is None
    assert o.field_ignore_retract("c") is True and o.field_ignore_retract("d") is False
    assert o.sequence_groups() == {("s0", "s1"): ["c", "d"]}
    assert o.field_stats_mode("f3") == "none"
    assert o.file_index_columns() == {"bloom-filter": ["a", "b"]}
    assert o.get("unknown.key") == "kept" and o.get("nope", 7) == 7
    assert o.get("bucket") == 4 and o["bucket"] == "4"
    assert o.raw == raw and o.raw is not o.raw
    assert o.with_options({"bucket": "8"}).bucket == 8 and o.bucket == 4


def test_typed_options() -> None:
    o = CoreOptions({"bucket": "4", "first-row.ignore-delete": "true", "fields.c.count-limit": "3"}, where="db.t")
    assert o.get(BUCKET) == 4 and o.get(MERGE_ENGINE) == "deduplicate"
    assert o.get(DYNAMIC_BUCKET_INITIAL_BUCKETS) is None  # no default
    assert o.get(IGNORE_DELETE) is True and o.contains(IGNORE_DELETE)  # through a fallback key
    assert FIELD_COUNT_LIMIT.of("c").key == "fields.c.count-limit"
    assert o.get(FIELD_COUNT_LIMIT.of("c")) == 3 and o.get(FIELD_COUNT_LIMIT.of("d")) == 2**31 - 1
    with pytest.raises(ValidationError, match="Invalid value 'x' for option 'bucket' of table db.t: expected an integer"):
        CoreOptions({"bucket": "x"}, where="db.t").get(BUCKET)
    with pytest.raises(ValidationError, match="expected an integer >= 1"):
        SNAPSHOT_NUM_RETAINED_MIN.parse("0")


def test_every_declared_option_is_registered() -> None:
    """An option is one declaration in an area module: the registry finds every one of them."""
    declared = [v for m in AREAS for v in vars(m).values() if isinstance(v, Option)]
    declared += [o for m in AREAS for o in m._KEPT]
    assert len(declared) == len(OPTIONS)
    assert all(OPTIONS[d.key] is d for d in declared)
    families = [v.option for m in AREAS for v in vars(m).values() if isinstance(v, Family)]
    assert [d for _, d in PATTERNS] == families


def test_core_options_bad_value_names_key_value_and_table() -> None:
    with pytest.raises(ValidationError) as e:
        _ = CoreOptions({"write-buffer-size": "lots"}, where="db.t").write_buffer_size
    msg = str(e.value)
    assert "'lots'" in msg and "'write-buffer-size'" in msg and "db.t" in msg and "memory size" in msg


# ----------------------------------------------------------------------------------------------
# validate_options
# ----------------------------------------------------------------------------------------------


def _error(options: dict[str, str], **kw: object) -> str:
    with pytest.raises(ValidationError) as e:
        validate_options(options, "db.t", **kw)  # type: ignore[arg-type]
    return str(e.value)


def test_validate_exact_message() -> None:
    assert (
        _error({"bucket": "x"}) == "Invalid value 'x' for option 'bucket' of table db.t: expected an integer"
    )


@pytest.mark.parametrize("bucket", ["0", "-3", "-100"])
def test_validate_bad_bucket(bucket: str) -> None:
    msg = _error({"bucket": bucket})
    assert f"Invalid value '{bucket}' for option 'bucket' of table db.t" in msg
    assert "-1 (dynamic bucket mode)" in msg and "-2 (postpone bucket mode" in msg


@pytest.mark.parametrize("bucket", ["-1", "-2", "1", "128"])
def test_validate_good_bucket(bucket: str) -> None:
    assert validate_options({"bucket": bucket}, "db.t") == []


def test_validate_enum_lists_choices() -> None:
    msg = _error({"merge-engine": "dedup"})
    assert "'dedup'" in msg and "'merge-engine'" in msg
    assert "deduplicate, partial-update, aggregation, first-row" in msg
    assert validate_options({"merge-engine": "FIRST-ROW"}, "db.t") == []


def test_validate_various_bad_values() -> None:
    assert "expected true or false" in _error({"deletion-vectors.enabled": "yes"})
    assert "memory size" in _error({"write-buffer-size": "256 megs"})
    assert "duration" in _error({"snapshot.time-retained": "1 week"})
    assert "expected an integer >= 1" in _error({"snapshot.num-retained.min": "0"})
    assert "-1 (unlimited)" in _error({"dynamic-bucket.max-buckets": "0"})
    assert "truncate" in _error({"metadata.stats-mode": "some"})
    assert "truncate" in _error({"fields.a.stats-mode": "some"})
    assert "sum" in _error({"fields.a.aggregate-function": "summ"})
    assert "expected true or false" in _error({"fields.a.ignore-retract": "1"})
    assert "empty entries" in _error({"primary-key": "a,,b"})
    assert "parquet, orc, avro" in _error({"file.format": "csv"})
    assert "'manifest.format'" in _error({"manifest.format": "json"})
    assert "strings" in _error({"bucket": 4})  # type: ignore[dict-item]
    # also values of options paimon_sql does not interpret
    assert "'write-only'" in _error({"write-only": "maybe"})
    assert "'first-row.ignore-delete'" in _error({"first-row.ignore-delete": "maybe"})


def test_validate_reports_every_error() -> None:
    msg = _error({"bucket": "x", "merge-engine": "y"})
    assert len(msg.splitlines()) == 2 and "'bucket'" in msg and "'merge-engine'" in msg


def test_validate_format_table_formats() -> None:
    assert validate_options({"type": "format-table", "file.format": "csv"}, "db.t") == []
    assert "'file.format'" in _error({"type": "format-table", "file.format": "xml"})


def test_validate_unknown_keys_are_warnings() -> None:
    warnings = validate_options({"merge_engine": "deduplicate", "my.custom": "1", "bucket": "2"}, "db.t")
    assert len(warnings) == 2
    assert (
        "'merge_engine'" in warnings[0]
        and "db.t" in warnings[0]
        and "did you mean 'merge-engine'" in warnings[0]
    )
    assert "'my.custom'" in warnings[1]


def test_validate_cross_option_rules() -> None:
    assert "'bucket-key'" in _error({"bucket-key": "a"})
    assert validate_options({"bucket-key": "a", "bucket": "4"}, "db.t") == []
    assert "'snapshot.num-retained.max'" in _error(
        {"snapshot.num-retained.min": "20", "snapshot.num-retained.max": "10"}
    )
    assert "first-row" in _error({"merge-engine": "first-row", "changelog-producer": "input"})
    assert validate_options({"merge-engine": "first-row", "changelog-producer": "lookup"}, "db.t") == []
    assert "deletion vectors" in _error(
        {"deletion-vectors.enabled": "true", "changelog-producer": "full-compaction"}
    )
    assert "first-row" in _error({"deletion-vectors.enabled": "true", "merge-engine": "first-row"})
    assert "primary key" in _error({"bucket": "-2"}, primary_keys=[])
    assert validate_options({"bucket": "-2"}, "db.t", primary_keys=["id"]) == []
    assert validate_options({"bucket": "-2", "primary-key": "id"}, "db.t", primary_keys=[]) == []
    assert "primary key" in _error({"changelog-producer": "input"}, primary_keys=[])


def _fixture_option_sets() -> list[tuple[str, dict[str, str]]]:
    out = []
    for path in sorted(FIXTURES.glob("**/schema/schema-*")):
        out.append((str(path.relative_to(FIXTURES)), json.loads(path.read_text())["options"]))
    return out


@pytest.mark.skipif(not FIXTURES.is_dir(), reason="Java-written fixtures not available")
def test_java_written_options_validate() -> None:
    """Options of every table Apache Paimon (Java) wrote are valid here too."""
    sets = _fixture_option_sets()
    assert len(sets) > 50
    for where, options in sets:
        validate_options(options, where)
        o = CoreOptions(options, where)
        assert o.file_format in ("parquet", "orc", "avro")
        assert o.manifest_format in ("avro", "orc")


# ----------------------------------------------------------------------------------------------
# docs/options.md
# ----------------------------------------------------------------------------------------------


def test_docs_file_is_generated_from_the_registry() -> None:
    assert DOCS.read_text(encoding="utf-8") == options_markdown(), (
        "docs/options.md is stale: regenerate it with "
        "python -c 'from paimon_sql.options import options_markdown as m; print(m(), end=\"\")' > docs/options.md"
    )


def test_docs_content() -> None:
    md = options_markdown()
    assert "| `bucket` | integer (32-bit) | `-1` |" in md
    assert "`fields.<name>.aggregate-function`" in md
    assert "| `lookup.cache-rows` |" in md
