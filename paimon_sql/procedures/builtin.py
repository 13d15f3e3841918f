"""Paimon's tag and rollback procedures, with the parameters and output columns of Apache Paimon's
Spark procedures (``CreateTagProcedure``, ``DeleteTagProcedure``, ``RollbackProcedure``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from paimon_sql.catalog.identifier import Identifier
from paimon_sql.errors import ValidationError
from paimon_sql.ops import rollback as rollback_ops
from paimon_sql.ops import tags as tag_ops
from paimon_sql.options import parse_duration_ms
from paimon_sql.procedures.registry import CURRENT_DATABASE, Procedure, ProcedureParam, register
from paimon_sql.table.table import Table
from paimon_sql.table.travel import parse_version

if TYPE_CHECKING:
    from paimon_sql.catalog.catalog import Catalog



def table_arg(catalog: Catalog, procedure: str, value: str, arg: str = "table") -> Table:
    """The table (or branch, ``db.t$branch_b``) an identifier argument names; ``t`` alone is in the
    session's current database (``CURRENT_DATABASE``; ``default`` outside SQL), as in Paimon."""
    if not isinstance(value, str) or not value.strip():
        raise ValidationError(f"Procedure {procedure}: argument {arg!r} must name a table, got {value!r}")
    try:
        bare = "." not in value
        ident = Identifier.parse((CURRENT_DATABASE.get(), value.strip().strip("`")) if bare else value)
    except ValidationError as e:
        raise ValidationError(f"Procedure {procedure}: argument {arg!r}: {e}") from None
    if ident.system_table is not None:
        raise ValidationError(
            f"Procedure {procedure}: argument {arg!r} must name a table, not the system table {ident.full_name}"
        )
    table = catalog.get_table(ident)
    assert isinstance(table, Table)
    return table


def _create_tag(catalog: Catalog, args: dict[str, Any]) -> list[tuple[Any, ...]]:
    table = table_arg(catalog, "create_tag", args["table"])
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
    tag_ops.create_tag(table.store, args["tag"], snapshot, retained_ms)
    return [(True,)]


def _delete_tag(catalog: Catalog, args: dict[str, Any]) -> list[tuple[Any, ...]]:
    table = table_arg(catalog, "delete_tag", args["table"])
    names = [n.strip() for n in args["tag"].split(",")]
    for n in names:  # check every name before deleting any
        try:
            tag_ops.validate_tag_name(n, table.name, new=False)
        except ValidationError as e:
            raise ValidationError(f"Procedure delete_tag: invalid argument 'tag' {args['tag']!r}: {e}") from None
    for n in dict.fromkeys(names):
        tag_ops.delete_tag(table.store, n)
    return [(True,)]


def _rollback(catalog: Catalog, args: dict[str, Any]) -> list[tuple[Any, ...]]:
    table = table_arg(catalog, "rollback", args["table"])
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
    result = rollback_ops.rollback(table.store, snapshot_id=snapshot, tag=tag)
    return [(result.previous_snapshot_id, result.current_snapshot_id)]


CREATE_TAG = register(Procedure(
    name="create_tag",
    params=(
        ProcedureParam("table", "STRING", True),
        ProcedureParam("tag", "STRING", True),
        ProcedureParam("snapshot", "BIGINT", False),
        ProcedureParam("time_retained", "STRING", False),
    ),
    output=(("result", "BOOLEAN"),),
    description="Creates tag 'tag' of snapshot 'snapshot' (default: the latest) of table 'table', "
                "optionally kept for 'time_retained' (a duration such as '1 d').",
    fn=_create_tag,
))

DELETE_TAG = register(Procedure(
    name="delete_tag",
    params=(
        ProcedureParam("table", "STRING", True),
        ProcedureParam("tag", "STRING", True),
    ),
    output=(("result", "BOOLEAN"),),
    description="Deletes the tags 'tag' (comma-separated names) of table 'table'; missing tags are "
                "ignored.",
    fn=_delete_tag,
))

ROLLBACK = register(Procedure(
    name="rollback",
    params=(
        ProcedureParam("table", "STRING", True),
        ProcedureParam("version", "STRING", False),
        ProcedureParam("snapshot", "BIGINT", False),
        ProcedureParam("tag", "STRING", False),
    ),
    output=(("previous_snapshot_id", "BIGINT"), ("current_snapshot_id", "BIGINT")),
    description="Rolls table 'table' back to a snapshot or tag: 'version' (a snapshot id or tag "
                "name), or 'snapshot', or 'tag'. Later snapshots and tags are deleted.",
    fn=_rollback,
))
