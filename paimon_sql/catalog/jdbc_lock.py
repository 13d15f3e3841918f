"""The JDBC catalog's distributed lock (Paimon's ``JdbcCatalogLock``): a row per held lock in
``paimon_distributed_locks`` (``lock_id`` = ``<catalog-key>.<database>.<table>``, ``acquired_at``,
``expire_time_seconds``).

To acquire: rows of the id older than their expiry are deleted (a crashed holder does not block
forever), then one row is inserted; the primary key lets only one writer in. A failed insert is
retried after 100 ms, doubling up to ``lock-check-max-sleep``, until ``lock-acquire-timeout`` has
passed. The expiry of a row is the holder's ``lock-acquire-timeout`` in seconds. Release deletes the
row. Within one process the lock is re-entrant for the thread that holds it (a table created
under its lock commits its first schema under the same lock).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from paimon_sql.catalog.jdbc_sql import (
    CREATE_LOCK_TABLE,
    DISTRIBUTED_LOCKS_TABLE_NAME,
    LOCK_ACQUIRE_SQL,
    LOCK_RELEASE_SQL,
    RELEASE_TIMED_OUT_SQL,
    JdbcConnection,
    JdbcSettings,
    db_errors,
)
from paimon_sql.errors import PaimonError, ValidationError
from paimon_sql.fs.snapshot_commit import CatalogLock
from paimon_sql.options.parsing import parse_duration_ms

T = TypeVar("T")

LOCK_ENABLED = "lock.enabled"
LOCK_ACQUIRE_TIMEOUT = "lock-acquire-timeout"
LOCK_CHECK_MAX_SLEEP = "lock-check-max-sleep"
LOCK_KEY_MAX_LENGTH = "lock-key-max-length"
CATALOG_KEY_OPTION = "catalog-key"
DEFAULT_CATALOG_KEY = "jdbc"
DEFAULT_ACQUIRE_TIMEOUT_MS = 8 * 60 * 1000
DEFAULT_CHECK_MAX_SLEEP_MS = 8 * 1000
DEFAULT_KEY_MAX_LENGTH = 255
FIRST_SLEEP_MS = 50  # doubled before the first retry, as Paimon's JdbcCatalogLock


class LockTimeoutError(PaimonError):
    """The catalog lock of a table could not be acquired within ``lock-acquire-timeout``."""


def _duration(options: Mapping[str, str], key: str, default_ms: int) -> int:
    text = options.get(key)
    if text is None:
        return default_ms
    try:
        ms = parse_duration_ms(str(text))
    except (ValueError, PaimonError) as e:
        raise ValidationError(f"Catalog option {key!r} must be a duration (e.g. '30 s', '8 min'), got {text!r}") from e
    if ms <= 0:
        raise ValidationError(f"Catalog option {key!r} must be a positive duration, got {text!r}")
    return ms


def bool_option(options: Mapping[str, str], key: str, default: bool) -> bool:
    """The catalog option ``key``, true or false (any case), ``default`` when not given."""
    text = options.get(key)
    if text is None:
        return default
    v = str(text).strip().lower()
    if v not in ("true", "false"):
        raise ValidationError(f"Catalog option {key!r} must be true or false, got {text!r}")
    return v == "true"


def lock_enabled(options: Mapping[str, str], object_store: bool) -> bool:
    """Paimon's rule: ``lock.enabled`` when given, else whether the warehouse is an object store."""
    return bool_option(options, LOCK_ENABLED, object_store)


@dataclass(frozen=True)
class LockSettings:
    jdbc: JdbcSettings
    catalog_key: str
    acquire_timeout_ms: int
    check_max_sleep_ms: int
    key_max_length: int

    @staticmethod
    def of(jdbc: JdbcSettings, options: Mapping[str, str]) -> LockSettings:
        length = options.get(LOCK_KEY_MAX_LENGTH)
        try:
            key_len = int(length) if length is not None else DEFAULT_KEY_MAX_LENGTH
        except ValueError:
            key_len = 0
        if key_len <= 0:
            raise ValidationError(f"Catalog option {LOCK_KEY_MAX_LENGTH!r} must be a positive integer, got {length!r}")
        return LockSettings(
            jdbc, options.get(CATALOG_KEY_OPTION) or DEFAULT_CATALOG_KEY,
            _duration(options, LOCK_ACQUIRE_TIMEOUT, DEFAULT_ACQUIRE_TIMEOUT_MS),
            _duration(options, LOCK_CHECK_MAX_SLEEP, DEFAULT_CHECK_MAX_SLEEP_MS),
            key_len,
        )


def create_lock_table(conn: JdbcConnection, settings: LockSettings) -> None:
    conn.create_table_if_missing(DISTRIBUTED_LOCKS_TABLE_NAME, CREATE_LOCK_TABLE % settings.key_max_length)


# lock id -> (thread id, depth) of the locks this process holds
_HELD: dict[str, tuple[int, int]] = {}
_HELD_LOCK = threading.Lock()


class JdbcCatalogLock(CatalogLock):
    """The lock of the tables of one JDBC catalog; opens its own connection on first use (it is
    pickled without it: a Spark executor or another process connects on its first commit)."""

    def __init__(self, settings: LockSettings) -> None:
        self.settings = settings
        self._conn: JdbcConnection | None = None
        self._conn_lock = threading.Lock()
        self._conn_pid = os.getpid()

    def __getstate__(self) -> dict[str, Any]:
        return {"settings": self.settings}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["settings"])  # type: ignore[misc]

    def _connection(self) -> JdbcConnection:
        with self._conn_lock:
            if self._conn is None or self._conn_pid != os.getpid():  # never a connection of a parent process
                self._conn = self.settings.jdbc.connect()
                self._conn_pid = os.getpid()
            return self._conn

    def lock_id(self, database: str, table: str) -> str:
        return f"{self.settings.catalog_key}.{database}.{table}"

    def try_acquire(self, lock_id: str, expire_ms: int | None = None) -> bool:
        """One attempt (Paimon's ``JdbcUtils.acquire``): expired rows of the id are removed, then the
        row is inserted; False when another holder's row is there."""
        conn = self._connection()
        expire = (self.settings.acquire_timeout_ms if expire_ms is None else expire_ms) // 1000
        try:
            conn.execute(RELEASE_TIMED_OUT_SQL[conn.protocol], (lock_id,))
            return conn.execute(LOCK_ACQUIRE_SQL, (lock_id, expire)) > 0
        except db_errors() as e:
            if conn.is_unique_violation(e) or "locked" in str(e).lower():
                return False
            raise conn.error(e, f"Acquiring the catalog lock {lock_id!r}") from e

    def release(self, lock_id: str) -> None:
        conn = self._connection()
        try:
            conn.execute(LOCK_RELEASE_SQL, (lock_id,))
        except db_errors() as e:
            raise conn.error(e, f"Releasing the catalog lock {lock_id!r}") from e

    def acquire(self, lock_id: str) -> None:
        s = self.settings
        start = time.monotonic()
        ok = self.try_acquire(lock_id)
        sleep_ms = FIRST_SLEEP_MS
        while not ok:
            sleep_ms = min(sleep_ms * 2, s.check_max_sleep_ms)
            time.sleep(sleep_ms / 1000)
            ok = self.try_acquire(lock_id)
            if (time.monotonic() - start) * 1000 > s.acquire_timeout_ms:
                break
        if not ok:
            waited = time.monotonic() - start
            raise LockTimeoutError(
                f"Acquire lock failed with time: {waited:.1f}s: the catalog lock {lock_id!r} (table "
                f"{lock_id[len(s.catalog_key) + 1:]}) in {DISTRIBUTED_LOCKS_TABLE_NAME} of catalog option 'uri' = "
                f"{s.jdbc.uri!r} is held by another writer (catalog option {LOCK_ACQUIRE_TIMEOUT!r} = "
                f"{s.acquire_timeout_ms} ms); nothing was committed"
            )

    def run_with_lock(self, database: str, table: str, fn: Callable[[], T]) -> T:
        lock_id = self.lock_id(database, table)
        me = threading.get_ident()
        with _HELD_LOCK:
            held = _HELD.get(lock_id)
            if held is not None and held[0] == me:
                _HELD[lock_id] = (me, held[1] + 1)
                reentered = True
            else:
                reentered = False
        if reentered:
            try:
                return fn()
            finally:
                with _HELD_LOCK:
                    tid, depth = _HELD[lock_id]
                    _HELD[lock_id] = (tid, depth - 1)
        self.acquire(lock_id)
        with _HELD_LOCK:
            _HELD[lock_id] = (me, 1)
        try:
            return fn()
        finally:
            with _HELD_LOCK:
                _HELD.pop(lock_id, None)
            self.release(lock_id)
