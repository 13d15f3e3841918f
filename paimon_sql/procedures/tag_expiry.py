"""``CALL sys.expire_tags(table, older_than)``: Paimon's ExpireTagsProcedure parameters and
``expired_tags`` column (one row per expired tag, or ``No expired tags.``)."""

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
