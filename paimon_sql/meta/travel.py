"""Which snapshot a read, a system table or a procedure means: Paimon's time travel, in one place.

A :class:`TimeTravel` names at most one of a snapshot id, a tag, a timestamp (epoch millis) and a
watermark; :func:`resolve` turns it into the snapshot (``scan.snapshot-id`` / ``scan.tag-name`` /
``scan.timestamp-millis`` / ``scan.watermark`` in Paimon). :meth:`TimeTravel.of_version` reads Paimon's
``version`` strings (``scan.version``, Spark's ``VERSION AS OF``) and :func:`parse_version` the
snapshot-or-tag argument of procedures; both use the one test of "is it a snapshot number",
:func:`is_snapshot_number`. :func:`store_at` gives the store a time-travelling read uses (the
snapshot's schema with the table's current options, as Paimon does).

It sits in ``meta`` (it needs only the snapshot and tag managers) so that ``ops`` (rollback by
time or watermark, tags from a timestamp) and ``table`` use the same resolution without an upward
import.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from paimon_sql.errors import NotFoundError, ValidationError
from paimon_sql.meta.snapshot import Snapshot

if TYPE_CHECKING:
    from paimon_sql.meta.file_store import FileStore

LONG_MAX = 2**63 - 1
LONG_MIN = -(2**63)
# the options that pick a past snapshot (Paimon's TimeTravelUtil keys), and Paimon's scan.version
SNAPSHOT_ID, TAG_NAME, WATERMARK = "scan.snapshot-id", "scan.tag-name", "scan.watermark"
TIMESTAMP, TIMESTAMP_MILLIS, VERSION = "scan.timestamp", "scan.timestamp-millis", "scan.version"
TRAVEL_OPTIONS = (SNAPSHOT_ID, TAG_NAME, WATERMARK, TIMESTAMP, TIMESTAMP_MILLIS, VERSION)
_EPOCH = _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)
_FALLBACK_KEYS = {"log.scan.timestamp-millis": TIMESTAMP_MILLIS}
WATERMARK_PREFIX = "watermark-"  # a scan.version of "watermark-<n>" means scan.watermark = n
_DIGITS = re.compile(r"[0-9]+")


def is_snapshot_number(text: str) -> bool:
    """Whether a version string names a snapshot id: ASCII digits only, nothing else (no sign, no
    spaces), within a BIGINT."""
    return bool(_DIGITS.fullmatch(text)) and int(text) <= LONG_MAX


def parse_version(version: str, where: str) -> int | str:
    """A procedure's ``version`` argument (Paimon's ``rollback``): a snapshot id when it is a
    number, else a tag name."""
    if _DIGITS.fullmatch(version):
        if int(version) > LONG_MAX:
            raise ValidationError(f"{where}: argument 'version' {version!r} is out of range")
        return int(version)
    return version


def _integer(value: object, what: str, where: str) -> None:
    if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
        raise ValidationError(f"{what} of {where} must be an integer, got {value!r}")


@dataclass(frozen=True)
class TimeTravel:
    """At most one of the four ways to name a past snapshot; none means the latest."""

    snapshot_id: int | None = None
    tag: str | None = None
    timestamp_ms: int | None = None
    watermark: int | None = None

    def given(self) -> list[str]:
        return [f.name for f in dataclasses.fields(self) if getattr(self, f.name) is not None]

    def check(self, where: str) -> TimeTravel:
        """Refuses wrong types and more than one way at once; ``where`` names the read."""
        for name in ("snapshot_id", "timestamp_ms", "watermark"):
            _integer(getattr(self, name), name, where)
        if self.tag is not None and not isinstance(self.tag, str):
            raise ValidationError(f"tag of {where} must be a string, got {self.tag!r}")
        given = self.given()
        if len(given) > 1:
            raise ValidationError(f"Give at most one of {', '.join(given)} for {where}")
        return self

    @classmethod
    def of_version(cls, version: str, store: FileStore) -> TimeTravel:
        """Paimon's ``scan.version`` rule: an existing tag first, then ``watermark-<n>``, then a
        snapshot number; anything else is a tag that does not exist."""
        if store.tags.exists(version):
            return cls(tag=version)
        if version.startswith(WATERMARK_PREFIX):
            rest = version[len(WATERMARK_PREFIX):]
            if re.fullmatch(r"-?[0-9]+", rest) and -(2**63) <= int(rest) <= LONG_MAX:
                return cls(watermark=int(rest))
        if is_snapshot_number(version):
            return cls(snapshot_id=int(version))
        raise NotFoundError(
            f"Table {store.name} has no tag {version!r} and it is no snapshot id "
            f"(tags: {store.tags.tag_names() or 'none'})"
        )

    @classmethod
    def of_options(cls, options: Mapping[str, str], store: FileStore) -> TimeTravel:
        """The time travel a table's (or one read's) options ask for: at most one of
        ``scan.snapshot-id``, ``scan.tag-name``, ``scan.watermark``, ``scan.timestamp`` (a local
        'yyyy-MM-dd HH:mm:ss' time), ``scan.timestamp-millis`` and ``scan.version``."""
        opts = {_FALLBACK_KEYS.get(k, k): str(v) for k, v in options.items() if v is not None and str(v) != ""}
        given = [k for k in TRAVEL_OPTIONS if k in opts]
        if len(given) > 1:
            raise ValidationError(f"Give at most one of the time-travel options {given} of table {store.name}")
        if not given:
            return cls()
        key, text = given[0], opts[given[0]]
        if key == TAG_NAME:
            return cls(tag=text)
        if key == VERSION:
            return cls.of_version(text, store)
        if key == TIMESTAMP:
            return cls(timestamp_ms=_local_time_ms(text, key, store.name))
        value = _long_option(key, text)
        if key == SNAPSHOT_ID:
            return cls(snapshot_id=value)
        if key == WATERMARK:
            return cls(watermark=value)
        return cls(timestamp_ms=value)

    def as_options(self) -> dict[str, str]:
        """The one option naming this time travel (none for the latest)."""
        for key, value in ((SNAPSHOT_ID, self.snapshot_id), (TAG_NAME, self.tag),
                           (TIMESTAMP_MILLIS, self.timestamp_ms), (WATERMARK, self.watermark)):
            if value is not None:
                return {key: str(value)}
        return {}


def _long_option(key: str, text: str) -> int:
    try:
        value = int(text.strip())
    except ValueError:
        raise ValidationError(f"Option {key!r} must be an integer, got {text!r}") from None
    if not LONG_MIN <= value <= LONG_MAX:
        raise ValidationError(f"Option {key!r} must be a BIGINT, got {text!r}")
    return value


def _local_time_ms(text: str, key: str, table: str) -> int:
    """Epoch millis of a 'yyyy-MM-dd[ HH:mm:ss[.SSS]]' time in the local time zone (Paimon parses
    ``scan.timestamp`` in the JVM's default zone)."""
    try:
        parsed = _dt.datetime.fromisoformat(text.strip())
    except ValueError:
        raise ValidationError(
            f"Option {key!r} of table {table} must be a time 'yyyy-MM-dd HH:mm:ss', got {text!r}"
        ) from None
    if parsed.tzinfo is None:
        parsed = parsed.astimezone()  # the local zone
    return (parsed - _EPOCH) // _dt.timedelta(milliseconds=1)


def snapshot_ranges(ids: list[int]) -> str:
    """``1..3, 7`` for an error message."""
    if not ids:
        return "none"
    out: list[str] = []
    start = prev = ids[0]
    for i in ids[1:] + [None]:
        if i is not None and i == prev + 1:
            prev = i
            continue
        out.append(str(start) if start == prev else f"{start}..{prev}")
        if i is not None:
            start = prev = i
    return ", ".join(out)


def resolve(store: FileStore, travel: TimeTravel, where: str) -> tuple[Snapshot | None, FileStore, bool]:
    """The snapshot a read of ``store`` means, the store (schema) to read it with, and whether it
    travels in time: ``travel``, else the time-travel options of the table itself (Paimon applies
    ``scan.snapshot-id`` & co. wherever they are set), else the latest snapshot (None for an empty
    table). NotFoundError naming the table when there is no such snapshot."""
    travel.check(where)
    if not travel.given():
        travel = TimeTravel.of_options(store.schema.options, store)
    snap = _snapshot(store, travel)
    travelled = bool(travel.given())
    return snap, (store_at(store, snap) if travelled else store), travelled


def _snapshot(store: FileStore, travel: TimeTravel) -> Snapshot | None:
    sm = store.snapshots
    if travel.snapshot_id is not None:
        if not sm.exists(travel.snapshot_id):
            ids = sm.snapshot_ids()
            expired = " (it has expired)" if ids and travel.snapshot_id < ids[0] else ""
            raise NotFoundError(
                f"Snapshot {travel.snapshot_id} of table {store.name} does not exist{expired} "
                f"(snapshots: {snapshot_ranges(ids)}; tags: {store.tags.tag_names() or 'none'})"
            )
        return sm.snapshot(travel.snapshot_id)
    if travel.tag is not None:
        return store.tags.tagged_snapshot(travel.tag)
    if travel.timestamp_ms is not None:
        snap = sm.snapshot_at_or_before(travel.timestamp_ms)
        if snap is None:
            when = _EPOCH + _dt.timedelta(milliseconds=travel.timestamp_ms)
            raise NotFoundError(
                f"Table {store.name} has no snapshot at or before timestamp {travel.timestamp_ms} "
                f"({when.isoformat(timespec='milliseconds')})"
            )
        return snap
    if travel.watermark is not None:
        snap = sm.snapshot_at_or_after_watermark(travel.watermark)
        if snap is None:
            raise NotFoundError(
                f"Table {store.name} has no snapshot with a watermark at or after {travel.watermark}"
            )
        return snap
    return sm.latest()


def store_at(store: FileStore, snap: Snapshot | None) -> FileStore:
    """The store a time-travelling read of ``snap`` uses: the snapshot's schema, with the table's
    current options (Paimon switches the table to the snapshot's schema, keeping its options)."""
    if snap is None or snap.schema_id == store.schema.id:
        return store
    old = store.schemas.schema(snap.schema_id)
    return store.with_schema(dataclasses.replace(old, options=dict(store.schema.options)))


# -- the snapshots procedures pick by time or watermark (Paimon's procedures, not time travel) ------


def _required_integer(value: object, what: str, where: str) -> None:
    if value is None:
        raise ValidationError(f"{what} of {where} must be an integer, got None")
    _integer(value, what, where)


def _when(timestamp_ms: int) -> str:
    try:
        return (_EPOCH + _dt.timedelta(milliseconds=timestamp_ms)).isoformat(timespec="milliseconds")
    except OverflowError:
        return "out of range"


def snapshot_at_or_before_time(store: FileStore, timestamp_ms: int, where: str) -> Snapshot:
    """The latest snapshot committed at or before ``timestamp_ms`` (epoch millis), as time travel
    by timestamp resolves it (``rollback_to_timestamp``); NotFoundError naming ``where`` when
    there is none."""
    _required_integer(timestamp_ms, "timestamp", where)
    snap, _, _ = resolve(store, TimeTravel(timestamp_ms=timestamp_ms), where)
    assert snap is not None
    return snap


def snapshot_at_or_before_watermark(store: FileStore, watermark: int, where: str) -> Snapshot:
    """The latest snapshot whose watermark is at or below ``watermark`` (Paimon's
    ``rollback_to_watermark``; time travel by ``scan.watermark`` looks the other way)."""
    _required_integer(watermark, "watermark", where)
    snap = store.snapshots.snapshot_at_or_before_watermark(watermark)
    if snap is None:
        raise NotFoundError(
            f"{where}: table {store.name} has no snapshot with a watermark at or before {watermark}"
        )
    return snap


def snapshot_at_or_after_time(store: FileStore, timestamp_ms: int, where: str) -> Snapshot:
    """The earliest snapshot committed at or after ``timestamp_ms``, counting the snapshots tags
    keep after they expired (Paimon's ``create_tag_from_timestamp``: the earliest such snapshot,
    or the earliest such tagged one when it was committed before it)."""
    _required_integer(timestamp_ms, "timestamp", where)
    snap = store.snapshots.snapshot_at_or_after(timestamp_ms)
    tagged_by_id: dict[int, Snapshot] = {}
    for name in store.tags.tag_names():
        try:
            tagged = store.tags.tagged_snapshot(name)
        except NotFoundError:
            continue  # deleted since the listing
        tagged_by_id.setdefault(tagged.id, tagged)
    for _, tagged in sorted(tagged_by_id.items()):
        if tagged.time_millis >= timestamp_ms:
            if snap is None or tagged.time_millis < snap.time_millis:
                snap = tagged
            break
    if snap is None:
        raise NotFoundError(
            f"{where}: table {store.name} has no snapshot or tag committed at or after timestamp "
            f"{timestamp_ms} ({_when(timestamp_ms)})"
        )
    return snap
