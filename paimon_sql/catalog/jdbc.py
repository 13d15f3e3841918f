"""The JDBC catalog (Paimon's ``metastore = jdbc``, ``JdbcCatalog``): databases, their properties
and the list of tables live in a relational database (SQLite or PostgreSQL, see
:mod:`paimon_sql.catalog.jdbc_sql`) in Paimon's tables ``paimon_tables``,
``paimon_database_properties``, ``paimon_table_properties`` and ``paimon_views`` (rows keyed by
``catalog-key``, default ``jdbc``); table data, schemas and snapshots stay in the warehouse where
Paimon puts them (``<warehouse>/<db>.db/<table>``), so Paimon's own JdbcCatalog opens what this one
made, and the other way round.

Everything on disk is the filesystem catalog's code (this class extends it); what changes is where
a database or table *exists*: a database exists when it has a row in any of those tables, a table
when it has a row in ``paimon_tables`` (and its schema on disk to be loaded).

With ``lock.enabled`` (default: on for object-store warehouses, as Paimon) the catalog creates
``paimon_distributed_locks`` and every file that decides a commit of its tables (snapshot, schema,
tag) is created under the table's lock (:mod:`paimon_sql.catalog.jdbc_lock`); the lock travels with
the table's FileIO to other processes (Spark's Python workers).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, TypeVar

from paimon_sql.catalog.base import METASTORE as METASTORE_KEY
from paimon_sql.catalog.catalog import DB_SUFFIX, Catalog, _database_name, system_database_error
from paimon_sql.catalog.identifier import SYSTEM_DATABASE, Identifier
from paimon_sql.catalog.jdbc_lock import (
    CATALOG_KEY_OPTION,
    DEFAULT_CATALOG_KEY,
    LOCK_ACQUIRE_TIMEOUT,
    LOCK_CHECK_MAX_SLEEP,
    LOCK_ENABLED,
    LOCK_KEY_MAX_LENGTH,
    JdbcCatalogLock,
    LockSettings,
    bool_option,
    create_lock_table,
    lock_enabled,
)
from paimon_sql.catalog.jdbc_sql import (
    CATALOG_TABLES,
    DATABASE_NAME,
    DATABASE_PROPERTY_KEY,
    DATABASE_PROPERTY_VALUE,
    DELETE_ALL_DATABASE_PROPERTIES_SQL,
    DELETE_ALL_TABLE_PROPERTIES_FOR_DB_SQL,
    DELETE_ALL_TABLE_PROPERTIES_SQL,
    DELETE_DATABASE_PROPERTIES_SQL,
    DELETE_TABLES_SQL,
    DELETE_VIEWS_SQL,
    DO_COMMIT_CREATE_TABLE_SQL,
    DROP_TABLE_SQL,
    GET_ALL_DATABASE_PROPERTIES_SQL,
    GET_DATABASE_PROPERTIES_SQL,
    GET_DATABASE_SQL,
    GET_TABLE_SQL,
    GET_VIEW_DATABASE_SQL,
    GET_VIEW_SQL,
    INSERT_DATABASE_PROPERTIES_SQL,
    INSERT_TABLE_PROPERTIES_SQL,
    LIST_ALL_PROPERTY_DATABASES_SQL,
    LIST_ALL_TABLE_DATABASES_SQL,
    LIST_ALL_VIEW_DATABASES_SQL,
    LIST_TABLES_SQL,
    PROPERTY_PREFIX,
    RENAME_TABLE_PROPERTIES_SQL,
    RENAME_TABLE_SQL,
    TABLE_DATABASE,
    TABLE_NAME,
    URI,
    JdbcConnection,
    JdbcSettings,
    db_errors,
)
from paimon_sql.errors import (
    AlreadyExistsError,
    DatabaseNotEmptyError,
    DatabaseNotFoundError,
    NotFoundError,
    PaimonError,
    TableNotFoundError,
    ValidationError,
)
from paimon_sql.fs.file_io import FileIO, basename, join
from paimon_sql.fs.snapshot_commit import CatalogLockCommit
from paimon_sql.meta.file_store import MAIN_BRANCH, branch_path
from paimon_sql.meta.schema_manager import SchemaManager

if TYPE_CHECKING:
    import pyarrow as pa

    from paimon_sql.meta.schema import TableSchema
    from paimon_sql.table.table import Table

JDBC = "jdbc"
DATABASE_EXISTS_PROPERTY = "exists"
DB_LOCATION_PROP = "location"
SYNC_ALL_PROPERTIES = "sync-all-properties"

T = TypeVar("T")


class JdbcCatalog(Catalog):
    """Paimon's JDBC catalog; options: ``uri`` (required), ``jdbc.*`` (connection properties:
    ``jdbc.user``, ``jdbc.password``), ``catalog-key`` (default ``jdbc``), ``lock.enabled``,
    ``lock-acquire-timeout``, ``lock-check-max-sleep``, ``lock-key-max-length``,
    ``sync-all-properties`` (default true: the tables' options are kept in
    ``paimon_table_properties``)."""

    METASTORE = JDBC

    def __init__(self, warehouse: str, options: Mapping[str, str] | None = None) -> None:
        opts = {str(k): str(v) for k, v in (options or {}).items()}
        self.jdbc = JdbcSettings.of(opts)  # refuses a missing or unknown uri before anything else
        self.catalog_key = opts.get(CATALOG_KEY_OPTION) or DEFAULT_CATALOG_KEY
        self.sync_table_properties = bool_option(opts, SYNC_ALL_PROPERTIES, True)
        self.lock_settings = LockSettings.of(self.jdbc, opts)
        self.lock: JdbcCatalogLock | None = None
        self.conn: JdbcConnection = self.jdbc.connect()  # connection errors name 'uri' / 'jdbc.*'
        try:
            for name, ddl in CATALOG_TABLES:
                self.conn.create_table_if_missing(name, ddl)
        except db_errors() as e:
            raise self.conn.error(e, "Creating the catalog's tables") from e
        super().__init__(warehouse, opts)

    def _storage(self, given: str) -> tuple[FileIO, str]:
        file_io, root = super()._storage(given)
        if lock_enabled(self.options, object_store=not file_io.capabilities.local_paths):
            try:
                create_lock_table(self.conn, self.lock_settings)
            except db_errors() as e:
                raise self.conn.error(e, "Creating the lock table") from e
            self.lock = JdbcCatalogLock(self.lock_settings)
            file_io = file_io.with_snapshot_commit(CatalogLockCommit(file_io.snapshot_commit, self.lock, root))
        return file_io, root

    # -- SQL ---------------------------------------------------------------------------------------
    def _query(self, sql: str, *args: str) -> list[dict[str, object]]:
        try:
            return self.conn.query(sql, args)
        except db_errors() as e:
            raise self.conn.error(e, f"Query {sql!r}") from e

    def _execute(self, sql: str, *args: str) -> int:
        try:
            return self.conn.execute(sql, args)
        except db_errors() as e:
            raise self.conn.error(e, f"Statement {sql!r}") from e

    def _exists(self, sql: str, *args: str) -> bool:
        return bool(self._query(sql, *args))

    def _insert_properties(self, sql: str, prefix: Sequence[str], values: str, props: Mapping[str, str]) -> None:
        if not props:
            return
        stmt = sql + ", ".join([values] * len(props))
        args: list[str] = []
        for k, v in props.items():
            args += [*prefix, k, v]
        n = self._execute(stmt, *args)
        if n != len(props):
            raise PaimonError(f"Failed to insert: {n} of {len(props)} succeeded ({sql.split('(')[0].strip()})")

    def _with_lock(self, ident: Identifier, fn: Callable[[], T]) -> T:
        """Runs ``fn`` under the table's catalog lock when the lock is enabled (Paimon's
        ``runWithLock`` around create / rename)."""
        if self.lock is None:
            return fn()
        return self.lock.run_with_lock(ident.database, ident.table, fn)

    # -- databases -------------------------------------------------------------------------------
    def list_databases(self) -> list[str]:
        names: set[str] = set()
        for sql, col in ((LIST_ALL_TABLE_DATABASES_SQL, TABLE_DATABASE),
                         (LIST_ALL_PROPERTY_DATABASES_SQL, DATABASE_NAME),
                         (LIST_ALL_VIEW_DATABASES_SQL, TABLE_DATABASE)):
            names.update(str(r[col]) for r in self._query(sql, self.catalog_key))
        names.discard(SYSTEM_DATABASE)
        return sorted(names)

    def database_exists(self, name: str) -> bool:
        if name == SYSTEM_DATABASE:
            return True
        return any(self._exists(sql, self.catalog_key, name)
                   for sql in (GET_DATABASE_SQL, GET_DATABASE_PROPERTIES_SQL, GET_VIEW_DATABASE_SQL))

    def create_database(self, name: str, ignore_if_exists: bool = False,
                        properties: Mapping[str, str] | None = None) -> None:
        """A database with ``properties`` (kept in ``paimon_database_properties`` with Paimon's
        ``exists`` = true and ``location`` = ``<warehouse>/<name>.db``)."""
        if name == SYSTEM_DATABASE:
            raise system_database_error(f"create database {name}")
        _database_name(name, new=True)
        if properties is not None and not isinstance(properties, Mapping):
            raise ValidationError(f"The properties of database {name} must be a dict of key -> value, got {properties!r}")
        if self.database_exists(name):
            if ignore_if_exists:
                return
            raise AlreadyExistsError(f"Database {name} already exists")
        props = {DATABASE_EXISTS_PROPERTY: "true", **{str(k): str(v) for k, v in (properties or {}).items()}}
        props.setdefault(DB_LOCATION_PROP, join(self.warehouse_uri, name + DB_SUFFIX))
        try:
            self._insert_properties(INSERT_DATABASE_PROPERTIES_SQL, (self.catalog_key, name), "(?,?,?,?)", props)
        except PaimonError:
            if self.database_exists(name) and not ignore_if_exists:  # created concurrently
                raise AlreadyExistsError(f"Database {name} already exists") from None
            if not self.database_exists(name):
                raise

    def database_properties(self, name: str) -> dict[str, str]:
        """The properties of database ``name`` (Paimon's ``getDatabase(name).options()``)."""
        if name == SYSTEM_DATABASE:
            return {}
        if not self.database_exists(name):
            raise DatabaseNotFoundError(f"Database {name} does not exist")
        props = self._fetch_properties(name)
        if DB_LOCATION_PROP not in props:  # as Paimon: the folder's name
            props[DB_LOCATION_PROP] = name + DB_SUFFIX
        props.pop(DATABASE_EXISTS_PROPERTY, None)
        return props

    def _fetch_properties(self, name: str) -> dict[str, str]:
        rows = self._query(GET_ALL_DATABASE_PROPERTIES_SQL, self.catalog_key, name)
        return {str(r[DATABASE_PROPERTY_KEY]): str(r[DATABASE_PROPERTY_VALUE]) for r in rows}

    def alter_database(self, name: str, set_properties: Mapping[str, str] | None = None,
                       remove_keys: Sequence[str] = (), ignore_if_not_exists: bool = False) -> None:
        """Sets and removes properties of database ``name`` (Paimon's ``alterDatabase``)."""
        if name == SYSTEM_DATABASE:
            raise system_database_error(f"alter database {name}")
        if not self.database_exists(name):
            if ignore_if_not_exists:
                return
            raise DatabaseNotFoundError(f"Database {name} does not exist")
        current = self._fetch_properties(name)
        sets = {str(k): str(v) for k, v in (set_properties or {}).items()}
        inserts = {k: v for k, v in sets.items() if k not in current}
        updates = {k: v for k, v in sets.items() if k in current}
        removes = [k for k in remove_keys if k in current]
        self._insert_properties(INSERT_DATABASE_PROPERTIES_SQL, (self.catalog_key, name), "(?,?,?,?)", inserts)
        if updates:  # Paimon's UPDATE ... SET property_value = CASE WHEN property_key = ? THEN ? ... END
            case = " ".join([f"WHEN {DATABASE_PROPERTY_KEY} = ? THEN ?"] * len(updates))
            sql = (f"UPDATE paimon_database_properties SET {DATABASE_PROPERTY_VALUE} = CASE {case} END WHERE "
                   f"catalog_key = ? AND {DATABASE_NAME} = ? AND {DATABASE_PROPERTY_KEY} IN "
                   f"({','.join('?' * len(updates))})")
            args = [x for kv in updates.items() for x in kv] + [self.catalog_key, name, *updates]
            self._execute(sql, *args)
        if removes:
            self._execute(DELETE_DATABASE_PROPERTIES_SQL + f"({','.join('?' * len(removes))})",
                          self.catalog_key, name, *removes)

    def drop_database(self, name: str, ignore_if_not_exists: bool = False, cascade: bool = False) -> None:
        """Drops the database's rows; with ``cascade`` its tables first (rows and folders, as
        pypaimon's JdbcCatalog: Paimon's Java one leaves their folders behind)."""
        if name == SYSTEM_DATABASE:
            raise system_database_error(f"drop database {name}")
        if not self.database_exists(name):
            if ignore_if_not_exists:
                return
            raise DatabaseNotFoundError(f"Database {name} does not exist")
        tables = self.list_tables(name)
        if tables and not cascade:
            raise DatabaseNotEmptyError(f"Database {name} is not empty (tables: {tables}); use cascade=True")
        for t in tables:
            self.drop_table(Identifier(name, t), ignore_if_not_exists=True)
        self._execute(DELETE_TABLES_SQL, self.catalog_key, name)
        self._execute(DELETE_ALL_DATABASE_PROPERTIES_SQL, self.catalog_key, name)
        if self.sync_table_properties:
            self._execute(DELETE_ALL_TABLE_PROPERTIES_FOR_DB_SQL, self.catalog_key, name)
        self._execute(DELETE_VIEWS_SQL, self.catalog_key, name)
        path = self.database_path(name)
        if self.file_io.is_dir(path) and not self.file_io.list_status(path):
            self.file_io.delete_dir(path)  # the folder the tables left, when empty

    # -- tables ----------------------------------------------------------------------------------
    def list_tables(self, database: str) -> list[str]:
        if database == SYSTEM_DATABASE:
            return super().list_tables(database)
        self._require_db(database)
        return sorted(str(r[TABLE_NAME]) for r in self._query(LIST_TABLES_SQL, self.catalog_key, database))

    def _registered(self, ident: Identifier) -> bool:
        return self._exists(GET_TABLE_SQL, self.catalog_key, ident.database, ident.table)

    def table_exists(self, identifier: str | Identifier) -> bool:
        ident = Identifier.parse(identifier)
        if ident.in_system_database:
            return super().table_exists(ident)
        if not self._registered(ident):
            return False
        meta = branch_path(self.table_path(ident), ident.branch or MAIN_BRANCH)
        return ident.branch is None or bool(SchemaManager(self.file_io, meta).schema_ids())

    def _data_table(self, ident: Identifier) -> Table:
        if not self._registered(ident):
            if not self.database_exists(ident.database):
                raise DatabaseNotFoundError(
                    f"Database {ident.database} does not exist (looking up table {ident.full_name})"
                )
            raise TableNotFoundError(f"Table {Identifier(ident.database, ident.table, ident.branch).full_name} does not exist")
        path = self.table_path(ident)
        if not SchemaManager(self.file_io, path).schema_ids():
            raise NotFoundError(
                f"There is no paimon table in {path} (table {ident.database}.{ident.table} is in the JDBC catalog "
                f"{self.catalog_key!r} but its folder has no schema)"
            )
        return super()._data_table(ident)

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
        ident = Identifier.parse(identifier)
        ident.check_plain()
        if ident.in_system_database:
            raise system_database_error(f"create table {ident.full_name}")
        self._require_db(ident.database)

        def create() -> Table:
            if self.table_exists(ident):
                if ignore_if_exists:
                    return self._data_table(ident)
                raise AlreadyExistsError(f"Table {ident.full_name} already exists")
            self._check_no_orphan_folder(ident)
            table = Catalog.create_table(self, ident, schema, primary_keys, partition_keys, options, comment,
                                         False, column_defaults)
            self._register(ident, table.schema)
            return table

        return self._with_lock(ident, create)

    def create_table_like(self, identifier: str | Identifier, source: Table) -> Table:
        ident = Identifier.parse(identifier)
        ident.check_plain()

        def create() -> Table:
            self._check_no_orphan_folder(ident)
            table = Catalog.create_table_like(self, ident, source)
            self._register(ident, table.schema)
            return table

        return self._with_lock(ident, create)

    def _check_no_orphan_folder(self, ident: Identifier) -> None:
        """A folder with a schema but no row (left by a crash, or a table of the filesystem
        catalog): Paimon refuses to create the table over it."""
        path = self.table_path(ident)
        if SchemaManager(self.file_io, path).schema_ids():
            raise AlreadyExistsError(
                f"Table {ident.full_name} cannot be created: its folder {path} already holds a Paimon table that "
                f"the JDBC catalog does not list (repair it with JdbcCatalog.repair_table, or remove the folder)"
            )

    def _register(self, ident: Identifier, schema: TableSchema) -> None:
        """The table's rows; on failure its folder goes (a failed create leaves nothing)."""
        try:
            try:
                n = self.conn.execute(DO_COMMIT_CREATE_TABLE_SQL, (self.catalog_key, ident.database, ident.table))
            except db_errors() as e:
                if self.conn.is_unique_violation(e):
                    raise AlreadyExistsError(f"Table {ident.full_name} already exists") from e
                raise self.conn.error(e, f"Registering table {ident.full_name}") from e
            if n != 1:
                raise PaimonError(f"Failed to create table {ident.full_name} in catalog {self.catalog_key}")
            if self.sync_table_properties:
                try:
                    self._insert_properties(INSERT_TABLE_PROPERTIES_SQL, (self.catalog_key, ident.database, ident.table),
                                            "(?,?,?,?,?)", table_properties(schema))
                except PaimonError:
                    self._execute(DROP_TABLE_SQL, self.catalog_key, ident.database, ident.table)
                    raise
        except PaimonError:
            self.file_io.delete_dir(self.table_path(ident))
            raise

    def sync_table(self, identifier: str | Identifier) -> None:
        """Rewrites the table's rows in ``paimon_table_properties`` from its latest schema (Paimon
        does it after every ALTER TABLE through the catalog); nothing when ``sync-all-properties``
        is false."""
        ident = Identifier.parse(identifier)
        if not self.sync_table_properties or ident.in_system_database:
            return
        table = self._data_table(Identifier(ident.database, ident.table))
        self._execute(DELETE_ALL_TABLE_PROPERTIES_SQL, self.catalog_key, ident.database, ident.table)
        self._insert_properties(INSERT_TABLE_PROPERTIES_SQL, (self.catalog_key, ident.database, ident.table),
                                "(?,?,?,?,?)", table_properties(table.schema))

    def drop_table(self, identifier: str | Identifier, ignore_if_not_exists: bool = False) -> None:
        ident = Identifier.parse(identifier)
        ident.check_plain()
        if ident.in_system_database:
            raise system_database_error(f"drop table {ident.full_name}")
        if not self._registered(ident):
            if ignore_if_not_exists:
                return
            raise TableNotFoundError(f"Table {ident.full_name} does not exist")
        if self._execute(DROP_TABLE_SQL, self.catalog_key, ident.database, ident.table) == 0:
            return  # dropped concurrently (Paimon: "Skipping drop, table does not exist")
        if self.sync_table_properties:
            self._execute(DELETE_ALL_TABLE_PROPERTIES_SQL, self.catalog_key, ident.database, ident.table)
        if self.file_io.exists(self.table_path(ident)):
            self._drop_table_files(ident)

    def rename_table(self, source: str | Identifier, target: str | Identifier) -> None:
        src, dst = Identifier.parse(source), Identifier.parse(target)
        src.check_plain()
        dst.check_plain()
        for ident in (src, dst):
            if ident.in_system_database:
                raise system_database_error(f"rename table {src.full_name} to {dst.full_name}")
        first, second = sorted((src, dst), key=lambda i: (i.database, i.table))

        def rename() -> None:
            if not self._registered(src):
                raise TableNotFoundError(f"Table {src.full_name} does not exist")
            self._require_db(dst.database)
            if self._registered(dst) or self._exists(GET_VIEW_SQL, self.catalog_key, dst.database, dst.table):
                raise AlreadyExistsError(f"Table {dst.full_name} already exists")
            src_path, dst_path = self.table_path(src), self.table_path(dst)
            moving = bool(SchemaManager(self.file_io, src_path).schema_ids())
            if moving and self.file_io.exists(dst_path):
                raise AlreadyExistsError(f"Table {dst.full_name} already exists (its folder {dst_path} does)")
            try:
                n = self.conn.execute(RENAME_TABLE_SQL, (dst.database, dst.table, self.catalog_key, src.database,
                                                         src.table))
            except db_errors() as e:
                if self.conn.is_unique_violation(e):
                    raise AlreadyExistsError(f"Table {dst.full_name} already exists") from e
                raise self.conn.error(e, f"Renaming table {src.full_name}") from e
            if n == 0:
                raise TableNotFoundError(f"Table {src.full_name} does not exist")
            if self.sync_table_properties:
                self._execute(RENAME_TABLE_PROPERTIES_SQL, dst.database, dst.table, self.catalog_key,
                              src.database, src.table)
            if moving:
                try:
                    self.file_io.rename(src_path, dst_path)
                except (OSError, PaimonError) as e:  # put the rows back: the table stays as it was
                    self._execute(RENAME_TABLE_SQL, src.database, src.table, self.catalog_key, dst.database, dst.table)
                    if self.sync_table_properties:
                        self._execute(RENAME_TABLE_PROPERTIES_SQL, src.database, src.table, self.catalog_key,
                                      dst.database, dst.table)
                    raise PaimonError(
                        f"Failed to rename changes of table {dst.full_name} to underlying files: {e}"
                    ) from e

        if first == second:
            self._with_lock(first, rename)
        else:
            self._with_lock(first, lambda: self._with_lock(second, rename))

    # -- repair (Paimon's repairCatalog / repairDatabase / repairTable) ---------------------------
    def repair_table(self, identifier: str | Identifier) -> None:
        """Registers a table whose folder holds a Paimon table (its database too when missing)."""
        ident = Identifier.parse(identifier)
        ident.check_plain()
        if ident.in_system_database:
            raise system_database_error(f"repair table {ident.full_name}")
        schema = SchemaManager(self.file_io, self.table_path(ident), ident.full_name).latest()
        if schema is None:
            raise TableNotFoundError(f"Table {ident.full_name} does not exist")
        if not self.database_exists(ident.database):
            self.create_database(ident.database, ignore_if_exists=True)
        if not self._registered(ident):
            self._execute(DO_COMMIT_CREATE_TABLE_SQL, self.catalog_key, ident.database, ident.table)
        self.sync_table(ident)

    def repair_database(self, name: str) -> None:
        """Registers the database and every table in its folder."""
        if name == SYSTEM_DATABASE:
            raise system_database_error(f"repair database {name}")
        path = self.database_path(name)
        if not self.file_io.is_dir(path):
            raise DatabaseNotFoundError(f"Database directory does not exist: {path}")
        if not self.database_exists(name):
            self.create_database(name, ignore_if_exists=True)
        for t in self._tables_on_disk(name):
            self.repair_table(Identifier(name, t))

    def _tables_on_disk(self, database: str) -> list[str]:
        out = []
        for st in self.file_io.list_status(self.database_path(database)):
            if st.is_dir and self._listable("table", basename(st.path), st.path) and \
                    SchemaManager(self.file_io, st.path).schema_ids():
                out.append(basename(st.path))
        return sorted(out)

    def repair_catalog(self) -> None:
        """Registers every database folder of the warehouse and its tables."""
        for st in self.file_io.list_status(self.warehouse):
            name = st.path.rstrip("/").rsplit("/", 1)[-1]
            if st.is_dir and name.endswith(DB_SUFFIX) and name[: -len(DB_SUFFIX)] != SYSTEM_DATABASE:
                self.repair_database(name[: -len(DB_SUFFIX)])


def table_properties(schema: TableSchema) -> dict[str, str]:
    """The rows of a table in ``paimon_table_properties`` (Paimon's ``collectTableProperties``): its
    options, with ``primary-key``, ``partition`` and ``bucket-key`` (the bucket key: the option, else
    the primary key without the partition columns) when not empty."""
    props = dict(schema.options)
    if schema.primary_keys:
        props["primary-key"] = ",".join(schema.primary_keys)
    if schema.partition_keys:
        props["partition"] = ",".join(schema.partition_keys)
    bucket_key = schema.options.get("bucket-key")
    keys = [k.strip() for k in bucket_key.split(",") if k.strip()] if bucket_key else [
        k for k in schema.primary_keys if k not in schema.partition_keys]
    if keys:
        props["bucket-key"] = ",".join(keys)
    return props


class JdbcTablesView(Catalog):
    """The tables of a JDBC catalog's warehouse as another process opens them by name (Spark's
    Python workers): the filesystem catalog's view of the folders, whose commits take the catalog's
    lock when it has one. Nothing is queried at open; the lock connects on the first commit."""

    METASTORE = JDBC

    def __init__(self, warehouse: str, options: Mapping[str, str] | None = None) -> None:
        opts = {str(k): str(v) for k, v in (options or {}).items()}
        self.lock_settings = LockSettings.of(JdbcSettings.of(opts), opts)
        super().__init__(warehouse, opts)

    def _storage(self, given: str) -> tuple[FileIO, str]:
        file_io, root = super()._storage(given)
        if lock_enabled(self.options, object_store=not file_io.capabilities.local_paths):
            lock = JdbcCatalogLock(self.lock_settings)
            file_io = file_io.with_snapshot_commit(CatalogLockCommit(file_io.snapshot_commit, lock, root))
        return file_io, root


def travelling_options(options: Mapping[str, str]) -> dict[str, str]:
    """The options of a JDBC catalog its tables need in other processes (the lock's)."""
    keys = (METASTORE_KEY, URI, CATALOG_KEY_OPTION, LOCK_ENABLED, LOCK_ACQUIRE_TIMEOUT, LOCK_CHECK_MAX_SLEEP,
            LOCK_KEY_MAX_LENGTH)
    return {k: v for k, v in options.items() if k in keys or k.startswith(PROPERTY_PREFIX)}
