"""Tags: create and delete ``tag/tag-<name>`` files, as Apache Paimon's ``TagManager`` does.

A tag file is the tagged snapshot's JSON. Created with a retention, it also holds
``tagCreateTime`` (Jackson's ``LocalDateTime`` array; paimon_sql writes the UTC wall clock) and
``tagTimeRetained`` (a ``Duration`` as decimal seconds). A tag keeps its snapshot readable (time
travel by tag) and its files alive after the snapshot expires.

Deleting a tag whose snapshot still exists removes the tag file only. When the snapshot has expired
and no other tag names it, the files only that tag kept alive are deleted too (Paimon's
``TagDeletion``): data files and manifests of the tagged snapshot that neither the neighbouring tag
before it, nor the nearer of the next tag and the earliest snapshot, reference. paimon_sql also keeps
every file a snapshot or tag of another branch references (a branch created from a tag shares its
files; Paimon does not check this). When any of those snapshots cannot be read, no file is deleted.
What is still referenced is answered by ``ops/file_refs.py``, shared with snapshot expiry.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import re
import uuid
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from paimon_sql.errors import AlreadyExistsError, NotFoundError, PaimonError, ValidationError
from paimon_sql.meta.file_store import FileStore
from paimon_sql.meta.snapshot import Snapshot
from paimon_sql.names import check_name
from paimon_sql.ops.file_refs import (
    TAG_CREATE_TIME,
    TAG_TIME_RETAINED,
    FileRefs,
    clean_empty_directories,
    earliest_snapshot,
    tagged_snapshots,
    trim_to_snapshot,
)

__all__ = ["TAG_CREATE_TIME", "TAG_TIME_RETAINED", "tagged_snapshots", "trim_to_snapshot"]


@dataclass(frozen=True)
class CreateTagResult:
    table: str
    tag: str
    snapshot_id: int
    time_retained_ms: int | None
    path: str


@dataclass(frozen=True)
class DeleteTagResult:
    table: str
    tag: str
    deleted: bool  # False: the tag did not exist (Paimon ignores that)
    snapshot_id: int | None
    # files removed because only this tag referenced them (its snapshot had expired)
    deleted_data_files: int = 0
    deleted_metadata_files: int = 0


# java.time values as Paimon's JSON stores them (Jackson JavaTimeModule, dates as numbers)


def duration_json(millis: int) -> str:
    """A ``Duration`` of ``millis`` as Jackson writes it: decimal seconds with nine fraction digits
    (``86400.000000000``; zero is ``0.0``)."""
    if millis == 0:
        return "0.0"
    secs, ms = divmod(millis, 1000)
    return f"{secs}.{ms * 1_000_000:09d}"


def local_date_time_json(value: _dt.datetime) -> list[int]:
    """A naive datetime as Jackson writes a ``LocalDateTime``: ``[y, M, d, H, m]``, then the second
    when second or nano is not zero, then the nano of second when it is not zero."""
    arr = [value.year, value.month, value.day, value.hour, value.minute]
    nanos = value.microsecond * 1000
    if value.second or nanos:
        arr.append(value.second)
        if nanos:
            arr.append(nanos)
    return arr


def validate_tag_name(tag: object, table: str, new: bool = True) -> str:
    """A tag name Paimon accepts and that is safe as a file name (``paimon_sql.names``).

    Paimon only rejects blank names. For a tag to create (``new``) paimon_sql also rejects names with
    surrounding blanks, commas (``delete_tag`` splits on them) and a leading dot (hidden files)."""
    tag = check_name("tag", tag, f"table {table}")
    if not new:
        return tag
    if tag != tag.strip():
        raise ValidationError(f"Tag name {tag!r} of table {table} must not start or end with blanks")
    if "," in tag or tag.startswith("."):
        raise ValidationError(
            f"Invalid tag name {tag!r} of table {table}: a tag name must not contain ',' nor start with '.'"
        )
    return tag


def tag_json(snapshot: Snapshot, time_retained_ms: int | None, now: _dt.datetime | None = None) -> str:
    """The JSON of a tag of ``snapshot``: the snapshot's JSON, plus the creation time and retention
    when there is a retention (Paimon omits both otherwise, so that old readers can read it)."""
    snap = trim_to_snapshot(snapshot)
    if time_retained_ms is None:
        return snap.to_json()
    created = now if now is not None else _dt.datetime.now(_dt.timezone.utc).replace(tzinfo=None)
    marker = f"@@duration-{uuid.uuid4()}@@"
    extra = dict(snap.extra)
    extra[TAG_CREATE_TIME] = local_date_time_json(created)
    extra[TAG_TIME_RETAINED] = marker
    text = dataclasses.replace(snap, extra=extra).to_json()
    return text.replace(f'"{marker}"', duration_json(time_retained_ms))


def find_snapshot(store: FileStore, snapshot_id: int) -> Snapshot:
    """The snapshot ``snapshot_id``, or the snapshot a tag keeps of it after it expired
    (``AbstractFileStoreTable.findSnapshot``)."""
    sm = store.snapshots
    if sm.exists(snapshot_id):
        return sm.snapshot(snapshot_id)
    for snap, _names in tagged_snapshots(store.tags):
        if snap.id == snapshot_id:
            return snap
    raise NotFoundError(
        f"Cannot create tag because snapshot {snapshot_id} of table {store.name} does not exist"
    )


def create_tag(
    store: FileStore,
    tag: str,
    snapshot_id: int | None = None,
    time_retained_ms: int | None = None,
) -> CreateTagResult:
    """Tags ``snapshot_id`` (default: the latest snapshot) as ``tag``."""
    validate_tag_name(tag, store.name)
    if snapshot_id is not None and (isinstance(snapshot_id, bool) or not isinstance(snapshot_id, int)):
        raise ValidationError(f"Snapshot id to tag in table {store.name} must be an integer, got {snapshot_id!r}")
    if time_retained_ms is not None and (
        isinstance(time_retained_ms, bool) or not isinstance(time_retained_ms, int) or time_retained_ms < 0
    ):
        raise ValidationError(
            f"Retention of tag {tag!r} of table {store.name} must be a non-negative number of "
            f"milliseconds, got {time_retained_ms!r}"
        )
    tags = store.tags
    if tags.exists(tag):
        raise AlreadyExistsError(f"Table {store.name}: Tag '{tag}' already exists.")  # Paimon's TagManager text
    if snapshot_id is None:
        snap = store.snapshots.latest()
        if snap is None:
            raise NotFoundError(f"Cannot create tag {tag!r}: table {store.name} has no snapshot yet")
    else:
        snap = find_snapshot(store, snapshot_id)
    data = tag_json(snap, time_retained_ms).encode("utf-8")
    path = tags.path(tag)
    created = store.file_io.try_create_exclusive(path, data)  # atomic create or conditional put
    if not created:
        raise AlreadyExistsError(f"Table {store.name}: Tag '{tag}' already exists.")  # Paimon's TagManager text
    return CreateTagResult(store.name, tag, snap.id, time_retained_ms, path)


def delete_tag(store: FileStore, tag: str) -> DeleteTagResult:
    """Deletes ``tag`` (nothing happens when it does not exist, as in Paimon); see the module doc
    for the files deleted with it."""
    validate_tag_name(tag, store.name, new=False)
    tags = store.tags
    try:
        tagged = trim_to_snapshot(tags.tagged_snapshot(tag))
    except NotFoundError:
        return DeleteTagResult(store.name, tag, False, None)
    if store.snapshots.exists(tagged.id):
        store.file_io.delete_quietly(tags.path(tag))
        return DeleteTagResult(store.name, tag, True, tagged.id)
    # the snapshot expired: read every tag before deleting this one
    all_tags = tagged_snapshots(tags)
    store.file_io.delete_quietly(tags.path(tag))
    names = next((n for s, n in all_tags if s.id == tagged.id), [tag])
    if [n for n in names if n != tag]:
        return DeleteTagResult(store.name, tag, True, tagged.id)
    data_files, meta_files = _clean_tag_files(store, tagged, [s for s, _ in all_tags])
    return DeleteTagResult(store.name, tag, True, tagged.id, data_files, meta_files)


# ----------------------------------------------------------------------------------------------
# Files only an expired tagged snapshot references
# ----------------------------------------------------------------------------------------------


def _skipping_snapshots(store: FileStore, tagged: Snapshot, all_tagged: list[Snapshot]) -> list[Snapshot]:
    """The snapshots of this branch whose files must stay: the tag before, the nearer of the next
    tag and the earliest snapshot (other branches: ``FileRefs.branch_live_among``)."""
    out: list[Snapshot] = []
    ids = [s.id for s in all_tagged]
    index = ids.index(tagged.id) if tagged.id in ids else None
    if index is None:  # the tag list changed concurrently: keep what every tag and snapshot uses
        out.extend(all_tagged)
        earliest = earliest_snapshot(store.snapshots)
        if earliest is not None:
            out.append(earliest)
        return out
    if index > 0:
        out.append(all_tagged[index - 1])
    right = earliest_snapshot(store.snapshots)
    if index + 1 < len(all_tagged):
        nxt = all_tagged[index + 1]
        if right is None or nxt.id < right.id:
            right = nxt
    if right is not None:
        out.append(right)
    return out


def _clean_tag_files(store: FileStore, tagged: Snapshot, all_tagged: list[Snapshot]) -> tuple[int, int]:
    fio = store.file_io
    refs = FileRefs(store)
    try:
        skipping = _skipping_snapshots(store, tagged, all_tagged)
        candidates = refs.live(tagged)
        keep_data = refs.branch_live_among(candidates)
        for s in skipping:
            keep_data |= refs.live_among(s, candidates)
        keep_meta = refs.branch_metadata_names()
        for s in skipping:
            keep_meta |= refs.metadata_names(s)
    except PaimonError:
        return 0, 0  # cannot prove a file unused: delete nothing (Paimon skips cleaning too)
    data_deleted = 0
    for key, ref in candidates.items():
        if key not in keep_data:
            data_deleted += sum(fio.delete(f.path) for f in refs.data_paths(ref))
    clean_empty_directories(store, [ref for key, ref in candidates.items() if key not in keep_data])
    # then the metadata files, each before the files naming it, so an interrupted clean can be redone
    try:
        groups = refs.unused_metadata(tagged, keep_meta)
    except PaimonError:
        return data_deleted, 0
    meta_deleted = sum(fio.delete(f.path) for group in groups for f in group)
    return data_deleted, meta_deleted


# ----------------------------------------------------------------------------------------------
# Reading a tag's own fields (Jackson's forms)
# ----------------------------------------------------------------------------------------------

_NAIVE_EPOCH = _dt.datetime(1970, 1, 1)


def parse_duration_json(value: Any) -> tuple[int, int] | None:
    """(seconds, nanos) of a stored ``Duration``: decimal seconds, or an ISO-8601 string."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, (int, float, Decimal)):
        try:
            d = Decimal(repr(value)) if isinstance(value, float) else Decimal(value)
        except InvalidOperation:
            return None
        secs = int(d.to_integral_value(rounding="ROUND_FLOOR"))
        nanos = int((d - secs) * 1_000_000_000)
        return secs, nanos
    if isinstance(value, str):
        m = re.fullmatch(r"PT(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)(?:\.(\d{1,9}))?S)?", value.strip())
        if m is None or not any(m.groups()):
            return None
        h, mi, s, frac = m.groups()
        secs = int(h or 0) * 3600 + int(mi or 0) * 60 + int(s or 0)
        nanos = int(frac.ljust(9, "0")) if frac else 0
        return secs, nanos
    return None


def parse_local_date_time_millis(value: Any) -> int | None:
    """Epoch millis (the wall clock read as UTC) of a stored ``LocalDateTime``: Jackson's array
    form, or an ISO-8601 string."""
    try:
        if isinstance(value, list) and len(value) >= 3:
            parts = [int(x) for x in value] + [0] * (7 - len(value))
            y, mo, d, h, mi, s, nanos = parts[:7]
            dt = _dt.datetime(y, mo, d, h, mi, s)
            return int((dt - _NAIVE_EPOCH).total_seconds()) * 1000 + nanos // 1_000_000
        if isinstance(value, str):
            dt = _dt.datetime.fromisoformat(value.strip())
            if dt.tzinfo is not None:
                dt = dt.astimezone(_dt.timezone.utc).replace(tzinfo=None)
            return (int((dt.replace(microsecond=0) - _NAIVE_EPOCH).total_seconds()) * 1000
                    + dt.microsecond // 1000)
    except (TypeError, ValueError, OverflowError):
        return None
    return None
