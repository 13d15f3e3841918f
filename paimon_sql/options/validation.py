"""Validation of a table's options: bad values, rules between options, column references,
options paimon_sql does not apply, unknown keys."""

from __future__ import annotations

import contextlib
import difflib
from collections.abc import Mapping, Sequence

from paimon_sql.errors import UnsupportedError, ValidationError
from paimon_sql.names import check_name
from paimon_sql.options.core_options import CoreOptions, invalid_message, where_suffix
from paimon_sql.options.formats import FILE_FORMAT, FILE_FORMATS
from paimon_sql.options.layout import TYPE
from paimon_sql.options.lifecycle import (
    TAG_AUTOMATIC_CREATION,
    TAG_CREATION_DELAY,
    TAG_CREATION_PERIOD,
    TAG_CREATION_PERIOD_DURATION,
)
from paimon_sql.options.merge import PK_CLUSTERING_OVERRIDE
from paimon_sql.options.registry import OPTIONS, option_def
from paimon_sql.options.support import NOT_IMPLEMENTED, NOT_IMPLEMENTED_VALUES


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
        with contextlib.suppress(ValidationError):  # a bad 'type' is reported by the key loop below
            table_type = TYPE.parse(type_value)
    for key, value in options.items():
        if not isinstance(value, str):
            errors.append(
                f"Invalid value {value!r} ({type(value).__name__}) for option {key!r}{where_suffix(where)}: "
                "option values must be strings"
            )
            continue
        d = option_def(key)
        if d is None:
            warnings.append(_unknown_warning(key, where))
            continue
        try:
            v = d.parse(value)
        except ValidationError as e:
            errors.append(invalid_message(key, value, where, str(e)))
            continue
        if d is FILE_FORMAT and table_type == "table" and v.lower() not in FILE_FORMATS:
            errors.append(invalid_message(key, value, where, "expected one of: " + ", ".join(FILE_FORMATS)))
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
    cols, of, errors = set(columns), where_suffix(where), []

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


def _is_default(key: str, value: str) -> bool:
    """Whether ``value`` is the default of option ``key`` (a value that does not parse is not)."""
    d = option_def(key)
    if d is None or d.default is None:
        return False
    try:
        return bool(d.parse(str(value)) == d.default_value)
    except ValidationError:
        return False


def not_implemented_errors(options: Mapping[str, str], where: str) -> list[str]:
    """One message per option of ``options`` that paimon_sql does not apply and that is set to
    anything but its default (``NOT_IMPLEMENTED``)."""
    errors = []
    for key, value in options.items():
        reason = NOT_IMPLEMENTED.get(key)
        if reason is None:
            refused = NOT_IMPLEMENTED_VALUES.get(key)
            reason = refused.get(str(value).strip().lower()) if refused else None
        if reason is None:
            continue
        if _is_default(key, value):
            continue
        errors.append(f"Option {key!r} = {value!r}{where_suffix(where)} is not supported: {reason}")
    return errors


def check_implemented(options: Mapping[str, str], where: str) -> None:
    """Raises an UnsupportedError naming every option of ``options`` that would not be applied."""
    errors = not_implemented_errors(options, where)
    if errors:
        raise UnsupportedError("\n".join(errors))


def _unknown_warning(key: str, where: str) -> str:
    msg = f"Unknown option {key!r}{where_suffix(where)}: kept, but neither Paimon nor paimon_sql knows it"
    close = difflib.get_close_matches(key, list(OPTIONS), n=1, cutoff=0.8)
    if close:
        msg += f" (did you mean {close[0]!r}?)"
    return msg


def _cross_checks(o: CoreOptions, where: str, primary_keys: Sequence[str] | None) -> list[str]:
    errors: list[str] = []
    of = where_suffix(where)
    for key in ("branch", "scan.fallback-branch"):  # branch names become folder names
        if key in o:
            try:
                check_name("branch", o[key])
            except ValidationError as e:
                errors.append(f"Invalid value {o[key]!r} for option {key!r}{of}: {e}")
    try:  # data file locations: a relative folder, local external roots (UnsupportedError otherwise)
        o.data_file_path_directory(where)
        o.external_path_provider(where)
    except ValidationError as e:
        errors.append(str(e))
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
    if o.get(TAG_AUTOMATIC_CREATION) in ("process-time", "watermark"):
        period_ms = o.get(TAG_CREATION_PERIOD_DURATION) or {
            "daily": 86_400_000, "hourly": 3_600_000, "two-hours": 7_200_000}[o.get(TAG_CREATION_PERIOD)]
        if o.get(TAG_CREATION_DELAY) >= period_ms:
            errors.append(
                f"Option 'tag.creation-delay' = {o.get(TAG_CREATION_DELAY)} ms{of} must be shorter than one "
                f"automatic tag period ({period_ms} ms)"
            )
    producer = o.changelog_producer
    mode = o.get("lookup-compact")
    if mode is not None and str(mode).strip().lower() not in LOOKUP_COMPACT_MODES:
        errors.append(
            f"Option 'lookup-compact' = {mode!r}{of}: must be one of {', '.join(LOOKUP_COMPACT_MODES)} "
            "(case-insensitive)"
        )
    interval = o.get("lookup-compact.max-interval")
    if interval is not None and interval < 1:
        errors.append(f"Option 'lookup-compact.max-interval' = {interval}{of} must be at least 1")
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
        if o.merge_engine == "first-row" and not o.get(PK_CLUSTERING_OVERRIDE):
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


LOOKUP_COMPACT_MODES = ("radical", "gentle")


def lookup_compact_max_interval(options: CoreOptions, where: str) -> int | None:
    """With ``lookup-compact`` = gentle, every how many compaction picks level 0 is forced up
    (Paimon's lookupCompactMaxInterval: ``lookup-compact.max-interval``, by default twice
    ``num-sorted-run.compaction-trigger``, never less than it); None with radical (every pick)."""
    mode = str(options.get("lookup-compact") or "radical").strip().lower()
    if mode not in LOOKUP_COMPACT_MODES:
        raise ValidationError(
            f"Option 'lookup-compact' = {mode!r}{where_suffix(where)}: must be one of "
            f"{', '.join(LOOKUP_COMPACT_MODES)}"
        )
    if mode == "radical":
        return None
    trigger = options.num_sorted_run_compaction_trigger
    interval = options.get("lookup-compact.max-interval")
    return max(trigger, trigger * 2 if interval is None else int(interval))


def check_full_compaction_delta_commits(options: CoreOptions, has_primary_key: bool, where: str) -> None:
    """``full-compaction.delta-commits`` on the tables that can have it (Paimon's SchemaValidation:
    not on a bucket-unaware append table, not with changelog-producer lookup); paimon_sql applies it
    to primary-key tables only (its append writers do not compact)."""
    delta = options.full_compaction_delta_commits
    if delta is None:
        return
    of = where_suffix(where)
    if not has_primary_key and options.bucket == -1:
        raise ValidationError(
            f"Option 'full-compaction.delta-commits'{of}: an append table of unaware or dynamic bucket "
            "does not support 'full-compaction.delta-commits'"
        )
    if options.changelog_producer == "lookup":
        raise UnsupportedError(
            f"Option 'full-compaction.delta-commits'{of} is incompatible with 'changelog-producer'='lookup'. "
            "Use 'changelog-producer'='full-compaction' to get periodic full compaction with changelog "
            "generation, or remove 'full-compaction.delta-commits'."
        )
    if not has_primary_key and delta > 0 and not options.write_only:
        raise UnsupportedError(
            f"Option 'full-compaction.delta-commits' = {delta}{of} is not supported on append tables yet "
            "(paimon_sql's append writers do not compact; primary-key tables are supported)"
        )
