"""Read and write Paimon tables with pypaimon 2.1.0, exchanging rows as Arrow IPC files.

Runs INSIDE the pypaimon venv (see scripts/pypaimon_venv.sh), which pins an older pyarrow than the
project venv; the two processes exchange data through Arrow IPC files, which both versions read.
The interop tests (tests/interop/) drive it through subprocess.

Commands (each prints one JSON object on stdout):

  write     --warehouse W --table db.t --data IN.arrow [--spec JSON] [--delete DEL.arrow]
            [--overwrite | --overwrite-partition JSON]
      Creates the database and table if needed (schema = the Arrow schema of IN.arrow; SPEC is
      {"primary_keys": [...], "partition_keys": [...], "options": {...}}), writes the rows in one
      commit and prints {"snapshot_id": N, "created": bool}.
      Deletes: pypaimon 2.1.0 writes DELETE records only through the table option 'rowkind.field'
      (a STRING column holding '+I', '-U', '+U', '-D'). When the table has that option, rows of
      IN.arrow without the column get '+I', rows of DEL.arrow get '-D', and both go into the same
      commit (inserts first). When the column is missing from the data at table creation it is
      added to the table schema as a STRING column.
  read      --warehouse W --table db.t --out OUT.arrow [--snapshot-id N] [--columns a,b] [--filter SQL]
      Reads the table (latest snapshot, or snapshot N) into OUT.arrow; prints {"rows": n}. SQL is a
      WHERE clause for pypaimon's parser (pypaimon/common/where_parser.py), handed to
      ReadBuilder.with_filter: pypaimon prunes files by their statistics and filters rows with it.
  read-filtered --warehouse W --table db.t --filters JSON-LIST --out-dir DIR [--snapshot-id N]
      One read per WHERE clause into DIR/filter-<i>.arrow; prints {"rows": [n, ...]}.
  read-all  --warehouse W --table db.t --out-dir DIR
      Reads every snapshot into DIR/snapshot-<id>.arrow; prints {"snapshot_ids": [...]}.
  snapshots --warehouse W --table db.t
      Prints {"snapshot_ids": [...]} (ascending).
  serve
      Runs commands for as long as stdin is open, so that a test run pays pypaimon's import (~1-2 s)
      once: each request is one JSON line {"argv": [...], "env": {...}} (the command line of one of the
      commands above; "env" sets PYPAIMON_CATALOG_OPTIONS for it), each answer one JSON line on stdout
      {"ok": RESULT} or {"error": "what went wrong"}. What commands print goes to stderr. A fresh
      catalog is made per request, as in the one-command-per-process use.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

import pyarrow as pa
import pyarrow.ipc as ipc
from pypaimon import CatalogFactory, Schema
from pypaimon.schema.data_types import PyarrowFieldParser

ROWKIND_OPTION = "rowkind.field"


def _catalog(warehouse: str) -> Any:
    # more catalog options (an s3:// warehouse's s3.endpoint, s3.access-key...) as a JSON object
    extra = json.loads(os.environ.get("PYPAIMON_CATALOG_OPTIONS") or "{}")
    return CatalogFactory.create({**extra, "warehouse": warehouse})


def _read_ipc(path: str) -> pa.Table:
    with pa.memory_map(path, "r") as source:
        return ipc.open_file(source).read_all()


def _write_ipc(table: pa.Table, path: str) -> None:
    with pa.OSFile(path, "wb") as sink, ipc.new_file(sink, table.schema) as writer:
        writer.write_table(table)


def _table_exists(catalog: Any, name: str) -> bool:
    database, _, table = name.partition(".")
    if database not in catalog.list_databases():
        return False
    return table in catalog.list_tables(database)


def _arrow_schema(table: Any) -> pa.Schema:
    return PyarrowFieldParser.from_paimon_schema(table.table_schema.fields)


def _snapshot_ids(table: Any) -> list[int]:
    return sorted(snapshot.id for snapshot in table.snapshot_manager().list_snapshots())


def _with_row_kind(data: pa.Table, column: str, kind: str) -> pa.Table:
    kinds = pa.array([kind] * data.num_rows, type=pa.string())
    if column in data.schema.names:
        return data.set_column(data.schema.get_field_index(column), column, kinds)
    return data.append_column(column, kinds)


def _conform(data: pa.Table, schema: pa.Schema) -> pa.Table:
    """Reorder and cast `data` to the table's Arrow schema (nullability differences allowed)."""
    missing = [name for name in schema.names if name not in data.schema.names]
    if missing:
        raise SystemExit(f"data lacks table columns {missing}")
    data = data.select(schema.names)
    return data.cast(pa.schema([pa.field(f.name, f.type, nullable=True) for f in schema]))


def cmd_write(args: argparse.Namespace) -> dict[str, Any]:
    catalog = _catalog(args.warehouse)
    spec: dict[str, Any] = json.loads(args.spec) if args.spec else {}
    data = _read_ipc(args.data) if args.data else None
    deletes = _read_ipc(args.delete) if args.delete else None
    if data is None and deletes is None:
        raise SystemExit("write needs --data and/or --delete")
    created = False
    if not _table_exists(catalog, args.table):
        source = data if data is not None else deletes
        assert source is not None
        options = {str(k): str(v) for k, v in (spec.get("options") or {}).items()}
        arrow_schema = source.schema
        rowkind = options.get(ROWKIND_OPTION)
        if rowkind is not None and rowkind not in arrow_schema.names:
            arrow_schema = arrow_schema.append(pa.field(rowkind, pa.string()))
        database = args.table.partition(".")[0]
        catalog.create_database(database, True)
        schema = Schema.from_pyarrow_schema(
            arrow_schema,
            partition_keys=spec.get("partition_keys") or None,
            primary_keys=spec.get("primary_keys") or None,
            options=options,
        )
        catalog.create_table(args.table, schema, False)
        created = True
    table = catalog.get_table(args.table)
    target = _arrow_schema(table)
    rowkind = table.table_schema.options.get(ROWKIND_OPTION)
    parts: list[pa.Table] = []
    if data is not None:
        if rowkind is not None and rowkind not in data.schema.names:
            data = _with_row_kind(data, rowkind, "+I")
        parts.append(_conform(data, target))
    if deletes is not None:
        if rowkind is None:
            raise SystemExit(
                "pypaimon 2.1.0 writes deletes only through the table option 'rowkind.field'; "
                f"table {args.table} does not set it"
            )
        parts.append(_conform(_with_row_kind(deletes, rowkind, "-D"), target))
    rows = pa.concat_tables(parts).combine_chunks()

    builder = table.new_batch_write_builder()
    if args.overwrite_partition is not None:
        builder = builder.overwrite(json.loads(args.overwrite_partition))
    elif args.overwrite:
        builder = builder.overwrite()
    writer = builder.new_write()
    committer = builder.new_commit()
    try:
        writer.write_arrow(rows)
        committer.commit(writer.prepare_commit())
    finally:
        writer.close()
        committer.close()
    table = catalog.get_table(args.table)
    latest = table.snapshot_manager().get_latest_snapshot()
    return {"snapshot_id": None if latest is None else latest.id, "created": created}


def _read(
    table: Any, snapshot_id: int | None, columns: list[str] | None, where: str | None = None
) -> pa.Table:
    if snapshot_id is not None:
        if snapshot_id not in _snapshot_ids(table):
            raise SystemExit(f"snapshot {snapshot_id} does not exist")
        table = table.copy({"scan.snapshot-id": str(snapshot_id)})
    builder = table.new_read_builder()
    if where:
        from pypaimon.common.where_parser import parse_where_clause

        predicate = parse_where_clause(where, table.table_schema.fields)
        if predicate is not None:
            builder = builder.with_filter(predicate)
    if columns:
        builder = builder.with_projection(columns)
    splits = builder.new_scan().plan().splits()
    result = builder.new_read().to_arrow(splits)
    schema = _arrow_schema(table)
    if columns:
        schema = pa.schema([schema.field(name) for name in columns])
    if result is None:
        return schema.empty_table()
    return result


def cmd_read(args: argparse.Namespace) -> dict[str, Any]:
    table = _catalog(args.warehouse).get_table(args.table)
    columns = args.columns.split(",") if args.columns else None
    result = _read(table, args.snapshot_id, columns, args.filter)
    _write_ipc(result, args.out)
    return {"rows": result.num_rows}


def cmd_read_filtered(args: argparse.Namespace) -> dict[str, Any]:
    table = _catalog(args.warehouse).get_table(args.table)
    os.makedirs(args.out_dir, exist_ok=True)
    rows = []
    for i, where in enumerate(json.loads(args.filters)):
        result = _read(table, args.snapshot_id, None, where)
        _write_ipc(result, os.path.join(args.out_dir, f"filter-{i}.arrow"))
        rows.append(result.num_rows)
    return {"rows": rows}


def cmd_read_all(args: argparse.Namespace) -> dict[str, Any]:
    table = _catalog(args.warehouse).get_table(args.table)
    ids = _snapshot_ids(table)
    os.makedirs(args.out_dir, exist_ok=True)
    for snapshot_id in ids:
        _write_ipc(
            _read(table, snapshot_id, None), os.path.join(args.out_dir, f"snapshot-{snapshot_id}.arrow")
        )
    return {"snapshot_ids": ids}


def cmd_snapshots(args: argparse.Namespace) -> dict[str, Any]:
    return {"snapshot_ids": _snapshot_ids(_catalog(args.warehouse).get_table(args.table))}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", required=True)

    def common(p: argparse.ArgumentParser) -> None:
        p.add_argument("--warehouse", required=True)
        p.add_argument("--table", required=True, help="db.table")

    p_write = sub.add_parser("write")
    common(p_write)
    p_write.add_argument("--data")
    p_write.add_argument("--spec")
    p_write.add_argument("--delete")
    p_write.add_argument("--overwrite", action="store_true")
    p_write.add_argument("--overwrite-partition")
    p_write.set_defaults(func=cmd_write)

    p_read = sub.add_parser("read")
    common(p_read)
    p_read.add_argument("--out", required=True)
    p_read.add_argument("--snapshot-id", type=int)
    p_read.add_argument("--columns")
    p_read.add_argument("--filter")
    p_read.set_defaults(func=cmd_read)

    p_filtered = sub.add_parser("read-filtered")
    common(p_filtered)
    p_filtered.add_argument("--filters", required=True, help="JSON list of WHERE clauses")
    p_filtered.add_argument("--out-dir", required=True)
    p_filtered.add_argument("--snapshot-id", type=int)
    p_filtered.set_defaults(func=cmd_read_filtered)

    p_all = sub.add_parser("read-all")
    common(p_all)
    p_all.add_argument("--out-dir", required=True)
    p_all.set_defaults(func=cmd_read_all)

    p_snap = sub.add_parser("snapshots")
    common(p_snap)
    p_snap.set_defaults(func=cmd_snapshots)

    p_serve = sub.add_parser("serve")
    p_serve.set_defaults(func=None)

    args = parser.parse_args(argv)
    if args.func is None:
        return serve(parser)
    print(json.dumps(args.func(args)))
    return 0


def serve(parser: argparse.ArgumentParser) -> int:
    """One JSON request per stdin line, one JSON answer per stdout line (see the module docstring)."""
    answers = sys.stdout
    sys.stdout = sys.stderr  # anything a command prints must not be taken for an answer
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            request = json.loads(line)
            env = request.get("env") or {}
            for key in ("PYPAIMON_CATALOG_OPTIONS",):
                if env.get(key) is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = env[key]
            args = parser.parse_args(request["argv"])
            if args.func is None:
                raise SystemExit("serve cannot be nested")
            answer: dict[str, Any] = {"ok": args.func(args)}
        except SystemExit as exc:  # argparse errors and the commands' own refusals
            answer = {"error": f"exit: {exc.code}"}
        except Exception as exc:  # the request fails; the server goes on
            import traceback

            answer = {"error": "".join(traceback.format_exception(exc))}
        answers.write(json.dumps(answer) + "\n")
        answers.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
