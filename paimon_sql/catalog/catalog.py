"""The filesystem catalog: ``<warehouse>/<db>.db/<table>/`` as Apache Paimon lays it out."""

from __future__ import annotations

import os
import posixpath
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import pyarrow as pa

from paimon_sql.catalog.base import FILESYSTEM, AbstractCatalog, metastore_of
from paimon_sql.catalog.identifier import SYSTEM_DATABASE, Identifier
from paimon_sql.errors import (
    AlreadyExistsError,
    DatabaseNotEmptyError,
    DatabaseNotFoundError,
    NotFoundError,
    TableNotFoundError,
    UnsupportedError,
    ValidationError,
)
from paimon_sql.fs.data_paths import local_root_folders
from paimon_sql.fs.file_io import FileIO, basename, join
from paimon_sql.lsm.engines import engine_of
from paimon_sql.meta.file_store import MAIN_BRANCH, branch_path
from paimon_sql.meta.schema import TableSchema
from paimon_sql.meta.schema_manager import SchemaManager
from paimon_sql.names import MAX_NAME_BYTES, check_name
from paimon_sql.ops.alter import check_column_name
from paimon_sql.options import CoreOptions, check_implemented, validate_options
from paimon_sql.options.validation import check_full_compaction_delta_commits
from paimon_sql.scan.default_values import check_default_values
from paimon_sql.table.table import Table
from paimon_sql.types import fields_from_arrow_schema
from paimon_sql.write.column_defaults import with_defaults

# Paimon's SchemaValidation.PRIMARY_KEY_UNSUPPORTED_LOGICAL_TYPES (geometry types aside), as type roots
KEY_UNSUPPORTED_ROOTS = frozenset({"MAP", "ARRAY", "ROW", "MULTISET", "VECTOR", "VARIANT"})

if TYPE_CHECKING:
    from paimon_sql.catalog.global_tables import GlobalSystemTable
    from paimon_sql.table.system import SystemTable

DB_SUFFIX = ".db"


def _database_name(name: object, new: bool = False) -> str:
    """A database name that is safe and, with its ``.db`` suffix, a valid folder name; a new one
    must not end with ``.db`` itself."""
    name = check_name("database", name)
    if len(name.encode("utf-8")) + len(DB_SUFFIX) > MAX_NAME_BYTES:
        raise ValidationError(
            f"Invalid database name {name!r}: must be at most {MAX_NAME_BYTES - len(DB_SUFFIX)} bytes in UTF-8"
        )
    if new and name.endswith(DB_SUFFIX):
        raise ValidationError(f"Invalid database name {name!r}: must not end with {DB_SUFFIX!r}")
    return name


def system_database_error(action: str) -> ValidationError:
    """Paimon's ``ProcessSystemDatabaseException`` for ``action`` (``create table sys.x``) on the
    system database ``sys``, naming both."""
    return ValidationError(
        f"Cannot {action}: {SYSTEM_DATABASE!r} is the system database of Paimon's global system tables "
        "(it cannot be created, dropped or altered, and holds no user tables)"
    )


def _warehouse_uri(given: str, root: str, is_local: bool) -> str:
    """The warehouse as Paimon's ``Path(warehouse).toString()`` shows it: a local folder as an
    absolute path (``file:/x`` when given with the ``file:`` scheme), a URI as given."""
    if is_local:
        return f"file:{root}" if given.startswith("file:") else root
    return given.split("?", 1)[0].rstrip("/")


class Catalog(AbstractCatalog):
    """The filesystem catalog (Paimon's ``metastore = filesystem``): a warehouse of Paimon databases
    and tables on any pyarrow filesystem (local path or URI). ``load_catalog`` picks a catalog by
    its options.

    ``options`` are the catalog's options (Paimon's catalog options; ``sys.catalog_options`` shows
    them, with ``warehouse``, when ``catalog-options-table.enabled`` is true)."""

    METASTORE = FILESYSTEM

    def __init__(self, warehouse: str, options: Mapping[str, str] | None = None) -> None:
        if not isinstance(warehouse, (str, os.PathLike)):
            raise ValidationError(f"The warehouse must be a path or URI, got {type(warehouse).__name__}")
        if options is not None and not isinstance(options, Mapping):
            raise ValidationError(f"The catalog options must be a dict of key -> value, got {options!r}")
        if metastore_of(options or {}) != self.METASTORE:
            raise ValidationError(
                f"{type(self).__name__} is the {self.METASTORE} catalog: load_catalog(warehouse, options) picks "
                "by 'metastore'"
            )
        given = os.fspath(warehouse)
        self.options = {str(k): str(v) for k, v in (options or {}).items()}
        self.file_io, self.warehouse = self._storage(given)
        self.catalog_options = {"warehouse": given, **self.options}
        self.warehouse_uri = _warehouse_uri(given, self.warehouse, self.file_io.capabilities.local_paths)
        self.file_io.mkdirs(self.warehouse)
        self._real_warehouse = os.path.realpath(self.warehouse) if self.file_io.capabilities.local_paths else None

    def _storage(self, given: str) -> tuple[FileIO, str]:
        """The warehouse's FileIO and root path (reachable: checked here)."""
        file_io, root = FileIO.for_uri(given, self.options)
        file_io.check_reachable(root, given)
        return file_io, root

    # -- paths: every database and table folder is checked to lie inside the warehouse -----------
    def _inside(self, path: str, what: str) -> str:
        """``path`` if it lies inside the warehouse (symlinks resolved on local storage); else a
        ValidationError: defence in depth behind the name checks."""
        if self._real_warehouse is not None:
            real, root = os.path.realpath(path), self._real_warehouse
            inside = real.startswith(root.rstrip(os.sep) + os.sep)
        else:
            norm = posixpath.normpath(path)
            inside = norm.startswith(self.warehouse.rstrip("/") + "/") and ".." not in norm.split("/")
        if not inside:
            raise ValidationError(f"The folder of {what} ({path}) is not inside the warehouse {self.warehouse}")
        return path

    def database_path(self, name: str) -> str:
        name = _database_name(name)
        return self._inside(join(self.warehouse, name + DB_SUFFIX), f"database {name}")

    # -- databases -------------------------------------------------------------------------------
    def list_databases(self) -> list[str]:
        out = []
        for s in self.file_io.list_status(self.warehouse):
            name = basename(s.path)[: -len(DB_SUFFIX)]
            # a stray sys.db folder is not listed: database sys is the system database
            if (s.is_dir and s.path.endswith(DB_SUFFIX) and name != SYSTEM_DATABASE
                    and self._listable("database", name, s.path)):
                out.append(name)
        return sorted(out)

    def _listable(self, kind: str, name: str, path: str) -> bool:
        """Whether a folder found by listing has a valid ``kind`` name and lies inside the
        warehouse (a symlink to elsewhere is neither listed nor followed)."""
        try:
            check_name(kind, name)
            self._inside(path, f"{kind} {name}")
        except ValidationError:
            return False
        return True

    def database_exists(self, name: str) -> bool:
        """Whether the database exists; the system database ``sys`` always does (Paimon's
        ``getDatabase``), though ``list_databases`` does not list it."""
        if name == SYSTEM_DATABASE:
            return True
        return self.file_io.is_dir(self.database_path(name))

    def create_database(self, name: str, ignore_if_exists: bool = False) -> None:
        if name == SYSTEM_DATABASE:
            raise system_database_error(f"create database {name}")
        _database_name(name, new=True)
        if self.database_exists(name):
            if ignore_if_exists:
                return
            raise AlreadyExistsError(f"Database {name} already exists")
        self.file_io.mkdirs(self.database_path(name))

    def drop_database(self, name: str, ignore_if_not_exists: bool = False, cascade: bool = False) -> None:
        if name == SYSTEM_DATABASE:
            raise system_database_error(f"drop database {name}")
        if not self.database_exists(name):
            if ignore_if_not_exists:
                return
            raise DatabaseNotFoundError(f"Database {name} does not exist")
        tables = self.list_tables(name)
        if tables and not cascade:
            raise DatabaseNotEmptyError(f"Database {name} is not empty (tables: {tables}); use cascade=True")
        self.file_io.delete_dir(self.database_path(name))

    # -- tables ----------------------------------------------------------------------------------
    def table_path(self, ident: Identifier) -> str:
        """The folder of the table (of its main branch)."""
        return self._inside(join(self.database_path(ident.database), ident.table), f"table {ident.full_name}")

    def _require_db(self, name: str) -> None:
        if not self.database_exists(name):
            raise DatabaseNotFoundError(f"Database {name} does not exist")

    def list_tables(self, database: str) -> list[str]:
        """The tables of ``database`` by name; of ``sys``: its global system tables, in Paimon's
        order."""
        if database == SYSTEM_DATABASE:
            from paimon_sql.catalog.global_tables import global_table_names

            return global_table_names(self.catalog_options)
        self._require_db(database)
        out = []
        for s in self.file_io.list_status(self.database_path(database)):
            if not (s.is_dir and self._listable("table", basename(s.path), s.path)):
                continue
            if self.file_io.list_names(join(s.path, "schema")):
                if SchemaManager(self.file_io, s.path).schema_ids():
                    out.append(basename(s.path))
        return sorted(out)

    def table_exists(self, identifier: str | Identifier) -> bool:
        ident = Identifier.parse(identifier)
        if ident.in_system_database:
            plain = ident.branch is None and ident.system_table is None
            return plain and ident.table.lower() in self.list_tables(SYSTEM_DATABASE)
        meta = branch_path(self.table_path(ident), ident.branch or MAIN_BRANCH)
        return bool(SchemaManager(self.file_io, meta).schema_ids())

    def get_table(self, identifier: str | Identifier) -> Table | SystemTable | GlobalSystemTable:
        """The table ``db.t``, its branch ``db.t$branch_b``, a system table of either
        (``db.t$files``, ``db.t$branch_b$snapshots``; see ``paimon_sql.table.system``), or a
        global system table (``sys.tables``; see ``paimon_sql.catalog.global_tables``)."""
        ident = Identifier.parse(identifier)
        if ident.in_system_database:
            from paimon_sql.catalog.global_tables import load_global_system_table

            if ident.branch is not None or ident.system_table is not None:
                raise TableNotFoundError(
                    f"Table {ident.full_name} does not exist: the tables of the system database "
                    f"{SYSTEM_DATABASE!r} have no branches or system tables"
                )
            return load_global_system_table(self, ident.table)
        table = self._data_table(ident)
        if ident.system_table is not None:
            from paimon_sql.table.system import load_system_table  # on first use: ~0.1 s of imports

            return load_system_table(table, ident.system_table)
        return table

    def _data_table(self, ident: Identifier) -> Table:
        """The data table (or branch) ``ident`` names, ignoring its system-table suffix."""
        path = self.table_path(ident)
        branch = ident.branch or MAIN_BRANCH
        plain = Identifier(ident.database, ident.table, ident.branch)
        schema = SchemaManager(self.file_io, branch_path(path, branch), plain.full_name).latest()
        if schema is None:
            if not self.database_exists(ident.database):
                raise DatabaseNotFoundError(
                    f"Database {ident.database} does not exist (looking up table {ident.full_name})"
                )
            if ident.branch is not None and self.table_exists(Identifier(ident.database, ident.table)):
                raise NotFoundError(f"Branch {ident.branch!r} of table {ident.database}.{ident.table} does not exist")
            raise TableNotFoundError(f"Table {plain.full_name} does not exist")
        return Table(self.file_io, path, f"{ident.database}.{ident.table}", schema, branch)

    def create_table(
        self,
        identifier: str | Identifier,
        schema: pa.Schema,
        primary_keys: Sequence[str] | None = None,
        partition_keys: Sequence[str] | None = None,
        options: Mapping[str, str] | None = None,
        comment: str | None = None,
        ignore_if_exists: bool = False,
        column_defaults: Mapping[str, str] | None = None,
    ) -> Table:
        """A new table; ``column_defaults``: column name -> default value (SQL text, as Spark's
        ``DEFAULT``), kept in the schema and written for nulls (paimon_sql.write.column_defaults)."""
        ident = Identifier.parse(identifier)
        ident.check_plain()
        if ident.in_system_database:
            raise system_database_error(f"create table {ident.full_name}")
        self._require_db(ident.database)
        if self.table_exists(ident):
            if ignore_if_exists:
                return self._data_table(ident)
            raise AlreadyExistsError(f"Table {ident.full_name} already exists")
        table_schema = build_schema(ident.full_name, schema, primary_keys, partition_keys, options, comment)
        table_schema = with_defaults(table_schema, column_defaults or {}, ident.full_name)
        path = self.table_path(ident)
        SchemaManager(self.file_io, path, ident.full_name).commit(table_schema)
        return Table(self.file_io, path, ident.full_name, table_schema)

    def sync_table(self, identifier: str | Identifier) -> None:
        """After an ALTER TABLE: the metastore's copy of the table's properties is rewritten (the
        JDBC catalog's ``paimon_table_properties``); the filesystem catalog keeps none."""
        self.table_path(Identifier.parse(identifier))  # the name is checked all the same

    def create_table_like(self, identifier: str | Identifier, source: Table) -> Table:
        """A new table with ``source``'s latest schema: its fields with their ids (so files written
        with them read here), keys, options (but ``path``) and comment (Paimon's
        ``CopySchemaOperator``); the database is created when missing."""
        ident = Identifier.parse(identifier)
        ident.check_plain()
        if ident.in_system_database:
            raise system_database_error(f"create table {ident.full_name}")
        if not self.database_exists(ident.database):
            self.create_database(ident.database, ignore_if_exists=True)
        if self.table_exists(ident):
            raise AlreadyExistsError(f"Table {ident.full_name} already exists")
        src = source.schema
        opts = {k: v for k, v in src.options.items() if k != "path"}
        validate_options(opts, ident.full_name, primary_keys=list(src.primary_keys),
                         columns=[f.name for f in src.fields])
        check_implemented(opts, ident.full_name)
        check_full_compaction_delta_commits(CoreOptions(opts, ident.full_name), bool(src.primary_keys),
                                            ident.full_name)
        check_default_values(src.fields, src.primary_keys, src.partition_keys, opts, ident.full_name)
        table_schema = TableSchema(
            id=0, fields=src.fields, highest_field_id=src.highest_field_id, partition_keys=src.partition_keys,
            primary_keys=src.primary_keys, options=opts, comment=src.comment, time_millis=TableSchema.now_ms(),
        )
        path = self.table_path(ident)
        SchemaManager(self.file_io, path, ident.full_name).commit(table_schema)
        return Table(self.file_io, path, ident.full_name, table_schema)

    def drop_table(self, identifier: str | Identifier, ignore_if_not_exists: bool = False) -> None:
        ident = Identifier.parse(identifier)
        ident.check_plain()
        if ident.in_system_database:
            raise system_database_error(f"drop table {ident.full_name}")
        if not self.table_exists(ident):
            if ignore_if_not_exists:
                return
            raise TableNotFoundError(f"Table {ident.full_name} does not exist")
        self._drop_table_files(ident)

    def _drop_table_files(self, ident: Identifier) -> None:
        """Deletes the folder of the table and its external roots."""
        path = self.table_path(ident)
        external = self._external_roots(path, ident.full_name)
        self.file_io.delete_dir(path)
        warehouse = os.path.realpath(self.warehouse)
        for root in external:  # as Paimon's DROP TABLE: the table's external roots go with it
            real = os.path.realpath(root)
            if warehouse == real or warehouse.startswith(real.rstrip("/") + "/"):
                continue  # never a folder holding the warehouse (Paimon would delete it all)
            self.file_io.delete_dir(root)

    def _external_roots(self, path: str, name: str) -> list[str]:
        """The local external roots (``data-file.external-paths``, ``global-index.external-path``)
        named by any schema of the table or of its branches (Paimon's ``getSchemaExternalPaths``)."""
        if not self.file_io.capabilities.local_paths:
            return []
        metas = [path] + [st.path for st in self.file_io.list_status(join(path, "branch"))
                          if st.is_dir and basename(st.path).startswith("branch-")]
        roots: list[str] = []
        for meta in metas:
            sm = SchemaManager(self.file_io, meta, name)
            for sid in sm.schema_ids():
                opts = sm.schema(sid).options
                for key in ("data-file.external-paths", "global-index.external-path"):
                    roots += [r for r in local_root_folders(opts.get(key)) if r not in roots]
        return roots

    def rename_table(self, source: str | Identifier, target: str | Identifier) -> None:
        src, dst = Identifier.parse(source), Identifier.parse(target)
        src.check_plain()
        dst.check_plain()
        for ident in (src, dst):
            if ident.in_system_database:
                raise system_database_error(f"rename table {src.full_name} to {dst.full_name}")
        if not self.table_exists(src):
            raise TableNotFoundError(f"Table {src.full_name} does not exist")
        self._require_db(dst.database)
        if self.table_exists(dst) or self.file_io.exists(self.table_path(dst)):
            raise AlreadyExistsError(f"Table {dst.full_name} already exists")
        self.file_io.rename(self.table_path(src), self.table_path(dst))


def build_schema(
    name: str,
    schema: pa.Schema,
    primary_keys: Sequence[str] | None,
    partition_keys: Sequence[str] | None,
    options: Mapping[str, str] | None,
    comment: str | None,
) -> TableSchema:
    """The first schema of a new table; validates keys and options (errors name the table)."""
    if not isinstance(schema, pa.Schema):
        raise ValidationError(f"Schema of table {name} must be a pyarrow.Schema, got {type(schema).__name__}")
    if len(schema) == 0:
        raise ValidationError(f"Table {name} needs at least one column")
    names = list(schema.names)
    for n in names:
        check_column_name(n, name)
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        raise ValidationError(f"Table {name} has duplicate columns {sorted(dup)}")
    for arg, value in (("primary_keys", primary_keys), ("partition_keys", partition_keys)):
        if value is not None and (isinstance(value, (str, bytes)) or not isinstance(value, Sequence)
                                  or not all(isinstance(c, str) for c in value)):
            raise ValidationError(f"{arg} of table {name} must be a list of column names, got {value!r}")
    if options is not None and not isinstance(options, Mapping):
        raise ValidationError(f"options of table {name} must be a dict of key -> value, got {options!r}")
    if comment is not None and not isinstance(comment, str):
        raise ValidationError(f"The comment of table {name} must be a string, got {comment!r}")
    opts = {str(k): str(v) for k, v in (options or {}).items()}
    pks = list(primary_keys or [k.strip() for k in opts.pop("primary-key", "").split(",") if k.strip()])
    parts = list(partition_keys or [k.strip() for k in opts.pop("partition", "").split(",") if k.strip()])
    for kind, cols in (("primary key", pks), ("partition", parts)):
        missing = [c for c in cols if c not in names]
        if missing:
            raise ValidationError(f"The {kind} columns {missing} of table {name} are not columns of its schema {names}")
    if pks and not [k for k in pks if k not in parts]:
        raise ValidationError(f"Primary key {pks} of table {name} must not consist of partition columns only")
    if pks and parts and not set(parts) <= set(pks) and opts.get("sequence.field"):
        raise ValidationError(  # Paimon's SchemaValidation message, then the table
            "You can not use sequence.field in cross partition update case (Primary key constraint "
            f"'[{', '.join(pks)}]' not include all partition fields '[{', '.join(parts)}]'). (table {name})"
        )
    validate_options(opts, name, primary_keys=pks, columns=names)
    check_implemented(opts, name)
    check_full_compaction_delta_commits(CoreOptions(opts, name), bool(pks), name)
    bucket_key = opts.get("bucket-key")
    if bucket_key:
        bks = [k.strip() for k in bucket_key.split(",")]
        bad = [k for k in bks if k not in names or k in parts]
        if bad:
            raise ValidationError(f"Invalid 'bucket-key' {bucket_key!r} of table {name}: {bad} must be non-partition columns")
        if pks and not set(bks) <= set(pks):
            raise ValidationError(f"'bucket-key' {bucket_key!r} of table {name} must be part of the primary key {pks}")
    if opts.get("bucket") not in (None, "-1") and not pks and not bucket_key and int(opts["bucket"]) > 0:
        raise ValidationError(f"Append table {name} with bucket={opts['bucket']} needs a 'bucket-key' option")
    fields, highest = fields_from_arrow_schema(schema, 0)
    by_name = {f.name: f for f in fields}
    for what, cols in (("primary key", pks), ("partition", parts)):
        for c in cols:
            if by_name[c].type.root in KEY_UNSUPPORTED_ROOTS:
                raise UnsupportedError(
                    f"Column {c!r} of table {name} has type {by_name[c].type.to_string()}, which a {what} "
                    "column cannot have (Paimon's rule: no ARRAY, MAP, MULTISET, ROW, VECTOR or VARIANT keys)"
                )
    fixed = []
    for f in fields:
        if f.name in pks and f.type.nullable:
            f = type(f)(f.id, f.name, f.type.copy(False), f.description)
        fixed.append(f)
    check_default_values(fixed, pks, parts, opts, name)
    if pks:  # the merge engine's options and field types (aggregate functions on their types)
        core = CoreOptions(opts)
        engine_of(core).spec(core, pks, fixed, pks, name)
    return TableSchema(
        id=0,
        fields=tuple(fixed),
        highest_field_id=highest,
        partition_keys=tuple(parts),
        primary_keys=tuple(pks),
        options=opts,
        comment=comment,
        time_millis=TableSchema.now_ms(),
    )
