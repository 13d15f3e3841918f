"""The JDBC catalog's store: its connection (SQLite through the stdlib, PostgreSQL through the
optional ``pg8000`` driver) and Paimon's tables, as Paimon's ``JdbcUtils`` and
``*DistributedLockDialect`` define them (table and column names, DDL, queries; facts only).

The URI is written as Paimon's users write it: ``jdbc:sqlite:/path/to.db`` (or
``jdbc:sqlite:file:name?mode=memory&cache=shared``; ``sqlite:`` without ``jdbc:`` is accepted)
and ``jdbc:postgresql://host:port/db``. Connection properties are the catalog options
``jdbc.<name>`` (``jdbc.user``, ``jdbc.password``), as Paimon passes them to the JDBC driver.
"""

from __future__ import annotations

import contextlib
import re
import sqlite3
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

from paimon_sql.errors import PaimonError, UnsupportedError, ValidationError

URI = "uri"
PROPERTY_PREFIX = "jdbc."

# Paimon's JdbcUtils: the catalog's tables and columns
CATALOG_TABLE_NAME = "paimon_tables"
CATALOG_KEY = "catalog_key"
TABLE_DATABASE = "database_name"
TABLE_NAME = "table_name"
DATABASE_PROPERTIES_TABLE_NAME = "paimon_database_properties"
DATABASE_NAME = "database_name"
DATABASE_PROPERTY_KEY = "property_key"
DATABASE_PROPERTY_VALUE = "property_value"
TABLE_PROPERTIES_TABLE_NAME = "paimon_table_properties"
VIEW_TABLE_NAME = "paimon_views"
VIEW_NAME = "view_name"
VIEW_SCHEMA = "view_schema"
DISTRIBUTED_LOCKS_TABLE_NAME = "paimon_distributed_locks"
LOCK_ID = "lock_id"
ACQUIRED_AT = "acquired_at"
EXPIRE_TIME = "expire_time_seconds"

CREATE_CATALOG_TABLE = (
    f"CREATE TABLE {CATALOG_TABLE_NAME}({CATALOG_KEY} VARCHAR(255) NOT NULL,{TABLE_DATABASE} VARCHAR(255) NOT NULL,"
    f"{TABLE_NAME} VARCHAR(255) NOT NULL, PRIMARY KEY ({CATALOG_KEY}, {TABLE_DATABASE}, {TABLE_NAME}))"
)
CREATE_DATABASE_PROPERTIES_TABLE = (
    f"CREATE TABLE {DATABASE_PROPERTIES_TABLE_NAME}({CATALOG_KEY} VARCHAR(255) NOT NULL,"
    f"{DATABASE_NAME} VARCHAR(255) NOT NULL,{DATABASE_PROPERTY_KEY} VARCHAR(255),"
    f"{DATABASE_PROPERTY_VALUE} VARCHAR(1000),PRIMARY KEY ({CATALOG_KEY}, {DATABASE_NAME}, {DATABASE_PROPERTY_KEY}))"
)
CREATE_TABLE_PROPERTIES_TABLE = (
    f"CREATE TABLE {TABLE_PROPERTIES_TABLE_NAME}({CATALOG_KEY} VARCHAR(255) NOT NULL,"
    f"{TABLE_DATABASE} VARCHAR(255) NOT NULL,{TABLE_NAME} VARCHAR(255) NOT NULL,"
    f"{DATABASE_PROPERTY_KEY} VARCHAR(255) NOT NULL,{DATABASE_PROPERTY_VALUE} VARCHAR(1000),"
    f"PRIMARY KEY ({CATALOG_KEY}, {TABLE_DATABASE}, {TABLE_NAME}, {DATABASE_PROPERTY_KEY}))"
)
CREATE_VIEW_TABLE = (
    f"CREATE TABLE {VIEW_TABLE_NAME}({CATALOG_KEY} VARCHAR(255) NOT NULL,{TABLE_DATABASE} VARCHAR(255) NOT NULL,"
    f"{VIEW_NAME} VARCHAR(255) NOT NULL,{VIEW_SCHEMA} TEXT NOT NULL, PRIMARY KEY ({CATALOG_KEY}, "
    f"{TABLE_DATABASE}, {VIEW_NAME}))"
)
# the lock table (the same for SQLite and PostgreSQL); %s: lock-key-max-length
CREATE_LOCK_TABLE = (
    f"CREATE TABLE {DISTRIBUTED_LOCKS_TABLE_NAME}({LOCK_ID} VARCHAR(%s) NOT NULL,"
    f"{ACQUIRED_AT} TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL,{EXPIRE_TIME} BIGINT DEFAULT 0 NOT NULL,"
    f"PRIMARY KEY ({LOCK_ID}))"
)
CATALOG_TABLES = (
    (CATALOG_TABLE_NAME, CREATE_CATALOG_TABLE),
    (DATABASE_PROPERTIES_TABLE_NAME, CREATE_DATABASE_PROPERTIES_TABLE),
    (TABLE_PROPERTIES_TABLE_NAME, CREATE_TABLE_PROPERTIES_TABLE),
    (VIEW_TABLE_NAME, CREATE_VIEW_TABLE),
)

_K = f"{CATALOG_KEY} = ?"
GET_TABLE_SQL = f"SELECT * FROM {CATALOG_TABLE_NAME} WHERE {_K} AND {TABLE_DATABASE} = ? AND {TABLE_NAME} = ? "
LIST_TABLES_SQL = f"SELECT * FROM {CATALOG_TABLE_NAME} WHERE {_K} AND {TABLE_DATABASE} = ?"
DELETE_TABLES_SQL = f"DELETE FROM  {CATALOG_TABLE_NAME} WHERE {_K} AND {TABLE_DATABASE} = ?"
RENAME_TABLE_SQL = (
    f"UPDATE {CATALOG_TABLE_NAME} SET {TABLE_DATABASE} = ? , {TABLE_NAME} = ?  WHERE {_K} AND "
    f"{TABLE_DATABASE} = ? AND {TABLE_NAME} = ? "
)
DROP_TABLE_SQL = f"DELETE FROM {CATALOG_TABLE_NAME} WHERE {_K} AND {TABLE_DATABASE} = ? AND {TABLE_NAME} = ? "
GET_DATABASE_SQL = f"SELECT {TABLE_DATABASE} FROM {CATALOG_TABLE_NAME} WHERE {_K} AND {TABLE_DATABASE} = ? LIMIT 1"
LIST_ALL_TABLE_DATABASES_SQL = f"SELECT DISTINCT {TABLE_DATABASE} FROM {CATALOG_TABLE_NAME} WHERE {_K}"
DO_COMMIT_CREATE_TABLE_SQL = (
    f"INSERT INTO {CATALOG_TABLE_NAME} ({CATALOG_KEY}, {TABLE_DATABASE}, {TABLE_NAME})  VALUES (?,?,?)"
)
GET_DATABASE_PROPERTIES_SQL = (
    f"SELECT {DATABASE_NAME} FROM {DATABASE_PROPERTIES_TABLE_NAME} WHERE {_K} AND {DATABASE_NAME} = ? "
)
INSERT_DATABASE_PROPERTIES_SQL = (
    f"INSERT INTO {DATABASE_PROPERTIES_TABLE_NAME} ({CATALOG_KEY}, {DATABASE_NAME}, {DATABASE_PROPERTY_KEY}, "
    f"{DATABASE_PROPERTY_VALUE}) VALUES "
)
GET_ALL_DATABASE_PROPERTIES_SQL = (
    f"SELECT *  FROM {DATABASE_PROPERTIES_TABLE_NAME} WHERE {_K} AND {DATABASE_NAME} = ? "
)
DELETE_DATABASE_PROPERTIES_SQL = (
    f"DELETE FROM {DATABASE_PROPERTIES_TABLE_NAME} WHERE {_K} AND {DATABASE_NAME} = ? AND "
    f"{DATABASE_PROPERTY_KEY} IN "
)
DELETE_ALL_DATABASE_PROPERTIES_SQL = (
    f"DELETE FROM {DATABASE_PROPERTIES_TABLE_NAME} WHERE {_K} AND {DATABASE_NAME} = ?"
)
LIST_ALL_PROPERTY_DATABASES_SQL = f"SELECT DISTINCT {DATABASE_NAME} FROM {DATABASE_PROPERTIES_TABLE_NAME} WHERE {_K}"
INSERT_TABLE_PROPERTIES_SQL = (
    f"INSERT INTO {TABLE_PROPERTIES_TABLE_NAME} ({CATALOG_KEY}, {TABLE_DATABASE}, {TABLE_NAME}, "
    f"{DATABASE_PROPERTY_KEY}, {DATABASE_PROPERTY_VALUE}) VALUES "
)
DELETE_ALL_TABLE_PROPERTIES_SQL = (
    f"DELETE FROM {TABLE_PROPERTIES_TABLE_NAME} WHERE {_K} AND {TABLE_DATABASE} = ? AND {TABLE_NAME} = ?"
)
DELETE_ALL_TABLE_PROPERTIES_FOR_DB_SQL = (
    f"DELETE FROM {TABLE_PROPERTIES_TABLE_NAME} WHERE {_K} AND {TABLE_DATABASE} = ?"
)
RENAME_TABLE_PROPERTIES_SQL = (
    f"UPDATE {TABLE_PROPERTIES_TABLE_NAME} SET {TABLE_DATABASE} = ? , {TABLE_NAME} = ?  WHERE {_K} AND "
    f"{TABLE_DATABASE} = ? AND {TABLE_NAME} = ? "
)
GET_VIEW_DATABASE_SQL = f"SELECT {TABLE_DATABASE} FROM {VIEW_TABLE_NAME} WHERE {_K} AND {TABLE_DATABASE} = ? LIMIT 1"
GET_VIEW_SQL = f"SELECT * FROM {VIEW_TABLE_NAME} WHERE {_K} AND {TABLE_DATABASE} = ? AND {VIEW_NAME} = ? "
LIST_ALL_VIEW_DATABASES_SQL = f"SELECT DISTINCT {TABLE_DATABASE} FROM {VIEW_TABLE_NAME} WHERE {_K}"
DELETE_VIEWS_SQL = f"DELETE FROM  {VIEW_TABLE_NAME} WHERE {_K} AND {TABLE_DATABASE} = ?"

# the distributed lock (Paimon's SqlLite- / PostgresqlDistributedLockDialect)
LOCK_ACQUIRE_SQL = f"INSERT INTO {DISTRIBUTED_LOCKS_TABLE_NAME} ({LOCK_ID},{EXPIRE_TIME}) VALUES (?,?)"
LOCK_RELEASE_SQL = f"DELETE FROM {DISTRIBUTED_LOCKS_TABLE_NAME} WHERE {LOCK_ID} = ?"
RELEASE_TIMED_OUT_SQL = {
    "sqlite": (
        f"DELETE FROM {DISTRIBUTED_LOCKS_TABLE_NAME} WHERE  strftime('%s', 'now') - strftime('%s', "
        f"{ACQUIRED_AT}) > {EXPIRE_TIME} and {LOCK_ID} = ?"
    ),
    "postgresql": (
        f"DELETE FROM {DISTRIBUTED_LOCKS_TABLE_NAME} WHERE EXTRACT(EPOCH FROM AGE(NOW(), {ACQUIRED_AT})) >"
        f"{EXPIRE_TIME} and {LOCK_ID} = ?"
    ),
}

# protocols Paimon's JdbcCatalog knows whose drivers paimon_sql does not use
_KNOWN_ELSEWHERE = ("mysql", "mariadb")


class JdbcError(PaimonError):
    """A statement of the JDBC catalog failed in its database; the message names the catalog's
    ``uri`` and the statement."""


@dataclass(frozen=True)
class JdbcSettings:
    """Where the catalog's database is and how to connect (picklable: travels with tables)."""

    uri: str
    protocol: str  # sqlite | postgresql
    properties: tuple[tuple[str, str], ...]

    @staticmethod
    def of(options: Mapping[str, str]) -> JdbcSettings:
        uri = (options.get(URI) or "").strip()
        if not uri:
            raise ValidationError(
                f"The JDBC catalog needs the catalog option {URI!r} (JDBC connection URI is required), e.g. "
                "'jdbc:sqlite:/path/to/catalog.db' or 'jdbc:postgresql://host:5432/db'"
            )
        body = uri[len("jdbc:"):] if uri.lower().startswith("jdbc:") else uri
        m = re.match(r"^([A-Za-z][A-Za-z0-9]*):(.*)$", body, re.S)
        protocol = m.group(1).lower() if m else ""
        if protocol in _KNOWN_ELSEWHERE:
            raise UnsupportedError(
                f"Catalog option {URI!r} = {uri!r}: the JDBC catalog of paimon_sql supports SQLite and PostgreSQL "
                f"URIs, not {protocol!r}"
            )
        if protocol not in ("sqlite", "postgresql"):
            raise ValidationError(
                f"Catalog option {URI!r} has an unknown JDBC URI kind {uri!r}: expected "
                "'jdbc:sqlite:<path>' or 'jdbc:postgresql://host:port/database'"
            )
        props = tuple(sorted((k[len(PROPERTY_PREFIX):], str(v)) for k, v in options.items()
                             if k.startswith(PROPERTY_PREFIX)))
        return JdbcSettings(uri, protocol, props)

    def connect(self) -> JdbcConnection:
        return JdbcConnection(self)


def _sqlite_target(uri: str) -> tuple[str, bool]:
    body = uri[len("jdbc:"):] if uri.lower().startswith("jdbc:") else uri
    target = body[len("sqlite:"):]
    if target.startswith("file:"):
        return target, True
    if target.startswith("//"):  # sqlite://path, as some users write it
        target = target[2:]
    return target, False


class JdbcConnection:
    """One connection in autocommit mode (as a JDBC connection), used by one thread at a time.
    Statements use ``?`` parameters (JDBC's); they are rewritten for drivers that want ``%s``."""

    def __init__(self, settings: JdbcSettings) -> None:
        self.settings = settings
        self.protocol = settings.protocol
        self._lock = threading.RLock()
        self._conn: Any = self._open()

    def _open(self) -> Any:
        s = self.settings
        if s.protocol == "sqlite":
            target, is_uri = _sqlite_target(s.uri)
            try:
                conn = sqlite3.connect(target, uri=is_uri, timeout=60, isolation_level=None,
                                       check_same_thread=False)
                conn.execute("SELECT 1")
            except sqlite3.Error as e:
                raise ValidationError(f"Cannot open the SQLite database of catalog option {URI!r} = {s.uri!r}: {e}") from e
            return conn
        return self._open_postgresql()

    def _open_postgresql(self) -> Any:
        s = self.settings
        try:
            import pg8000.dbapi
        except ImportError as e:
            raise UnsupportedError(
                f"Catalog option {URI!r} = {s.uri!r} needs the PostgreSQL driver pg8000, which is not "
                "installed (pip install 'paimon-sql[postgres]')"
            ) from e
        body = s.uri[len("jdbc:"):] if s.uri.lower().startswith("jdbc:") else s.uri
        parts = urlsplit(body)
        props = dict(parse_qsl(parts.query))
        props.update(dict(s.properties))
        user = props.get("user") or props.get("username") or (unquote(parts.username) if parts.username else None)
        password = props.get("password") or (unquote(parts.password) if parts.password else None)
        database = parts.path.lstrip("/") or None
        host = parts.hostname or "localhost"
        try:
            port = parts.port or 5432
        except ValueError as e:
            raise ValidationError(f"Catalog option {URI!r} = {s.uri!r} has an invalid port: {e}") from e
        if not user:
            raise ValidationError(
                f"The JDBC catalog at {s.uri!r} needs a user: set catalog option 'jdbc.user' (and 'jdbc.password')"
            )
        timeout = float(props.get("connectTimeout") or props.get("loginTimeout") or 10)
        try:
            conn = pg8000.dbapi.connect(user=user, password=password, host=host, port=port, database=database,
                                        timeout=timeout)
        except pg8000.dbapi.InterfaceError as e:
            raise ValidationError(
                f"Cannot connect to the PostgreSQL server of catalog option {URI!r} = {s.uri!r}: {e}"
            ) from e
        except pg8000.dbapi.DatabaseError as e:
            code = _pg_code(e)
            if code in ("28P01", "28000"):
                raise ValidationError(
                    f"The PostgreSQL server of catalog option {URI!r} = {s.uri!r} refused the credentials "
                    f"of catalog options 'jdbc.user' = {user!r} / 'jdbc.password': {_pg_message(e)}"
                ) from e
            if code == "3D000":
                raise ValidationError(
                    f"Catalog option {URI!r} = {s.uri!r} names a database the server does not have: {_pg_message(e)}"
                ) from e
            raise ValidationError(
                f"Cannot connect to the PostgreSQL server of catalog option {URI!r} = {s.uri!r}: {_pg_message(e)}"
            ) from e
        conn.autocommit = True
        return conn

    def _sql(self, sql: str) -> str:
        return sql if self.protocol == "sqlite" else sql.replace("?", "%s")

    def execute(self, sql: str, args: Sequence[Any] = ()) -> int:
        """Runs one statement; the number of rows it changed."""
        with self._lock:
            cur = self._conn.cursor()
            try:
                cur.execute(self._sql(sql), tuple(args))
                return int(cur.rowcount if cur.rowcount is not None else -1)
            finally:
                cur.close()

    def query(self, sql: str, args: Sequence[Any] = ()) -> list[dict[str, Any]]:
        """Rows as column name -> value."""
        with self._lock:
            cur = self._conn.cursor()
            try:
                cur.execute(self._sql(sql), tuple(args))
                names = [d[0] for d in cur.description or ()]
                return [dict(zip(names, row)) for row in cur.fetchall()]
            finally:
                cur.close()

    def table_exists(self, name: str) -> bool:
        if self.protocol == "sqlite":
            return bool(self.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)))
        return bool(self.query(
            "SELECT 1 FROM information_schema.tables WHERE table_name = ? "
            "AND table_schema = ANY(current_schemas(false))", (name,)))

    def create_table_if_missing(self, name: str, ddl: str) -> None:
        """Paimon's check-then-create; another process creating it at the same time is fine."""
        if self.table_exists(name):
            return
        try:
            self.execute(ddl)
        except Exception:
            if not self.table_exists(name):
                raise

    def is_unique_violation(self, e: BaseException) -> bool:
        if isinstance(e, sqlite3.IntegrityError):
            return True
        return _pg_code(e) == "23505" or "constraint failed" in str(e)

    def close(self) -> None:
        with self._lock:
            try:
                self._conn.close()
            except Exception:  # noqa: BLE001 - a connection that cannot close is dropped anyway
                return

    def error(self, e: BaseException, what: str) -> JdbcError:
        return JdbcError(f"{what} failed in the JDBC catalog at catalog option {URI!r} = {self.settings.uri!r}: "
                         f"{_pg_message(e) if self.protocol == 'postgresql' else e}")


def _pg_code(e: BaseException) -> str | None:
    arg = e.args[0] if e.args else None
    if isinstance(arg, dict):
        code = arg.get("C")
        return str(code) if code is not None else None
    return None


def _pg_message(e: BaseException) -> str:
    arg = e.args[0] if e.args else None
    if isinstance(arg, dict) and arg.get("M"):
        return str(arg["M"])
    return str(e)


def db_errors() -> tuple[type[BaseException], ...]:
    """The exception types a driver raises for a failed statement."""
    out: list[type[BaseException]] = [sqlite3.Error]
    # pg8000 is the optional PostgreSQL driver: without it there is no PostgreSQL error type to catch
    with contextlib.suppress(ImportError):
        import pg8000.dbapi

        out.append(pg8000.dbapi.Error)
    return tuple(out)
