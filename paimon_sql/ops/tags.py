"""Tags: create and delete ``tag/tag-<name>`` files, as Apache Paimon's ``TagManager`` does.

A tag file is the tagged snapshot's JSON. Created with a retention, it also holds
``tagCreateTime`` (Jackson's ``LocalDateTime`` array; paimon_sql writes the UTC wall clock) and
``tagTimeRetained`` (a ``Duration`` as decimal seconds). A tag keeps its snapshot readable (time
travel by tag) and its files alive after the snapshot expires.

Deleting a tag whose snapshot still exists removes the tag file only. When the snapshot has expired
and no other tag names it, the files only that tag kept alive are deleted too (Paimon's
``TagDeletion``): data files and manifests of the tagged snapshot that neither the neighbouring tag
before it, nor the nearer of the next tag and the earliest snapshot, reference. paimon_sql also keeps
every file the earliest snapshot or the tags of any branch reference (a branch created from a tag
shares its files; Paimon does not check this). When any of those snapshots cannot be read, no file
is deleted.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import uuid
from dataclasses import dataclass

from paimon_sql.errors import AlreadyExistsError, NotFoundError, PaimonError, ValidationError
from paimon_sql.format.binary_row import decode_row
from paimon_sql.fs.file_io import basename, join
from paimon_sql.meta.file_store import BRANCH_PREFIX, MAIN_BRANCH, FileStore
from paimon_sql.meta.manifest_entry import KIND_ADD, ManifestEntry, merge_entries
from paimon_sql.meta.snapshot import Snapshot
from paimon_sql.meta.snapshot_manager import SnapshotManager
from paimon_sql.meta.tag_manager import TagManager
from paimon_sql.names import check_name

TAG_CREATE_TIME = "tagCreateTime"
TAG_TIME_RETAINED = "tagTimeRetained"
_TAG_KEYS = (TAG_CREATE_TIME, TAG_TIME_RETAINED)


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


def trim_to_snapshot(tagged: Snapshot) -> Snapshot:
    """A tag's snapshot without the tag's own fields (``Tag.trimToSnapshot``)."""
    if not any(k in tagged.extra for k in _TAG_KEYS):
        return tagged
    return dataclasses.replace(tagged, extra={k: v for k, v in tagged.extra.items() if k not in _TAG_KEYS})


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


def tagged_snapshots(tags: TagManager) -> list[tuple[Snapshot, list[str]]]:
    """Every tagged snapshot (trimmed) with the names of its tags, by snapshot id."""
    by_id: dict[int, tuple[Snapshot, list[str]]] = {}
    for name in tags.tag_names():
        try:
            snap = trim_to_snapshot(tags.tagged_snapshot(name))
        except NotFoundError:
            continue  # deleted since the listing
        if snap.id in by_id:
            by_id[snap.id][1].append(name)
        else:
            by_id[snap.id] = (snap, [name])
    return [by_id[k] for k in sorted(by_id)]


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
        raise AlreadyExistsError(f"Tag {tag!r} of table {store.name} already exists")
    if snapshot_id is None:
        snap = store.snapshots.latest()
        if snap is None:
            raise NotFoundError(f"Cannot create tag {tag!r}: table {store.name} has no snapshot yet")
    else:
        snap = find_snapshot(store, snapshot_id)
    data = tag_json(snap, time_retained_ms).encode("utf-8")
    path = tags.path(tag)
    fio = store.file_io
    if fio.is_local:
        created = fio.try_create_exclusive(path, data)
    else:  # no exclusive create on object stores: Paimon overwrites too
        created = not fio.exists(path)
        if created:
            fio.overwrite_atomic(path, data)
    if not created:
        raise AlreadyExistsError(f"Tag {tag!r} of table {store.name} already exists")
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

_FileKey = tuple[bytes, int, str]


def _skipping_snapshots(store: FileStore, tagged: Snapshot, all_tagged: list[Snapshot]) -> list[Snapshot]:
    """The snapshots whose files must stay: the tag before, the nearer of the next tag and the
    earliest snapshot, and the earliest snapshot and tags of every other branch."""
    out: list[Snapshot] = []
    ids = [s.id for s in all_tagged]
    index = ids.index(tagged.id) if tagged.id in ids else None
    if index is None:  # the tag list changed concurrently: keep what every tag and snapshot uses
        out.extend(all_tagged)
        earliest = _earliest(store.snapshots)
        if earliest is not None:
            out.append(earliest)
    else:
        if index > 0:
            out.append(all_tagged[index - 1])
        right = _earliest(store.snapshots)
        if index + 1 < len(all_tagged):
            nxt = all_tagged[index + 1]
            if right is None or nxt.id < right.id:
                right = nxt
        if right is not None:
            out.append(right)
    for branch_meta in _other_branch_paths(store):
        sm = SnapshotManager(store.file_io, branch_meta, store.name)
        earliest = _earliest(sm)
        if earliest is not None:
            out.append(earliest)
        out.extend(s for s, _ in tagged_snapshots(TagManager(store.file_io, branch_meta, store.name)))
    return out


def _earliest(sm: SnapshotManager) -> Snapshot | None:
    sid = sm.earliest_id()
    return sm.snapshot(sid) if sid is not None else None


def _other_branch_paths(store: FileStore) -> list[str]:
    """Metadata folders of every branch of the table but ``store``'s own."""
    out = []
    if store.branch != MAIN_BRANCH:
        out.append(store.path)
    for st in store.file_io.list_status(join(store.path, "branch")):
        name = basename(st.path)
        if st.is_dir and name.startswith(BRANCH_PREFIX) and name[len(BRANCH_PREFIX):] != store.branch:
            out.append(st.path)
    return out


def _live_data_files(store: FileStore, snapshot: Snapshot) -> list[ManifestEntry]:
    entries: list[ManifestEntry] = []
    for m in store.manifests.data_manifests(snapshot):
        entries.extend(store.manifests.read_manifest(m.file_name))
    return [e for e in merge_entries(entries) if e.kind == KIND_ADD]


def _metadata_files(store: FileStore, snapshot: Snapshot) -> set[str]:
    """Names of the manifest lists, manifests, index manifest, index files and statistics file
    ``snapshot`` references (``FileDeletionBase.manifestSkippingSet``)."""
    out = {snapshot.base_manifest_list, snapshot.delta_manifest_list}
    out.update(m.file_name for m in store.manifests.data_manifests(snapshot))
    if snapshot.index_manifest:
        out.add(snapshot.index_manifest)
        out.update(e.index_file.file_name for e in store.manifests.read_index_manifest(snapshot.index_manifest))
    if snapshot.statistics:
        out.add(snapshot.statistics)
    return out


def _clean_tag_files(store: FileStore, tagged: Snapshot, all_tagged: list[Snapshot]) -> tuple[int, int]:
    fio = store.file_io
    try:
        skipping = _skipping_snapshots(store, tagged, all_tagged)
        keep_data: set[_FileKey] = set()
        keep_meta: set[str] = set()
        for s in skipping:
            keep_data.update((e.partition, e.bucket, e.file.file_name) for e in _live_data_files(store, s))
            keep_meta |= _metadata_files(store, s)
        candidates = _live_data_files(store, tagged)
    except PaimonError:
        return 0, 0  # cannot prove a file unused: delete nothing (Paimon skips cleaning too)
    data_deleted = 0
    dirs: dict[tuple[bytes, int], str] = {}
    for e in candidates:
        if (e.partition, e.bucket, e.file.file_name) in keep_data:
            continue
        key = (e.partition, e.bucket)
        if key not in dirs:
            dirs[key] = store.bucket_dir(decode_row(e.partition, store.partition_types), e.bucket)
        paths = [e.file.external_path or join(dirs[key], e.file.file_name)]
        paths += [join(dirs[key], x) for x in e.file.extra_files]
        for p in paths:
            if fio.delete(p):
                data_deleted += 1
    # then the metadata files (manifests last, so an interrupted clean can be redone)
    meta_deleted = 0
    try:
        index_files: list[str] = []
        if tagged.index_manifest and tagged.index_manifest not in keep_meta:
            index_files = [
                e.index_file.external_path or store.index_file_path(e.index_file.file_name)
                for e in store.manifests.index_entries(tagged)
                if e.index_file.file_name not in keep_meta
            ]
        manifests = [m.file_name for m in store.manifests.read_manifest_list(tagged.base_manifest_list)]
        manifests += [m.file_name for m in store.manifests.read_manifest_list(tagged.delta_manifest_list)]
    except PaimonError:
        return data_deleted, 0
    for p in index_files:
        meta_deleted += int(fio.delete(p))
    if tagged.index_manifest and tagged.index_manifest not in keep_meta:
        meta_deleted += int(fio.delete(store.manifests.path(tagged.index_manifest)))
    for name in manifests:
        if name not in keep_meta:
            meta_deleted += int(fio.delete(store.manifests.path(name)))
    for name in (tagged.base_manifest_list, tagged.delta_manifest_list):
        if name not in keep_meta:
            meta_deleted += int(fio.delete(store.manifests.path(name)))
    if tagged.statistics and tagged.statistics not in keep_meta:
        meta_deleted += int(fio.delete(join(store.path, "statistics", tagged.statistics)))
    return data_deleted, meta_deleted
