"""Typed registry of Paimon table options.

Keys, value types and defaults follow Apache Paimon 1.4's ``CoreOptions`` (values are strings in a
table's options, exactly as Paimon stores them in ``schema/schema-N``); value parsing follows Paimon's
``OptionsUtils`` / ``MemorySize`` / ``TimeUtils`` rules so a value Paimon rejects is rejected here too.

- ``option``: ``Option[T]`` (key, kind, default, description; like Paimon's ``ConfigOption<T>``) and
  ``Family[T]`` (per-field / per-index families such as ``fields.<name>.aggregate-function``).
- ``parsing``: the value kinds (``INT``, ``MEMORY``, ``DURATION``, ``enum(...)``...) and their parsers.
- The declarations, by area: ``layout`` (table type, keys, buckets, partitions), ``formats`` (files,
  manifests, statistics, file indexes), ``write`` (buffers, compaction, commits), ``merge`` (merge
  engines, ``fields.<name>.*``, changelog producers, deletion vectors), ``scan`` (scan modes, time
  travel, splits), ``lifecycle`` (snapshot/changelog expiry, consumers, tags, partition expiry).
  Adding an option is one declaration there; ``registry`` collects them.
- ``registry``: ``OPTIONS`` (every Paimon table option by key; ``Option.used`` tells whether
  paimon_sql interprets it), ``PATTERNS`` (the families), ``option_def``.
- ``core_options``: ``CoreOptions``, typed access to a table's ``Mapping[str, str]``
  (``options.get(BUCKET)``, or accessors such as ``options.bucket``).
- ``support``: ``NOT_IMPLEMENTED`` and ``IMMUTABLE`` keys.
- ``validation``: ``validate_options`` (clear errors for bad values, warnings for keys Paimon does
  not know), ``check_implemented``.
- ``docs``: ``options_markdown``, the text of ``docs/options.md``.
"""

from __future__ import annotations

from paimon_sql.options.core_options import CoreOptions
from paimon_sql.options.docs import options_markdown
from paimon_sql.options.formats import *  # noqa: F403
from paimon_sql.options.layout import *  # noqa: F403
from paimon_sql.options.lifecycle import *  # noqa: F403
from paimon_sql.options.merge import *  # noqa: F403
from paimon_sql.options.option import Family, Option, kept
from paimon_sql.options.parsing import (
    BOOL,
    DOUBLE,
    DURATION,
    INT,
    INT_MAX,
    INT_MIN,
    LIST,
    LONG,
    LONG_MAX,
    LONG_MIN,
    MEMORY,
    STATS_MODE,
    STRING,
    Kind,
    enum,
    parse_bool,
    parse_double,
    parse_duration_ms,
    parse_enum,
    parse_int,
    parse_list,
    parse_long,
    parse_memory_size,
    parse_stats_mode,
)
from paimon_sql.options.registry import OPTIONS, PATTERNS, is_table_option, option_def
from paimon_sql.options.scan import *  # noqa: F403
from paimon_sql.options.support import IMMUTABLE, NOT_IMPLEMENTED
from paimon_sql.options.validation import (
    DEFAULT_AGG_FIELD,
    FIELDS_PREFIX,
    check_implemented,
    column_reference_errors,
    not_implemented_errors,
    validate_options,
)
from paimon_sql.options.write import *  # noqa: F403

__all__ = [
    "BOOL",
    "DEFAULT_AGG_FIELD",
    "DOUBLE",
    "DURATION",
    "FIELDS_PREFIX",
    "IMMUTABLE",
    "INT",
    "INT_MAX",
    "INT_MIN",
    "LIST",
    "LONG",
    "LONG_MAX",
    "LONG_MIN",
    "MEMORY",
    "NOT_IMPLEMENTED",
    "OPTIONS",
    "PATTERNS",
    "STATS_MODE",
    "STRING",
    "CoreOptions",
    "Family",
    "Kind",
    "Option",
    "check_implemented",
    "column_reference_errors",
    "enum",
    "is_table_option",
    "kept",
    "not_implemented_errors",
    "option_def",
    "options_markdown",
    "parse_bool",
    "parse_double",
    "parse_duration_ms",
    "parse_enum",
    "parse_int",
    "parse_list",
    "parse_long",
    "parse_memory_size",
    "parse_stats_mode",
    "validate_options",
]
