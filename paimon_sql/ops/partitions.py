"""Partitions as units: listing them (``SHOW PARTITIONS``), dropping them (``ALTER TABLE t DROP
PARTITION``, Paimon's ``truncatePartitions``), expiring them (``partition.expiration-time`` after
commits and ``expire_partitions``) and marking them done (``mark_partition_done``).

A drop is one OVERWRITE commit that deletes every live file of the selected partitions (and, as any
overwrite, their index files), computed against the snapshot it lands on: rows a concurrent commit
added to a dropped partition are dropped too, nothing else is touched. Expiry selects partitions as
Paimon's ``PartitionValuesTimeExpireStrategy`` / ``PartitionUpdateTimeExpireStrategy`` do, sorts them
by their values' text, keeps the first ``partition.expiration-max-num`` and drops them in commits of
``partition.expiration-batch-size``.

One deliberate difference: values-time reads a DATE partition by its date (Paimon reads the number
of days and never expires DATE partitions); every value is read in its folder text.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import json
import logging
import random
import re
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from paimon_sql.errors import UnsupportedError, ValidationError
from paimon_sql.format.binary_row import decode_row
from paimon_sql.format.partition_path import escape_path_name, normalize_value_string, partition_value_string
from paimon_sql.meta.file_store import FileStore
from paimon_sql.meta.kinds import CommitKind, FileKind
from paimon_sql.meta.manifest_entry import ManifestEntry
from paimon_sql.meta.snapshot import Snapshot
from paimon_sql.options.lifecycle import (
    END_INPUT_CHECK_PARTITION_EXPIRE,
    PARTITION_EXPIRATION_BATCH_SIZE,
    PARTITION_EXPIRATION_CHECK_INTERVAL,
    PARTITION_EXPIRATION_MAX_NUM,
    PARTITION_EXPIRATION_STRATEGY,
    PARTITION_EXPIRATION_TIME,
    PARTITION_MARK_DONE_ACTION,
    PARTITION_TIMESTAMP_FORMATTER,
    PARTITION_TIMESTAMP_PATTERN,
)
from paimon_sql.write.commit import CommitRequest, FileStoreCommit

_LOG = logging.getLogger(__name__)

SUCCESS_FILE_NAME = "_SUCCESS"


# -- listing -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class PartitionInfo:
    """One partition with files in a snapshot (Paimon's ``PartitionEntry``)."""

    partition: bytes  # the serialised BinaryRow
    values: tuple[Any, ...]  # Python values (None for null)
    spec: dict[str, str]  # column -> folder text of its value (the default name for null)
    record_count: int
    file_size_in_bytes: int
    file_count: int
    last_file_creation_time_ms: int

    @property
    def path(self) -> str:
        """``dt=2024-01-01/hh=3`` (unescaped)."""
        return "/".join(f"{k}={v}" for k, v in self.spec.items())


def partition_spec_of(store: FileStore, partition: bytes) -> tuple[tuple[Any, ...], dict[str, str]]:
    """The Python values of ``partition`` and its column -> folder text spec."""
    types = store.partition_types
    values = tuple(decode_row(partition, types))
    default = store.options.partition_default_name
    spec = {
        f.name: partition_value_string(v, f.type, default, False)
        for f, v in zip(store.partition_fields, values)
    }
    return values, spec


def list_partitions(store: FileStore, snapshot: Snapshot | None = None) -> list[PartitionInfo]:
    """The partitions with live files in ``snapshot`` (default: the latest), sorted by their
    folder text; empty for an unpartitioned table or a table without snapshots."""
    snap = snapshot if snapshot is not None else store.snapshots.latest()
    if snap is None or not store.partition_fields:
        return []
    stats: dict[bytes, list[int]] = {}
    for e in store.manifests.live_entries(snap):
        s = stats.setdefault(e.partition, [0, 0, 0, 0])
        s[0] += e.file.row_count
        s[1] += e.file.file_size
        s[2] += 1
        s[3] = max(s[3], e.file.creation_time_epoch_ms or 0)
    out = []
    for part, (rows, size, files, created) in stats.items():
        values, spec = partition_spec_of(store, part)
        out.append(PartitionInfo(part, values, spec, rows, size, files, created))
    out.sort(key=lambda p: p.path)
    return out


# -- partition specs ---------------------------------------------------------------------------


def check_partition_specs(
    store: FileStore, specs: Sequence[Mapping[str, Any]], what: str, *, full: bool = False
) -> list[dict[str, str]]:
    """``specs`` (column -> value; None for null) as column -> text, checked: the table is
    partitioned, every spec is non-empty and names partition columns only (all of them when
    ``full``). Errors name ``what`` (the operation) and the table."""
    keys = [f.name for f in store.partition_fields]
    if not keys:
        raise ValidationError(f"{what} of table {store.name}: the table is not partitioned")
    if isinstance(specs, Mapping) or not isinstance(specs, Sequence) or not specs:
        raise ValidationError(f"{what} of table {store.name}: expected a non-empty list of partition specs, got {specs!r}")
    default = store.options.partition_default_name
    out = []
    for spec in specs:
        if not isinstance(spec, Mapping) or not spec:
            raise ValidationError(f"{what} of table {store.name}: a partition spec must be a non-empty mapping of "
                                  f"partition column to value, got {spec!r}")
        unknown = [k for k in spec if k not in keys]
        if unknown:
            raise ValidationError(f"{what} of table {store.name}: {unknown[0]!r} is not a partition column "
                                  f"(partition keys: {keys})")
        if full and len(spec) != len(keys):
            raise ValidationError(f"{what} of table {store.name}: partition spec {dict(spec)} must give every "
                                  f"partition column {keys}")
        out.append({k: (default if spec[k] is None else str(spec[k])) for k in keys if k in spec})
    return out


def spec_matcher(store: FileStore, specs: Sequence[Mapping[str, str]]) -> Callable[[bytes], bool]:
    """Whether a partition (BinaryRow) lies in any of ``specs`` (column -> value text, a subset of
    the partition columns); FLOAT, DOUBLE and DECIMAL values compare by value (``12.30`` = ``12.3``)."""
    names = [f.name for f in store.partition_fields]
    types = store.partition_types
    default = store.options.partition_default_name
    wanted = [
        {n: (spec[n] if spec[n] == default else normalize_value_string(spec[n], t))
         for n, t in zip(names, types) if n in spec}
        for spec in specs
    ]
    cache: dict[bytes, bool] = {}

    def matches(partition: bytes) -> bool:
        hit = cache.get(partition)
        if hit is None:
            texts = {
                n: partition_value_string(v, t, default, False)
                for n, v, t in zip(names, decode_row(partition, types), types)
            }
            hit = cache[partition] = any(all(texts[n] == v for n, v in w.items()) for w in wanted)
        return hit

    return matches


# -- dropping ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class DropPartitionsResult:
    snapshot_id: int | None  # the OVERWRITE snapshot (None: nothing matched, or a dry run)
    partitions: list[dict[str, str]]  # the dropped partitions (column -> folder text), sorted
    files: int  # data files the snapshot no longer holds
    rows: int


def deletes_matching(matches: Callable[[bytes], bool]) -> Callable[[FileStore, Snapshot | None], list[ManifestEntry]]:
    """An OVERWRITE's ``deletes_for``: every live file, in the snapshot the commit lands on, of a
    partition ``matches`` accepts."""
    def deletes_for(store: FileStore, latest: Snapshot | None) -> list[ManifestEntry]:
        if latest is None:
            return []
        return [dataclasses.replace(e, kind=FileKind.DELETE)
                for e in store.manifests.live_entries(latest) if matches(e.partition)]

    return deletes_for


def drop_partitions(
    store: FileStore,
    specs: Sequence[Mapping[str, Any]],
    *,
    dry_run: bool = False,
    what: str = "Drop partitions",
    commit_if_empty: bool = False,
    committer: FileStoreCommit | None = None,
) -> DropPartitionsResult:
    """Drops every partition matching one of ``specs`` (a spec may give a prefix or any subset of
    the partition columns) in one OVERWRITE commit; a partition without files is no error (the
    result lists what was dropped). When nothing matches there is no commit, unless
    ``commit_if_empty`` (SQL's ``DROP PARTITION``: Paimon's ``truncatePartitions`` commits an
    OVERWRITE snapshot changing nothing)."""
    checked = check_partition_specs(store, specs, what)
    matches = spec_matcher(store, checked)
    latest = store.snapshots.latest()
    hit = [p for p in list_partitions(store, latest) if matches(p.partition)] if latest is not None else []
    result = DropPartitionsResult(None, [p.spec for p in hit], sum(p.file_count for p in hit),
                                  sum(p.record_count for p in hit))
    if dry_run or not (hit or commit_if_empty):
        return result
    snap = (committer or FileStoreCommit(store)).commit(
        CommitRequest(CommitKind.OVERWRITE, (), deletes_for=deletes_matching(matches)))
    return dataclasses.replace(result, snapshot_id=snap.id)


# -- expiry ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ExpirePartitionsResult:
    partitions: list[dict[str, str]]  # the expired partitions, in Paimon's order
    snapshot_ids: list[int]  # the OVERWRITE snapshots (one per batch; none in a dry run)

    def texts(self) -> list[str]:
        """Each partition as Paimon's procedure prints it: ``pt=2024-06-01, hm=01:00``."""
        return [", ".join(f"{k}={v}" for k, v in p.items()) for p in self.partitions]


_NUMERIC_LETTERS = {"y": "year", "u": "year", "M": "month", "L": "month", "d": "day", "H": "hour",
                    "k": "hour24", "m": "minute", "s": "second", "S": "fraction"}


def _java_pattern_regex(pattern: str) -> tuple[re.Pattern[str], list[str]]:
    """A regex for the numeric subset of Java's ``DateTimeFormatter.ofPattern`` (y/u year, M/L
    month, d, H, k, m, s, S fraction; quoted literals) and the field each group holds."""
    out: list[str] = []
    fields: list[str] = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "'":
            j = pattern.find("'", i + 1)
            if j < 0:
                raise ValidationError(f"unterminated quote in timestamp formatter {pattern!r}")
            lit = pattern[i + 1:j] or "'"
            out.append(re.escape(lit))
            i = j + 1
            continue
        if c.isalpha():
            j = i
            while j < len(pattern) and pattern[j] == c:
                j += 1
            n = j - i
            name = _NUMERIC_LETTERS.get(c)
            if name is None or (name == "month" and n > 2):
                raise ValidationError(
                    f"timestamp formatter {pattern!r}: pattern letters {pattern[i:j]!r} are not supported "
                    "(numeric year, month, day, hour, minute, second and fraction fields are)"
                )
            if name == "year":
                out.append(rf"(\d{{{n},10}})" if n != 2 else r"(\d{2})")
            elif name == "fraction":
                out.append(rf"(\d{{{n}}})")
            else:
                out.append(r"(\d{1,2})" if n == 1 else rf"(\d{{{n}}})")
            fields.append(name if not (name == "year" and n == 2) else "year2")
            i = j
            continue
        out.append(re.escape(c))
        i += 1
    return re.compile("".join(out)), fields


_DEFAULT_TIMESTAMP = re.compile(r"(\d{1,10})-(\d{1,2})-(\d{1,2})(?: (\d{1,2}):(\d{1,2}):(\d{1,2})(?:\.(\d{1,9}))?)?")


def parse_partition_time(text: str, formatter: str | None) -> _dt.datetime | None:
    """The local date-time ``text`` holds as Paimon's ``PartitionTimeExtractor`` reads it (default:
    'yyyy-MM-dd HH:mm:ss[.S]' or 'yyyy-MM-dd'; a date alone is midnight); None when it does not parse."""
    if formatter is None:
        m = _DEFAULT_TIMESTAMP.fullmatch(text)
        if m is None:
            return None
        y, mo, d, h, mi, s, frac = m.groups()
        parts = {"year": int(y), "month": int(mo), "day": int(d), "hour": int(h or 0), "minute": int(mi or 0),
                 "second": int(s or 0), "fraction": frac}
    else:
        rx, fields = _java_pattern_regex(formatter)
        m = rx.fullmatch(text)
        if m is None:
            return None
        parts = {"hour": 0, "minute": 0, "second": 0, "fraction": None}
        for name, value in zip(fields, m.groups()):
            if name == "year2":
                parts["year"] = 2000 + int(value)
            elif name == "fraction":
                parts["fraction"] = value
            elif name == "hour24":
                parts["hour"] = int(value) % 24
            else:
                parts[name] = int(value)
        if not {"year", "month", "day"} <= parts.keys():
            return None  # Java's LocalDate.parse fails without a date
    frac = parts["fraction"]
    micros = int((str(frac) + "000000")[:6]) if frac else 0
    try:
        return _dt.datetime(int(parts["year"]), int(parts["month"]), int(parts["day"]), int(parts["hour"]),
                            int(parts["minute"]), int(parts["second"]), micros)
    except ValueError:
        return None


def _pattern_text(pattern: str | None, names: Sequence[str], values: Sequence[str | None]) -> str | None:
    """The partition's time text: the first value, or ``pattern`` with each ``$column`` replaced
    (longer column names first, so ``$dt`` does not match inside ``$dt1``); None when a value it
    needs is null."""
    if pattern is None:
        return values[0]
    order = sorted(range(len(names)), key=lambda i: -len(names[i]))
    out: list[str] = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "$" and i + 1 < len(pattern):
            for k in order:
                if pattern.startswith(names[k], i + 1):
                    v = values[k]
                    if v is None:
                        return None
                    out.append(v)
                    i += 1 + len(names[k])
                    break
            else:
                out.append(c)
                i += 1
            continue
        out.append(c)
        i += 1
    return "".join(out)


@dataclass(frozen=True)
class ExpireSettings:
    expiration_ms: int
    strategy: str
    formatter: str | None
    pattern: str | None
    max_num: int
    batch_size: int | None

    @staticmethod
    def of(store: FileStore) -> ExpireSettings | None:
        """The table's settings; None when ``partition.expiration-time`` is not set."""
        o = store.options
        expiration = o.get(PARTITION_EXPIRATION_TIME)
        if expiration is None:
            return None
        return ExpireSettings(expiration, o.get(PARTITION_EXPIRATION_STRATEGY), o.get(PARTITION_TIMESTAMP_FORMATTER),
                              o.get(PARTITION_TIMESTAMP_PATTERN), o.get(PARTITION_EXPIRATION_MAX_NUM),
                              o.get(PARTITION_EXPIRATION_BATCH_SIZE))


def expired_partitions(
    store: FileStore, settings: ExpireSettings, now: _dt.datetime | None = None
) -> list[PartitionInfo]:
    """The partitions ``settings`` expire at ``now`` (local time), in Paimon's order (by their
    values joined with ','), at most ``max_num``."""
    now = now if now is not None else _dt.datetime.now()
    cutoff = now - _dt.timedelta(milliseconds=settings.expiration_ms)
    names = [f.name for f in store.partition_fields]
    default = store.options.partition_default_name
    if settings.formatter is not None:
        _java_pattern_regex(settings.formatter)  # a bad formatter is an error, not "nothing expired"
    picked = []
    for p in list_partitions(store):
        if settings.strategy == "update-time":
            cutoff_ms = int(cutoff.timestamp() * 1000)
            if cutoff_ms > p.last_file_creation_time_ms:
                picked.append(p)
            continue
        texts = [None if v is None else p.spec[n] for n, v in zip(names, p.values)]
        text = _pattern_text(settings.pattern, names, texts)
        when = parse_partition_time(text, settings.formatter) if text is not None else None
        if when is None:
            _LOG.warning(
                "Cannot read a time from partition %s of table %s (partition.timestamp-pattern %r, "
                "partition.timestamp-formatter %r): it does not expire; drop it by hand or use the "
                "'update-time' partition.expiration-strategy", p.spec, store.name, settings.pattern,
                settings.formatter,
            )
            continue
        if cutoff > when:
            picked.append(p)
    picked.sort(key=lambda p: ",".join(v if v is not None else default for v in p.spec.values()))
    return picked[: settings.max_num]


def expire_partitions(
    store: FileStore, settings: ExpireSettings | None = None, *, now: _dt.datetime | None = None,
    dry_run: bool = False, committer: FileStoreCommit | None = None,
) -> ExpirePartitionsResult:
    """Drops the partitions ``settings`` (default: the table's options) expire; one OVERWRITE
    commit per ``batch_size`` partitions."""
    if not store.partition_fields:
        raise ValidationError(
            f"Expire partitions of table {store.name}: the table is not partitioned (both the partition "
            "expiration time and partition field can not be null)"
        )
    settings = settings if settings is not None else ExpireSettings.of(store)
    if settings is None:
        raise ValidationError(
            f"Expire partitions of table {store.name}: no expiration time (set 'partition.expiration-time' "
            "or pass expiration_time)"
        )
    expired = expired_partitions(store, settings, now)
    specs = [p.spec for p in expired]
    if dry_run or not expired:
        return ExpirePartitionsResult(specs, [])
    size = settings.batch_size or len(expired)
    ids = []
    committer = committer or FileStoreCommit(store)
    for i in range(0, len(expired), size):
        batch = {p.partition for p in expired[i:i + size]}
        snap = committer.commit(CommitRequest(CommitKind.OVERWRITE, (), deletes_for=deletes_matching(batch.__contains__)))
        ids.append(snap.id)
    _LOG.info("Expired partitions of table %s: %s", store.name, specs)
    return ExpirePartitionsResult(specs, ids)


@dataclass
class PartitionCheckClock:
    """When a committer last checked its table's partitions for expiry (None: not yet)."""

    last: float | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)


def expire_partitions_after_commit(store: FileStore, clock: PartitionCheckClock | None = None) -> None:
    """Partition expiry after a commit (Paimon's ``PartitionExpire.expire`` from the committer):
    with ``partition.expiration-time`` set, after every commit when
    ``end-input.check-partition-expire`` is true (our commits are batch commits, which end their
    input) or ``partition.expiration-check-interval`` is 0, else at most once per interval per
    process and table, the first time a random part of the interval after the process first
    committed to the table (Paimon's writers start their clock that way). ``clock``: the table
    committer's (its ``TableMaintenance``); without one, the interval is not applied."""
    settings = ExpireSettings.of(store)
    if settings is None or not store.partition_fields:
        return
    o = store.options
    interval_s = o.get(PARTITION_EXPIRATION_CHECK_INTERVAL) / 1000
    now = time.time()
    if not o.get(END_INPUT_CHECK_PARTITION_EXPIRE) and interval_s > 0 and clock is not None:
        with clock.lock:
            last = clock.last
            if last is None:
                last = clock.last = now - random.uniform(0, interval_s)
            if now <= last + interval_s:
                return
            clock.last = now
    expire_partitions(store, settings)


# -- mark done ---------------------------------------------------------------------------------


def success_file_json(creation_ms: int, modification_ms: int) -> str:
    """A ``_SUCCESS`` file as Paimon's ``SuccessFile.toJson`` writes it."""
    return json.dumps({"creationTime": creation_ms, "modificationTime": modification_ms}, indent=2,
                      separators=(",", " : "))


def mark_partitions_done(store: FileStore, specs: Sequence[Mapping[str, Any]], now_ms: int | None = None) -> list[str]:
    """Runs the table's ``partition.mark-done-action`` for each full partition spec: 'success-file'
    writes (or refreshes the modification time of) ``<partition>/_SUCCESS``; returns the partition
    paths. The other actions need a metastore or a custom class: UnsupportedError, nothing done."""
    actions = [a.strip() for a in store.options.get(PARTITION_MARK_DONE_ACTION).split(",") if a.strip()]
    others = [a for a in actions if a != "success-file"]
    if others:
        raise UnsupportedError(
            f"Mark partition done of table {store.name}: 'partition.mark-done-action' {others} is not supported "
            "(a filesystem catalog has no metastore for done-partition / mark-event; http-report and custom "
            "actions are not implemented); 'success-file' is"
        )
    checked = check_partition_specs(store, specs, "Mark partition done", full=True)
    paths = ["/".join(f"{escape_path_name(k)}={escape_path_name(v)}" for k, v in spec.items()) for spec in checked]
    now = now_ms if now_ms is not None else int(time.time() * 1000)
    for rel in paths:
        target = f"{store.path.rstrip('/')}/{rel}/{SUCCESS_FILE_NAME}"
        creation = now
        if store.file_io.exists(target):
            try:
                creation = int(json.loads(store.file_io.read_text(target))["creationTime"])
            except (ValueError, KeyError, TypeError) as e:
                raise ValidationError(f"Mark partition done of table {store.name}: {target} is not a success file: {e}") from e
        store.file_io.overwrite_atomic(target, success_file_json(creation, now).encode("utf-8"))
    return paths
