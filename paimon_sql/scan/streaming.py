"""A streaming scan of a table (Paimon's ``DataTableStreamScan`` as its Spark source drives it).

A stream starts where ``scan.mode`` says (Paimon's starting scanners, ``CoreOptions.startupMode``):

- ``latest-full`` (what ``default`` resolves to without other scan options) and ``full``: every row of
  the latest snapshot, then each later snapshot's changes;
- ``latest``: the changes of the latest snapshot on (Paimon's Spark source starts at the latest
  snapshot itself: ``ContinuousLatestStartingScanner``'s starting context);
- ``from-snapshot`` (``default`` with ``scan.snapshot-id``): the changes of that snapshot on;
- ``from-snapshot-full``: every row of that snapshot, then the later changes;
- ``from-timestamp`` (``default`` with ``scan.timestamp-millis`` / ``scan.timestamp``): the changes
  of the first snapshot committed at or after the time on;
- ``compacted-full``: every row of the latest COMPACT snapshot (with ``changelog-producer`` =
  ``full-compaction`` or ``full-compaction.delta-commits``: the latest full compaction), then the
  later changes;
- ``from-file-creation-time`` (``default`` with ``scan.file-creation-time-millis``): the rows of the
  latest snapshot's files created at or after that time (Paimon's imprecise file filter), then the
  later changes.

With ``consumer-id`` (and not ``consumer.ignore-progress``) an existing consumer's ``nextSnapshot``
is the start. A full scan of a ``lookup`` table reads levels above 0 only, of a
``full-compaction`` table the highest level only (what the producer has already turned into
changelog). The changes of a snapshot (Paimon's follow-up scanners): without a changelog producer
the files APPEND snapshots add (COMPACT snapshots are skipped: they change no row); with one, the
changelog files of every snapshot that has a changelog manifest list. OVERWRITE snapshots are
skipped unless ``streaming-read-overwrite`` (append tables: the files they add; primary-key
tables: -D of every row of the files they removed, then the rows they wrote; refused with the
``lookup`` and ``full-compaction`` producers, as Paimon does). ``streaming.read.snapshot.delay``:
a later snapshot is read once it is that old (the stream waits). ``scan.bounded.watermark``: the
stream ends before the first later snapshot whose watermark is past the bound (after the full
phase when the starting snapshot's is): nothing more is read (a Spark query then idles, and
``Trigger.AvailableNow`` ends; Paimon's own Spark source fails with its EndOfScanException).

Positions are :class:`StreamOffset` values (Paimon's ``PaimonSourceOffset``: snapshot id, index of
the last split read inside it, whether that snapshot is read in full, and its split count), JSON
objects with Paimon's field names. A batch is the splits in ``(start, end]``; each snapshot's splits
are ordered by partition path and bucket, as Paimon orders them. :class:`ReadLimits` caps a batch
(``read.stream.maxFilesPerTrigger`` counts splits, ``maxBytesPerTrigger`` / ``maxRowsPerTrigger``
their files' sizes and row counts, ``minRowsPerTrigger`` + ``maxTriggerDelayMs`` hold a batch back
until enough rows or time), exactly as Paimon's ``PaimonReadLimitGuard`` admits splits.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from paimon_sql.errors import NotFoundError, PaimonError, UnsupportedError, ValidationError
from paimon_sql.format.partition_path import partition_path
from paimon_sql.lsm.merge import KIND, SEQ
from paimon_sql.meta.consumer_manager import Consumer, ConsumerManager
from paimon_sql.meta.file_store import FileStore
from paimon_sql.meta.kinds import FileKind
from paimon_sql.meta.snapshot import Snapshot
from paimon_sql.meta.travel import TIMESTAMP, TRAVEL_OPTIONS, TimeTravel
from paimon_sql.predicate import Predicate
from paimon_sql.scan.changes import changelog_splits, delta_entries, delta_splits, entry_splits
from paimon_sql.scan.planner import created_since, plan, with_files
from paimon_sql.scan.reader import read_split
from paimon_sql.scan.split import DataSplit
from paimon_sql.types import DataField

_LOG = logging.getLogger(__name__)

ROW_KINDS = ("+I", "-U", "+U", "-D")  # by _VALUE_KIND byte
ROWKIND_COLUMN = "rowkind"  # Paimon's audit-log column (read.changelog)

OPT_MAX_FILES = "read.stream.maxFilesPerTrigger"
OPT_MAX_BYTES = "read.stream.maxBytesPerTrigger"
OPT_MAX_ROWS = "read.stream.maxRowsPerTrigger"
OPT_MIN_ROWS = "read.stream.minRowsPerTrigger"
OPT_MAX_DELAY = "read.stream.maxTriggerDelayMs"
READ_LIMIT_OPTIONS = (OPT_MAX_FILES, OPT_MAX_BYTES, OPT_MAX_ROWS, OPT_MIN_ROWS, OPT_MAX_DELAY)


class SnapshotExpiredError(NotFoundError):
    """The snapshot a running stream reads next has been expired."""


# ----------------------------------------------------------------------------------------------
# Offsets
# ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class StreamOffset:
    """Paimon's ``PaimonSourceOffset``: ``index`` is the last split read of snapshot
    ``snapshot_id`` (-1: none yet); ``scan_snapshot``: that snapshot is read in full (the first,
    full phase), not its changes; ``total_splits``: how many splits the snapshot has (None when
    unknown, e.g. an initial offset)."""

    snapshot_id: int
    index: int
    scan_snapshot: bool
    total_splits: int | None = None

    INIT_INDEX = -1

    @property
    def snapshot_completed(self) -> bool:
        return self.total_splits is not None and self.index == self.total_splits - 1

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"snapshotId": self.snapshot_id, "index": self.index, "scanSnapshot": self.scan_snapshot}
        if self.total_splits is not None:
            out["totalSplits"] = self.total_splits
        return out

    @staticmethod
    def from_json(obj: Mapping[str, Any]) -> StreamOffset:
        try:
            sid, idx, full = obj["snapshotId"], obj["index"], obj["scanSnapshot"]
            total = obj.get("totalSplits")
            if isinstance(sid, bool) or not isinstance(sid, int) or isinstance(idx, bool) or not isinstance(idx, int):
                raise TypeError("snapshotId and index must be integers")
            if not isinstance(full, bool):
                raise TypeError("scanSnapshot must be a boolean")
            if total is not None and (isinstance(total, bool) or not isinstance(total, int) or total <= 0):
                raise TypeError("totalSplits must be a positive integer")
        except (KeyError, TypeError, AttributeError) as e:
            raise ValidationError(f"Not a Paimon stream offset: {obj!r} ({e})") from None
        return StreamOffset(sid, idx, full, total)

    def key(self) -> tuple[int, int]:
        return (self.snapshot_id, self.index)


@dataclass(frozen=True)
class IndexedSplit:
    """One split of a snapshot's plan and its position in it (Paimon's ``IndexedDataSplit``)."""

    snapshot_id: int
    index: int
    total: int
    scan_snapshot: bool
    split: DataSplit

    def after(self, start: StreamOffset) -> bool:
        return self.snapshot_id > start.snapshot_id or (
            self.snapshot_id == start.snapshot_id and self.index > start.index)

    def at_or_before(self, end: StreamOffset) -> bool:
        return self.snapshot_id < end.snapshot_id or (
            self.snapshot_id == end.snapshot_id and self.index <= end.index)


# ----------------------------------------------------------------------------------------------
# Read limits
# ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ReadLimits:
    """The read limits of a stream (Paimon's Spark options ``read.stream.*``)."""

    max_files: int | None = None
    max_bytes: int | None = None
    max_rows: int | None = None
    min_rows: int | None = None
    max_delay_ms: int | None = None

    @staticmethod
    def of(options: Mapping[str, str]) -> ReadLimits:
        """The limits among ``options`` (keys compared case-insensitively); a bad number or only
        one of ``minRowsPerTrigger`` / ``maxTriggerDelayMs`` is refused."""
        lowered = {str(k).lower(): str(v) for k, v in options.items()}
        vals: dict[str, int | None] = {}
        for key in READ_LIMIT_OPTIONS:
            raw = lowered.get(key.lower())
            if raw is None or raw.strip() == "":
                vals[key] = None
                continue
            try:
                v = int(raw.strip())
            except ValueError:
                raise ValidationError(f"Option {key!r} must be an integer, got {raw!r}") from None
            if v < 0 or (v == 0 and key != OPT_MAX_DELAY and key != OPT_MIN_ROWS):
                raise ValidationError(f"Option {key!r} must be positive, got {raw!r}")
            vals[key] = v
        if (vals[OPT_MIN_ROWS] is None) != (vals[OPT_MAX_DELAY] is None):
            raise ValidationError(
                f"Can't provide only one of {OPT_MIN_ROWS} and {OPT_MAX_DELAY}."
            )
        return ReadLimits(vals[OPT_MAX_FILES], vals[OPT_MAX_BYTES], vals[OPT_MAX_ROWS],
                          vals[OPT_MIN_ROWS], vals[OPT_MAX_DELAY])

    @property
    def unlimited(self) -> bool:
        return all(v is None for v in (self.max_files, self.max_bytes, self.max_rows, self.min_rows))


class _LimitGuard:
    """Admits splits in order while the batch has capacity (Paimon's ``PaimonReadLimitGuard``: a
    split is admitted while the counts *before* it are under every maximum, so a batch always
    takes at least one split); ``skip_batch``: fewer than ``min_rows`` rows and the last batch
    was less than ``max_delay_ms`` ago."""

    def __init__(self, limits: ReadLimits, last_trigger_ms: int) -> None:
        self.limits = limits
        self.files = self.bytes = self.rows = 0
        self.has_capacity = True
        self.may_skip = (limits.min_rows is not None and limits.max_delay_ms is not None
                         and _now_ms() - last_trigger_ms <= limits.max_delay_ms)

    def admit(self, split: DataSplit) -> bool:
        if not self.has_capacity:
            return False
        lim = self.limits
        self.has_capacity = (
            (lim.max_files is None or self.files < lim.max_files)
            and (lim.max_rows is None or self.rows < lim.max_rows)
            and (lim.max_bytes is None or self.bytes < lim.max_bytes)
        )
        self.files += 1
        self.rows += sum(f.row_count for f in split.files)
        self.bytes += sum(f.file_size for f in split.files)
        if self.may_skip:
            self.may_skip = lim.min_rows is not None and self.rows < lim.min_rows
        return self.has_capacity


def _now_ms() -> int:
    return int(time.time() * 1000)


# ----------------------------------------------------------------------------------------------
# The stream scan
# ----------------------------------------------------------------------------------------------


def startup_mode(store: FileStore) -> str:
    """``scan.mode`` as Paimon resolves it (``CoreOptions.startupMode``)."""
    o = store.options
    mode = str(o.scan_mode)
    if mode == "default":
        if o.scan_timestamp_millis is not None or o.get(TIMESTAMP) is not None:
            return "from-timestamp"
        if any(o.get(k) is not None for k in ("scan.snapshot-id", "scan.tag-name", "scan.watermark",
                                               "scan.version")):
            return "from-snapshot"
        if o.get("scan.file-creation-time-millis") is not None:
            return "from-file-creation-time"
        if o.get("scan.creation-time-millis") is not None:
            return "from-creation-timestamp"
        if o.get("incremental-between") is not None or o.get("incremental-between-timestamp") is not None:
            return "incremental"
        return "latest-full"
    if mode == "full":
        return "latest-full"
    return mode


class StreamScan:
    """A streaming read of ``store`` (see the module's documentation). ``store`` carries the
    read's options (the table's plus the query's dynamic ones)."""

    def __init__(self, store: FileStore, predicate: Predicate | None = None) -> None:
        self.store = store
        self.predicate = predicate
        self.mode = startup_mode(store)
        producer = str(store.options.changelog_producer)
        self.producer = producer
        self.changelog_mode = producer != "none"
        self.consumer_id: str | None = store.options.get("consumer-id")
        o = store.options
        bound = o.get("scan.bounded.watermark")
        self.bounded_watermark: int | None = None if bound is None else int(bound)
        delay = o.get("streaming.read.snapshot.delay")
        self.delay_ms: int | None = None if delay is None else int(delay)
        created = o.get("scan.file-creation-time-millis")
        self.file_creation_ms: int | None = None if created is None else int(created)
        self._check_mode()

    # -- where a stream starts ---------------------------------------------------------------------
    def _check_mode(self) -> None:
        o, name = self.store.options, self.store.name
        # at most one starting point (Paimon's SchemaValidation of the scan options)
        TimeTravel.of_options({k: str(v) for k, v in o.raw.items() if k in TRAVEL_OPTIONS}, self.store)
        if self.mode == "incremental":
            raise UnsupportedError(f"Cannot read incremental in streaming mode. (table {name}: option 'scan.mode')")
        if self.mode == "from-snapshot" and o.scan_snapshot_id is None:
            if o.get("scan.watermark") is not None:
                raise UnsupportedError(f"Cannot scan from watermark in streaming mode. (table {name}: "
                                       "option 'scan.watermark')")
            if o.scan_tag_name is not None:
                raise UnsupportedError(f"Cannot scan from tag in streaming mode. (table {name}: option 'scan.tag-name')")
            raise UnsupportedError(f"Unknown snapshot read mode: table {name}, scan.mode 'from-snapshot' needs "
                                   "'scan.snapshot-id' in streaming mode")
        if self.mode == "from-snapshot-full" and o.scan_snapshot_id is None:
            raise ValidationError(f"scan.snapshot-id must be set when startupMode is FROM_SNAPSHOT_FULL. (table {name})")
        if self.mode == "from-timestamp" and o.scan_timestamp_millis is None and o.get(TIMESTAMP) is None:
            raise ValidationError(f"Table {name}: scan.mode 'from-timestamp' needs 'scan.timestamp-millis' "
                                  "or 'scan.timestamp'")
        if self.mode == "from-file-creation-time" and o.get("scan.file-creation-time-millis") is None:
            raise ValidationError(f"Table {name}: scan.mode 'from-file-creation-time' needs "
                                  "'scan.file-creation-time-millis'")
        if o.get("streaming-read-overwrite") and self.producer in ("lookup", "full-compaction"):
            # Paimon's SchemaValidation
            raise UnsupportedError(
                "Cannot set streaming-read-overwrite to true when changelog producer is full-compaction or lookup "
                f"because it will read duplicated changes. (table {name})")
        if self.mode in ("from-creation-timestamp", "latest-delta"):
            raise UnsupportedError(f"Table {name}: option 'scan.mode' = {self.mode!r} is not supported by "
                                   "paimon_sql's streaming read yet")
        if self.mode not in ("latest-full", "latest", "from-snapshot", "from-snapshot-full", "from-timestamp",
                             "compacted-full", "from-file-creation-time"):
            raise UnsupportedError(f"Table {name}: option 'scan.mode' = {self.mode!r} cannot start a stream")

    def starting_context(self) -> tuple[int, bool]:
        """(snapshot id, whether it is read in full) where a new stream starts (Paimon's
        ``StartingContext``; (1, False) when there is nothing yet)."""
        snaps = self.store.snapshots
        o = self.store.options
        if self.consumer_id and not o.get("consumer.ignore-progress"):
            consumer = ConsumerManager.of(self.store).consumer(self.consumer_id)
            if consumer is not None:
                return consumer.next_snapshot, False
        mode = self.mode
        latest = snaps.latest_id()
        if mode in ("latest-full", "from-file-creation-time"):
            return (latest, True) if latest is not None else (1, False)
        if mode == "latest":
            return (latest, False) if latest is not None else (1, False)
        if mode in ("from-snapshot", "from-snapshot-full"):
            assert o.scan_snapshot_id is not None  # _check_mode
            return int(o.scan_snapshot_id), mode == "from-snapshot-full"
        if mode == "from-timestamp":
            ts = o.scan_timestamp_millis
            if ts is None:
                ts = TimeTravel.of_options({TIMESTAMP: str(o.get(TIMESTAMP))}, self.store).timestamp_ms
            assert ts is not None  # _check_mode
            before = self._earlier_than(int(ts))
            return (before + 1, False) if before is not None else (1, False)
        # compacted-full
        picked = self._pick_compacted()
        return (picked, True) if picked is not None else (1, False)

    def _earlier_than(self, ts: int) -> int | None:
        """The last snapshot committed before ``ts`` (earliest - 1 when none is; Paimon's
        ``TimeTravelUtil.earlierThanTimeMills``)."""
        snaps = self.store.snapshots
        latest = snaps.latest_id()
        if latest is None:
            return None
        earliest = self.earliest_readable()
        first = self._snapshot(earliest)
        if first is None or first.time_millis >= ts:
            return earliest - 1
        lo, hi = earliest, latest
        while lo < hi:
            mid = (lo + hi + 1) // 2
            s = self._snapshot(mid)
            if s is not None and s.time_millis < ts:
                lo = mid
            else:
                hi = mid - 1
        return lo

    def _pick_compacted(self) -> int | None:
        o = self.store.options
        full = self.producer == "full-compaction" or o.get("full-compaction.delta-commits") is not None
        delta = int(o.get("full-compaction.delta-commits") or 1)
        snaps = self.store.snapshots
        latest, earliest = snaps.latest_id(), snaps.earliest_id()
        if latest is None or earliest is None:
            return None
        for sid in range(latest, earliest - 1, -1):
            if not snaps.exists(sid):
                break
            s = snaps.snapshot(sid)
            if s.commit_kind == "COMPACT" and (not full or s.commit_identifier % delta == 0
                                                or s.commit_identifier == (1 << 63) - 1):
                return sid
        return latest

    def earliest_readable(self, scan_snapshot: bool = False) -> int:
        """The earliest snapshot (or, with a decoupled changelog lifecycle and a changes read, the
        earliest long-lived changelog) a stream can read; 0 when there is none."""
        if not scan_snapshot and self._decoupled():
            ids = self.store.changelogs.ids()
            if ids:
                return ids[0]
        return self.store.snapshots.earliest_id() or 0

    def _decoupled(self) -> bool:
        """Whether changelogs outlive snapshots (``CoreOptions.changelogLifecycleDecoupled``)."""
        o = self.store.options
        return (o.changelog_num_retained_max > o.snapshot_num_retained_max
                or o.changelog_time_retained_ms > o.snapshot_time_retained_ms
                or o.changelog_num_retained_min > o.snapshot_num_retained_min)

    def initial_offset(self) -> StreamOffset:
        """Where a new stream (no checkpoint) starts (Paimon's ``initOffset``): the starting
        snapshot, moved up to the earliest readable one (then read as changes) when it expired."""
        sid, full = self.starting_context()
        init = max(self.earliest_readable(full), sid)
        return StreamOffset(init, StreamOffset.INIT_INDEX, full if init == sid else False)

    def normalize_start(self, start: StreamOffset) -> StreamOffset:
        """A checkpointed start, or the initial offset when what it resumes from has expired
        (Paimon's ``normalizeStartOffset``: a restarted ``latest-full`` stream resumes from its
        offset and does not scan the table again, Paimon bug #8205)."""
        resume = start.snapshot_id + 1 if start.snapshot_completed else start.snapshot_id
        full = not start.snapshot_completed and start.scan_snapshot
        if resume < self.earliest_readable(full):
            _LOG.warning("Stream offset %s of table %s is no longer available (earliest readable: %s); "
                         "starting again from %s", start, self.store.name, self.earliest_readable(full),
                         self.initial_offset())
            return self.initial_offset()
        return start

    # -- planning --------------------------------------------------------------------------------
    def _snapshot(self, sid: int) -> Snapshot | None:
        snaps = self.store.snapshots
        with contextlib.suppress(NotFoundError):  # expired: a decoupled changelog may remain
            return snaps.snapshot(sid)
        if self._decoupled():
            return self.store.changelogs.try_changelog(sid)
        return None

    def _sorted(self, splits: Sequence[DataSplit]) -> list[DataSplit]:
        names = [f.name for f in self.store.partition_fields]
        types = self.store.partition_types
        o = self.store.options

        def key(s: DataSplit) -> tuple[str, int]:
            path = partition_path(names, list(s.partition_values), types, o.partition_default_name,
                                  o.partition_legacy_name) if names else ""
            return (path, s.bucket)

        return sorted(splits, key=key)

    def full_splits(self, snapshot: Snapshot) -> list[DataSplit]:
        """Every live file of ``snapshot`` (a full phase), merged by key; ``lookup`` tables read
        levels above 0, ``full-compaction`` tables their highest level only."""
        splits = plan(self.store, snapshot, self.predicate)
        if self.mode == "from-file-creation-time":
            # Paimon's FileCreationTimeStartingScanner: files created at or after the time only
            splits = created_since(splits, self.file_creation_ms)
        if self.store.has_primary_key and self.producer in ("lookup", "full-compaction"):
            top = self.store.options.num_levels - 1
            keep = (lambda lvl: lvl > 0) if self.producer == "lookup" else (lambda lvl: lvl == top)
            out = []
            for s in splits:
                files = tuple(f for f in s.files if keep(f.level))
                if files:
                    out.append(with_files(s, files))
            splits = out
        return self._sorted(splits)

    def change_splits(self, snapshot: Snapshot) -> list[DataSplit] | None:
        """The changes ``snapshot`` holds for a stream; None when the stream skips it."""
        if snapshot.commit_kind == "OVERWRITE":
            if not self.store.options.get("streaming-read-overwrite"):
                return None
            if self.store.has_primary_key:
                return self._sorted(overwrite_splits(self.store, snapshot, self.predicate))
            return self._sorted(delta_splits(self.store, snapshot, self.predicate))
        if self.changelog_mode:
            if not snapshot.changelog_manifest_list:
                return None
            return self._sorted(changelog_splits(self.store, snapshot, self.predicate))
        if snapshot.commit_kind != "APPEND":
            return None
        return self._sorted(delta_splits(self.store, snapshot, self.predicate))

    def _check_not_expired(self, sid: int) -> None:
        snaps = self.store.snapshots
        earliest, latest = snaps.earliest_id(), snaps.latest_id()
        if earliest is not None and sid < earliest and not self._decoupled():
            raise SnapshotExpiredError(
                f"The wanted read snapshot with id {sid} of table {self.store.name} has expired "
                f"(earliest snapshot {earliest}, latest {latest}). You can: 1. increase the snapshot or changelog "
                "expiration time. 2. use consumer-id to ensure that unconsumed snapshots will not be expired."
            )
        if latest is not None and sid > latest + 1:
            raise NotFoundError(
                f"The next expected snapshot is too big! Most possible cause might be the table had been recreated."
                f"The next snapshot id is {sid}, while the latest snapshot id is {latest} (table {self.store.name})"
            )

    def batch(
        self, start: StreamOffset, end: StreamOffset | None = None, limits: ReadLimits | None = None,
        last_trigger_ms: int = 0, max_snapshot: int | None = None,
    ) -> list[IndexedSplit]:
        """The splits after ``start`` (and at or before ``end``), admitted by ``limits``, of
        snapshots up to ``max_snapshot`` (Paimon's ``StreamHelper.getBatch``)."""
        if start.snapshot_completed:
            next_id, full = start.snapshot_id + 1, False
        else:
            next_id, full = start.snapshot_id, start.scan_snapshot
        guard = _LimitGuard(limits, last_trigger_ms) if limits is not None and not limits.unlimited else None
        out: list[IndexedSplit] = []
        latest = self.store.snapshots.latest_id()
        # scan.bounded.watermark: a full phase of a snapshot beyond the bound is the last thing read
        ended = start.snapshot_completed and start.scan_snapshot and self._beyond_bound(
            self._snapshot(start.snapshot_id))
        while not ended and (guard is None or guard.has_capacity):
            if end is not None and next_id > end.snapshot_id:
                break
            if max_snapshot is not None and next_id > max_snapshot:
                break
            if latest is None or next_id > latest:
                latest = self.store.snapshots.latest_id()
                if latest is None or next_id > latest:
                    if latest is not None:
                        self._check_not_expired(next_id)
                    break
            snap = self._snapshot(next_id)
            if snap is None:
                self._check_not_expired(next_id)
                break
            if not full and (self._beyond_bound(snap) or self._delayed(snap)):
                break  # the stream ends before this snapshot / waits until it is old enough
            splits = self.full_splits(snap) if full else self.change_splits(snap)
            this_full = full
            next_id, full = next_id + 1, False
            ended = this_full and self._beyond_bound(snap)
            if not splits:
                continue
            for i, s in enumerate(splits):
                ids = IndexedSplit(snap.id, i, len(splits), this_full, s)
                if not ids.after(start) or (end is not None and not ids.at_or_before(end)):
                    continue
                if guard is not None and not guard.admit(s):
                    break
                out.append(ids)
        if guard is not None and guard.may_skip:
            return []
        return out

    def _beyond_bound(self, snap: Snapshot | None) -> bool:
        """Whether ``snap``'s watermark is past ``scan.bounded.watermark`` (Paimon's
        ``BoundedChecker.watermark``: the stream ends there)."""
        bound = self.bounded_watermark
        return bound is not None and snap is not None and snap.watermark is not None and snap.watermark > bound

    def _delayed(self, snap: Snapshot) -> bool:
        """Whether ``snap`` is younger than ``streaming.read.snapshot.delay`` (Paimon's
        ``shouldDelaySnapshot``: the stream waits for it)."""
        return self.delay_ms is not None and snap.time_millis > _now_ms() - self.delay_ms

    def ended(self, start: StreamOffset) -> bool:
        """Whether a stream at ``start`` has reached the end ``scan.bounded.watermark`` sets (the
        next snapshot to read, or the snapshot read in full, has a watermark past the bound)."""
        if self.bounded_watermark is None:
            return False
        if start.snapshot_completed and start.scan_snapshot:
            if self._beyond_bound(self._snapshot(start.snapshot_id)):
                return True
        nxt = start.snapshot_id + 1 if start.snapshot_completed else start.snapshot_id
        if not start.snapshot_completed and start.scan_snapshot:
            return False
        return self._beyond_bound(self._snapshot(nxt)) if self.store.snapshots.exists(nxt) else False

    def latest_offset(
        self, start: StreamOffset, limits: ReadLimits | None = None, last_trigger_ms: int = 0,
        max_snapshot: int | None = None,
    ) -> StreamOffset | None:
        """The end of the next batch after ``start``; None when there is nothing new."""
        splits = self.batch(start, None, limits, last_trigger_ms, max_snapshot)
        if not splits:
            return None
        last = splits[-1]
        full = start.scan_snapshot and last.snapshot_id == start.snapshot_id and last.scan_snapshot
        return StreamOffset(last.snapshot_id, last.index, full, last.total)

    def check_range(self, start: StreamOffset, end: StreamOffset) -> None:
        """Refuses a logged range that can no longer be replayed as it was (Paimon's checks)."""
        if start.snapshot_id == end.snapshot_id and start.scan_snapshot != end.scan_snapshot:
            raise PaimonError(
                f"Cannot plan Paimon micro-batch of table {self.store.name} because normalized start offset "
                f"{start.to_json()} and logged end offset {end.to_json()} use different scan modes. The "
                "checkpointed range is no longer readable without changing its data."
            )
        if start.key() > end.key():
            raise PaimonError(
                f"Cannot plan Paimon micro-batch of table {self.store.name} because normalized start offset "
                f"{start.to_json()} is newer than logged end offset {end.to_json()}. The data needed to replay "
                "the logged range is no longer readable."
            )

    # -- progress ----------------------------------------------------------------------------------
    def commit(self, end: StreamOffset) -> int | None:
        """Records the consumer's progress once a batch up to ``end`` is done (Paimon's
        ``commit``: the next snapshot to read); returns it (None: nothing recorded)."""
        if not self.consumer_id:
            return None
        if end.total_splits is not None and end.index >= end.total_splits:
            raise ValidationError(f"Invalid Paimon source offset {end.to_json()}: split index must be smaller "
                                  f"than totalSplits ({end.total_splits}).")
        if end.snapshot_completed:
            nxt = end.snapshot_id + 1
        elif not end.scan_snapshot:
            nxt = end.snapshot_id
        else:
            return None  # a full phase read in part: a changes-only consumer cannot resume it
        ConsumerManager.of(self.store).reset(self.consumer_id, Consumer(nxt))
        return nxt


def overwrite_splits(store: FileStore, snapshot: Snapshot, predicate: Predicate | None = None) -> list[DataSplit]:
    """The changes of an OVERWRITE snapshot of a primary-key table (``streaming-read-overwrite``,
    Paimon's ``readChanges``): one split per (partition, bucket) the snapshot touched, ``before_files``
    the files it deleted and ``files`` those it added (files on both sides dropped). Read by
    :func:`read_stream_split`: -D of every merged row of the deleted files, then the merged rows of
    the added files (Paimon's ``IncrementalChangelogReadProvider``; not a diff: an unchanged row
    reads as -D and +I)."""
    entries = delta_entries(store, snapshot)
    deleted = entry_splits(store, snapshot, [e for e in entries if e.kind == FileKind.DELETE], predicate)
    added = entry_splits(store, snapshot, [e for e in entries if e.kind == FileKind.ADD], predicate)
    by_key: dict[tuple[bytes, int], list[DataSplit | None]] = {}
    for i, side in enumerate((deleted, added)):
        for sp in side:
            by_key.setdefault((sp.partition, sp.bucket), [None, None])[i] = sp
    out = []
    for (_, _), (b, a) in sorted(by_key.items(), key=lambda kv: kv[0]):
        before = b.files if b is not None else ()
        after = a.files if a is not None else ()
        common = {_file_key(f) for f in before} & {_file_key(f) for f in after}
        before = tuple(f for f in before if _file_key(f) not in common)
        after = tuple(f for f in after if _file_key(f) not in common)
        if not before and not after:
            continue
        base = a if a is not None else b
        assert base is not None
        out.append(dataclasses.replace(base, files=after, deletion_files={}, raw_convertible=False,
                                       before_files=before, before_deletion_files={}))
    return out


def _file_key(f: Any) -> tuple[object, ...]:
    return (f.file_name, f.level, f.external_path, f.row_count, f.file_size)


def _merged_adds(store: FileStore, split: DataSplit, files: tuple[Any, ...], fields: Sequence[DataField],
                 sequence_number: bool) -> pa.Table:
    """The merged live rows (+I / +U) of ``files`` of ``split``'s bucket, with ``_VALUE_KIND``."""
    side = dataclasses.replace(split, files=files, deletion_files={}, before_files=None, before_deletion_files={},
                               raw_convertible=len(files) <= 1)
    tbl = read_split(store, side, fields, keep_row_kind=True, sequence_number=sequence_number)
    kinds = tbl.column(KIND)
    return tbl.filter(pc.or_(pc.equal(kinds, 0), pc.equal(kinds, 2)))


def read_stream_split(
    store: FileStore, split: DataSplit, fields: Sequence[DataField], scan_snapshot: bool, row_kind: bool,
    sequence_number: bool = False,
) -> pa.Table:
    """The rows of one stream split as ``fields``: a full-phase split merged by key without its
    retractions, a changes split file by file with every record (-U and -D too, as Paimon's Spark
    source emits them), an overwrite split (:func:`overwrite_splits`) as -D of the rows it removed
    and then the rows it wrote. ``row_kind``: a first ``rowkind`` string column (``+I``, ``-U``,
    ``+U``, ``-D``: Paimon's audit-log layout, option ``read.changelog``); ``sequence_number``
    (primary-key tables): then ``_SEQUENCE_NUMBER`` (``$audit_log`` with
    ``table-read.sequence-number.enabled``)."""
    if split.before_files is not None:
        removed = _merged_adds(store, split, split.before_files, fields, sequence_number) \
            if split.before_files else None
        written = _merged_adds(store, split, split.files, fields, sequence_number)
        if removed is not None and removed.num_rows:
            removed = removed.set_column(removed.schema.get_field_index(KIND), written.schema.field(KIND),
                                         pa.array(np.full(removed.num_rows, 3, dtype=np.int8)))
            written = pa.concat_tables([removed, written])
        tbl = written
    else:
        tbl = read_split(store, split, fields, keep_row_kind=True, sequence_number=sequence_number)
    kinds = tbl.column(KIND)
    if scan_snapshot:
        keep = pc.or_(pc.equal(kinds, 0), pc.equal(kinds, 2))
        if pc.all(keep).as_py() not in (True, None):
            tbl = tbl.filter(keep)
            kinds = tbl.column(KIND)
    tbl = tbl.drop_columns([KIND])
    if row_kind:
        labels = pa.array(ROW_KINDS, pa.string())
        col = pc.take(labels, pc.cast(kinds, pa.int32()))
        tbl = tbl.add_column(0, pa.field(ROWKIND_COLUMN, pa.string(), False), col)
    return tbl


def read_stream_splits(
    store: FileStore, splits: Sequence[IndexedSplit], fields: Sequence[DataField] | None = None,
    row_kind: bool = False, sequence_number: bool = False,
) -> pa.Table:
    """The rows of a batch's splits, in order (see :func:`read_stream_split`); ``fields``
    default to every column of ``store``."""
    flds = list(store.schema.fields) if fields is None else list(fields)
    parts = [read_stream_split(store, s.split, flds, s.scan_snapshot, row_kind, sequence_number) for s in splits]
    parts = [p for p in parts if p.num_rows]
    if parts:
        return pa.concat_tables(parts)
    from paimon_sql.scan.reader import output_schema

    schema = output_schema(flds)
    if sequence_number:
        schema = schema.insert(0, pa.field(SEQ, pa.int64(), False))
    if row_kind:
        schema = schema.insert(0, pa.field(ROWKIND_COLUMN, pa.string(), False))
    return schema.empty_table()
