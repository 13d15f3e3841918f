"""Paimon's tag, rollback and snapshot-expiry procedures, with the parameters and output columns of
Apache Paimon's Spark procedures (``CreateTagProcedure``, ``DeleteTagProcedure``,
``RollbackProcedure``, ``ExpireSnapshotsProcedure``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from paimon_sql.errors import ValidationError
from paimon_sql.meta.travel import parse_version
from paimon_sql.ops import expire as expire_ops
from paimon_sql.ops import tag_changes as tag_change_ops
from paimon_sql.ops import tags as tag_ops
from paimon_sql.options import parse_duration_ms
from paimon_sql.procedures.registry import RESULT, TABLE, ProcedureArgs, optional, procedure, required

if TYPE_CHECKING:
    from paimon_sql.catalog.catalog import Catalog
    from paimon_sql.table.table import Table

_ROLLBACK_OUTPUT = (("previous_snapshot_id", "BIGINT"), ("current_snapshot_id", "BIGINT"))


@procedure(
    name="create_tag",
    params=(
        TABLE,
        required("tag", "STRING"),
        optional("snapshot", "BIGINT"),
        optional("time_retained", "STRING"),
    ),
    output=RESULT,
    description="Creates tag 'tag' of snapshot 'snapshot' (default: the latest) of table 'table', "
                "optionally kept for 'time_retained' (a duration such as '1 d').",
)
def _create_tag(catalog: Catalog, args: ProcedureArgs) -> list[tuple[Any, ...]]:
    table = args.table(catalog)
    snapshot = args["snapshot"]
    if snapshot is not None and snapshot <= 0:
        raise ValidationError(f"Procedure create_tag: argument 'snapshot' must be a snapshot id (> 0), got {snapshot}")
    retained = args["time_retained"]
    retained_ms = None
    if retained is not None:
        try:
            retained_ms = parse_duration_ms(retained)
        except ValidationError as e:
            raise ValidationError(
                f"Procedure create_tag: invalid argument 'time_retained' {retained!r}: {e}"
            ) from None
    # not Table.create_tag: Paimon's CreateTagProcedure passes its time_retained (null when not
    # given) explicitly, so tag.default-time-retained does not apply to the procedure
    tag_ops.create_tag(table.store, args["tag"], snapshot, retained_ms)
    return [(True,)]


@procedure(
    name="delete_tag",
    params=(TABLE, required("tag", "STRING")),
    output=RESULT,
    description="Deletes the tags 'tag' (comma-separated names) of table 'table'; missing tags are "
                "ignored.",
)
def _delete_tag(catalog: Catalog, args: ProcedureArgs) -> list[tuple[Any, ...]]:
    delete_tags(args.table(catalog), args["tag"], "Procedure delete_tag: invalid argument 'tag'")
    return [(True,)]


def delete_tags(table: Table, text: str, where: str) -> None:
    """Deletes the tags ``text`` names (comma-separated; missing ones are skipped), every name
    checked before any is deleted; a bad name raises ``ValidationError('<where> <text>: ...')``."""
    names = [n.strip() for n in text.split(",")]
    for n in names:
        try:
            tag_ops.validate_tag_name(n, table.name, new=False)
        except ValidationError as e:
            raise ValidationError(f"{where} {text!r}: {e}") from None
    for n in dict.fromkeys(names):
        table.delete_tag(n)


@procedure(
    name="rollback",
    params=(TABLE, optional("version", "STRING"), optional("snapshot", "BIGINT"), optional("tag", "STRING")),
    output=_ROLLBACK_OUTPUT,
    description="Rolls table 'table' back to a snapshot or tag: 'version' (a snapshot id or tag "
                "name), or 'snapshot', or 'tag'. Later snapshots and tags are deleted.",
)
def _rollback(catalog: Catalog, args: ProcedureArgs) -> list[tuple[Any, ...]]:
    table = args.table(catalog)
    version, snapshot, tag = args["version"], args["snapshot"], args["tag"]
    if version is not None and not version.strip():
        version = None
    if version is not None:
        if snapshot is not None or tag is not None:
            raise ValidationError(
                "Procedure rollback: give only one of the arguments 'version', 'snapshot' and 'tag'"
            )
        parsed = parse_version(version, "Procedure rollback")
        if isinstance(parsed, int):
            snapshot = parsed
        else:
            tag = parsed
    elif (snapshot is None) == (tag is None):
        raise ValidationError(
            "Procedure rollback: give exactly one of the arguments 'version', 'snapshot' and 'tag'"
        )
    if tag is not None:
        try:
            tag_ops.validate_tag_name(tag, table.name, new=False)
        except ValidationError as e:
            raise ValidationError(f"Procedure rollback: invalid tag {tag!r}: {e}") from None
    result = table.rollback(snapshot_id=snapshot, tag=tag)
    return [(result.previous_snapshot_id, result.current_snapshot_id)]


def parse_options_arg(procedure: str, text: str | None) -> dict[str, str]:
    """``'k1=v1,k2=v2'`` (Paimon's ``ParameterUtils.parseCommaSeparatedKeyValues``: keys and values
    trimmed, a value may contain '='); an entry without '=' is an error naming the argument."""
    out: dict[str, str] = {}
    if text is None or not text.strip():
        return out
    for item in text.split(","):
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ValidationError(
                f"Procedure {procedure}: invalid argument 'options' {text!r}: {item!r} is not 'key=value'"
            )
        out[key.strip()] = value.strip()
    return out


@procedure(
    name="expire_snapshots",
    params=(
        TABLE,
        optional("retain_max", "INT"),
        optional("retain_min", "INT"),
        optional("older_than", "STRING"),
        optional("max_deletes", "INT"),
        optional("options", "STRING"),
        optional("dry_run", "BOOLEAN", False),
    ),
    output=(("deleted_snapshots_count", "INT"),),
    verbose_output=(
        ("deleted_data_files_count", "BIGINT"),
        ("deleted_manifests_count", "BIGINT"),
        ("deleted_index_files_count", "BIGINT"),
        ("deleted_bytes", "BIGINT"),
    ),
    description="Expires snapshots of table 'table': beyond 'retain_max' whatever their age, else once "
                "the next snapshot is older than 'older_than' (default: now minus snapshot.time-retained), "
                "keeping 'retain_min' and what consumers need, at most 'max_deletes' at a time; "
                "'options' ('k=v,...') overrides table options; 'dry_run' only reports; 'verbose' adds "
                "the deleted files' counts and bytes.",
)
def _expire_snapshots(catalog: Catalog, args: ProcedureArgs) -> list[tuple[Any, ...]]:
    table = args.table(catalog)
    options = parse_options_arg("expire_snapshots", args["options"])
    older_than = args["older_than"]
    if older_than is not None and not older_than.strip():
        older_than = None  # Paimon ignores a blank older_than
    if older_than is not None:
        expire_ops.parse_timestamp_ms(older_than, "Procedure expire_snapshots: argument 'older_than'")
    r = table.expire_snapshots(
        args["retain_max"], args["retain_min"], older_than, args["max_deletes"],
        dry_run=args["dry_run"], options=options,
    )
    return [(r.deleted_snapshots, r.deleted_data_files, r.deleted_manifests, r.deleted_index_files,
             r.deleted_bytes)]


@procedure(
    name="expire_changelogs",
    params=(
        TABLE,
        optional("retain_max", "INT"),
        optional("retain_min", "INT"),
        optional("older_than", "STRING"),
        optional("max_deletes", "INT"),
        optional("delete_all", "BOOLEAN", False),
        optional("dry_run", "BOOLEAN", False),
    ),
    output=(("result", "STRING"),),
    verbose_output=(
        ("deleted_data_files_count", "BIGINT"),
        ("deleted_manifests_count", "BIGINT"),
        ("deleted_bytes", "BIGINT"),
    ),
    description="Expires the long-lived changelogs of table 'table' (kept by snapshot expiry when "
                "changelog.num-retained.* / changelog.time-retained exceed the snapshot retention): beyond "
                "'retain_max' counted from the latest snapshot, keeping 'retain_min', once older than "
                "'older_than' (defaults: the table's changelog options), at most 'max_deletes'; "
                "'delete_all' deletes every one; 'dry_run' only reports; 'verbose' adds the deleted files' counts "
                "and bytes.",
)
def _expire_changelogs(catalog: Catalog, args: ProcedureArgs) -> list[tuple[Any, ...]]:
    table = args.table(catalog)
    older_than = args["older_than"]
    if older_than is not None and not older_than.strip():
        older_than = None
    if args["delete_all"]:
        r = table.expire_changelogs(delete_all=True, dry_run=args["dry_run"])
        head = "Delete all separated changelogs success."
    else:
        r = table.expire_changelogs(args["retain_max"], args["retain_min"], older_than, args["max_deletes"],
                                    dry_run=args["dry_run"])
        head = str(r.deleted_changelogs)
    return [(head, r.deleted_data_files, r.deleted_manifests, r.deleted_bytes)]


# -- branches, more tag procedures, rollback by time and watermark (Apache Paimon's
# CreateBranchProcedure, DeleteBranchProcedure, RenameBranchProcedure, FastForwardProcedure,
# ReplaceTagProcedure, RenameTagProcedure, CreateTagFromTimestampProcedure,
# RollbackToTimestampProcedure, RollbackToWatermarkProcedure) ---------------------------------------


def _bool_text(procedure: str, arg: str, value: str | None) -> bool:
    """A boolean given as text (Paimon declares ``ignoreIfExists`` a STRING): 'true' or 'false'."""
    if value is None:
        return False
    text = value.strip().lower()
    if text not in ("true", "false"):
        raise ValidationError(f"Procedure {procedure}: argument {arg!r} must be 'true' or 'false', got {value!r}")
    return text == "true"


def _snapshot_arg(procedure: str, value: int | None) -> int | None:
    if value is not None and value <= 0:
        raise ValidationError(f"Procedure {procedure}: argument 'snapshot' must be a snapshot id (> 0), got {value}")
    return value


@procedure(
    name="create_branch",
    params=(
        TABLE,
        required("branch", "STRING"),
        optional("tag", "STRING"),
        optional("ignoreIfExists", "STRING"),
    ),
    output=RESULT,
    description="Creates branch 'branch' of table 'table' from tag 'tag' (or empty, with the current "
                "schema); 'ignoreIfExists' => 'true' does nothing when the branch exists.",
)
def _create_branch(catalog: Catalog, args: ProcedureArgs) -> list[tuple[Any, ...]]:
    table = args.table(catalog)
    ignore = _bool_text("create_branch", "ignoreIfExists", args["ignoreIfExists"])
    table.create_branch(args["branch"], args["tag"], ignore)
    return [(True,)]


@procedure(
    name="delete_branch",
    params=(TABLE, required("branch", "STRING")),
    output=RESULT,
    description="Deletes the branches 'branch' (comma-separated names) of table 'table'.",
)
def _delete_branch(catalog: Catalog, args: ProcedureArgs) -> list[tuple[Any, ...]]:
    args.table(catalog).delete_branch(args["branch"])
    return [(True,)]


@procedure(
    name="rename_branch",
    params=(TABLE, required("from_branch", "STRING"), required("to_branch", "STRING")),
    output=RESULT,
    description="Renames branch 'from_branch' of table 'table' to 'to_branch'.",
)
def _rename_branch(catalog: Catalog, args: ProcedureArgs) -> list[tuple[Any, ...]]:
    args.table(catalog).rename_branch(args["from_branch"], args["to_branch"])
    return [(True,)]


@procedure(
    name="fast_forward",
    params=(TABLE, required("branch", "STRING")),
    output=RESULT,
    description="Fast-forwards table 'table' to branch 'branch': its snapshots, schemas and tags from "
                "the branch's earliest snapshot on are replaced by the branch's.",
)
def _fast_forward(catalog: Catalog, args: ProcedureArgs) -> list[tuple[Any, ...]]:
    args.table(catalog).fast_forward(args["branch"])
    return [(True,)]


@procedure(
    name="merge_branch",
    params=(TABLE, required("source_branch", "STRING"), optional("target_branch", "STRING")),
    output=RESULT,
    description="Merges branch 'source_branch' of append table 'table' into 'target_branch' (default main): "
                "the data files the source has and the target lacks are added in one APPEND commit. Both "
                "branches need their complete append-only history and the same schema.",
)
def _merge_branch(catalog: Catalog, args: ProcedureArgs) -> list[tuple[Any, ...]]:
    args.table(catalog).merge_branch(args["source_branch"], args["target_branch"] or "main")
    return [(True,)]


@procedure(
    name="replace_tag",
    params=(
        TABLE,
        required("tag", "STRING"),
        optional("snapshot", "BIGINT"),
        optional("time_retained", "STRING"),
    ),
    output=RESULT,
    description="Points the existing tag 'tag' of table 'table' at snapshot 'snapshot' (default: the "
                "latest), kept for 'time_retained' (none when not given).",
)
def _replace_tag(catalog: Catalog, args: ProcedureArgs) -> list[tuple[Any, ...]]:
    table = args.table(catalog)
    retained = tag_change_ops.parse_time_retained(args["time_retained"], "Procedure replace_tag")
    table.replace_tag(args["tag"], _snapshot_arg("replace_tag", args["snapshot"]), retained)
    return [(True,)]


@procedure(
    name="rename_tag",
    params=(TABLE, required("tag", "STRING"), required("target_tag", "STRING")),
    output=RESULT,
    description="Renames tag 'tag' of table 'table' to 'target_tag'.",
)
def _rename_tag(catalog: Catalog, args: ProcedureArgs) -> list[tuple[Any, ...]]:
    args.table(catalog).rename_tag(args["tag"], args["target_tag"])
    return [(True,)]


@procedure(
    name="create_tag_from_timestamp",
    params=(
        TABLE,
        required("tag", "STRING"),
        required("timestamp", "BIGINT"),
        optional("time_retained", "STRING"),
    ),
    output=(("tagName", "STRING"), ("snapshot", "BIGINT"), ("commit_time", "BIGINT"), ("watermark", "STRING")),
    description="Creates tag 'tag' of the earliest snapshot of table 'table' committed at or after "
                "'timestamp' (epoch millis; snapshots only tags keep count), kept for 'time_retained'.",
)
def _create_tag_from_timestamp(catalog: Catalog, args: ProcedureArgs) -> list[tuple[Any, ...]]:
    table = args.table(catalog)
    retained = tag_change_ops.parse_time_retained(args["time_retained"], "Procedure create_tag_from_timestamp")
    r = table.create_tag_from_timestamp(args["tag"], args["timestamp"], retained)
    return [(r.tag, r.snapshot_id, r.commit_time, str(r.watermark) if r.watermark is not None else "null")]


@procedure(
    name="rollback_to_timestamp",
    params=(TABLE, required("timestamp", "BIGINT")),
    output=_ROLLBACK_OUTPUT,
    description="Rolls table 'table' back to its latest snapshot committed at or before 'timestamp' "
                "(epoch millis).",
)
def _rollback_to_timestamp(catalog: Catalog, args: ProcedureArgs) -> list[tuple[Any, ...]]:
    table = args.table(catalog)
    r = table.rollback_to_timestamp(args["timestamp"])
    return [(r.previous_snapshot_id, r.current_snapshot_id)]


@procedure(
    name="rollback_to_watermark",
    params=(TABLE, required("watermark", "BIGINT")),
    output=_ROLLBACK_OUTPUT,
    description="Rolls table 'table' back to its latest snapshot whose watermark is at or below "
                "'watermark'.",
)
def _rollback_to_watermark(catalog: Catalog, args: ProcedureArgs) -> list[tuple[Any, ...]]:
    table = args.table(catalog)
    r = table.rollback_to_watermark(args["watermark"])
    return [(r.previous_snapshot_id, r.current_snapshot_id)]


