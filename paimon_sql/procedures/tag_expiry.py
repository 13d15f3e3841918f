"""``CALL sys.expire_tags(table, older_than)`` (Paimon's ExpireTagsProcedure parameters and
``expired_tags`` column: one row per expired tag, or ``No expired tags.``) and
``CALL sys.trigger_tag_automatic_creation(table)``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from paimon_sql.procedures.registry import RESULT, TABLE, ProcedureArgs, optional, procedure

if TYPE_CHECKING:
    from paimon_sql.catalog.catalog import Catalog


@procedure(
    name="expire_tags",
    params=(TABLE, optional("older_than", "STRING")),
    output=(("expired_tags", "STRING"),),
    description="Deletes the tags of table 'table' whose time_retained has passed, and those created before "
                "'older_than' ('yyyy-MM-dd HH:mm:ss'); one row per expired tag.",
)
def _expire_tags(catalog: Catalog, args: ProcedureArgs) -> list[tuple[Any, ...]]:
    table = args.table(catalog)
    expired = table.expire_tags(args["older_than"])
    return [(name,) for name in expired] or [("No expired tags.",)]


@procedure(
    name="trigger_tag_automatic_creation",
    params=(TABLE,),
    output=RESULT,
    description="Runs the automatic tag maintenance of table 'table' now (Paimon's TagAutoManager): the "
                "'tag.automatic-creation' process-time / watermark tags of its snapshots, then the tags whose "
                "time_retained has passed ('tag.time-expire-enabled').",
)
def _trigger_tag_automatic_creation(catalog: Catalog, args: ProcedureArgs) -> list[tuple[Any, ...]]:
    args.table(catalog).trigger_tag_automatic_creation()
    return [(True,)]


