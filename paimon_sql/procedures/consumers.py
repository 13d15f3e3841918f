"""``CALL sys.reset_consumer(...)`` and ``CALL sys.clear_consumers(...)``: Paimon's
ResetConsumerProcedure / ClearConsumersProcedure parameters and ``result`` column."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from paimon_sql.procedures.registry import RESULT, TABLE, ProcedureArgs, optional, procedure, required

if TYPE_CHECKING:
    from paimon_sql.catalog.catalog import Catalog


@procedure(
    name="reset_consumer",
    params=(TABLE, required("consumerId", "STRING"), optional("nextSnapshotId", "BIGINT")),
    output=RESULT,
    description="Sets consumer 'consumerId' of table 'table' to read from snapshot 'nextSnapshotId' "
                "(snapshot expiry keeps it and later ones); without it, deletes the consumer.",
)
def _reset_consumer(catalog: Catalog, args: ProcedureArgs) -> list[tuple[Any, ...]]:
    args.table(catalog).reset_consumer(args["consumerId"], args["nextSnapshotId"])
    return [(True,)]


@procedure(
    name="clear_consumers",
    params=(TABLE, optional("includingConsumers", "STRING"), optional("excludingConsumers", "STRING")),
    output=RESULT,
    description="Deletes the consumers of table 'table' whose id fully matches the regular expression "
                "'includingConsumers' (default: all) and not 'excludingConsumers'.",
)
def _clear_consumers(catalog: Catalog, args: ProcedureArgs) -> list[tuple[Any, ...]]:
    args.table(catalog).clear_consumers(args["includingConsumers"], args["excludingConsumers"])
    return [(True,)]


