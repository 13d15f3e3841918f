"""``CALL sys.compact(...)``: Paimon's CompactProcedure parameters and result column, over
``Table.compact`` (ops/compact.py)."""

from __future__ import annotations

import base64
import logging
import pickle
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from paimon_sql.errors import PaimonError, UnsupportedError, ValidationError
from paimon_sql.meta.store_ref import StoreRef
from paimon_sql.ops.compact import CompactTableResult, commit_compaction, compact_buckets
from paimon_sql.procedures.builtin import parse_options_arg
from paimon_sql.procedures.registry import (
    RESULT,
    TABLE,
    ProcedureArgs,
    ProcedureJob,
    optional,
    procedure,
)
from paimon_sql.table.table import Table
from paimon_sql.table.table_commit import TableCommit
from paimon_sql.write.table_write import CommitChanges

if TYPE_CHECKING:
    from paimon_sql.catalog.catalog import Catalog

_LOG = logging.getLogger(__name__)
_STRATEGIES = ("full", "minor")
_ORDERS = ("order", "zorder", "hilbert", "none")


def _java_list(items: Sequence[str]) -> str:
    """``[a, b]``: a list of names as Paimon's messages print them (Java's List.toString)."""
    return "[" + ", ".join(items) + "]"


def _blank(value: object) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


def parse_partitions_arg(procedure: str, text: str) -> list[dict[str, str]]:
    """``'dt=2024-01-01,h=1;dt=2024-01-02'``: partition specs separated by ';', each 'k=v' pairs
    separated by ',' (Paimon's ParameterUtils.getPartitions)."""
    specs = []
    for part in text.split(";"):
        if not part.strip():
            continue
        spec: dict[str, str] = {}
        for item in part.split(","):
            key, sep, value = item.partition("=")
            if not sep or not key.strip():
                raise ValidationError(
                    f"Procedure {procedure}: invalid argument 'partitions' {text!r}: {item!r} is not 'key=value'"
                )
            value = value.strip()
            if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
                value = value[1:-1]  # pt="p1" as Paimon's Spark procedures accept it
            spec[key.strip()] = value
        specs.append(spec)
    return specs


def parse_buckets_arg(procedure: str, text: str) -> list[int]:
    """``'0,2-4'``: bucket numbers and inclusive ranges (Paimon's ParameterUtils.parseIntegerRanges)."""
    out: list[int] = []
    for item in text.split(","):
        item = item.strip()
        lo, sep, hi = item.partition("-")
        try:
            if sep:
                a, b = int(lo), int(hi)
                if a > b:
                    raise ValueError(item)
                out.extend(range(a, b + 1))
            else:
                out.append(int(item))
        except ValueError:
            raise ValidationError(
                f"Procedure {procedure}: invalid argument 'buckets' {text!r}: {item!r} is not a bucket "
                "number or range 'a-b'"
            ) from None
    return out


def _decode(catalog: Catalog, args: ProcedureArgs) -> tuple[Table, dict[str, Any]]:
    """The table and the keyword arguments of ``Table.compact``, checked as Paimon checks them."""
    name = "compact"
    strategy = None if _blank(args["compact_strategy"]) else str(args["compact_strategy"]).strip()
    if strategy is not None and strategy.lower() not in _STRATEGIES:
        raise ValidationError(
            f"Procedure compact: the compact strategy only supports 'full' or 'minor', but '{strategy}' is configured"
        )
    order = "none" if _blank(args["order_strategy"]) else str(args["order_strategy"]).strip().lower()
    order_by = [] if _blank(args["order_by"]) else [c.strip() for c in str(args["order_by"]).split(",")]
    if order == "none" and order_by:
        raise ValidationError('Procedure compact: order_strategy "none" cannot work with order_by columns')
    partitions, where = args["partitions"], args["where"]
    if not _blank(partitions) and not _blank(where):
        raise ValidationError("Procedure compact: partitions and where cannot be used together")
    table = args.table(catalog)
    options = parse_options_arg(name, args["options"])
    unknown = [c for c in order_by if c not in table.schema.field_names]
    if unknown:
        raise ValidationError(
            f"Procedure compact: order_by columns {unknown} are not columns of table {table.identifier}"
        )
    if any(c in table.schema.partition_keys for c in order_by):
        raise ValidationError(  # Paimon's CompactProcedure text
            f"Procedure compact: table {table.identifier}: order_by should not contain partition cols, because "
            f"it is meaningless, your order_by cols are {_java_list(order_by)}, and partition cols are "
            f"{_java_list(table.schema.partition_keys)}"
        )
    idle = None if _blank(args["partition_idle_time"]) else str(args["partition_idle_time"])
    if idle is not None and order != "none":
        raise ValidationError("Procedure compact: sort compact do not support 'partition_idle_time'.")
    if order not in _ORDERS:
        raise ValidationError(
            f"Procedure compact: unknown order_strategy {args['order_strategy']!r} (one of {', '.join(_ORDERS)})"
        )
    if order != "none" and (table.schema.primary_keys or table.store.options.bucket != -1):
        raise UnsupportedError(
            f"Procedure compact: sort compaction (order_strategy {order!r}) only supports unaware-bucket "
            f"append-only tables (bucket = -1); table {table.identifier} is not one"
        )
    specs = None if _blank(partitions) else parse_partitions_arg(name, str(partitions))
    bad = sorted({k for spec in specs or [] for k in spec} - set(table.schema.partition_keys))
    if bad:
        raise ValidationError(  # Paimon's SparkProcedureUtils text
            f"Procedure compact: table {table.identifier}: Partition keys {_java_list(bad)} are invalid. "
            f"Available partition keys are {_java_list(table.schema.partition_keys)}"
        )
    buckets = None if _blank(args["buckets"]) else parse_buckets_arg(name, str(args["buckets"]))
    where_text = None if _blank(where) else str(where)
    if order != "none":
        return table, {"strategy": order, "order_by": order_by, "partitions": specs, "where": where_text,
                       "options": options}
    return table, {"partitions": specs, "where": where_text,
                   "full": (strategy or "full").lower() == "full", "buckets": buckets, "options": options,
                   "partition_idle_time": idle}


def _run_here(table: Table, kwargs: dict[str, Any]) -> list[tuple[Any, ...]]:
    """The compaction in this process (sort compaction when ``kwargs`` name a strategy)."""
    if "strategy" in kwargs:
        table.sort_compact(**kwargs)
    else:
        table.compact(**kwargs)
    return [(True,)]


# -- as a job: one task per bucket (a Spark job from the catalog), one commit at the end ----------
def _plan(catalog: Catalog, args: ProcedureArgs) -> ProcedureJob | list[tuple[Any, ...]]:
    table, kwargs = _decode(catalog, args)
    if "strategy" in kwargs:  # sort compaction runs here (one sort per partition)
        return _run_here(table, kwargs)
    compacting, plan = table.plan_compaction(**kwargs)
    if isinstance(plan, CompactTableResult):  # an empty or append table: done already
        return [(True,)]
    if not plan.buckets:
        return [(True,)]
    tasks = [_encode(bucket) for bucket in plan.buckets]  # one task per bucket
    return ProcedureJob(tasks, _encode((StoreRef.of(compacting.store), plan)))


def _run_task(state: str, task: str) -> str:
    ref, plan = _decode_obj(state)
    partition, bucket = _decode_obj(task)
    return _encode(compact_buckets(ref.open(), plan, [(partition, bucket)]))


def _finish(state: str, messages: list[str]) -> list[tuple[Any, ...]]:
    ref, plan = _decode_obj(state)
    store = ref.open()
    changes = [_decode_obj(m) for m in messages]
    if not all(isinstance(c, CommitChanges) for c in changes):
        raise ValidationError("Procedure compact: a task message is not a compaction's changes")
    commit_compaction(store, plan, changes, TableCommit(store))
    return [(True,)]


def _encode(obj: object) -> str:
    return base64.b64encode(pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)).decode("ascii")


def _decode_obj(text: str) -> Any:
    try:
        return pickle.loads(base64.b64decode(text.encode("ascii"), validate=True))  # noqa: S301 - our own job
    except (ValueError, pickle.UnpicklingError, EOFError) as e:
        raise ValidationError(f"Procedure compact: a job message cannot be decoded ({e})") from None


@procedure(
    name="compact",
    params=(
        TABLE,
        optional("partitions", "STRING"),
        optional("compact_strategy", "STRING"),
        optional("order_strategy", "STRING"),
        optional("order_by", "STRING"),
        optional("where", "STRING"),
        optional("options", "STRING"),
        optional("partition_idle_time", "STRING"),
        optional("buckets", "STRING"),
    ),
    output=RESULT,
    plan=_plan,
    run_task=_run_task,
    finish=_finish,
    description="Compacts table 'table' (primary-key tables): 'compact_strategy' 'full' (default: every "
                "bucket into its highest level) or 'minor' (what universal compaction picks); only the "
                "'partitions' ('k=v,k2=v2;k=v3') or the partitions matching 'where', or the 'buckets' "
                "('0,2-4'); 'options' ('k=v,...') apply to this call. One COMPACT snapshot.",
)
def _compact(catalog: Catalog, args: ProcedureArgs) -> list[tuple[Any, ...]]:
    return _run_here(*_decode(catalog, args))


@procedure(
    name="rescale",
    params=(
        TABLE,
        optional("bucket_num", "INT"),
        optional("partitions", "STRING"),
        optional("where", "STRING"),
    ),
    output=RESULT,
    description="Rewrites the partitions of table 'table' ('partitions' 'k=v;...' or 'where', default all) "
                "with 'bucket_num' buckets (default: the table's bucket option) as one OVERWRITE.",
)
def _rescale(catalog: Catalog, args: ProcedureArgs) -> list[tuple[Any, ...]]:
    name = "rescale"
    partitions, where = args["partitions"], args["where"]
    if not _blank(partitions) and not _blank(where):
        raise ValidationError("Procedure rescale: partitions and where cannot be used together")
    table = args.table(catalog)
    specs = None if _blank(partitions) else parse_partitions_arg(name, str(partitions))
    table.rescale(args["bucket_num"], partitions=specs, where=None if _blank(where) else str(where))
    return [(True,)]


@procedure(
    name="compact_database",
    params=(
        optional("including_databases", "STRING"),
        optional("including_tables", "STRING"),
        optional("excluding_tables", "STRING"),
        optional("options", "STRING"),
    ),
    output=(("result", "STRING"),),
    description="Compacts every table of the databases matching 'including_databases' (regex, default all) "
                "whose 'db.table' matches 'including_tables' and not 'excluding_tables'; 'options' "
                "('k=v,...') apply to each.",
)
def _compact_database(catalog: Catalog, args: ProcedureArgs) -> list[tuple[Any, ...]]:
    """Paimon's CompactDatabaseProcedure: ``compact`` on every table ``db.t`` of the databases fully
    matching ``including_databases`` whose full name fully matches ``including_tables`` and not
    ``excluding_tables``; a table that fails is counted, the others go on."""
    name = "compact_database"
    try:
        databases = re.compile(args["including_databases"] if args["including_databases"] is not None else ".*")
        including = re.compile(args["including_tables"] if args["including_tables"] is not None else ".*")
        excluding = None if _blank(args["excluding_tables"]) else re.compile(str(args["excluding_tables"]))
    except re.error as e:
        raise ValidationError(f"Procedure {name}: invalid regular expression: {e}") from None
    options = parse_options_arg(name, args["options"])
    succeeded = failed = 0
    for database in catalog.list_databases():
        if not databases.fullmatch(database):
            continue
        for table_name in catalog.list_tables(database):
            full = f"{database}.{table_name}"
            if not including.fullmatch(full) or (excluding is not None and excluding.fullmatch(full)):
                continue
            try:
                table = catalog.get_table(full)
                assert isinstance(table, Table)
                table.compact(options=options)
                succeeded += 1
            except PaimonError as e:
                _LOG.error("compact_database: compacting table %s failed: %s", full, e)
                failed += 1
    return [(f"Compact database finished. Success: {succeeded}, Failed: {failed}",)]


