"""The procedures behind the SQL tag statements of Apache Paimon's Spark extension
(``ALTER TABLE t CREATE [OR REPLACE] TAG``, ``REPLACE TAG``, ``DELETE TAG``, ``RENAME TAG``): the
Spark parser extension rewrites each statement into a ``CALL`` of one of these.

They run the same tag operations as ``create_tag``, ``replace_tag``, ``delete_tag`` and
``rename_tag`` with the statements' semantics (Paimon's ``CreateOrReplaceTagExec``,
``DeleteTagExec``, ``RenameTagExec``): no output columns and no rows; ``CREATE TAG`` of an
existing tag fails unless ``IF NOT EXISTS``, in which case nothing changes; ``REPLACE TAG`` and
``CREATE OR REPLACE TAG`` replace an existing tag and create a missing one. They are not listed by
SHOW PROCEDURES (``listed=False``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from paimon_sql.errors import AlreadyExistsError, ValidationError
from paimon_sql.ops import tag_changes as tag_change_ops
from paimon_sql.ops import tags as tag_ops
from paimon_sql.procedures.builtin import delete_tags
from paimon_sql.procedures.registry import TABLE, ProcedureArgs, optional, procedure, required

if TYPE_CHECKING:
    from paimon_sql.catalog.catalog import Catalog


def _snapshot(procedure: str, value: int | None) -> int | None:
    if value is not None and value <= 0:
        raise ValidationError(
            f"{procedure}: AS OF VERSION must name a snapshot id (> 0), got {value}"
        )
    return value


@procedure(
    name="alter_table_create_tag",
    params=(
        TABLE,
        required("tag", "STRING"),
        optional("snapshot", "BIGINT"),
        optional("time_retained", "STRING"),
        optional("replace", "BOOLEAN", False),
        optional("if_not_exists", "BOOLEAN", False),
    ),
    output=(),
    description="ALTER TABLE t CREATE TAG [IF NOT EXISTS] / CREATE OR REPLACE TAG / REPLACE TAG: "
                "creates tag 'tag' of snapshot 'snapshot' (default: the latest), kept for "
                "'time_retained'; with 'replace' an existing tag is replaced, with 'if_not_exists' "
                "it is kept.",
    listed=False,
)
def _create_tag(catalog: Catalog, args: ProcedureArgs) -> list[tuple[Any, ...]]:
    """CREATE TAG [IF NOT EXISTS] / CREATE OR REPLACE TAG / REPLACE TAG."""
    replace: bool = args["replace"]
    where = "ALTER TABLE ... " + ("REPLACE TAG" if replace else "CREATE TAG")
    table = args.table(catalog)
    tag: str = args["tag"]
    snapshot = _snapshot(where, args["snapshot"])
    retained = tag_change_ops.parse_time_retained(args["time_retained"], where, "RETAIN")
    store = table.store
    if replace and store.tags.exists(tag):
        tag_change_ops.replace_tag(store, tag, snapshot, retained)
        return []
    try:
        tag_ops.create_tag(store, tag, snapshot, retained)
    except AlreadyExistsError:
        if replace:  # created since the check
            tag_change_ops.replace_tag(store, tag, snapshot, retained)
        elif not args["if_not_exists"]:  # Paimon's CreateOrReplaceTagExec text
            raise AlreadyExistsError(f"{where}: table {table.identifier}: Tag {tag} is exists.") from None
    return []


@procedure(
    name="alter_table_delete_tag",
    params=(TABLE, required("tag", "STRING")),
    output=(),
    description="ALTER TABLE t DELETE TAG: deletes the tags 'tag' (comma-separated names); missing "
                "tags are skipped.",
    listed=False,
)
def _delete_tag(catalog: Catalog, args: ProcedureArgs) -> list[tuple[Any, ...]]:
    """DELETE TAG [IF EXISTS] a[,b...]: missing tags are skipped either way, as in Paimon."""
    delete_tags(args.table(catalog), args["tag"], "ALTER TABLE ... DELETE TAG")
    return []


@procedure(
    name="alter_table_rename_tag",
    params=(TABLE, required("tag", "STRING"), required("target_tag", "STRING")),
    output=(),
    description="ALTER TABLE t RENAME TAG: renames tag 'tag' to 'target_tag'.",
    listed=False,
)
def _rename_tag(catalog: Catalog, args: ProcedureArgs) -> list[tuple[Any, ...]]:
    """RENAME TAG a TO b."""
    args.table(catalog).rename_tag(args["tag"], args["target_tag"])
    return []


