"""Tag changes beside create and delete (``ops/tags.py``): replace a tag, rename it, and tag the
snapshot of a point in time, as Apache Paimon's ``TagManager.replaceTag`` / ``renameTag`` and the
``create_tag_from_timestamp`` procedure do; plus the parsing of a tag retention (``time_retained``)
that every tag-creating call shares."""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass

from paimon_sql.errors import AlreadyExistsError, NotFoundError, ValidationError
from paimon_sql.meta.file_store import FileStore
from paimon_sql.meta.travel import snapshot_at_or_after_time
from paimon_sql.ops.tags import create_tag, find_snapshot, tag_json, validate_tag_name
from paimon_sql.options import parse_duration_ms


@dataclass(frozen=True)
class ReplaceTagResult:
    table: str
    tag: str
    previous_snapshot_id: int
    snapshot_id: int
    time_retained_ms: int | None
    path: str


@dataclass(frozen=True)
class RenameTagResult:
    table: str
    tag: str
    target_tag: str
    snapshot_id: int
    path: str


@dataclass(frozen=True)
class CreateTagFromTimestampResult:
    table: str
    tag: str
    snapshot_id: int
    commit_time: int  # the snapshot's commit time (epoch millis)
    watermark: int | None
    time_retained_ms: int | None


def _check_retention(store: FileStore, tag: str, time_retained_ms: int | None) -> None:
    if time_retained_ms is not None and (
        isinstance(time_retained_ms, bool) or not isinstance(time_retained_ms, int) or time_retained_ms < 0
    ):
        raise ValidationError(
            f"Retention of tag {tag!r} of table {store.name} must be a non-negative number of "
            f"milliseconds, got {time_retained_ms!r}"
        )


def replace_tag(
    store: FileStore, tag: str, snapshot_id: int | None = None, time_retained_ms: int | None = None
) -> ReplaceTagResult:
    """Points the existing ``tag`` at ``snapshot_id`` (default: the latest snapshot) with the
    retention ``time_retained_ms`` (none: the tag keeps no retention), as Paimon's ``replaceTag``.
    The tag file is replaced atomically. Files only the old tagged snapshot kept alive are left for
    ``remove_orphan_files`` (Paimon does not delete them either)."""
    validate_tag_name(tag, store.name, new=False)
    if snapshot_id is not None and (isinstance(snapshot_id, bool) or not isinstance(snapshot_id, int)):
        raise ValidationError(f"Snapshot id to tag in table {store.name} must be an integer, got {snapshot_id!r}")
    _check_retention(store, tag, time_retained_ms)
    tags = store.tags
    try:
        previous = tags.tagged_snapshot(tag)
    except NotFoundError:
        known = sorted(tags.tag_names())
        raise NotFoundError(
            f"Cannot replace tag {tag!r} of table {store.name}: it does not exist (tags: "
            f"{', '.join(known) or 'none'}); create_tag creates it"
        ) from None
    if snapshot_id is None:
        snap = store.snapshots.latest()
        if snap is None:
            raise NotFoundError(f"Cannot replace tag {tag!r}: table {store.name} has no snapshot")
    else:
        try:
            snap = find_snapshot(store, snapshot_id)
        except NotFoundError:
            raise NotFoundError(
                f"Cannot replace tag {tag!r} of table {store.name}: snapshot {snapshot_id} does not exist"
            ) from None
    path = tags.path(tag)
    store.file_io.overwrite_atomic(path, tag_json(snap, time_retained_ms).encode("utf-8"))
    return ReplaceTagResult(store.name, tag, previous.id, snap.id, time_retained_ms, path)


def rename_tag(store: FileStore, tag: str, target_tag: str) -> RenameTagResult:
    """Renames ``tag`` to ``target_tag`` (a new name), one atomic rename of the tag file."""
    validate_tag_name(tag, store.name, new=False)
    tags = store.tags
    if not tags.exists(tag):
        known = sorted(tags.tag_names())
        raise NotFoundError(
            f"Cannot rename tag {tag!r} (argument 'tag') of table {store.name}: it does not exist "
            f"(tags: {', '.join(known) or 'none'})"
        )
    try:
        validate_tag_name(target_tag, store.name)
    except ValidationError as e:
        raise ValidationError(f"Cannot rename tag {tag!r} (argument 'target_tag'): {e}") from None
    if tags.exists(target_tag):
        raise AlreadyExistsError(
            f"Cannot rename tag {tag!r} of table {store.name}: tag {target_tag!r} (argument 'target_tag') "
            "already exists"
        )
    snap = tags.tagged_snapshot(tag)
    target = tags.path(target_tag)
    try:
        store.file_io.rename(tags.path(tag), target)
    except ValidationError:
        raise AlreadyExistsError(f"Tag {target_tag!r} of table {store.name} was created concurrently") from None
    return RenameTagResult(store.name, tag, target_tag, snap.id, target)


def create_tag_from_timestamp(
    store: FileStore, tag: str, timestamp_ms: int, time_retained_ms: int | None = None
) -> CreateTagFromTimestampResult:
    """Tags the earliest snapshot committed at or after ``timestamp_ms`` (epoch millis), counting
    snapshots that only tags keep (Paimon's ``create_tag_from_timestamp``)."""
    validate_tag_name(tag, store.name)
    _check_retention(store, tag, time_retained_ms)
    if store.tags.exists(tag):
        raise AlreadyExistsError(f"Tag {tag!r} of table {store.name} already exists")
    snap = snapshot_at_or_after_time(store, timestamp_ms, f"create_tag_from_timestamp of tag {tag!r}")
    created = create_tag(store, tag, snap.id, time_retained_ms)
    return CreateTagFromTimestampResult(
        store.name, tag, created.snapshot_id, snap.time_millis, snap.watermark, time_retained_ms
    )


def parse_time_retained(value: object, where: str, arg: str = "time_retained") -> int | None:
    """Milliseconds of a tag retention: a Paimon duration string (``'1 d'``, ``'12 h'``), a
    ``timedelta`` or milliseconds; None stays None. ValidationError naming ``arg`` and ``where``."""
    if value is None:
        return None
    if isinstance(value, _dt.timedelta):
        ms = value // _dt.timedelta(milliseconds=1)
    elif isinstance(value, int) and not isinstance(value, bool):
        ms = value
    elif isinstance(value, str):
        try:
            ms = parse_duration_ms(value)
        except Exception as e:  # noqa: BLE001 - the option parser's error (its type is internal)
            detail = e.args[0] if e.args else str(e)
            raise ValidationError(f"{where}: invalid argument {arg!r} {value!r}: {detail}") from None
    else:
        raise ValidationError(
            f"{where}: argument {arg!r} must be a duration such as '1 d', got {type(value).__name__} {value!r}"
        )
    if ms < 0:
        raise ValidationError(f"{where}: argument {arg!r} must not be negative, got {value!r}")
    return ms
