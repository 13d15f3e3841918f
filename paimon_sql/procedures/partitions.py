"""``CALL sys.expire_partitions(...)`` and ``CALL sys.mark_partition_done(...)``: Paimon's Spark
procedures (parameters, positional order, output columns and texts) over ``Table.expire_partitions``
and ``Table.mark_partition_done`` (ops/partitions.py). ``expire_partitions`` also takes ``dry_run``
(after Paimon's parameters): it reports what would expire and drops nothing."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from paimon_sql.procedures.builtin import parse_options_arg
from paimon_sql.procedures.compaction import parse_partitions_arg
from paimon_sql.procedures.registry import RESULT, TABLE, ProcedureArgs, optional, procedure, required

if TYPE_CHECKING:
    from paimon_sql.catalog.catalog import Catalog

NO_EXPIRED = "No expired partitions."


@procedure(
    name="expire_partitions",
    params=(
        TABLE,
        optional("expiration_time", "STRING"),
        optional("timestamp_formatter", "STRING"),
        optional("timestamp_pattern", "STRING"),
        optional("expire_strategy", "STRING"),
        optional("max_expires", "INT"),
        optional("options", "STRING"),
        optional("dry_run", "BOOLEAN", False),
    ),
    output=(("expired_partitions", "STRING"),),
    description="Drops the partitions of table 'table' older than 'expiration_time' (default: the table's "
                "'partition.expiration-time'), read from their values ('values-time': 'timestamp_pattern' "
                "and 'timestamp_formatter') or from their newest file ('update-time'), at most 'max_expires' "
                "of them; 'options' sets other table options for the call; 'dry_run' only reports.",
)
def _expire_partitions(catalog: Catalog, args: ProcedureArgs) -> list[tuple[Any, ...]]:
    name = "expire_partitions"
    table = args.table(catalog)
    options = parse_options_arg(name, args["options"]) if args["options"] else None
    result = table.expire_partitions(
        expiration_time=args["expiration_time"],
        timestamp_formatter=args["timestamp_formatter"],
        timestamp_pattern=args["timestamp_pattern"],
        expire_strategy=args["expire_strategy"],
        max_expires=args["max_expires"],
        options=options,
        dry_run=bool(args["dry_run"]),
    )
    texts = result.texts()
    return [(t,) for t in texts] if texts else [(NO_EXPIRED,)]


@procedure(
    name="mark_partition_done",
    params=(TABLE, required("partitions", "STRING")),
    output=RESULT,
    description="Marks the partitions 'partitions' ('k=v,k2=v2;k=v3,...', full specs) of table 'table' done "
                "with its 'partition.mark-done-action' ('success-file': writes <partition>/_SUCCESS).",
)
def _mark_partition_done(catalog: Catalog, args: ProcedureArgs) -> list[tuple[Any, ...]]:
    name = "mark_partition_done"
    args.table(catalog).mark_partition_done(parse_partitions_arg(name, args["partitions"]))
    return [(True,)]
