"""Automatic tags (Paimon's ``TagAutoCreation``, ``TagPeriodHandler``, ``TagBatchCreation`` and the
tag part of ``TagAutoManager``), run after commits and by ``trigger_tag_automatic_creation``.

``tag.automatic-creation``:

- ``process-time`` / ``watermark``: each snapshot has a time (its commit time in
  ``sink.process-time-zone``, or its watermark in ``sink.watermark-time-zone``; a snapshot without
  watermark has none). Walking the snapshots after the one the newest automatic tag holds, the first
  snapshot, and then every snapshot whose time minus ``tag.creation-delay`` reaches the end of the
  period after the last tag, gets a tag named by the start of the period before the one its time
  falls in (``2023-07-18 11`` for 12:12 hourly; ``2023-07-17`` for a daily tag on the 18th). Then
  the oldest automatic tags beyond ``tag.num-retained-max`` are deleted (other tags are not counted).
  The walk restarts from the tags on disk every time, as a new Paimon committer does.
- ``batch``: after a batch write the latest snapshot is tagged ``batch-write-yyyy-MM-dd`` (its
  commit day in ``sink.process-time-zone``) or ``tag.batch.customized-name``, replacing a tag of
  that name; then the oldest tags (all of them count) beyond ``tag.num-retained-max`` go.

Tags are created with ``tag.default-time-retained`` and deleted through ``delete_tag`` (which
deletes the files only they kept). With ``tag.time-expire-enabled`` (default) tags whose retention
passed are deleted after commits too.
"""

from __future__ import annotations

import datetime as _dt
import logging
import re
import zoneinfo
from collections.abc import Callable
from dataclasses import dataclass

from paimon_sql.errors import AlreadyExistsError, NotFoundError, ValidationError
from paimon_sql.meta.file_store import FileStore
from paimon_sql.meta.snapshot import Snapshot
from paimon_sql.ops.file_refs import tagged_snapshots
from paimon_sql.ops.tag_expire import expire_tags
from paimon_sql.ops.tags import create_tag, delete_tag
from paimon_sql.options.lifecycle import (
    TAG_AUTOMATIC_COMPLETION,
    TAG_AUTOMATIC_CREATION,
    TAG_BATCH_CUSTOMIZED_NAME,
    TAG_CREATION_DELAY,
    TAG_CREATION_PERIOD,
    TAG_CREATION_PERIOD_DURATION,
    TAG_DEFAULT_TIME_RETAINED,
    TAG_NUM_RETAINED_MAX,
    TAG_PERIOD_FORMATTER,
    TAG_TIME_EXPIRE_ENABLED,
)

_LOG = logging.getLogger(__name__)
_EPOCH = _dt.datetime(1970, 1, 1)
BATCH_WRITE_TAG_PREFIX = "batch-write-"
LONG_MIN = -(2**63)


# -- periods -----------------------------------------------------------------------------------

# strftime formats and the exact shapes of Paimon's STRICT formatters (4-digit year, 2-digit fields)
_FORMATS = {
    "day": ("%Y-%m-%d", r"\d{4}-\d{2}-\d{2}"),
    "day_without_dashes": ("%Y%m%d", r"\d{8}"),
    "hour": ("%Y-%m-%d %H", r"\d{4}-\d{2}-\d{2} \d{2}"),
    "hour_without_dashes": ("%Y%m%d %H", r"\d{8} \d{2}"),
    "hour_without_dashes_and_spaces": ("%Y%m%d%H", r"\d{10}"),
    "minute": ("%Y%m%d%H%M", r"\d{12}"),
}


@dataclass(frozen=True)
class PeriodHandler:
    """One of Paimon's tag period handlers: the period and the tag name format."""

    period: _dt.timedelta
    fmt: str  # a key of _FORMATS
    daily: bool = False

    @staticmethod
    def of(store: FileStore) -> PeriodHandler:
        o = store.options
        duration = o.get(TAG_CREATION_PERIOD_DURATION)
        if duration is not None:
            return PeriodHandler(_dt.timedelta(milliseconds=duration), "minute")
        period = o.get(TAG_CREATION_PERIOD)
        formatter = o.get(TAG_PERIOD_FORMATTER)
        if period == "daily":
            return PeriodHandler(_dt.timedelta(days=1), "day" if formatter == "with_dashes" else "day_without_dashes",
                                 daily=True)
        if period == "hourly":
            return PeriodHandler(_dt.timedelta(hours=1), {"with_dashes": "hour", "without_dashes": "hour_without_dashes",
                                                          "without_dashes_and_spaces": "hour_without_dashes_and_spaces"}[formatter])
        return PeriodHandler(_dt.timedelta(hours=2), "hour")

    def tag_to_time(self, tag: str) -> _dt.datetime | None:
        """The start of the period ``tag`` names; None when it is not an automatic tag's name."""
        strf, shape = _FORMATS[self.fmt]
        if self.daily:
            tag = tag.split(" ")[0]
        if not re.fullmatch(shape, tag):
            return None
        try:
            return _dt.datetime.strptime(tag, strf)
        except ValueError:
            return None

    def is_auto_tag(self, tag: str) -> bool:
        return self.tag_to_time(tag) is not None

    def time_to_tag(self, time: _dt.datetime) -> str:
        return time.strftime(_FORMATS[self.fmt][0])

    def normalize_to_previous_tag(self, time: _dt.datetime) -> _dt.datetime:
        """The start of the period before the one ``time`` falls in (periods counted from the epoch)."""
        ms = (time - _EPOCH) // _dt.timedelta(milliseconds=1)
        period_ms = self.period // _dt.timedelta(milliseconds=1)
        return _EPOCH + _dt.timedelta(milliseconds=(ms // period_ms) * period_ms) - self.period


def _zone(name: str | None, option: str) -> _dt.tzinfo | None:
    """A Java ZoneId text as a tzinfo (None: the system zone)."""
    if name is None or not name.strip():
        return None
    text = name.strip()
    m = re.fullmatch(r"(?:UTC|GMT)?([+-])(\d{1,2})(?::?(\d{2}))?", text)
    if m:
        sign = 1 if m.group(1) == "+" else -1
        return _dt.timezone(sign * _dt.timedelta(hours=int(m.group(2)), minutes=int(m.group(3) or 0)))
    if text in ("Z", "UTC", "GMT"):
        return _dt.timezone.utc
    try:
        return zoneinfo.ZoneInfo(text)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError) as e:
        raise ValidationError(f"Invalid value {name!r} for option {option!r}: not a time zone") from e


def _local(epoch_ms: int, zone: _dt.tzinfo | None) -> _dt.datetime:
    """Epoch millis as a wall-clock time in ``zone`` (None: the system zone), naive."""
    aware = _dt.datetime.fromtimestamp(epoch_ms / 1000, _dt.timezone.utc)
    return (aware.astimezone(zone) if zone is not None else aware.astimezone()).replace(tzinfo=None)


def time_extractor(store: FileStore) -> Callable[[Snapshot], _dt.datetime | None] | None:
    """The snapshot-time function of ``tag.automatic-creation`` (None for none and batch)."""
    mode = store.options.get(TAG_AUTOMATIC_CREATION)
    if mode == "process-time":
        pzone = _zone(store.options.get("sink.process-time-zone"), "sink.process-time-zone")
        return lambda s: _local(s.time_millis, pzone)
    if mode == "watermark":
        wzone = _zone(store.options.get("sink.watermark-time-zone") or "UTC", "sink.watermark-time-zone")
        return lambda s: None if s.watermark is None or s.watermark == LONG_MIN else _local(s.watermark, wzone)
    return None


def check_delay(store: FileStore) -> None:
    """Paimon's rule: the creation delay is shorter than one period."""
    if store.options.get(TAG_AUTOMATIC_CREATION) in ("process-time", "watermark"):
        handler = PeriodHandler.of(store)
        delay = _dt.timedelta(milliseconds=store.options.get(TAG_CREATION_DELAY))
        if not handler.period > delay:
            raise ValidationError(
                f"Automatic tags of table {store.name}: 'tag.creation-delay' ({delay}) must be shorter than "
                f"one tag period ({handler.period})"
            )


# -- process-time / watermark ------------------------------------------------------------------


@dataclass(frozen=True)
class AutoTagResult:
    created: tuple[str, ...]
    deleted: tuple[str, ...]


def _auto_tags(store: FileStore, handler: PeriodHandler) -> list[tuple[Snapshot, list[str]]]:
    """(snapshot, automatic tag names) by snapshot id."""
    out = []
    for snap, names in tagged_snapshots(store.tags):
        auto = sorted(n for n in names if handler.is_auto_tag(n))
        if auto:
            out.append((snap, auto))
    return out


AutoTagPositions = dict[
    tuple[str, tuple[tuple[str, str], ...], tuple[str, int] | None], tuple[int, "_dt.datetime | None", int]
]


def create_auto_tags(store: FileStore, positions: AutoTagPositions | None = None) -> AutoTagResult:
    """Runs Paimon's ``TagAutoCreation`` once (see the module doc); nothing without
    ``tag.automatic-creation`` process-time / watermark. ``positions``: where the table's committer
    (its ``TableMaintenance``) stopped last time (key: table folder, options, newest automatic tag;
    value: next snapshot to examine, next tag time, commit time of the snapshot before it), kept
    there to resume from."""
    if positions is None:
        positions = {}
    extract = time_extractor(store)
    if extract is None:
        return AutoTagResult((), ())
    check_delay(store)
    o = store.options
    handler = PeriodHandler.of(store)
    delay = _dt.timedelta(milliseconds=o.get(TAG_CREATION_DELAY))
    retained = o.get(TAG_DEFAULT_TIME_RETAINED)
    completion = o.get(TAG_AUTOMATIC_COMPLETION)
    max_tags = o.get(TAG_NUM_RETAINED_MAX)
    sm = store.snapshots
    # the newest automatic tag, by its name's time: only its file is read
    named = [(when, n) for n in store.tags.tag_names()
             if handler.is_auto_tag(n) and (when := handler.tag_to_time(n)) is not None]
    next_tag: _dt.datetime | None = None
    newest: tuple[str, int] | None = None
    if named:
        when, name = max(named)
        try:
            tagged_id = store.tags.tagged_snapshot(name).id
        except NotFoundError:  # deleted since the listing: the next run sees the truth
            return AutoTagResult((), ())
        newest = (name, tagged_id)
        next_snapshot = tagged_id + 1
        next_tag = when + handler.period
    else:
        next_snapshot = sm.earliest_id() or 1
    # a committer keeps its place in memory (Paimon's TagAutoCreation): resume after the last
    # snapshot this process examined, when the newest tag is the same and that snapshot still is
    key = (store.meta_path, tuple(sorted(store.schema.options.items())), newest)
    resume = positions.get(key)
    if resume is not None:
        pos, pos_tag, pos_time = resume
        try:
            if pos > next_snapshot and sm.snapshot(pos - 1).time_millis == pos_time:
                next_snapshot, next_tag = pos, pos_tag
        except NotFoundError:
            pass  # rolled back or expired: walk again
    created: list[str] = []
    deleted: list[str] = []
    latest = sm.latest_id()
    last_time: int | None = None
    while latest is not None:
        if not sm.exists(next_snapshot):
            earliest = sm.earliest_id()
            if earliest is not None and earliest > next_snapshot:
                next_snapshot = earliest
                continue
            break
        snap = sm.snapshot(next_snapshot)
        next_snapshot += 1
        last_time = snap.time_millis
        time = extract(snap)
        if time is None:
            continue
        if next_tag is not None and time - delay < next_tag + handler.period:
            continue
        this_tag = handler.normalize_to_previous_tag(time)
        if completion and next_tag is not None:
            this_tag = next_tag
        name = handler.time_to_tag(this_tag)
        try:
            create_tag(store, name, snap.id, retained)
            created.append(name)
        except AlreadyExistsError:
            _LOG.info("Automatic tag %s of table %s exists already", name, store.name)
        next_tag = this_tag + handler.period
        if max_tags is not None:
            tags = _auto_tags(store, handler)
            for _snap, names in tags[: max(0, len(tags) - max_tags)]:
                if len(names) != 1:
                    raise ValidationError(
                        f"There are more than 1 auto-created tags of the same snapshot of table {store.name}: "
                        f"{','.join(names)}. This is unexpected."
                    )
                delete_tag(store, names[0])
                deleted.append(names[0])
    if not created and last_time is not None:
        positions[key] = (next_snapshot, next_tag, last_time)
    return AutoTagResult(tuple(created), tuple(deleted))


# -- batch -------------------------------------------------------------------------------------


def create_batch_tag(store: FileStore) -> AutoTagResult:
    """``tag.automatic-creation`` = batch, after a batch write (see the module doc). A failure to
    create the tag is logged, as Paimon's ``TagBatchCreation`` does."""
    sm = store.snapshots
    snap = sm.latest()
    if snap is None:
        return AutoTagResult((), ())
    o = store.options
    name = o.get(TAG_BATCH_CUSTOMIZED_NAME)
    if name is None:
        zone = _zone(o.get("sink.process-time-zone"), "sink.process-time-zone")
        name = BATCH_WRITE_TAG_PREFIX + _local(snap.time_millis, zone).strftime("%Y-%m-%d")
    created: list[str] = []
    deleted: list[str] = []
    try:
        delete_tag(store, name)
        create_tag(store, name, snap.id, o.get(TAG_DEFAULT_TIME_RETAINED))
        created.append(name)
    except (AlreadyExistsError, NotFoundError, ValidationError) as e:
        _LOG.warning("Failed to create tag %r of table %s from snapshot %s, you can create this tag manually: %s",
                     name, store.name, snap.id, e)
        if store.tags.exists(name):
            delete_tag(store, name)
    max_tags = o.get(TAG_NUM_RETAINED_MAX)
    if max_tags is not None:
        tags = tagged_snapshots(store.tags)
        count = sum(len(n) for _s, n in tags)
        for _snap, names in tags:
            if count <= max_tags:
                break
            for victim in sorted(names):
                if count <= max_tags:
                    break
                delete_tag(store, victim)
                deleted.append(victim)
                count -= 1
    return AutoTagResult(tuple(created), tuple(deleted))


def run_tag_auto_manager(
    store: FileStore, batch_commit: bool = False, positions: AutoTagPositions | None = None
) -> None:
    """The tag part of Paimon's post-commit maintenance: automatic tags, then (with
    ``tag.time-expire-enabled``) tags whose retention passed; ``batch_commit``: also batch-mode
    tags (Spark's batch writes create them after committing)."""
    mode = store.options.get(TAG_AUTOMATIC_CREATION)
    if mode in ("process-time", "watermark"):
        create_auto_tags(store, positions)
    if store.options.get(TAG_TIME_EXPIRE_ENABLED):
        expire_tags(store)
    if batch_commit and mode == "batch":
        create_batch_tag(store)
