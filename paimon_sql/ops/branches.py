"""Branches: create, delete, rename and fast-forward ``branch/branch-<name>`` folders, as Apache
Paimon's ``FileSystemBranchManager`` does.

A branch keeps its own schemas, snapshots and tags in ``<table>/branch/branch-<name>/``; data files,
manifests and index files live in the table's folders, shared by every branch.

- ``create_branch`` from a tag copies the tag file, the tagged snapshot (from the tag when the
  snapshot has expired) and the schemas ``0..`` the snapshot's schema into the branch; without a
  tag the branch is empty, with the schemas ``0..`` the current one. paimon_sql builds the folder
  under a hidden temporary name and renames it into place, so a branch appears whole or not at all.
- ``delete_branch`` takes a comma-separated list; every name is checked before any is deleted. The
  folder is renamed away first (the branch is gone at once), then deleted. No data file is deleted
  (files only the branch used are orphans, for ``remove_orphan_files``), as in Paimon.
- ``rename_branch`` renames the folder.
- ``merge_branch(table, source, target)`` (append tables) adds the data files the source branch has
  and the target lacks to the target in one APPEND commit; both branches need their complete
  append-only history from snapshot 1 and the same schema (Paimon's checks: without fork metadata
  nothing else is safe).
- ``fast_forward(table, b)``: the snapshots, tags and schemas of the target (the main branch, or the
  branch ``table`` names) from the branch's earliest snapshot on are replaced by the branch's
  (Paimon's rule: target snapshots ``>= E``, schemas ``>= S`` and tags of snapshots ``>= E`` are
  deleted, then the branch's snapshots, schemas and tags are copied), and the hints name the new
  earliest and latest snapshots (Paimon copies the branch's hint files as they are).

Crash safety of ``fast_forward`` (a kill at any point leaves the target readable; running it again
finishes the job): the steps go in this order. (1) The ``LATEST`` hint goes, and ``EARLIEST`` when
it names a replaced snapshot (readers then list the folder). (2) Tags of replaced snapshots go.
(3) Replaced snapshots go, newest first: the history stays contiguous and every state is an older
state of the target. (Target snapshots and tags that equal the branch's byte for byte, such as
the tagged snapshot a branch starts from, stay: they are already what the branch has.) (4) Target schemas from ``S`` on that the branch lacks go, newest first; the
branch's schemas are written (atomically, and only where the content differs), lowest first.
No snapshot left references a replaced schema: a target snapshot before ``E`` has a schema id
``<= S`` and schema ``S`` is the branch's copy of the target's. (5) The branch's snapshots are
created lowest first, so the history grows contiguously. (6) The branch's tags are written. (7) The
hints. A rerun computes the same plan from the branch (which is never changed) and redoes every
step, replacing what an interrupted run copied. Do not run it while writers commit to the target
(Paimon has the same rule).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

from paimon_sql.errors import AlreadyExistsError, NotFoundError, PaimonError, ValidationError
from paimon_sql.fs.file_io import basename, join
from paimon_sql.meta.file_store import BRANCH_PREFIX, MAIN_BRANCH, FileStore, branch_path
from paimon_sql.meta.kinds import CommitKind
from paimon_sql.meta.schema_manager import SchemaManager
from paimon_sql.meta.snapshot_manager import SnapshotManager
from paimon_sql.meta.tag_manager import TagManager
from paimon_sql.names import check_name, check_new_branch_name
from paimon_sql.ops.tags import trim_to_snapshot, validate_tag_name
from paimon_sql.write.commit import CommitRequest, FileStoreCommit

FALLBACK_BRANCH = "scan.fallback-branch"
PRIMARY_BRANCH = "scan.primary-branch"
_TMP_PREFIX = ".tmp-"
_DELETING_PREFIX = ".deleting-"
K = TypeVar("K", int, str)


@dataclass(frozen=True)
class CreateBranchResult:
    table: str
    branch: str
    created: bool  # False: the branch existed and ignore_if_exists was set
    tag: str | None
    snapshot_id: int | None  # the tagged snapshot the branch starts from (None: an empty branch)
    schema_ids: tuple[int, ...]  # the schemas copied into the branch
    path: str


@dataclass(frozen=True)
class DeleteBranchResult:
    table: str
    branches: tuple[str, ...]


@dataclass(frozen=True)
class RenameBranchResult:
    table: str
    from_branch: str
    to_branch: str
    path: str


@dataclass(frozen=True)
class FastForwardResult:
    table: str  # the target (main, or a branch)
    branch: str  # the branch fast-forwarded to
    earliest_snapshot_id: int  # the branch's earliest snapshot: the target's from here on replaced
    latest_snapshot_id: int  # the target's latest snapshot afterwards
    deleted_snapshots: tuple[int, ...]  # target snapshots removed (same-content ones stay)
    copied_snapshots: tuple[int, ...]  # branch snapshots written
    deleted_tags: tuple[str, ...]  # target tags of replaced snapshots removed
    copied_tags: tuple[str, ...]  # branch tags written (those whose content differed)
    deleted_schemas: tuple[int, ...]
    copied_schemas: tuple[int, ...]  # branch schemas written (those whose content differed)


def table_name(store: FileStore) -> str:
    """``db.t`` of a store of the table or of one of its branches."""
    return store.name.split("$")[0]


def branch_names(store: FileStore) -> list[str]:
    """The branches of the table (folders ``branch/branch-<name>``), sorted."""
    out = []
    for st in store.file_io.list_status(join(store.path, "branch")):
        name = basename(st.path)
        if st.is_dir and name.startswith(BRANCH_PREFIX) and len(name) > len(BRANCH_PREFIX):
            out.append(name[len(BRANCH_PREFIX):])
    return sorted(out)


def branch_exists(store: FileStore, branch: str) -> bool:
    """Whether ``branch`` of the table exists (``main`` always does)."""
    if branch == MAIN_BRANCH:
        return True
    return store.file_io.is_dir(branch_path(store.path, branch))


def _branch_store(store: FileStore, branch: str) -> tuple[SnapshotManager, SchemaManager, TagManager]:
    meta = branch_path(store.path, branch)
    name = f"{table_name(store)}$branch_{branch}" if branch != MAIN_BRANCH else table_name(store)
    return SnapshotManager(store.file_io, meta, name), SchemaManager(store.file_io, meta, name), \
        TagManager(store.file_io, meta, name)


def _require_branch(store: FileStore, branch: str, what: str, arg: str = "branch") -> None:
    if not branch_exists(store, branch):
        known = branch_names(store)
        raise NotFoundError(
            f"Cannot {what}: branch {branch!r} (argument {arg!r}) of table {table_name(store)} does not "
            f"exist (branches: {', '.join(known) if known else 'none'})"
        )


def _protected_by_options(store: FileStore, branch: str, what: str) -> None:
    """Refuses to delete or rename a branch the table reads through ``scan.fallback-branch`` or
    ``scan.primary-branch`` (Paimon refuses the delete)."""
    option_sets = [store.schema.options]
    main_schema = SchemaManager(store.file_io, store.path, table_name(store)).latest()
    if main_schema is not None:
        option_sets.append(main_schema.options)
    for opts in option_sets:
        for key in (FALLBACK_BRANCH, PRIMARY_BRANCH):
            if opts.get(key) == branch:
                raise ValidationError(
                    f"Cannot {what} branch {branch!r} of table {table_name(store)}: it is configured as "
                    f"'{key}'; unset '{key}' first"
                )


# ----------------------------------------------------------------------------------------------
# create
# ----------------------------------------------------------------------------------------------


def create_branch(
    store: FileStore, branch: str, tag: str | None = None, ignore_if_exists: bool = False
) -> CreateBranchResult:
    """Creates ``branch`` of the table from ``tag`` of ``store``'s branch (or empty, with its
    current schema)."""
    where = f"table {table_name(store)}"
    target = branch_path(store.path, check_name("branch", branch, where))
    if ignore_if_exists and branch_exists(store, branch):
        return CreateBranchResult(store.name, branch, False, tag, None, (), target)
    check_new_branch_name(branch, where)
    if branch_exists(store, branch):
        raise AlreadyExistsError(f"Branch {branch!r} of table {table_name(store)} already exists")
    fio = store.file_io
    files: dict[str, bytes] = {}  # path inside the branch folder -> content
    snapshot_id: int | None = None
    if tag is not None:
        validate_tag_name(tag, store.name, new=False)
        if not store.tags.exists(tag):
            known = store.tags.tag_names()
            raise NotFoundError(
                f"Cannot create branch {branch!r} of table {table_name(store)} from tag {tag!r} (argument "
                f"'tag'): the tag does not exist in {store.name} (tags: {', '.join(sorted(known)) or 'none'})"
            )
        tag_bytes = fio.read_bytes(store.tags.path(tag))
        snap = trim_to_snapshot(store.tags.tagged_snapshot(tag))
        snapshot_id = snap.id
        files[f"tag/tag-{tag}"] = tag_bytes
        sm = store.snapshots
        try:
            snap_bytes = fio.read_bytes(sm.path(snap.id))
        except NotFoundError:  # expired: the tag keeps its content
            snap_bytes = snap.to_json().encode("utf-8")
        files[f"snapshot/snapshot-{snap.id}"] = snap_bytes
        last_schema = snap.schema_id
    else:
        latest = store.schemas.latest()
        if latest is None:
            raise NotFoundError(f"Table {store.name} has no schema")
        last_schema = latest.id
    schema_ids = [i for i in store.schemas.schema_ids() if i <= last_schema]
    if last_schema not in schema_ids:
        raise NotFoundError(
            f"Cannot create branch {branch!r} of table {table_name(store)}: schema {last_schema} of "
            f"{store.name} does not exist"
        )
    for i in schema_ids:
        files[f"schema/schema-{i}"] = fio.read_bytes(store.schemas.path(i))
    # build the folder under a hidden name, then rename it into place (all or nothing)
    tmp = join(store.path, "branch", f"{_TMP_PREFIX}{BRANCH_PREFIX}{branch}-{uuid.uuid4()}")
    try:
        for rel, data in files.items():
            fio.write_bytes(join(tmp, rel), data)
        try:
            fio.rename(tmp, target)
        except (ValidationError, OSError):
            if branch_exists(store, branch):
                raise AlreadyExistsError(
                    f"Branch {branch!r} of table {table_name(store)} was created concurrently"
                ) from None
            raise
    finally:
        if fio.exists(tmp):
            fio.delete_dir(tmp)
    return CreateBranchResult(store.name, branch, True, tag, snapshot_id, tuple(schema_ids), target)


# ----------------------------------------------------------------------------------------------
# delete, rename
# ----------------------------------------------------------------------------------------------


def split_branch_names(branches: str | Sequence[str], table: str) -> list[str]:
    """The names of a comma-separated list (each trimmed), or of a list of names."""
    if isinstance(branches, str):
        names = [n.strip() for n in branches.split(",")]
    elif isinstance(branches, Sequence) and all(isinstance(n, str) for n in branches):
        names = [n.strip() for n in branches]
    else:
        raise ValidationError(
            f"Branches to delete of table {table} must be a comma-separated string or a list of names, "
            f"got {branches!r}"
        )
    if not names:
        raise ValidationError(f"No branch to delete of table {table}")
    return list(dict.fromkeys(names))


def delete_branch(store: FileStore, branches: str | Sequence[str]) -> DeleteBranchResult:
    """Deletes the branches ``branches`` names (comma-separated, or a list); each must exist and
    none may be ``main`` or a branch the table reads through ``scan.fallback-branch``."""
    table = table_name(store)
    names = split_branch_names(branches, table)
    for name in names:  # check every name before deleting any
        check_name("branch", name, f"table {table}")
        if name == MAIN_BRANCH:
            raise ValidationError(f"Cannot delete the main branch of table {table}")
        _require_branch(store, name, "delete it")
        _protected_by_options(store, name, "delete")
    fio = store.file_io
    for name in names:
        path = branch_path(store.path, name)
        doomed = join(store.path, "branch", f"{_DELETING_PREFIX}{BRANCH_PREFIX}{name}-{uuid.uuid4()}")
        try:
            fio.rename(path, doomed)  # the branch is gone at once; the folder goes next
        except (NotFoundError, FileNotFoundError):
            continue  # deleted concurrently
        fio.delete_dir(doomed)
    return DeleteBranchResult(store.name, tuple(names))


def rename_branch(store: FileStore, from_branch: str, to_branch: str) -> RenameBranchResult:
    """Renames branch ``from_branch`` of the table to ``to_branch``."""
    table = table_name(store)
    check_name("branch", from_branch, f"table {table}")
    if from_branch == MAIN_BRANCH:
        raise ValidationError(f"Cannot rename the main branch of table {table} (argument 'from_branch')")
    _require_branch(store, from_branch, f"rename it to {to_branch!r}", "from_branch")
    try:
        check_new_branch_name(to_branch, f"table {table}")
    except ValidationError as e:
        raise ValidationError(f"Cannot rename branch {from_branch!r} (argument 'to_branch'): {e}") from None
    if branch_exists(store, to_branch):
        raise AlreadyExistsError(
            f"Cannot rename branch {from_branch!r} of table {table}: branch {to_branch!r} (argument "
            "'to_branch') already exists"
        )
    _protected_by_options(store, from_branch, "rename")
    target = branch_path(store.path, to_branch)
    try:
        store.file_io.rename(branch_path(store.path, from_branch), target)
    except ValidationError:
        raise AlreadyExistsError(f"Branch {to_branch!r} of table {table} was created concurrently") from None
    return RenameBranchResult(store.name, from_branch, to_branch, target)


# ----------------------------------------------------------------------------------------------
# fast-forward
# ----------------------------------------------------------------------------------------------


def fast_forward(store: FileStore, branch: str) -> FastForwardResult:
    """Makes ``store``'s branch (main, usually) the branch ``branch``: see the module doc."""
    table = table_name(store)
    check_name("branch", branch, f"table {table}")
    if branch == MAIN_BRANCH:
        raise ValidationError(
            f"Cannot fast-forward table {store.name} to branch 'main' (argument 'branch'): give the "
            "branch whose history replaces it"
        )
    if branch == store.branch:
        raise ValidationError(f"Cannot fast-forward branch {branch!r} of table {table} to itself")
    _require_branch(store, branch, "fast-forward to it")
    src_sm, src_schemas, src_tags = _branch_store(store, branch)
    earliest = src_sm.earliest_id()
    if earliest is None:
        raise NotFoundError(
            f"Cannot fast-forward table {store.name} to branch {branch!r}: the branch has no snapshot"
        )
    base_schema = src_sm.snapshot(earliest).schema_id
    # read everything of the branch first: nothing of the target changes when this fails
    fio = store.file_io
    src_snapshots = {i: fio.read_bytes(src_sm.path(i)) for i in src_sm.snapshot_ids()}
    src_schema_files = {i: fio.read_bytes(src_schemas.path(i)) for i in src_schemas.schema_ids()}
    src_tag_files = {n: fio.read_bytes(src_tags.path(n)) for n in src_tags.tag_names()}
    if base_schema not in src_schema_files:
        raise NotFoundError(
            f"Cannot fast-forward table {store.name} to branch {branch!r}: schema {base_schema} of the "
            "branch does not exist"
        )
    sm, schemas, tags = store.snapshots, store.schemas, store.tags
    doomed_tags = []
    for name in tags.tag_names():
        try:
            tagged = tags.tagged_snapshot(name)
        except NotFoundError:
            continue
        except PaimonError as e:
            raise PaimonError(
                f"Cannot fast-forward table {store.name}: tag {name!r} cannot be read ({e})"
            ) from e
        if tagged.id >= earliest and _differs(store, tags.path(name), src_tag_files.get(name)):
            doomed_tags.append(name)
    # the target's snapshots from E on that equal the branch's (the one a branch from a tag starts
    # with, or all of them after an earlier fast-forward) stay
    kept_until = earliest - 1
    for sid, data in sorted(src_snapshots.items()):
        if sid != kept_until + 1 or _differs(store, sm.path(sid), data):
            break
        kept_until = sid

    # 1. hints
    fio.delete_quietly(join(sm.dir, "LATEST"))
    hint = _read_hint(store, "EARLIEST")
    if hint is None or hint >= earliest:
        fio.delete_quietly(join(sm.dir, "EARLIEST"))
    # 2. tags of replaced snapshots
    for name in doomed_tags:
        fio.delete_quietly(tags.path(name))
    # 3. replaced snapshots, newest first
    deleted_snapshots = []
    for sid in sorted((i for i in sm.snapshot_ids() if i > kept_until), reverse=True):
        if fio.delete(sm.path(sid)):
            deleted_snapshots.append(sid)
    # 4. schemas: the target's from S on that the branch lacks go; the branch's are written
    deleted_schemas = []
    for sid in sorted((i for i in schemas.schema_ids() if i >= base_schema and i not in src_schema_files),
                      reverse=True):
        if fio.delete(schemas.path(sid)):
            deleted_schemas.append(sid)
    copied_schemas = _copy_differing(store, src_schema_files, schemas.path)
    schemas.invalidate_cache()
    # 5. the branch's snapshots, lowest first
    copied_snapshots = _copy_differing(store, {i: d for i, d in src_snapshots.items() if i > kept_until}, sm.path)
    # 6. the branch's tags
    copied_tags = _copy_differing(store, src_tag_files, tags.path)
    # 7. hints
    ids = sm.snapshot_ids()
    if ids:
        fio.overwrite_atomic(join(sm.dir, "EARLIEST"), str(ids[0]).encode())
        fio.overwrite_atomic(join(sm.dir, "LATEST"), str(ids[-1]).encode())
    return FastForwardResult(
        store.name, branch, earliest, ids[-1] if ids else earliest,
        tuple(deleted_snapshots), tuple(copied_snapshots), tuple(sorted(doomed_tags)),
        tuple(copied_tags), tuple(deleted_schemas), tuple(copied_schemas),
    )


def _copy_differing(store: FileStore, files: Mapping[K, bytes], path_of: Callable[[K], str]) -> list[K]:
    """Writes each of ``files`` (by key, in key order) whose content at ``path_of(key)`` differs;
    returns the keys written."""
    copied = []
    for key, data in sorted(files.items()):
        if _differs(store, path_of(key), data):
            store.file_io.overwrite_atomic(path_of(key), data)
            copied.append(key)
    return copied


def _differs(store: FileStore, path: str, data: bytes | None) -> bool:
    if data is None:
        return True
    try:
        return store.file_io.read_bytes(path) != data
    except NotFoundError:
        return True


def _read_hint(store: FileStore, name: str) -> int | None:
    try:
        return int(store.file_io.read_text(join(store.snapshots.dir, name)).strip())
    except (NotFoundError, ValueError):
        return None


# ----------------------------------------------------------------------------------------------
# merge_branch (Paimon's FileSystemBranchManager.mergeBranch, append tables)
# ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MergeBranchResult:
    source: str
    target: str
    files: int  # data files added to the target (0: nothing to merge, no commit)
    snapshot_id: int | None


def _complete_append_history(sm: SnapshotManager, branch: str) -> None:
    """Paimon's rule: without fork metadata, a merge needs both branches' whole history, all APPEND
    (or ANALYZE) snapshots from snapshot 1."""
    earliest, latest = sm.earliest_id(), sm.latest_id()
    if earliest is None or latest is None:
        return
    if earliest != 1:
        raise ValidationError(
            f"Cannot merge: branch '{branch}' does not start at snapshot 1 (earliest is {earliest}). "
            "Branch merge requires complete append-only snapshot history."
        )
    for sid in range(1, latest + 1):
        if not sm.exists(sid):
            raise ValidationError(
                f"Cannot merge: snapshot {sid} is missing on branch '{branch}'. "
                "Branch merge requires complete append-only snapshot history."
            )
        kind = sm.snapshot(sid).commit_kind
        if kind not in (CommitKind.APPEND, CommitKind.ANALYZE):
            raise ValidationError(
                f"Cannot merge: snapshot {sid} on branch '{branch}' has commit kind '{kind}'. "
                "Branch merge requires complete append-only snapshot history."
            )


def merge_branch(
    store: FileStore, source: str, target: str = MAIN_BRANCH, committer: FileStoreCommit | None = None
) -> MergeBranchResult:
    """Adds to branch ``target`` (default main) the data files branch ``source`` has and ``target``
    lacks, in one APPEND commit (the files are shared, nothing is copied). Append tables only, both
    branches with their complete append-only history and the same schema, as Paimon checks."""
    name = table_name(store)
    for arg, value in (("source_branch", source), ("target_branch", target)):
        if not isinstance(value, str) or not value.strip():
            raise ValidationError(f"Cannot merge branches of table {name}: {arg} name {value!r} is blank.")
    if source == target:
        raise ValidationError(f"Cannot merge branch '{source}' of table {name} into itself.")
    _require_branch(store, source, "merge branch", "source_branch")
    _require_branch(store, target, "merge branch", "target_branch")
    src_sm, src_schemas, _ = _branch_store(store, source)
    dst_sm, dst_schemas, _ = _branch_store(store, target)
    if src_sm.latest_id() is None:
        raise ValidationError(f"Cannot merge branch '{source}' of table {name}, because it does not have snapshot.")
    if dst_sm.latest_id() is None:
        raise ValidationError(f"Cannot merge into branch '{target}' of table {name}, because it does not have snapshot.")
    _complete_append_history(src_sm, source)
    _complete_append_history(dst_sm, target)
    src_schema, dst_schema = src_schemas.latest(), dst_schemas.latest()
    assert src_schema is not None and dst_schema is not None
    for branch, schema in ((source, src_schema), (target, dst_schema)):
        if schema.primary_keys:
            raise ValidationError(
                f"Branch merge is only supported for append-only tables, but branch '{branch}' of table {name} "
                "has primary keys."
            )
    if src_schema.fields != dst_schema.fields:
        raise ValidationError(f"Cannot merge branch '{source}' into '{target}' of table {name}, schema mismatch.")
    src_store = store.for_branch(source, src_schema)
    dst_store = store.for_branch(target, dst_schema)
    src_latest, dst_latest = src_sm.latest(), dst_sm.latest()
    assert src_latest is not None and dst_latest is not None
    have = {e.identifier for e in dst_store.manifests.live_entries(dst_latest)}
    merged = [e for e in src_store.manifests.live_entries(src_latest) if e.identifier not in have]
    if not merged:
        return MergeBranchResult(source, target, 0, None)
    for schema_id in sorted({e.file.schema_id for e in merged}):
        if schema_id not in dst_schemas.schema_ids():
            raise ValidationError(
                f"Cannot merge branch '{source}' into '{target}' of table {name}, because target branch does not "
                f"contain schema id {schema_id} required by source files."
            )
        if src_schemas.schema(schema_id) != dst_schemas.schema(schema_id):
            raise ValidationError(
                f"Cannot merge branch '{source}' into '{target}' of table {name}, schema history mismatch for "
                f"schema id {schema_id}."
            )
    committer = committer.on(dst_store) if committer is not None else FileStoreCommit(dst_store)
    snap = committer.commit(CommitRequest(CommitKind.APPEND, tuple(merged)))
    return MergeBranchResult(source, target, len(merged), snap.id)
