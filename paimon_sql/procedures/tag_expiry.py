"""``CALL sys.expire_tags(table, older_than)`` (Paimon's ExpireTagsProcedure parameters and
``expired_tags`` column: one row per expired tag, or ``No expired tags.``) and
``CALL sys.trigger_tag_automatic_creation(table)``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from paimon_sql.errors import ValidationError
from paimon_sql.procedures.builtin import table_arg
from paimon_sql.procedures.registry import Procedure, ProcedureParam, register

if TYPE_CHECKING:
    from paimon_sql.catalog.catalog import Catalog


def _expire_tags(catalog: Catalog, args: dict[str, Any]) -> list[tuple[Any, ...]]:
    table = table_arg(catalog, "expire_tags", args["table"])
    try:
        expired = table.expire_tags(args["older_than"])
    except ValidationError as e:
        raise ValidationError(f"Procedure expire_tags: {e}") from None
    return [(name,) for name in expired] or [("No expired tags.",)]


EXPIRE_TAGS = register(Procedure(
    name="expire_tags",
    params=(ProcedureParam("table", "STRING", True), ProcedureParam("older_than", "STRING", False)),
    output=(("expired_tags", "STRING"),),
    description="Deletes the tags of table 'table' whose time_retained has passed, and those created before "
                "'older_than' ('yyyy-MM-dd HH:mm:ss'); one row per expired tag.",
    fn=_expire_tags,
))


def _trigger_tag_automatic_creation(catalog: Catalog, args: dict[str, Any]) -> list[tuple[Any, ...]]:
    table_arg(catalog, "trigger_tag_automatic_creation", args["table"]).trigger_tag_automatic_creation()
    return [(True,)]


TRIGGER_TAG_AUTOMATIC_CREATION = register(Procedure(
    name="trigger_tag_automatic_creation",
    params=(ProcedureParam("table", "STRING", True),),
    output=(("result", "BOOLEAN"),),
    description="Runs the automatic tag maintenance of table 'table' now (Paimon's TagAutoManager): the "
                "'tag.automatic-creation' process-time / watermark tags of its snapshots, then the tags whose "
                "time_retained has passed ('tag.time-expire-enabled').",
    fn=_trigger_tag_automatic_creation,
))
