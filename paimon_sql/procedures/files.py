"""Procedures on a table's files, with Paimon's parameters and output columns:
``remove_orphan_files`` (over ``Table.remove_orphan_files``, ops/orphans.py; ``db.*`` cleans every
table of the database), ``purge_files``, and the repairs of ops/repair.py: ``remove_unexisting_files``,
``repair_earliest_snapshot``, ``compact_manifest``; ``copy`` (ops/copy.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from paimon_sql.catalog.identifier import SYSTEM_DATABASE, Identifier
from paimon_sql.errors import UnsupportedError, ValidationError
from paimon_sql.ops.expire import parse_timestamp_ms
from paimon_sql.procedures.builtin import parse_options_arg
from paimon_sql.procedures.registry import (
    RESULT,
    TABLE,
    ProcedureArgs,
    ident_arg,
    optional,
    procedure,
    required,
    table_arg,
)
from paimon_sql.table.table import Table

if TYPE_CHECKING:
    from paimon_sql.catalog.catalog import Catalog

_MODES = ("DISTRIBUTED", "LOCAL")


@procedure(
    name="remove_orphan_files",
    params=(
        TABLE,
        optional("older_than", "STRING"),
        optional("dry_run", "BOOLEAN", False),
        optional("parallelism", "INT"),
        optional("mode", "STRING"),
    ),
    output=(("deletedFileCount", "BIGINT"), ("deletedFileTotalLenInBytes", "BIGINT")),
    description="Deletes the files of table 'table' (or of every table of 'db.*') that no snapshot, tag "
                "or changelog of any branch references and that were modified before 'older_than' "
                "('yyyy-MM-dd HH:mm:ss', default one day ago); 'dry_run' only counts. 'mode' (DISTRIBUTED "
                "or LOCAL) and 'parallelism' are accepted; the files are listed and deleted on the driver.",
)
def _remove_orphan_files(catalog: Catalog, args: ProcedureArgs) -> list[tuple[Any, ...]]:
    name = "remove_orphan_files"
    table_text = args["table"]
    if not isinstance(table_text, str) or not table_text.strip():
        raise ValidationError(f"Procedure {name}: Cannot handle an empty tableId for argument table")
    mode = (args["mode"] or "DISTRIBUTED").strip().upper()
    if mode not in _MODES:
        raise ValidationError(
            f"Procedure {name}: Unknown mode: {args['mode']}. Only 'DISTRIBUTED' and 'LOCAL' are supported."
        )
    if args["parallelism"] is not None and args["parallelism"] < 1:
        raise ValidationError(f"Procedure {name}: parallelism must be at least 1, got {args['parallelism']}")
    older_than = args["older_than"]
    if older_than is not None and not older_than.strip():
        older_than = None
    if older_than is not None:
        parse_timestamp_ms(older_than, f"Procedure {name}: argument 'older_than'")  # checked before any work
    text = table_text.strip()
    if text.endswith(".*"):
        database = text[:-2].strip("`")
        if database == SYSTEM_DATABASE:
            raise ValidationError(
                f"Procedure {name}: argument 'table' must name tables, not the system tables of {database!r}"
            )
        tables: list[Table] = []
        for table_name in catalog.list_tables(database):
            loaded = catalog.get_table(Identifier.parse((database, table_name)))
            assert isinstance(loaded, Table)
            tables.append(loaded)
    else:
        tables = [table_arg(catalog, name, text)]
    files = size = 0
    for table in tables:
        r = table.remove_orphan_files(older_than, dry_run=bool(args["dry_run"]))
        files += r.deleted_files
        size += r.deleted_bytes
    return [(files, size)]


@procedure(
    name="purge_files",
    params=(TABLE,),
    output=(("result", "STRING"),),
    description="Purges table 'table': drops its branches, tags and consumers, truncates it and expires every "
                "snapshot but the latest (empty) one, with their files.",
)
def _purge_files(catalog: Catalog, args: ProcedureArgs) -> list[tuple[Any, ...]]:
    args.table(catalog).purge_files()
    return [("Success",)]


@procedure(
    name="remove_unexisting_files",
    params=(TABLE, optional("dry_run", "BOOLEAN", False), optional("parallelism", "INT")),
    output=(("fileName", "STRING"),),
    description="Removes from table 'table' (one commit) the data files its latest snapshot names that no "
                "longer exist in storage; one row per such file. 'dry_run' only lists them; 'parallelism' is "
                "accepted (the folders are listed on the driver).",
)
def _remove_unexisting_files(catalog: Catalog, args: ProcedureArgs) -> list[tuple[Any, ...]]:
    name = "remove_unexisting_files"
    table_text = args["table"]
    if not isinstance(table_text, str) or not table_text.strip():
        raise ValidationError(f"Procedure {name}: Cannot handle an empty tableId for argument table")
    if args["parallelism"] is not None and args["parallelism"] < 1:
        raise ValidationError(f"Procedure {name}: parallelism must be at least 1, got {args['parallelism']}")
    result = args.table(catalog).remove_unexisting_files(bool(args["dry_run"]))
    return [(p,) for p in result.paths]


@procedure(
    name="repair_earliest_snapshot",
    params=(TABLE, required("snapshot_id", "BIGINT")),
    output=(("previous_earliest_snapshot_id", "BIGINT"), ("current_earliest_snapshot_id", "BIGINT")),
    description="Points the EARLIEST hint of table 'table' at 'snapshot_id' when the snapshot files before it "
                "were lost: every snapshot from it to the latest must exist, and the one before it must not.",
)
def _repair_earliest_snapshot(catalog: Catalog, args: ProcedureArgs) -> list[tuple[Any, ...]]:
    table = args.table(catalog)
    return [table.repair_earliest_snapshot(args["snapshot_id"])]


@procedure(
    name="compact_manifest",
    params=(
        TABLE,
        optional("options", "STRING"),
        optional("dry_run", "BOOLEAN", False),
        optional("manifest_sort_enabled", "BOOLEAN"),
        optional("manifest_sort_partition_field", "STRING"),
        optional("manifest_sort_max_rewrite_size", "STRING"),
    ),
    output=RESULT,
    description="Rewrites the manifests of table 'table' to hold only live entries, as one COMPACT snapshot "
                "('options' 'k=v,...' apply to the call; 'dry_run' only logs what it would rewrite). Sorting "
                "manifests by partition is not supported.",
)
def _compact_manifest(catalog: Catalog, args: ProcedureArgs) -> list[tuple[Any, ...]]:
    name = "compact_manifest"
    if args["manifest_sort_enabled"] or args["manifest_sort_partition_field"] or args["manifest_sort_max_rewrite_size"]:
        raise UnsupportedError(
            f"Procedure {name}: sorting manifests (manifest_sort_enabled, manifest_sort_partition_field, "
            "manifest_sort_max_rewrite_size) is not supported; compact_manifest without them rewrites the "
            "manifests to hold only live entries"
        )
    options = parse_options_arg(name, args["options"]) if args["options"] else None
    args.table(catalog).compact_manifest(bool(args["dry_run"]), options)
    return [(True,)]


@procedure(
    name="copy",
    params=(
        required("source_table", "STRING"),
        required("target_table", "STRING"),
        optional("where", "STRING"),
    ),
    output=RESULT,
    description="Copies the files of the latest snapshot of 'source_table' (the partitions 'where' selects) into "
                "'target_table' (created with the source's schema when missing, else a compatible table) and "
                "commits them as one OVERWRITE of the partitions they fill.",
)
def _copy(catalog: Catalog, args: ProcedureArgs) -> list[tuple[Any, ...]]:
    name = "copy"
    source = args.table(catalog, "source_table")
    text = args["target_table"]
    target_ident = ident_arg(name, text, "target_table")
    if target_ident.system_table is not None or target_ident.branch is not None or target_ident.in_system_database:
        raise ValidationError(f"Procedure {name}: argument 'target_table' must name a table, got {text!r}")
    if catalog.table_exists(target_ident):
        target = table_arg(catalog, name, target_ident.full_name, "target_table")
    else:
        target = catalog.create_table_like(target_ident, source)
    source.copy_files_to(target, args["where"])
    return [(True,)]


