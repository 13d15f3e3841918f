"""Typed registry of Paimon table options.

Keys, value types and defaults follow Apache Paimon 1.4's ``CoreOptions`` (values are strings in a
table's options, exactly as Paimon stores them in ``schema/schema-N``); value parsing follows Paimon's
``OptionsUtils`` / ``MemorySize`` / ``TimeUtils`` rules so a value Paimon rejects is rejected here too.

- ``OPTIONS``: every Paimon table option by key. ``OptionDef.used`` tells whether paimon_sql
  interprets the option; the others are kept (and their values checked) but have no effect here.
- ``PATTERNS``: per-field / per-index families such as ``fields.<name>.aggregate-function``.
- ``CoreOptions``: typed accessors over a table's ``Mapping[str, str]``.
- ``validate_options``: clear errors for bad values, warnings for keys Paimon does not know.
- ``options_markdown``: the text of ``docs/options.md``.
"""

from __future__ import annotations

import contextlib
import difflib
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from paimon_sql.errors import UnsupportedError, ValidationError
from paimon_sql.names import check_name

# ----------------------------------------------------------------------------------------------
# Kinds and value parsing (Paimon's rules)
# ----------------------------------------------------------------------------------------------

INT = "int"  # Java int: optional sign and ASCII digits, 32-bit range
LONG = "long"  # Java long: 64-bit range
BOOL = "bool"  # true / false, case-insensitive
DOUBLE = "double"  # Java Double.parseDouble
STRING = "string"
ENUM = "enum"  # one of OptionDef.choices, case-insensitive; parsed to the canonical spelling
MEMORY = "memory"  # "256 mb", "64kb", "500 B" -> bytes
DURATION = "duration"  # "1 h", "30 min", "10s", "100" (ms) -> milliseconds
LIST = "list"  # comma-separated names, each trimmed
STATS_MODE = "stats-mode"  # none | counts | full | truncate(<n>), case-insensitive

KINDS = (INT, LONG, BOOL, DOUBLE, STRING, ENUM, MEMORY, DURATION, LIST, STATS_MODE)

INT_MIN, INT_MAX = -(2**31), 2**31 - 1
LONG_MIN, LONG_MAX = -(2**63), 2**63 - 1

_INT_RE = re.compile(r"[+-]?[0-9]+")
_DOUBLE_RE = re.compile(
    r"\s*[+-]?(?:NaN|Infinity|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)[fFdD]?\s*"
)
_LEADING_DIGITS_RE = re.compile(r"([0-9]*)(.*)", re.S)

# MemorySize units (lower case) -> multiplier.
_MEMORY_UNITS: dict[str, int] = {}
_MEMORY_LABELS: tuple[tuple[tuple[str, ...], int], ...] = (
    (("b", "bytes"), 1),
    (("k", "kb", "kibibytes"), 1024),
    (("m", "mb", "mebibytes"), 1024**2),
    (("g", "gb", "gibibytes"), 1024**3),
    (("t", "tb", "tebibytes"), 1024**4),
)
for _labels, _mult in _MEMORY_LABELS:
    for _label in _labels:
        _MEMORY_UNITS[_label] = _mult

# TimeUtils duration labels (lower case) -> nanoseconds per unit.
_DURATION_UNITS: dict[str, int] = {}
_DURATION_LABELS: tuple[tuple[tuple[str, ...], int], ...] = (
    (("d", "day", "days"), 86_400 * 10**9),
    (("h", "hour", "hours"), 3_600 * 10**9),
    (("min", "m", "minute", "minutes"), 60 * 10**9),
    (("s", "sec", "secs", "second", "seconds"), 10**9),
    (("ms", "milli", "millis", "millisecond", "milliseconds"), 10**6),
    (("µs", "micro", "micros", "microsecond", "microseconds"), 10**3),
    (("ns", "nano", "nanos", "nanosecond", "nanoseconds"), 1),
)
for _labels, _nanos in _DURATION_LABELS:
    for _label in _labels:
        _DURATION_UNITS[_label] = _nanos

_STATS_TRUNCATE_RE = re.compile(r"TRUNCATE\(([0-9]+)\)")


class _BadValue(Exception):
    """Internal: a value does not parse; args[0] says what was expected."""


def parse_int(text: str, lo: int = INT_MIN, hi: int = INT_MAX) -> int:
    """Parse like Java ``Integer.parseInt`` / ``Long.parseLong`` (no blanks, ASCII digits, range)."""
    if not _INT_RE.fullmatch(text):
        raise _BadValue("expected an integer")
    value = int(text)
    if not lo <= value <= hi:
        raise _BadValue(f"expected an integer between {lo} and {hi}")
    return value


def parse_bool(text: str) -> bool:
    upper = text.upper()
    if upper == "TRUE":
        return True
    if upper == "FALSE":
        return False
    raise _BadValue("expected true or false")


def parse_double(text: str) -> float:
    if not _DOUBLE_RE.fullmatch(text):
        raise _BadValue("expected a number")
    s = text.strip().rstrip("fFdD")
    return float(s.replace("Infinity", "inf"))


def _split_number_unit(text: str, what: str) -> tuple[int, str]:
    trimmed = text.strip()
    if not trimmed:
        raise _BadValue(f"expected {what}")
    m = _LEADING_DIGITS_RE.fullmatch(trimmed)
    assert m is not None
    number, unit = m.group(1), m.group(2).strip().lower()
    if not number:
        raise _BadValue(f"expected {what}")
    return int(number), unit


_MEMORY_EXPECTED = "a memory size such as '256 mb' or '64kb' (units: b, kb, mb, gb, tb)"
_DURATION_EXPECTED = (
    "a duration such as '1 h', '30 min' or '10 s' (units: d, h, min, s, ms, µs, ns; none means ms)"
)


def parse_memory_size(text: str) -> int:
    """Bytes of a Paimon ``MemorySize`` string: digits, optional blanks, optional unit (bytes if none)."""
    value, unit = _split_number_unit(text, _MEMORY_EXPECTED)
    if value > LONG_MAX:
        raise _BadValue(f"expected {_MEMORY_EXPECTED}; {value} overflows a 64-bit number")
    multiplier = 1
    if unit:
        if unit not in _MEMORY_UNITS:
            raise _BadValue(f"expected {_MEMORY_EXPECTED}")
        multiplier = _MEMORY_UNITS[unit]
    result = value * multiplier
    if result > LONG_MAX:
        raise _BadValue(f"expected {_MEMORY_EXPECTED}; it overflows a 64-bit number of bytes")
    return result


def parse_duration_ms(text: str) -> int:
    """Milliseconds of a Paimon duration string (``TimeUtils.parseDuration``; no unit = ms)."""
    value, unit = _split_number_unit(text, _DURATION_EXPECTED)
    if value > LONG_MAX:
        raise _BadValue(f"expected {_DURATION_EXPECTED}; {value} overflows a 64-bit number")
    if not unit:
        return value
    if unit not in _DURATION_UNITS:
        raise _BadValue(f"expected {_DURATION_EXPECTED}")
    millis = value * _DURATION_UNITS[unit] // 10**6
    if millis > LONG_MAX:
        raise _BadValue(f"expected {_DURATION_EXPECTED}; it overflows 64-bit milliseconds")
    return millis


def parse_list(text: str) -> list[str]:
    """Comma-separated names, each trimmed; the empty string is the empty list."""
    if text.strip() == "":
        return []
    items = [s.strip() for s in text.split(",")]
    if any(not s for s in items):
        raise _BadValue("expected a comma-separated list of names without empty entries")
    return items


def parse_stats_mode(text: str) -> str:
    """Canonical lower-case stats mode: none, counts, full or truncate(<n>)."""
    upper = text.upper()
    if upper in ("NONE", "COUNTS", "FULL"):
        return upper.lower()
    m = _STATS_TRUNCATE_RE.fullmatch(upper)
    if m and int(m.group(1)) <= INT_MAX:
        return f"truncate({int(m.group(1))})"
    raise _BadValue("expected none, counts, full or truncate(<length>)")


def _parse_enum(text: str, choices: tuple[str, ...]) -> str:
    upper = text.upper()
    for c in choices:
        if c.upper() == upper:
            return c
    raise _BadValue("expected one of: " + ", ".join(choices))


# ----------------------------------------------------------------------------------------------
# Option definitions
# ----------------------------------------------------------------------------------------------

Check = Callable[[Any], "str | None"]


@dataclass(frozen=True)
class OptionDef:
    """One Paimon option.

    ``default`` is the default as Paimon spells it in a table's options (a string, e.g. ``"256 mb"``)
    or None when the option has no default; ``default_value`` is its typed form. ``check`` (optional)
    returns a description of the accepted values when a parsed value is out of range.
    """

    key: str
    kind: str
    default: str | None
    doc: str
    choices: tuple[str, ...] | None = None
    fallback_keys: tuple[str, ...] = ()
    check: Check | None = field(default=None, compare=False, repr=False)
    used: bool = True

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"option {self.key}: unknown kind {self.kind!r}")
        if (self.kind == ENUM) != (self.choices is not None):
            raise ValueError(f"option {self.key}: choices go with kind 'enum' only")

    def parse(self, text: str) -> Any:
        """Typed value of ``text``; raises ``_BadValue`` (internal) when it does not parse."""
        kind = self.kind
        if kind == INT:
            value: Any = parse_int(text)
        elif kind == LONG:
            value = parse_int(text, LONG_MIN, LONG_MAX)
        elif kind == BOOL:
            value = parse_bool(text)
        elif kind == DOUBLE:
            value = parse_double(text)
        elif kind == ENUM:
            assert self.choices is not None
            value = _parse_enum(text, self.choices)
        elif kind == MEMORY:
            value = parse_memory_size(text)
        elif kind == DURATION:
            value = parse_duration_ms(text)
        elif kind == LIST:
            value = parse_list(text)
        elif kind == STATS_MODE:
            value = parse_stats_mode(text)
        else:
            value = text
        if self.check is not None:
            problem = self.check(value)
            if problem is not None:
                raise _BadValue(problem)
        return value

    @property
    def default_value(self) -> Any:
        """The typed default (None when the option has no default)."""
        return None if self.default is None else self.parse(self.default)


def _bucket_check(v: int) -> str | None:
    if v in (-1, -2) or v > 0:
        return None
    return (
        "expected -1 (dynamic bucket mode), -2 (postpone bucket mode, primary-key tables only) "
        "or a positive number of buckets"
    )


def _minus_one_or_positive(v: int) -> str | None:
    return None if v == -1 or v > 0 else "expected -1 (unlimited) or a positive number"


def _at_least(n: int) -> Check:
    def check(v: Any) -> str | None:
        return None if v >= n else f"expected an integer >= {n}"

    return check


def _one_of(choices: tuple[str, ...]) -> Check:
    """Like an enum check, but the value keeps the user's case (Paimon lower-cases formats itself)."""

    def check(v: Any) -> str | None:
        return None if v.lower() in choices else "expected one of: " + ", ".join(choices)

    return check


MERGE_ENGINES = ("deduplicate", "partial-update", "aggregation", "first-row")
CHANGELOG_PRODUCERS = ("none", "input", "full-compaction", "lookup")
TABLE_TYPES = ("table", "format-table", "materialized-table", "object-table", "lance-table", "iceberg-table")
SCAN_MODES = (
    "default",
    "latest-full",
    "full",
    "latest",
    "compacted-full",
    "from-timestamp",
    "from-creation-timestamp",
    "from-file-creation-time",
    "from-snapshot",
    "from-snapshot-full",
    "incremental",
)
FILE_FORMATS = ("parquet", "orc", "avro")
"""Data file formats of Paimon tables (``type`` = table)."""
FORMAT_TABLE_FORMATS = ("parquet", "orc", "avro", "csv", "json", "text", "lance", "blob")
"""Formats Paimon accepts for other table types (format tables)."""
AGGREGATE_FUNCTIONS = (
    "sum",
    "product",
    "max",
    "min",
    "last_value",
    "last_non_null_value",
    "first_value",
    "first_non_null_value",
    "first_not_null_value",
    "listagg",
    "bool_and",
    "bool_or",
    "collect",
    "merge_map",
    "merge_map_with_keytime",
    "nested_update",
    "nested_partial_update",
    "rbm32",
    "rbm64",
    "hll_sketch",
    "theta_sketch",
    "primary-key",
)
"""Field aggregators built into Paimon 1.4 (``first_not_null_value`` is the legacy spelling)."""


def _o(
    key: str,
    kind: str,
    default: str | None,
    doc: str,
    choices: tuple[str, ...] | None = None,
    fallback_keys: tuple[str, ...] = (),
    check: Check | None = None,
) -> OptionDef:
    return OptionDef(key, kind, default, doc, choices, fallback_keys, check, True)


_USED: tuple[OptionDef, ...] = (
    # --- table layout -----------------------------------------------------------------------
    _o("type", ENUM, "table", "Kind of table; paimon_sql handles ordinary Paimon tables.", TABLE_TYPES),
    _o("path", STRING, None, "Filesystem location of the table (set by catalogs, not by users)."),
    _o("branch", STRING, "main", "Branch the table reads and writes."),
    _o(
        "primary-key",
        LIST,
        None,
        "Primary key columns given as an option instead of in the DDL (not both).",
    ),
    _o("partition", LIST, None, "Partition columns given as an option instead of in the DDL (not both)."),
    _o(
        "bucket",
        INT,
        "-1",
        "Number of buckets: -1 is dynamic bucket mode (primary-key tables) or unaware bucket mode "
        "(append tables), -2 is postpone bucket mode (primary-key tables), a positive number is "
        "fixed bucket mode. 0 and values below -2 are invalid.",
        check=_bucket_check,
    ),
    _o(
        "bucket-key",
        LIST,
        None,
        "Columns hashed to choose a row's bucket in fixed bucket mode; defaults to the primary key "
        "(without partition columns), or the whole row when there is none. Not allowed with bucket -1.",
    ),
    _o(
        "dynamic-bucket.target-row-num",
        LONG,
        "2000000",
        "Dynamic bucket mode: a bucket takes new keys until it holds this many rows.", check=_at_least(1)),
    _o(
        "dynamic-bucket.initial-buckets",
        INT,
        None,
        "Dynamic bucket mode: number of buckets a partition starts with in the assigner.",
    ),
    _o(
        "dynamic-bucket.max-buckets",
        INT,
        "-1",
        "Dynamic bucket mode: upper bound of buckets per partition; -1 means unlimited.",
        check=_minus_one_or_positive,
    ),
    _o(
        "partition.default-name",
        STRING,
        "__DEFAULT_PARTITION__",
        "Directory value used for a partition whose value is null or the empty string.",
    ),
    _o(
        "partition.legacy-name",
        BOOL,
        "true",
        "When true, partition paths use the values' legacy string form (DATE as the number of days "
        "since the epoch); when false, values are cast to strings (DATE as yyyy-mm-dd).",
    ),
    # --- files ------------------------------------------------------------------------------
    _o(
        "file.format",
        STRING,
        "parquet",
        "Format of data files: parquet, orc or avro (case-insensitive).",
        check=_one_of(FORMAT_TABLE_FORMATS),
    ),
    _o("file.compression", STRING, "zstd", "Compression codec of data files."),
    _o("file.compression.zstd-level", INT, "1", "zstd level used for data files.", check=_at_least(1)),
    _o("data-file.prefix", STRING, "data-", "File name prefix of data files."),
    _o("changelog-file.prefix", STRING, "changelog-", "File name prefix of changelog files."),
    _o(
        "target-file-size",
        MEMORY,
        None,
        "Size at which a data file is rolled over. Without a value: 128 mb for primary-key tables, "
        "256 mb for append tables.", check=_at_least(1)),
    _o(
        "manifest.format",
        STRING,
        "avro",
        "Format of manifest files and manifest lists: avro, orc or parquet.",
        check=_one_of(FILE_FORMATS),
    ),
    _o("manifest.compression", STRING, "zstd", "Compression codec of manifest files."),
    _o(
        "manifest.target-file-size", MEMORY, "8 mb", "Size a manifest file aims at when manifests are merged."
    ),
    _o(
        "manifest.merge-min-count",
        INT,
        "30",
        "Manifest files are merged once at least this many small ones have accumulated.", check=_at_least(1)),
    _o(
        "manifest.full-compaction-threshold-size",
        MEMORY,
        "16 mb",
        "Manifests are fully compacted once deleted entries amount to this size.",
    ),
    _o(
        "metadata.stats-mode",
        STATS_MODE,
        "truncate(16)",
        "Column statistics kept in manifests: none, counts (null counts only), full (null counts, "
        "min and max) or truncate(n) (like full, strings cut to n characters). A column can "
        "override it with fields.<name>.stats-mode.",
    ),
    _o(
        "metadata.stats-dense-store",
        BOOL,
        "true",
        "Store statistics only for the columns that have them (writes _VALUE_STATS_COLS).",
    ),
    _o(
        "file-index.in-manifest-threshold",
        MEMORY,
        "500 B",
        "File indexes up to this size are embedded in the manifest entry instead of a separate file.",
    ),
    _o("file-index.read.enabled", BOOL, "true", "Use file indexes to skip data files on read."),
    # --- writing ----------------------------------------------------------------------------
    _o(
        "write-buffer-size",
        MEMORY,
        "256 mb",
        "Memory a writer buffers before it sorts and flushes a sorted run.", check=_at_least(1)),
    _o("page-size", MEMORY, "64 kb", "Size of one memory page of the write buffer.", check=_at_least(1)),
    _o(
        "write-only",
        BOOL,
        "false",
        "Skip compaction and snapshot expiration in writers (for a separate compaction job).",
        fallback_keys=("write.compaction-skip",),
    ),
    _o(
        "num-sorted-run.compaction-trigger",
        INT,
        "5",
        "Number of sorted runs (each level-0 file, each higher level) that triggers a compaction.", check=_at_least(1)),
    _o(
        "num-sorted-run.stop-trigger",
        INT,
        None,
        "Number of sorted runs at which writes wait for compaction; default: compaction trigger + 3.",
    ),
    _o("num-levels", INT, None, "Number of LSM levels; default: compaction trigger + 1.", check=_at_least(1)),
    _o(
        "compaction.max-size-amplification-percent",
        INT,
        "200",
        "Full compaction is picked when the runs above the oldest exceed this percentage of its size.",
    ),
    _o(
        "compaction.size-ratio",
        INT,
        "1",
        "Percentage slack when grouping sorted runs of similar size for a compaction.",
    ),
    _o(
        "full-compaction.delta-commits",
        INT,
        None,
        "Run a full compaction every this many commits (batch writes: with every commit if > 0).",
    ),
    _o("commit.force-compact", BOOL, "false", "Compact before every commit."),
    _o("commit.max-retries", INT, "10", "Times a commit is retried after a conflict.", check=_at_least(0)),
    _o("commit.timeout", DURATION, None, "Time limit for retrying a commit (no limit by default)."),
    _o("commit.min-retry-wait", DURATION, "10 ms", "Shortest wait before a commit retry."),
    _o("commit.max-retry-wait", DURATION, "10 s", "Longest wait before a commit retry."),
    _o("commit.user-prefix", STRING, None, "Prefix of generated commit user names."),
    _o(
        "dynamic-partition-overwrite",
        BOOL,
        "true",
        "INSERT OVERWRITE of a partitioned table replaces only the partitions it writes to.",
    ),
    # --- primary-key tables -----------------------------------------------------------------
    _o(
        "merge-engine",
        ENUM,
        "deduplicate",
        "How rows with the same primary key merge: deduplicate keeps the last, partial-update "
        "keeps the last non-null value of each column, aggregation aggregates each column, "
        "first-row keeps the first.",
        MERGE_ENGINES,
    ),
    _o(
        "sequence.field",
        LIST,
        None,
        "Columns that order rows of the same key (instead of write order); a later sequence wins.",
    ),
    _o(
        "sequence.field.sort-order",
        ENUM,
        "ascending",
        "Whether the largest (ascending) or smallest (descending) sequence.field wins.",
        ("ascending", "descending"),
    ),
    _o(
        "rowkind.field",
        STRING,
        None,
        "Column whose value ('+I', '-U', '+U', '-D') gives each input row's kind.",
    ),
    _o(
        "ignore-delete",
        BOOL,
        "false",
        "Drop delete (-D) rows on write.",
        fallback_keys=(
            "first-row.ignore-delete",
            "deduplicate.ignore-delete",
            "partial-update.ignore-delete",
        ),
    ),
    _o("ignore-update-before", BOOL, "false", "Drop update-before (-U) rows on write."),
    _o(
        "partial-update.remove-record-on-delete",
        BOOL,
        "false",
        "partial-update engine: a -D row removes the whole row.",
    ),
    _o(
        "partial-update.remove-record-on-sequence-group",
        LIST,
        None,
        "partial-update engine: a -D row of one of these sequence groups removes the whole row.",
    ),
    _o(
        "aggregation.remove-record-on-delete",
        BOOL,
        "false",
        "aggregation engine: a -D row removes the whole row.",
    ),
    _o(
        "fields.default-aggregate-function",
        ENUM,
        None,
        "Aggregate function of every column without its own fields.<name>.aggregate-function "
        "(aggregation and partial-update engines).",
        AGGREGATE_FUNCTIONS,
    ),
    _o(
        "changelog-producer",
        ENUM,
        "none",
        "How changelog files are produced: none, input (written alongside the data), "
        "full-compaction or lookup. Only for primary-key tables.",
        CHANGELOG_PRODUCERS,
    ),
    _o(
        "deletion-vectors.enabled",
        BOOL,
        "false",
        "Mark replaced and deleted rows in deletion vectors at write time so reads need no merge.",
    ),
    _o(
        "deletion-vectors.bitmap64",
        BOOL,
        "false",
        "Store deletion vectors as 64-bit roaring bitmaps (the Iceberg-compatible layout).",
    ),
    _o(
        "pk-clustering-override",
        BOOL,
        "false",
        "Cluster primary-key tables by other columns (requires deletion vectors).",
    ),
    # --- snapshots and expiration -----------------------------------------------------------
    _o(
        "snapshot.num-retained.min",
        INT,
        "10",
        "Snapshots always kept by expiration (at least 1).",
        check=_at_least(1),
    ),
    _o(
        "snapshot.num-retained.max",
        INT,
        str(INT_MAX),
        "Snapshots kept at most by expiration (at least snapshot.num-retained.min).",
    ),
    _o(
        "snapshot.time-retained",
        DURATION,
        "1 h",
        "Snapshots younger than this are kept by expiration.",
    ),
    _o("snapshot.expire.limit", INT, "50", "At most this many snapshots expire in one run.", check=_at_least(1)),
    _o(
        "snapshot.clean-empty-directories",
        BOOL,
        "false",
        "Remove directories that expiration left empty.",
        fallback_keys=("snapshot.expire.clean-empty-directories",),
    ),
    _o(
        "changelog.num-retained.min",
        INT,
        None,
        "Changelogs always kept; default: snapshot.num-retained.min.",
        check=_at_least(1),
    ),
    _o(
        "changelog.num-retained.max",
        INT,
        None,
        "Changelogs kept at most; default: snapshot.num-retained.max.",
    ),
    _o(
        "changelog.time-retained",
        DURATION,
        None,
        "Changelog retention time; default: snapshot.time-retained.",
    ),
    _o(
        "consumer.expiration-time",
        DURATION,
        None,
        "Consumer records not updated for this long are removed (none expire by default).",
    ),
    # --- reading ----------------------------------------------------------------------------
    _o("scan.mode", ENUM, "default", "Where a scan starts.", SCAN_MODES, fallback_keys=("log.scan",)),
    _o("scan.snapshot-id", LONG, None, "Read this snapshot (time travel)."),
    _o("scan.tag-name", STRING, None, "Read this tag (time travel)."),
    _o(
        "scan.timestamp-millis",
        LONG,
        None,
        "Read the latest snapshot committed at or before this epoch millisecond (time travel).",
        fallback_keys=("log.scan.timestamp-millis",),
    ),
    _o(
        "scan.timestamp",
        STRING,
        None,
        "Like scan.timestamp-millis, as a 'yyyy-MM-dd HH:mm:ss' local time string.",
    ),
    _o(
        "scan.version",
        STRING,
        None,
        "Time travel version (VERSION AS OF): a tag name, 'watermark-<n>', else a snapshot id.",
    ),
    _o(
        "scan.watermark",
        LONG,
        None,
        "Read the earliest snapshot whose watermark is at least this (time travel).",
    ),
    _o(
        "incremental-between",
        STRING,
        None,
        "Read changes between two snapshots or tags: 'start,end' (start exclusive).",
    ),
    _o("source.split.target-size", MEMORY, "128 mb", "Target size of a read split.", check=_at_least(1)),
    _o(
        "source.split.open-file-cost",
        MEMORY,
        "4 mb",
        "Size each file counts for when packing files into splits.",
    ),
    _o("read.batch-size", INT, "1024", "Rows per batch read from a file.", check=_at_least(1)),
    _o("scan.ignore-corrupt-files", BOOL, "false",
       "Skip (with a warning) data files that fail their checks or do not decode, instead of failing the read."),
    _o("scan.ignore-lost-files", BOOL, "false",
       "Skip (with a warning) data files that no longer exist, instead of failing the read."),
)

_UNUSED_DOC = "Paimon option that paimon_sql keeps but does not interpret."

# Every other table option of Paimon 1.4, plus some added after 1.4: (key, kind, default as Paimon
# spells it, enum choices, fallback keys). paimon_sql does not interpret them; their values are
# still checked. Enums Paimon matches by constant name are kept as strings.
_OTHER: tuple[tuple[str, str, str | None, tuple[str, ...] | None, tuple[str, ...]], ...] = (
    ("upsert-key", STRING, None, None, ()),
    ("bucket-append-ordered", BOOL, "true", None, ()),
    ("bucket-function.type", ENUM, "default", ("default", "mod", "hive"), ()),
    ("data-file.external-paths", STRING, None, None, ()),
    (
        "data-file.external-paths.strategy",
        ENUM,
        "none",
        ("none", "specific-fs", "round-robin", "entropy-inject", "weight-robin"),
        (),
    ),
    ("data-file.external-paths.specific-fs", STRING, None, None, ()),
    ("data-file.external-paths.weights", STRING, None, None, ()),
    ("compaction.force-rewrite-all-files", BOOL, "false", None, ()),
    ("chain-table.enabled", BOOL, "false", None, ()),
    ("scan.fallback-snapshot-branch", STRING, None, None, ()),
    ("scan.fallback-delta-branch", STRING, None, None, ()),
    ("chain-table.chain-partition-keys", STRING, None, None, ()),
    ("chain-table.streaming.merge-snapshot", BOOL, "false", None, ()),
    ("chain-table.split.key-range-enabled", BOOL, "true", None, ()),
    ("file.compression.per.level", STRING, None, None, ()),
    ("file.format.per.level", STRING, None, None, ()),
    ("data-file.path-directory", STRING, None, None, ()),
    ("changelog-file.format", STRING, None, None, ()),
    ("changelog-file.compression", STRING, None, None, ()),
    ("changelog-file.stats-mode", STRING, None, None, ()),
    ("file.suffix.include.compression", BOOL, "false", None, ()),
    ("file.block-size", MEMORY, None, None, ()),
    ("variant.shreddingSchema", STRING, None, None, ("parquet.variant.shreddingSchema",)),
    ("variant.inferShreddingSchema", BOOL, "false", None, ()),
    ("variant.shredding.inferenceMode", ENUM, "per-file", ("per-file", "adaptive"), ()),
    ("variant.shredding.maxSchemaWidth", INT, "300", None, ()),
    ("variant.shredding.maxSchemaDepth", INT, "50", None, ()),
    ("variant.shredding.minFieldCardinalityRatio", DOUBLE, "0.1", None, ()),
    ("variant.shredding.maxInferBufferRow", INT, "4096", None, ()),
    ("variant.shredding.adaptive.maxInferBufferRow", INT, "256", None, ()),
    ("variant.shredding.adaptive.retentionRatio", DOUBLE, "0.05", None, ()),
    ("manifest-sort.enabled", BOOL, "false", None, ()),
    ("manifest-sort.partition-field", STRING, None, None, ()),
    ("manifest-sort.max-rewrite-size", MEMORY, "256 mb", None, ()),
    ("manifest.merge-optimize.enabled", BOOL, "true", None, ()),
    ("snapshot.expire.execution-mode", ENUM, "sync", ("sync", "async"), ()),
    ("continuous.discovery-interval", DURATION, "10 s", None, ()),
    ("scan.max-splits-per-task", INT, "10", None, ()),
    ("scan.bucket", INT, None, None, ()),
    ("sort-engine", ENUM, "loser-tree", ("min-heap", "loser-tree"), ()),
    ("sort-spill-threshold", INT, None, None, ()),
    ("sort-spill-buffer-size", MEMORY, "64 mb", None, ()),
    ("spill-compression", STRING, "zstd", None, ()),
    ("spill-compression.zstd-level", INT, "1", None, ()),
    ("write-buffer-spill.max-disk-size", MEMORY, f"{LONG_MAX} bytes", None, ()),
    ("write-buffer-spillable", BOOL, "true", None, ()),
    ("write-buffer-for-append", BOOL, "false", None, ()),
    ("write-max-writers-to-spill", INT, "10", None, ()),
    ("local-sort.max-num-file-handles", INT, "128", None, ()),
    ("cache-page-size", MEMORY, "64 kb", None, ()),
    ("target-file-row-num", LONG, str(LONG_MAX), None, ()),
    ("compaction.small-file-ratio", DOUBLE, "0.7", None, ()),
    ("blob.target-file-size", MEMORY, None, None, ()),
    ("blob.split-by-file-size", BOOL, None, None, ()),
    ("blob.copy-buffer-size", MEMORY, "4 kb", None, ()),
    ("write.sequence-number-init-mode", ENUM, "scan", ("scan", "snapshot"), ()),
    ("compaction.force-up-level-0", BOOL, "false", None, ()),
    ("compaction.offpeak.start.hour", INT, "-1", None, ()),
    ("compaction.offpeak.end.hour", INT, "-1", None, ()),
    ("compaction.offpeak-ratio", INT, "0", None, ()),
    ("compaction.optimization-interval", DURATION, None, None, ()),
    ("compaction.total-size-threshold", MEMORY, None, None, ()),
    ("compaction.incremental-size-threshold", MEMORY, None, None, ()),
    ("compaction.min.file-num", INT, "5", None, ()),
    ("compaction.file-num-limit", INT, "100000", None, ()),
    ("compaction.delete-ratio-threshold", DOUBLE, "0.2", None, ()),
    ("changelog-producer.row-deduplicate", BOOL, "false", None, ()),
    ("changelog-producer.row-deduplicate-ignore-fields", STRING, None, None, ()),
    ("table-read.sequence-number.enabled", BOOL, "false", None, ()),
    ("key-value.sequence_number.enabled", BOOL, "false", None, ()),
    ("sequence.snapshot-ordering", BOOL, "false", None, ()),
    ("scan.file-creation-time-millis", LONG, None, None, ()),
    ("scan.creation-time-millis", LONG, None, None, ()),
    ("scan.bounded.watermark", LONG, None, None, ()),
    ("scan.manifest.parallelism", INT, None, None, ()),
    ("format-table.scan.list-parallelism", INT, "64", None, ()),
    ("streaming.read.snapshot.delay", DURATION, None, None, ()),
    ("auto-create", BOOL, "false", None, ()),
    ("streaming-read-overwrite", BOOL, "false", None, ()),
    ("streaming-read-append-overwrite", BOOL, "false", None, ()),
    ("partition.expiration-strategy", STRING, "values-time", None, ()),
    ("partition.expiration-time", DURATION, None, None, ()),
    ("partition.expiration-check-interval", DURATION, "1 h", None, ()),
    ("partition.expiration-max-num", INT, "100", None, ()),
    ("partition.expiration-batch-size", INT, None, None, ()),
    ("compaction.skip-expired-partitions", BOOL, "false", None, ()),
    ("partition.timestamp-formatter", STRING, None, None, ()),
    ("partition.timestamp-pattern", STRING, None, None, ()),
    ("partition.timestamp-format.strict", BOOL, "false", None, ()),
    ("partition.end-input-to-done", BOOL, "false", None, ()),
    ("scan.plan-sort-partition", BOOL, "false", None, ()),
    ("primary-key.nullable", BOOL, "false", None, ()),
    ("lookup.hash-load-factor", DOUBLE, "0.75", None, ()),
    ("lookup.cache-rows", LONG, "10000", None, ()),
    ("lookup.continuous.discovery-interval", DURATION, None, None, ()),
    ("lookup.cache-file-retention", DURATION, "1 h", None, ()),
    ("lookup.cache-max-disk-size", MEMORY, f"{LONG_MAX} bytes", None, ()),
    ("lookup.cache-spill-compression", STRING, "zstd", None, ()),
    ("lookup.cache-max-memory-size", MEMORY, "256 mb", None, ()),
    ("lookup.blob-as-descriptor", BOOL, "false", None, ()),
    ("lookup.cache.high-priority-pool-ratio", DOUBLE, "0.25", None, ()),
    ("lookup.cache.bloom.filter.enabled", BOOL, "true", None, ()),
    ("lookup.cache.bloom.filter.fpp", DOUBLE, "0.05", None, ()),
    ("lookup.remote-file.enabled", BOOL, "false", None, ()),
    ("lookup.remote-file.level-threshold", INT, str(INT_MIN), None, ()),
    ("write.batch-size", INT, "1024", None, ("orc.write.batch-size",)),
    ("write.batch-memory", MEMORY, "128 mb", None, ()),
    ("consumer-id", STRING, None, None, ()),
    ("stream-scan-mode", ENUM, "none", ("none", "compact-bucket-table", "file-monitor"), ()),
    ("batch-scan-mode", ENUM, "none", ("none", "compact"), ()),
    ("consumer.mode", ENUM, "exactly-once", ("exactly-once", "at-least-once"), ()),
    ("consumer.ignore-progress", BOOL, "false", None, ()),
    ("consumer.changelog-only", BOOL, "false", None, ()),
    ("dynamic-bucket.assigner-parallelism", INT, None, None, ()),
    ("incremental-between-scan-mode", ENUM, "auto", ("auto", "delta", "changelog", "diff"), ()),
    ("incremental-between-timestamp", STRING, None, None, ()),
    ("incremental-to-auto-tag", STRING, None, None, ()),
    ("incremental-between-tag-to-snapshot", BOOL, "false", None, ()),
    ("end-input.check-partition-expire", BOOL, "false", None, ()),
    ("metadata.stats-mode.per.level", STRING, None, None, ()),
    ("metadata.stats-keep-first-n-columns", INT, "-1", None, ()),
    ("commit.callbacks", STRING, "", None, ()),
    ("tag.callbacks", STRING, "", None, ()),
    ("partition.mark-done-action", STRING, "success-file", None, ()),
    ("partition.mark-done-action.custom.class", STRING, None, None, ()),
    ("partition.mark-done-action.http.url", STRING, None, None, ()),
    ("partition.mark-done-action.http.params", STRING, None, None, ()),
    ("partition.sink-strategy", STRING, "NONE", None, ()),
    ("metastore.partitioned-table", BOOL, "false", None, ()),
    ("metastore.tag-to-partition", STRING, None, None, ()),
    (
        "metastore.tag-to-partition.preview",
        ENUM,
        "none",
        ("none", "process-time", "watermark", "batch"),
        (),
    ),
    ("tag.automatic-creation", ENUM, "none", ("none", "process-time", "watermark", "batch"), ()),
    ("tag.create-success-file", BOOL, "false", None, ()),
    ("tag.creation-period", ENUM, "daily", ("daily", "hourly", "two-hours"), ()),
    ("tag.creation-delay", DURATION, "0 ms", None, ()),
    (
        "tag.period-formatter",
        ENUM,
        "with_dashes",
        ("with_dashes", "without_dashes", "without_dashes_and_spaces"),
        (),
    ),
    ("tag.creation-period-duration", DURATION, None, None, ()),
    ("tag.num-retained-max", INT, None, None, ()),
    ("tag.default-time-retained", DURATION, None, None, ()),
    ("tag.time-expire-enabled", BOOL, "true", None, ()),
    ("tag.automatic-completion", BOOL, "false", None, ()),
    ("tag.batch.customized-name", STRING, None, None, ()),
    ("scan.plan-auto-tag-for-read.time-retained", DURATION, None, None, ()),
    ("snapshot.watermark-idle-timeout", DURATION, None, None, ()),
    ("parquet.enable.dictionary", INT, None, None, ()),
    ("sink.watermark-time-zone", STRING, "UTC", None, ()),
    ("sink.process-time-zone", STRING, None, None, ()),
    ("local-merge-buffer-size", MEMORY, None, None, ()),
    ("cross-partition-upsert.index-ttl", DURATION, None, None, ()),
    ("cross-partition-upsert.bootstrap-parallelism", INT, "10", None, ()),
    ("zorder.var-length-contribution", INT, "8", None, ()),
    ("file-reader-async-threshold", MEMORY, "10 mb", None, ()),
    ("commit.force-create-snapshot", BOOL, "false", None, ()),
    ("deletion-vectors.modifiable", BOOL, "false", None, ()),
    ("deletion-vector.index-file.target-size", MEMORY, "2 mb", None, ()),
    ("deletion-vectors.merge-on-read", BOOL, "false", None, ()),
    ("delete.force-produce-changelog", BOOL, "false", None, ()),
    ("sort-compaction.range-strategy", STRING, "SIZE", None, ()),
    ("sort-compaction.local-sample.magnification", INT, "1000", None, ()),
    ("record-level.expire-time", DURATION, None, None, ()),
    ("record-level.time-field", STRING, None, None, ()),
    ("force-lookup", BOOL, "false", None, ()),
    ("lookup-wait", BOOL, "true", None, ("changelog-producer.lookup-wait",)),
    ("lookup-compact", STRING, "RADICAL", None, ()),
    ("lookup-compact.max-interval", INT, None, None, ()),
    ("file-operation.thread-num", INT, None, None, ("delete-file.thread-num",)),
    ("scan.fallback-branch", STRING, None, None, ()),
    ("scan.fallback-branch.read-fail-fast", BOOL, "false", None, ()),
    ("scan.primary-branch", STRING, None, None, ()),
    ("async-file-write", BOOL, "true", None, ()),
    ("manifest.delete-file-drop-stats", BOOL, "false", None, ()),
    ("data-file.thin-mode", BOOL, "false", None, ()),
    ("partition.idle-time-to-report-statistic", DURATION, "0 ms", None, ()),
    ("query-auth.enabled", BOOL, "false", None, ()),
    ("materialized-table.definition-query", STRING, None, None, ()),
    ("materialized-table.interval-freshness", STRING, None, None, ()),
    ("materialized-table.interval-freshness.time-unit", STRING, None, None, ()),
    ("materialized-table.logical-refresh-mode", STRING, None, None, ()),
    ("materialized-table.refresh-mode", STRING, None, None, ()),
    ("materialized-table.refresh-status", STRING, None, None, ()),
    ("materialized-table.refresh-handler-description", STRING, None, None, ()),
    ("materialized-table.refresh-handler-bytes", STRING, None, None, ()),
    ("alter-column-null-to-not-null.disabled", BOOL, "true", None, ()),
    ("disable-explicit-type-casting", BOOL, "false", None, ()),
    ("add-column-before-partition", BOOL, "false", None, ()),
    ("commit.strict-mode.last-safe-snapshot", LONG, None, None, ()),
    ("clustering.columns", STRING, None, None, ("sink.clustering.by-columns",)),
    ("clustering.strategy", STRING, "auto", None, ("sink.clustering.strategy",)),
    ("clustering.incremental", BOOL, "false", None, ()),
    ("clustering.history-partition.limit", INT, "5", None, ()),
    ("clustering.history-partition.idle-to-full-sort", DURATION, None, None, ()),
    ("clustering.incremental.optimize-write", BOOL, "false", None, ()),
    ("clustering.incremental.mode", ENUM, "global-sort", ("global-sort", "local-sort"), ()),
    ("local-kv-db.block-size", MEMORY, "4 kb", None, ()),
    ("row-tracking.enabled", BOOL, "false", None, ()),
    ("row-tracking.partition-group-on-commit", BOOL, "true", None, ()),
    ("data-evolution.enabled", BOOL, "false", None, ()),
    ("blob-compaction.enabled", BOOL, "false", None, ()),
    ("snapshot.ignore-empty-commit", BOOL, None, None, ()),
    ("index-file-in-data-file-dir", BOOL, "false", None, ()),
    ("global-index.external-path", STRING, None, None, ()),
    ("global-index.column-update-action", STRING, "THROW_ERROR", None, ()),
    ("lookup.merge-buffer-size", MEMORY, "8 mb", None, ()),
    ("lookup.merge-records-threshold", INT, "1024", None, ()),
    ("format-table.implementation", ENUM, "paimon", ("paimon", "engine"), ()),
    ("format-table.partition-path-only-value", BOOL, "false", None, ()),
    ("format-table.file.compression", STRING, None, None, ()),
    ("format-table.commit-hive-sync-url", STRING, None, None, ()),
    ("blob-field", STRING, None, None, ()),
    ("blob-external-storage-path", STRING, None, None, ()),
    ("blob-external-storage-field", STRING, None, None, ()),
    ("blob-descriptor-field", STRING, None, None, ("blob.stored-descriptor-fields",)),
    ("blob-as-descriptor", BOOL, "false", None, ()),
    ("commit.discard-duplicate-files", BOOL, "false", None, ()),
    ("postpone.batch-write-fixed-bucket", BOOL, "true", None, ()),
    ("postpone.batch-write-fixed-bucket.max-parallelism", INT, "2048", None, ()),
    ("postpone.default-bucket-num", INT, "1", None, ()),
    ("global-index.row-count-per-shard", LONG, "100000", None, ()),
    ("global-index.build.max-shard", INT, "32", None, ()),
    ("global-index.build.max-parallelism", INT, "4096", None, ()),
    ("global-index.enabled", BOOL, "true", None, ()),
    ("global-index.thread-num", INT, None, None, ()),
    ("overwrite-upgrade", BOOL, "true", None, ()),
    ("visibility-callback.enabled", BOOL, "false", None, ()),
    ("visibility-callback.timeout", DURATION, "30 min", None, ()),
    ("visibility-callback.check-interval", DURATION, "10 s", None, ()),
    ("vector.file.format", STRING, None, None, ()),
    ("vector-field", STRING, None, None, ()),
    ("vector.target-file-size", MEMORY, None, None, ()),
    ("vector-search.distribute.enabled", BOOL, "false", None, ()),
    ("vector-search.lateral-join.batch-size", INT, "256", None, ()),
    ("pk-vector.index.columns", STRING, None, None, ()),
    ("pk-btree.index.columns", STRING, None, None, ()),
    ("pk-bitmap.index.columns", STRING, None, None, ()),
    ("pk-multivalue.index.columns", STRING, None, None, ()),
    ("pk-full-text.index.columns", STRING, None, None, ()),
)


def _build_options() -> dict[str, OptionDef]:
    out: dict[str, OptionDef] = {}
    for d in _USED:
        if d.key in out:
            raise ValueError(f"option {d.key} defined twice")
        out[d.key] = d
    for key, kind, default, choices, fallbacks in _OTHER:
        if key in out:
            raise ValueError(f"option {key} defined twice")
        out[key] = OptionDef(key, kind, default, _UNUSED_DOC, choices, fallbacks, None, False)
    return out


OPTIONS: dict[str, OptionDef] = _build_options()
"""Every Paimon table option by key (``used`` = interpreted by paimon_sql)."""

_FIELD = r"[^.]+"  # Paimon takes the field name(s) from the second dot-separated segment


PATTERNS: list[tuple[re.Pattern[str], OptionDef]] = [
    (
        re.compile(rf"fields\.{_FIELD}\.aggregate-function"),
        OptionDef(
            "fields.<name>.aggregate-function",
            ENUM,
            None,
            "Aggregate function of a column (aggregation engine; partial-update with sequence groups).",
            AGGREGATE_FUNCTIONS,
        ),
    ),
    (
        re.compile(rf"fields\.{_FIELD}\.ignore-retract"),
        OptionDef(
            "fields.<name>.ignore-retract",
            BOOL,
            "false",
            "Aggregation: ignore retractions (-U/-D) for this column instead of failing.",
        ),
    ),
    (
        re.compile(rf"fields\.{_FIELD}\.sequence-group"),
        OptionDef(
            "fields.<name>.sequence-group",
            LIST,
            None,
            "partial-update: the columns updated only when the sequence column(s) <name> "
            "(comma-separated in the key) advance.",
        ),
    ),
    (
        re.compile(rf"fields\.{_FIELD}\.default-value"),
        OptionDef(
            "fields.<name>.default-value",
            STRING,
            None,
            "Value read for a null column (Paimon up to 1.2; later versions keep it in the schema).",
        ),
    ),
    (
        re.compile(rf"fields\.{_FIELD}\.nested-key"),
        OptionDef(
            "fields.<name>.nested-key",
            LIST,
            None,
            "nested_update / nested_partial_update aggregators: the key fields of the nested rows.",
        ),
    ),
    (
        re.compile(rf"fields\.{_FIELD}\.count-limit"),
        OptionDef(
            "fields.<name>.count-limit",
            INT,
            str(INT_MAX),
            "nested_update aggregator: keep at most this many nested rows.",
        ),
    ),
    (
        re.compile(rf"fields\.{_FIELD}\.distinct"),
        OptionDef(
            "fields.<name>.distinct",
            BOOL,
            "false",
            "collect / listagg aggregators: drop duplicate elements.",
        ),
    ),
    (
        re.compile(rf"fields\.{_FIELD}\.list-agg-delimiter"),
        OptionDef(
            "fields.<name>.list-agg-delimiter",
            STRING,
            ",",
            "listagg aggregator: separator between concatenated values.",
        ),
    ),
    (
        re.compile(rf"fields\.{_FIELD}\.ts-field"),
        OptionDef(
            "fields.<name>.ts-field",
            STRING,
            None,
            "merge_map_with_keytime aggregator: the time field of the map values.",
        ),
    ),
    (
        re.compile(rf"fields\.{_FIELD}\.stats-mode"),
        OptionDef(
            "fields.<name>.stats-mode",
            STATS_MODE,
            None,
            "Statistics mode of one column, overriding metadata.stats-mode.",
        ),
    ),
    (
        re.compile(r"file-index\.[^.]+\.columns"),
        OptionDef(
            "file-index.<type>.columns",
            LIST,
            None,
            "Columns that get a file index of <type> (bloom-filter, bitmap, bsi, range-bitmap).",
        ),
    ),
    (
        re.compile(r"file-index\.[^.]+\.[^.]+\.[^.]+"),
        OptionDef(
            "file-index.<type>.<column>.<option>",
            STRING,
            None,
            "An option of one column's file index, e.g. file-index.bloom-filter.c.fpp.",
        ),
    ),
    (
        re.compile(r"file-index\.[^.]+\.[^.]+"),
        OptionDef(
            "file-index.<type>.<option>",
            STRING,
            None,
            "An option of every file index of <type>, e.g. file-index.bitmap.version.",
        ),
    ),
    (
        re.compile(r"(?:parquet|orc|avro|csv|json|text|lance)\..+"),
        OptionDef(
            "<format>.<option>",
            STRING,
            None,
            "Passed to the file format writer/reader as is (e.g. parquet.block.size).",
            used=False,
        ),
    ),
    (
        re.compile(r"(?:commit|tag)\.callback\.[^.]+\.param"),
        OptionDef(
            "commit.callback.<n>.param / tag.callback.<n>.param",
            STRING,
            None,
            "Parameter of a commit or tag callback class.",
            used=False,
        ),
    ),
]
"""Option families: (full-match regex, definition)."""


def option_def(key: str) -> OptionDef | None:
    """The definition of ``key``: a registered key, a fallback key, or a pattern; None if unknown."""
    d = OPTIONS.get(key)
    if d is not None:
        return d
    d = _FALLBACKS.get(key)
    if d is not None:
        return d
    for regex, pd in PATTERNS:
        if regex.fullmatch(key):
            return pd
    return None


_FALLBACKS: dict[str, OptionDef] = {fk: d for d in OPTIONS.values() for fk in d.fallback_keys}


# ----------------------------------------------------------------------------------------------
# Errors
# ----------------------------------------------------------------------------------------------


def _where_suffix(where: str | None) -> str:
    return f" of table {where}" if where else ""


def _invalid_message(key: str, value: str, where: str | None, expected: str) -> str:
    return f"Invalid value {value!r} for option {key!r}{_where_suffix(where)}: {expected}"


# ----------------------------------------------------------------------------------------------
# CoreOptions: typed accessors
# ----------------------------------------------------------------------------------------------


class CoreOptions(Mapping[str, str]):
    """Typed, read-only view of a table's options (a ``Mapping[str, str]`` itself).

    Accessors parse on use and raise ``ValidationError`` naming the key, the value and the table
    (``where``) for a bad value. Unknown keys are kept and returned as raw strings by ``get``.
    """

    def __init__(self, options: Mapping[str, str], where: str | None = None) -> None:
        self._options: dict[str, str] = dict(options)
        self._where = where

    # --- Mapping ---------------------------------------------------------------------------
    def __getitem__(self, key: str) -> str:
        return self._options[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._options)

    def __len__(self) -> int:
        return len(self._options)

    def __repr__(self) -> str:
        return f"CoreOptions({self._options!r})"

    @property
    def raw(self) -> dict[str, str]:
        """A copy of the options as strings."""
        return dict(self._options)

    @property
    def where(self) -> str | None:
        return self._where

    def with_options(self, updates: Mapping[str, str]) -> CoreOptions:
        """These options with ``updates`` applied (e.g. dynamic options of one read)."""
        merged = dict(self._options)
        merged.update(updates)
        return CoreOptions(merged, self._where)

    # --- generic access --------------------------------------------------------------------
    def _lookup(self, d: OptionDef, key: str) -> tuple[str, str] | None:
        if key in self._options:
            return key, self._options[key]
        for fk in d.fallback_keys:
            if fk in self._options:
                return fk, self._options[fk]
        return None

    def _parse(self, d: OptionDef, key: str, text: str) -> Any:
        try:
            return d.parse(text)
        except _BadValue as e:
            raise ValidationError(_invalid_message(key, text, self._where, str(e.args[0]))) from None

    def get(self, key: str, default: Any = None) -> Any:  # type: ignore[override]
        """Typed value of ``key`` (the option's own default when unset, else ``default``).

        A key matching no definition returns its raw string (or ``default``)."""
        d = option_def(key)
        if d is None:
            return self._options.get(key, default)
        found = self._lookup(d, key)
        if found is not None:
            return self._parse(d, found[0], found[1])
        if d.default is not None:
            return self._parse(d, key, d.default)
        return default

    def contains(self, key: str) -> bool:
        """True when ``key`` (or one of its fallback keys) is set."""
        d = option_def(key)
        if d is None:
            return key in self._options
        return self._lookup(d, key) is not None

    # --- table layout ----------------------------------------------------------------------
    @property
    def table_type(self) -> str:
        return str(self.get("type"))

    @property
    def path(self) -> str | None:
        return self.get("path")  # type: ignore[no-any-return]

    @property
    def branch(self) -> str:
        return str(self.get("branch"))

    @property
    def primary_keys(self) -> list[str]:
        return self.get("primary-key") or []

    @property
    def partition_keys(self) -> list[str]:
        return self.get("partition") or []

    @property
    def bucket(self) -> int:
        return int(self.get("bucket"))

    @property
    def bucket_key(self) -> list[str]:
        """The ``bucket-key`` option (empty when unset; the default key depends on the schema)."""
        return self.get("bucket-key") or []

    @property
    def dynamic_bucket_target_row_num(self) -> int:
        return int(self.get("dynamic-bucket.target-row-num"))

    @property
    def dynamic_bucket_initial_buckets(self) -> int | None:
        return self.get("dynamic-bucket.initial-buckets")  # type: ignore[no-any-return]

    @property
    def dynamic_bucket_max_buckets(self) -> int:
        return int(self.get("dynamic-bucket.max-buckets"))

    @property
    def partition_default_name(self) -> str:
        return str(self.get("partition.default-name"))

    @property
    def partition_legacy_name(self) -> bool:
        return bool(self.get("partition.legacy-name"))

    # --- files -----------------------------------------------------------------------------
    @property
    def file_format(self) -> str:
        """Data file format, lower case (Paimon normalises it)."""
        return str(self.get("file.format")).lower()

    @property
    def file_compression(self) -> str:
        return str(self.get("file.compression"))

    @property
    def file_compression_zstd_level(self) -> int:
        return int(self.get("file.compression.zstd-level"))

    @property
    def manifest_format(self) -> str:
        return str(self.get("manifest.format")).lower()

    @property
    def manifest_compression(self) -> str:
        return str(self.get("manifest.compression"))

    @property
    def manifest_target_file_size(self) -> int:
        return int(self.get("manifest.target-file-size"))

    @property
    def manifest_merge_min_count(self) -> int:
        return int(self.get("manifest.merge-min-count"))

    @property
    def manifest_full_compaction_threshold_size(self) -> int:
        return int(self.get("manifest.full-compaction-threshold-size"))

    @property
    def data_file_prefix(self) -> str:
        return str(self.get("data-file.prefix"))

    @property
    def changelog_file_prefix(self) -> str:
        return str(self.get("changelog-file.prefix"))

    def target_file_size(self, has_pk: bool) -> int:
        """Bytes: the option, else 128 mb for primary-key tables and 256 mb for append tables."""
        v = self.get("target-file-size")
        if v is None:
            return (128 if has_pk else 256) * 1024 * 1024
        return int(v)

    @property
    def metadata_stats_mode(self) -> str:
        return str(self.get("metadata.stats-mode"))

    def field_stats_mode(self, name: str) -> str:
        """Stats mode of one column: ``fields.<name>.stats-mode``, else ``metadata.stats-mode``."""
        v = self.get(f"fields.{name}.stats-mode")
        return self.metadata_stats_mode if v is None else str(v)

    @property
    def metadata_stats_dense_store(self) -> bool:
        return bool(self.get("metadata.stats-dense-store"))

    @property
    def file_index_in_manifest_threshold(self) -> int:
        return int(self.get("file-index.in-manifest-threshold"))

    @property
    def file_index_read_enabled(self) -> bool:
        return bool(self.get("file-index.read.enabled"))

    def file_index_columns(self) -> dict[str, list[str]]:
        """Index type -> columns, from the ``file-index.<type>.columns`` options."""
        out: dict[str, list[str]] = {}
        for key in self._options:
            if key.startswith("file-index.") and key.endswith(".columns") and key.count(".") == 2:
                out[key[len("file-index.") : -len(".columns")]] = self.get(key) or []
        return out

    # --- writing ---------------------------------------------------------------------------
    @property
    def write_buffer_size(self) -> int:
        return int(self.get("write-buffer-size"))

    @property
    def page_size(self) -> int:
        return int(self.get("page-size"))

    @property
    def write_only(self) -> bool:
        return bool(self.get("write-only"))

    @property
    def num_sorted_run_compaction_trigger(self) -> int:
        return int(self.get("num-sorted-run.compaction-trigger"))

    @property
    def num_sorted_run_stop_trigger(self) -> int:
        """The option (default compaction trigger + 3), never below the compaction trigger."""
        trigger = self.num_sorted_run_compaction_trigger
        stop = self.get("num-sorted-run.stop-trigger")
        if stop is None:
            stop = min(trigger + 3, INT_MAX)
        return max(trigger, int(stop))

    @property
    def num_levels(self) -> int:
        """The option, default compaction trigger + 1 (so compaction never ends in level 0)."""
        v = self.get("num-levels")
        return min(self.num_sorted_run_compaction_trigger + 1, INT_MAX) if v is None else int(v)

    @property
    def compaction_max_size_amplification_percent(self) -> int:
        return int(self.get("compaction.max-size-amplification-percent"))

    @property
    def compaction_size_ratio(self) -> int:
        return int(self.get("compaction.size-ratio"))

    @property
    def full_compaction_delta_commits(self) -> int | None:
        return self.get("full-compaction.delta-commits")  # type: ignore[no-any-return]

    @property
    def commit_force_compact(self) -> bool:
        return bool(self.get("commit.force-compact"))

    @property
    def commit_max_retries(self) -> int:
        return int(self.get("commit.max-retries"))

    @property
    def commit_timeout_ms(self) -> int | None:
        return self.get("commit.timeout")  # type: ignore[no-any-return]

    @property
    def commit_min_retry_wait_ms(self) -> int:
        return int(self.get("commit.min-retry-wait"))

    @property
    def commit_max_retry_wait_ms(self) -> int:
        return int(self.get("commit.max-retry-wait"))

    @property
    def dynamic_partition_overwrite(self) -> bool:
        return bool(self.get("dynamic-partition-overwrite"))

    # --- primary-key tables ----------------------------------------------------------------
    @property
    def merge_engine(self) -> str:
        return str(self.get("merge-engine"))

    @property
    def sequence_fields(self) -> list[str]:
        return self.get("sequence.field") or []

    @property
    def sequence_field_ascending(self) -> bool:
        return self.get("sequence.field.sort-order") == "ascending"

    @property
    def rowkind_field(self) -> str | None:
        return self.get("rowkind.field")  # type: ignore[no-any-return]

    @property
    def ignore_delete(self) -> bool:
        return bool(self.get("ignore-delete"))

    @property
    def ignore_update_before(self) -> bool:
        return bool(self.get("ignore-update-before"))

    @property
    def partial_update_remove_record_on_delete(self) -> bool:
        return bool(self.get("partial-update.remove-record-on-delete"))

    @property
    def partial_update_remove_record_on_sequence_group(self) -> list[str]:
        return self.get("partial-update.remove-record-on-sequence-group") or []

    @property
    def aggregation_remove_record_on_delete(self) -> bool:
        return bool(self.get("aggregation.remove-record-on-delete"))

    @property
    def fields_default_aggregate_function(self) -> str | None:
        return self.get("fields.default-aggregate-function")  # type: ignore[no-any-return]

    def field_aggregate_function(self, name: str) -> str | None:
        """``fields.<name>.aggregate-function`` (None when unset; no default applied)."""
        return self.get(f"fields.{name}.aggregate-function")  # type: ignore[no-any-return]

    def field_ignore_retract(self, name: str) -> bool:
        return bool(self.get(f"fields.{name}.ignore-retract"))

    def field_nested_key(self, name: str) -> list[str]:
        return self.get(f"fields.{name}.nested-key") or []

    def field_count_limit(self, name: str) -> int:
        return int(self.get(f"fields.{name}.count-limit"))

    def field_distinct(self, name: str) -> bool:
        return bool(self.get(f"fields.{name}.distinct"))

    def field_list_agg_delimiter(self, name: str) -> str:
        return str(self.get(f"fields.{name}.list-agg-delimiter"))

    def field_default_value(self, name: str) -> str | None:
        return self.get(f"fields.{name}.default-value")  # type: ignore[no-any-return]

    def sequence_groups(self) -> dict[tuple[str, ...], list[str]]:
        """partial-update sequence groups: sequence columns -> the columns they guard."""
        out: dict[tuple[str, ...], list[str]] = {}
        for key in self._options:
            if key.startswith("fields.") and key.endswith(".sequence-group"):
                seq = key[len("fields.") : -len(".sequence-group")]
                if "." in seq:
                    continue
                out[tuple(s.strip() for s in seq.split(","))] = self.get(key) or []
        return out

    @property
    def changelog_producer(self) -> str:
        return str(self.get("changelog-producer"))

    @property
    def deletion_vectors_enabled(self) -> bool:
        return bool(self.get("deletion-vectors.enabled"))

    @property
    def deletion_vectors_bitmap64(self) -> bool:
        return bool(self.get("deletion-vectors.bitmap64"))

    # --- snapshots -------------------------------------------------------------------------
    @property
    def snapshot_num_retained_min(self) -> int:
        return int(self.get("snapshot.num-retained.min"))

    @property
    def snapshot_num_retained_max(self) -> int:
        return int(self.get("snapshot.num-retained.max"))

    @property
    def snapshot_time_retained_ms(self) -> int:
        return int(self.get("snapshot.time-retained"))

    @property
    def snapshot_expire_limit(self) -> int:
        return int(self.get("snapshot.expire.limit"))

    @property
    def snapshot_clean_empty_directories(self) -> bool:
        return bool(self.get("snapshot.clean-empty-directories"))

    @property
    def changelog_num_retained_min(self) -> int:
        v = self.get("changelog.num-retained.min")
        return self.snapshot_num_retained_min if v is None else int(v)

    @property
    def changelog_num_retained_max(self) -> int:
        v = self.get("changelog.num-retained.max")
        return self.snapshot_num_retained_max if v is None else int(v)

    @property
    def changelog_time_retained_ms(self) -> int:
        v = self.get("changelog.time-retained")
        return self.snapshot_time_retained_ms if v is None else int(v)

    @property
    def consumer_expiration_time_ms(self) -> int | None:
        return self.get("consumer.expiration-time")  # type: ignore[no-any-return]

    # --- reading ---------------------------------------------------------------------------
    @property
    def scan_mode(self) -> str:
        return str(self.get("scan.mode"))

    @property
    def scan_snapshot_id(self) -> int | None:
        return self.get("scan.snapshot-id")  # type: ignore[no-any-return]

    @property
    def scan_tag_name(self) -> str | None:
        return self.get("scan.tag-name")  # type: ignore[no-any-return]

    @property
    def scan_timestamp_millis(self) -> int | None:
        return self.get("scan.timestamp-millis")  # type: ignore[no-any-return]

    @property
    def scan_version(self) -> str | None:
        return self.get("scan.version")  # type: ignore[no-any-return]

    @property
    def source_split_target_size(self) -> int:
        return int(self.get("source.split.target-size"))

    @property
    def source_split_open_file_cost(self) -> int:
        return int(self.get("source.split.open-file-cost"))

    @property
    def read_batch_size(self) -> int:
        return int(self.get("read.batch-size"))

    @property
    def scan_ignore_corrupt_files(self) -> bool:
        return bool(self.get("scan.ignore-corrupt-files"))

    @property
    def scan_ignore_lost_files(self) -> bool:
        return bool(self.get("scan.ignore-lost-files"))


# ----------------------------------------------------------------------------------------------
# Validation
# ----------------------------------------------------------------------------------------------


def validate_options(
    options: Mapping[str, str],
    where: str,
    *,
    primary_keys: Sequence[str] | None = None,
    columns: Sequence[str] | None = None,
) -> list[str]:
    """Check every value of ``options``; return warnings for keys Paimon does not know.

    Raises ``ValidationError`` for a value that does not parse, is out of range, or breaks one of
    Paimon's rules between options (``bucket-key`` with ``bucket`` -1, retained snapshot counts,
    changelog producers of first-row and deletion-vector tables). The message names the key, the
    value and the table ``where``; several problems are reported one per line. When
    ``primary_keys`` (the schema's) is given, rules needing it are checked too: ``bucket`` -2 and a
    ``changelog-producer`` other than none need a primary key. Unknown keys are never an error:
    they are kept, and returned as warnings.
    """
    errors: list[str] = []
    warnings: list[str] = []
    table_type = "table"
    type_value = options.get("type")
    if type_value is not None:
        with contextlib.suppress(_BadValue):  # a bad 'type' is reported by the key loop below
            table_type = _parse_enum(type_value, TABLE_TYPES)
    for key, value in options.items():
        if not isinstance(value, str):
            errors.append(
                f"Invalid value {value!r} ({type(value).__name__}) for option {key!r}{_where_suffix(where)}: "
                "option values must be strings"
            )
            continue
        d = option_def(key)
        if d is None:
            warnings.append(_unknown_warning(key, where))
            continue
        try:
            v = d.parse(value)
        except _BadValue as e:
            errors.append(_invalid_message(key, value, where, str(e.args[0])))
            continue
        if d.key == "file.format" and table_type == "table" and v.lower() not in FILE_FORMATS:
            errors.append(_invalid_message(key, value, where, "expected one of: " + ", ".join(FILE_FORMATS)))
            continue

    if not errors:
        errors.extend(_cross_checks(CoreOptions(options, where), where, primary_keys))
    if not errors and columns is not None:
        errors.extend(column_reference_errors(options, columns, where))
    if errors:
        raise ValidationError("\n".join(errors))
    return warnings


FIELDS_PREFIX = "fields."
DEFAULT_AGG_FIELD = "default-aggregate-function"


def _column_list(text: str) -> list[str]:
    return [c.strip() for c in text.split(",") if c.strip()]


def column_reference_errors(options: Mapping[str, str], columns: Sequence[str], where: str) -> list[str]:
    """Options that name columns must name columns of the table (as Paimon's SchemaValidation
    checks): ``sequence.field`` (each once, without an aggregate function), ``bucket-key``,
    ``rowkind.field``, and every ``fields.<f1,f2>.<...>`` key and ``...sequence-group`` value."""
    cols, of, errors = set(columns), _where_suffix(where), []

    def missing(key: str, names: Sequence[str]) -> None:
        bad = [n for n in names if n not in cols]
        if bad:
            errors.append(
                f"Option {key!r}{of} names {bad[0]!r}, which is not a column (columns: {list(columns)})"
            )

    seq = _column_list(options.get("sequence.field", ""))
    missing("sequence.field", seq)
    for c in {c for c in seq if seq.count(c) > 1}:
        errors.append(f"Option 'sequence.field'{of} names {c!r} more than once")
    for c in seq:
        if f"{FIELDS_PREFIX}{c}.aggregate-function" in options:
            errors.append(f"Option 'sequence.field'{of}: sequence field {c!r} must not have an aggregate function")
    missing("bucket-key", _column_list(options.get("bucket-key", "")))
    missing("rowkind.field", _column_list(options.get("rowkind.field", "")))
    for key, value in options.items():
        if not key.startswith(FIELDS_PREFIX) or key.count(".") < 2:
            continue
        targets = key[len(FIELDS_PREFIX):].split(".", 1)[0]
        missing(key, [c for c in targets.split(",") if c != DEFAULT_AGG_FIELD])
        if key.endswith(".sequence-group"):
            missing(key, _column_list(value))
    return errors


_LIFECYCLE = "snapshot, changelog, partition and tag lifecycle (expiry, automatic tags) is not implemented yet"
_COMPACTION = "compaction is not implemented yet (files are never merged or rewritten)"
_DV_WRITES = "writing deletion-vector tables is not implemented yet (they are read)"
_CHANGELOG = "changelog producers are not implemented yet"
_INCREMENTAL = "incremental reads are not implemented yet"
_FEATURE = "this Paimon feature is not implemented by paimon_sql yet"
# Options paimon_sql knows but does not apply: set to anything but their default at CREATE TABLE,
# ALTER TABLE or per read, they are refused (UnsupportedError naming them) rather than silently
# ignored. Tables that already carry them (written by Paimon) still read. Options that only tune
# Flink, streaming reads, caches, spilling or parallelism are not here: they change no result.
NOT_IMPLEMENTED: dict[str, str] = {
    **dict.fromkeys([
        "snapshot.num-retained.min", "snapshot.num-retained.max", "snapshot.time-retained",
        "snapshot.expire.limit", "snapshot.expire.execution-mode", "snapshot.clean-empty-directories",
        "changelog.num-retained.min", "changelog.num-retained.max", "changelog.time-retained",
        "consumer.expiration-time", "partition.expiration-time", "partition.expiration-check-interval",
        "partition.expiration-strategy", "partition.expiration-max-num", "partition.expiration-batch-size",
        "tag.automatic-creation", "tag.creation-period", "tag.creation-delay", "tag.period-formatter",
        "tag.num-retained-max", "tag.default-time-retained", "tag.automatic-completion",
        "tag.batch.customized-name", "tag.callbacks", "tag.create-success-file", "tag.creation-period-duration",
        "tag.time-expire-enabled", "record-level.expire-time", "record-level.time-field",
    ], _LIFECYCLE),
    **dict.fromkeys([
        "num-sorted-run.compaction-trigger", "num-sorted-run.stop-trigger", "num-levels",
        "compaction.max-size-amplification-percent", "compaction.size-ratio", "compaction.optimization-interval",
        "compaction.total-size-threshold", "compaction.force-up-level-0", "compaction.min.file-num",
        "compaction.file-num-limit", "compaction.delete-ratio-threshold", "compaction.force-rewrite-all-files",
        "compaction.incremental-size-threshold", "compaction.offpeak-ratio", "compaction.offpeak.start.hour",
        "compaction.offpeak.end.hour", "compaction.skip-expired-partitions", "compaction.small-file-ratio",
        "full-compaction.delta-commits", "commit.force-compact", "lookup-compact", "lookup-compact.max-interval",
        "force-lookup", "clustering.columns", "clustering.strategy", "clustering.incremental",
        "clustering.incremental.mode", "clustering.incremental.optimize-write",
        "sort-compaction.range-strategy", "sort-compaction.local-sample.magnification",
        "zorder.var-length-contribution",
    ], _COMPACTION),
    **dict.fromkeys([
        "deletion-vectors.enabled", "deletion-vectors.merge-on-read", "deletion-vectors.modifiable",
        "deletion-vectors.bitmap64",
    ], _DV_WRITES),
    **dict.fromkeys([
        "changelog-producer", "changelog-producer.row-deduplicate", "changelog-producer.row-deduplicate-ignore-fields",
        "delete.force-produce-changelog",
    ], _CHANGELOG),
    **dict.fromkeys([
        "incremental-between", "incremental-between-timestamp", "incremental-between-scan-mode",
        "incremental-between-tag-to-snapshot", "incremental-to-auto-tag",
    ], _INCREMENTAL),
    **dict.fromkeys([
        "dynamic-bucket.assigner-parallelism", "bucket-function.type", "chain-table.enabled",
        "chain-table.chain-partition-keys", "blob-field", "blob-as-descriptor", "blob-descriptor-field",
        "blob-external-storage-field", "blob-external-storage-path", "blob-compaction.enabled",
        "blob.target-file-size", "blob.split-by-file-size", "vector-field", "vector.file.format",
        "vector.target-file-size", "data-evolution.enabled", "row-tracking.enabled", "global-index.enabled",
        "pk-bitmap.index.columns", "pk-btree.index.columns", "pk-full-text.index.columns",
        "pk-multivalue.index.columns", "pk-vector.index.columns", "data-file.external-paths",
        "data-file.external-paths.strategy", "data-file.path-directory", "data-file.thin-mode",
        "file.format.per.level", "file.compression.per.level", "metadata.stats-mode.per.level",
        "file.suffix.include.compression", "index-file-in-data-file-dir", "add-column-before-partition",
        "commit.callbacks", "commit.discard-duplicate-files", "commit.force-create-snapshot",
        "commit.strict-mode.last-safe-snapshot", "snapshot.ignore-empty-commit", "partition.mark-done-action",
        "metastore.partitioned-table", "metastore.tag-to-partition", "sequence.snapshot-ordering",
        "write.sequence-number-init-mode", "upsert-key", "primary-key.nullable", "postpone.batch-write-fixed-bucket",
        "postpone.default-bucket-num", "target-file-row-num", "visibility-callback.enabled", "query-auth.enabled",
        "key-value.sequence_number.enabled", "table-read.sequence-number.enabled", "ignore-update-before",
        "scan.bucket", "scan.bounded.watermark", "scan.creation-time-millis",
        "scan.file-creation-time-millis", "scan.primary-branch", "scan.fallback-delta-branch",
        "scan.fallback-snapshot-branch",
    ], _FEATURE),
}


# Options a table keeps for life (Paimon's @Immutable options, plus 'bucket', which only a rescale
# changes): per-read / session ("dynamic") options cannot change them.
IMMUTABLE: frozenset[str] = frozenset({
    "type", "bucket", "bucket-key", "bucket-function.type", "data-file.path-directory", "merge-engine",
    "sequence.snapshot-ordering", "aggregation.remove-record-on-delete", "partial-update.remove-record-on-delete",
    "partial-update.remove-record-on-sequence-group", "rowkind.field", "primary-key", "primary-key.nullable",
    "partition", "dynamic-bucket.initial-buckets", "force-lookup", "row-tracking.enabled",
    "data-evolution.enabled", "index-file-in-data-file-dir", "blob-field", "blob-descriptor-field",
    "blob-view-field", "pk-clustering-override", "path", "branch",
})


def is_table_option(key: str) -> bool:
    """Whether ``key`` is a Paimon table option (a known key or an option family such as
    ``fields.<name>.aggregate-function``), as opposed to a data-source or unknown key."""
    return option_def(key) is not None


def not_implemented_errors(options: Mapping[str, str], where: str) -> list[str]:
    """One message per option of ``options`` that paimon_sql does not apply and that is set to
    anything but its default (``NOT_IMPLEMENTED``)."""
    errors = []
    for key, value in options.items():
        reason = NOT_IMPLEMENTED.get(key)
        if reason is None:
            continue
        d = option_def(key)
        if d is not None and d.default is not None:
            try:
                if d.parse(str(value)) == d.default_value:
                    continue
            except _BadValue:
                pass
        errors.append(f"Option {key!r} = {value!r}{_where_suffix(where)} is not supported: {reason}")
    return errors


def check_implemented(options: Mapping[str, str], where: str) -> None:
    """Raises an UnsupportedError naming every option of ``options`` that would not be applied."""
    errors = not_implemented_errors(options, where)
    if errors:
        raise UnsupportedError("\n".join(errors))


def _unknown_warning(key: str, where: str) -> str:
    msg = f"Unknown option {key!r}{_where_suffix(where)}: kept, but neither Paimon nor paimon_sql knows it"
    close = difflib.get_close_matches(key, list(OPTIONS), n=1, cutoff=0.8)
    if close:
        msg += f" (did you mean {close[0]!r}?)"
    return msg


def _cross_checks(o: CoreOptions, where: str, primary_keys: Sequence[str] | None) -> list[str]:
    errors: list[str] = []
    of = _where_suffix(where)
    for key in ("branch", "scan.fallback-branch"):  # branch names become folder names
        if key in o:
            try:
                check_name("branch", o[key])
            except ValidationError as e:
                errors.append(f"Invalid value {o[key]!r} for option {key!r}{of}: {e}")
    if o.bucket == -1 and "bucket-key" in o:
        errors.append(
            f"Option 'bucket-key' = {o['bucket-key']!r}{of} needs a bucket number: it cannot be "
            "used with bucket = -1 (remove 'bucket-key' or set 'bucket' to a positive number)"
        )
    if o.snapshot_num_retained_min > o.snapshot_num_retained_max:
        errors.append(
            f"Option 'snapshot.num-retained.min' = {o.snapshot_num_retained_min}{of} must not be "
            f"larger than 'snapshot.num-retained.max' = {o.snapshot_num_retained_max}"
        )
    if o.changelog_num_retained_min > o.changelog_num_retained_max:
        errors.append(
            f"Option 'changelog.num-retained.min' = {o.changelog_num_retained_min}{of} must not be "
            f"larger than 'changelog.num-retained.max' = {o.changelog_num_retained_max}"
        )
    producer = o.changelog_producer
    if o.merge_engine == "first-row" and producer not in ("none", "lookup"):
        errors.append(
            f"Option 'changelog-producer' = {producer!r}{of}: the first-row merge engine supports "
            "only 'none' and 'lookup'"
        )
    if o.deletion_vectors_enabled:
        if producer not in ("none", "input", "lookup"):
            errors.append(
                f"Option 'changelog-producer' = {producer!r}{of}: deletion vectors support only "
                "'none', 'input' and 'lookup'"
            )
        if o.merge_engine == "first-row" and not o.get("pk-clustering-override"):
            errors.append(
                f"Option 'deletion-vectors.enabled' = 'true'{of}: the first-row merge engine never "
                "deletes old rows, so it does not use deletion vectors"
            )
    if primary_keys is not None:
        has_pk = bool(primary_keys) or bool(o.primary_keys)
        if o.bucket == -2 and not has_pk:
            errors.append(f"Option 'bucket' = '-2'{of}: postpone bucket mode needs a primary key")
        if producer != "none" and not has_pk:
            errors.append(f"Option 'changelog-producer' = {producer!r}{of} needs a primary key")
    return errors


# ----------------------------------------------------------------------------------------------
# Documentation
# ----------------------------------------------------------------------------------------------

_KIND_DOC = {
    INT: "integer (32-bit)",
    LONG: "integer (64-bit)",
    BOOL: "boolean",
    DOUBLE: "number",
    STRING: "string",
    ENUM: "enum",
    MEMORY: "memory size",
    DURATION: "duration",
    LIST: "list",
    STATS_MODE: "stats mode",
}


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _md_default(d: OptionDef) -> str:
    return "(none)" if d.default is None else ("`" + d.default + "`" if d.default else "(empty)")


def _md_type(d: OptionDef) -> str:
    if d.kind == ENUM and d.choices is not None:
        return "enum: " + ", ".join(f"`{c}`" for c in d.choices)
    return _KIND_DOC[d.kind]


def options_markdown() -> str:
    """The text of ``docs/options.md``, generated from the registry."""
    lines = [
        "# Table options",
        "",
        "<!-- Generated by paimon_sql.options.options_markdown(); do not edit by hand. -->",
        "",
        "Options are string key/value pairs stored with the table schema (Spark `TBLPROPERTIES`).",
        "Keys, types and defaults are those of Apache Paimon 1.4; paimon_sql parses values with",
        "Paimon's rules and rejects a bad value with an error naming the key, the value and the table.",
        "A key neither Paimon nor paimon_sql knows is kept and reported as a warning.",
        "",
        "An option paimon_sql does not apply yet is refused (an error naming it) when CREATE TABLE,",
        "ALTER TABLE or a read sets it to anything but its default, never silently ignored; tables",
        "Paimon wrote with such options still read. They are listed under",
        "[Not implemented](#not-implemented).",
        "",
        "Value syntax:",
        "",
        "- boolean: `true` or `false`, any case.",
        "- memory size: digits, optional blanks, optional unit `b`/`bytes`, `k`/`kb`, `m`/`mb`,",
        "  `g`/`gb`, `t`/`tb` (powers of 1024; no unit means bytes), e.g. `256 mb`, `64kb`.",
        "- duration: digits, optional blanks, optional unit `d`, `h`, `min`/`m`, `s`, `ms`, `µs`, `ns`",
        "  (also spelt out: `hours`, `minutes`, ...; no unit means milliseconds), e.g. `1 h`, `30 min`.",
        "- list: comma-separated names, blanks around names ignored.",
        "- enum: one of the listed values, any case.",
        "- stats mode: `none`, `counts`, `full` or `truncate(<length>)`.",
        "",
        "## Options paimon_sql interprets",
        "",
        "| Key | Type | Default | Description |",
        "| --- | --- | --- | --- |",
    ]
    for d in sorted((d for d in OPTIONS.values() if d.used), key=lambda d: d.key):
        desc = d.doc
        if d.fallback_keys:
            desc += " Also read from: " + ", ".join(f"`{k}`" for k in d.fallback_keys) + "."
        if d.key in NOT_IMPLEMENTED:
            desc += " **Not implemented yet**: refused unless set to its default."
        lines.append(f"| `{d.key}` | {_md(_md_type(d))} | {_md(_md_default(d))} | {_md(desc)} |")
    lines += [
        "",
        "## Option families",
        "",
        "`<name>` is a column name (for `sequence-group`, one or more comma-separated sequence columns).",
        "",
        "| Key pattern | Type | Default | Description |",
        "| --- | --- | --- | --- |",
    ]
    for _, d in PATTERNS:
        lines.append(f"| `{d.key}` | {_md(_md_type(d))} | {_md(_md_default(d))} | {_md(d.doc)} |")
    lines += [
        "",
        "## Other Paimon options",
        "",
        "Known to Paimon, kept with the table and type-checked; they tune Flink, streaming reads, caches",
        "or parallelism, or are refused (see [Not implemented](#not-implemented)).",
        "",
        "| Key | Type | Default |",
        "| --- | --- | --- |",
    ]
    for d in sorted((d for d in OPTIONS.values() if not d.used), key=lambda d: d.key):
        lines.append(f"| `{d.key}` | {_md(_md_type(d))} | {_md(_md_default(d))} |")
    lines += ["", "## Not implemented", "", "Refused when set to anything but their default (see above).",
              "", "| Key | Why |", "| --- | --- |"]
    lines += [f"| `{k}` | {_md(v)} |" for k, v in sorted(NOT_IMPLEMENTED.items())]
    return "\n".join(lines) + "\n"
