"""``CALL sys.expire_partitions(...)`` and ``CALL sys.mark_partition_done(...)``: Paimon's Spark
procedures (parameters, positional order, output columns and texts) over ``Table.expire_partitions``
and ``Table.mark_partition_done`` (ops/partitions.py). ``expire_partitions`` also takes ``dry_run``
(after Paimon's parameters): it reports what would expire and drops nothing."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from paimon_sql.errors import NotFoundError, ValidationError
from paimon_sql.ops import partitions as partition_ops
from paimon_sql.procedures.builtin import parse_options_arg, table_arg
from paimon_sql.procedures.compaction import parse_partitions_arg
from paimon_sql.procedures.registry import RESULT, TABLE, ProcedureParam, procedure

if TYPE_CHECKING:
    from paimon_sql.catalog.catalog import Catalog

NO_EXPIRED = "No expired partitions."


@procedure(
    name="expire_partitions",
    params=(
        TABLE,
        ProcedureParam("expiration_time", "STRING", False),
        ProcedureParam("timestamp_formatter", "STRING", False),
        ProcedureParam("timestamp_pattern", "STRING", False),
        ProcedureParam("expire_strategy", "STRING", False),
        ProcedureParam("max_expires", "INT", False),
        ProcedureParam("options", "STRING", False),
        ProcedureParam("dry_run", "BOOLEAN", False, False),
    ),
    output=(("expired_partitions", "STRING"),),
    description="Drops the partitions of table 'table' older than 'expiration_time' (default: the table's "
                "'partition.expiration-time'), read from their values ('values-time': 'timestamp_pattern' "
                "and 'timestamp_formatter') or from their newest file ('update-time'), at most 'max_expires' "
                "of them; 'options' sets other table options for the call; 'dry_run' only reports.",
)
def _expire_partitions(catalog: Catalog, args: dict[str, Any]) -> list[tuple[Any, ...]]:
    name = "expire_partitions"
    table = table_arg(catalog, name, args["table"])
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
    params=(
        TABLE,
        ProcedureParam("partitions", "STRING", True),
    ),
    output=RESULT,
    description="Marks the partitions 'partitions' ('k=v,k2=v2;k=v3,...', full specs) of table 'table' done "
                "with its 'partition.mark-done-action' ('success-file': writes <partition>/_SUCCESS).",
)
def _mark_partition_done(catalog: Catalog, args: dict[str, Any]) -> list[tuple[Any, ...]]:
    name = "mark_partition_done"
    table = table_arg(catalog, name, args["table"])
    table.mark_partition_done(parse_partitions_arg(name, args["partitions"]))
    return [(True,)]


@procedure(
    name="alter_table_drop_partitions",
    params=(
        TABLE,
        ProcedureParam("partitions", "STRING", True),
        ProcedureParam("if_exists", "BOOLEAN", False, False),
    ),
    output=(),
    description="ALTER TABLE t DROP [IF EXISTS] PARTITION (...)[, PARTITION (...)]: drops the partitions "
                "'partitions' (a JSON list of column -> value objects; a spec may name only the first "
                "columns, or any of them) in one commit.",
    listed=False,
)
def _alter_table_drop_partitions(catalog: Catalog, args: dict[str, Any]) -> list[tuple[Any, ...]]:
    """``ALTER TABLE t DROP [IF EXISTS] PARTITION (...)[, PARTITION (...)] [PURGE]`` as Paimon's
    ``PaimonDropPartitionsExec``: a spec naming every partition column must name an existing
    partition (unless IF EXISTS); a spec naming only some columns drops every partition it
    matches (none is no error); all in one OVERWRITE commit."""
    statement = "ALTER TABLE ... DROP PARTITION"
    table = table_arg(catalog, "alter_table_drop_partitions", args["table"])
    fields = table.store.partition_fields
    if not fields:
        raise ValidationError(f"{statement}: table {table.identifier} is not partitioned")
    try:
        raw = json.loads(args["partitions"])
    except ValueError:
        raw = None
    if not isinstance(raw, list) or not raw or not all(isinstance(s, dict) and s for s in raw):
        raise ValidationError(f"{statement}: 'partitions' must be a JSON list of column -> value objects")
    default = table.store.options.partition_default_name
    by_lower = {f.name.lower(): f.name for f in fields}
    specs: list[dict[str, str]] = []
    for s in raw:
        spec: dict[str, str] = {}
        for key, value in s.items():
            column = by_lower.get(str(key).lower())
            if column is None:
                raise ValidationError(
                    f"{statement}: {key!r} is not a partition column of table {table.identifier} "
                    f"(partition columns: {[f.name for f in fields]})"
                )
            if column in spec:
                raise ValidationError(f"{statement}: partition column {column!r} is given twice in one spec")
            spec[column] = default if value is None else str(value)
        specs.append(spec)
    full = [s for s in specs if len(s) == len(fields)]
    if full and not args["if_exists"]:
        existing = [p.partition for p in table.partitions()]
        missing = [s for s in full if not any(map(partition_ops.spec_matcher(table.store, [s]), existing))]
        if missing:
            shown = ", ".join("(" + ", ".join(f"{k}={v}" for k, v in m.items()) + ")" for m in missing)
            raise NotFoundError(f"{statement}: partitions not found in table {table.identifier}: {shown}")
    table.drop_partitions(specs)
    return []


