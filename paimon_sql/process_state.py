"""The one registry of this process's mutable runtime state.

Every cache or per-table runtime object the engine keeps between calls lives in a named, bounded
``ProcessCache`` of ``STATE`` (least recently used entries beyond its bound are evicted and, when
the cache has a ``close``, closed), and ``close_process_state()`` closes them all (e.g. at the end of
a test, or of a long-lived process that opened many tables). The caches today:

- ``ops.maintenance``: the per-table post-commit maintenance (``ops/maintenance.py``: background
  expiry thread, partition-check clock, automatic-tag cursor), closed on eviction;
- ``meta.stores``: the ``FileStore`` a ``StoreRef`` opens in a reused Python worker (schema and
  manifest caches kept warm between the tasks of a table);
- ``spark.catalogs``: the catalogs the Spark bridge opened, by warehouse and options;
- ``fs.s3.conditional_put``: the S3 endpoints and buckets seen to honour conditional writes.

What is not here on purpose (see docs/design.md, "Process state"): the JDBC lock's table of locks
this process holds (``catalog/jdbc_lock.py``; a lock held must be seen by every thread of the
process, it cannot be evicted), and pure memoisation of immutable values (``functools.cache`` /
``lru_cache`` on functions of plain values, tables filled at import).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class ProcessCache(Generic[K, V]):
    """A bounded, thread-safe LRU map of one kind of runtime state. ``max_entries`` (or a function
    giving it, read at every insertion); ``close`` is called on evicted and cleared values."""

    def __init__(self, name: str, max_entries: int | Callable[[], int], close: Callable[[V], None] | None = None) -> None:
        self.name = name
        self._max = max_entries
        self._close = close
        self._entries: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.RLock()

    @property
    def max_entries(self) -> int:
        return self._max() if callable(self._max) else self._max

    def get(self, key: K) -> V | None:
        with self._lock:
            value = self._entries.get(key)
            if value is not None:
                self._entries.move_to_end(key)
            return value

    def get_or_create(self, key: K, create: Callable[[], V], usable: Callable[[V], bool] | None = None) -> V:
        """The value of ``key``, created (under the cache's lock) when missing or not ``usable``."""
        evicted: list[V] = []
        with self._lock:
            value = self._entries.get(key)
            if value is None or (usable is not None and not usable(value)):
                value = self._entries[key] = create()
            self._entries.move_to_end(key)
            self._evict(evicted)
        self._close_all(evicted)
        return value

    def put(self, key: K, value: V) -> None:
        evicted: list[V] = []
        with self._lock:
            self._entries[key] = value
            self._entries.move_to_end(key)
            self._evict(evicted)
        self._close_all(evicted)

    def __contains__(self, key: object) -> bool:
        with self._lock:
            return key in self._entries

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)

    def items(self) -> list[tuple[K, V]]:
        """A snapshot of the entries, least recently used first."""
        with self._lock:
            return list(self._entries.items())

    def clear(self) -> None:
        """Removes (and closes) every entry."""
        with self._lock:
            values = list(self._entries.values())
            self._entries.clear()
        self._close_all(values)

    def _evict(self, out: list[V]) -> None:
        limit = max(self.max_entries, 1)
        while len(self._entries) > limit:
            out.append(self._entries.popitem(last=False)[1])

    def _close_all(self, values: list[V]) -> None:
        if self._close is not None:
            for v in values:
                self._close(v)

    def __repr__(self) -> str:
        return f"ProcessCache({self.name!r}, {len(self)}/{self.max_entries})"


class ProcessState:
    """The named caches of this process (``STATE``)."""

    def __init__(self) -> None:
        self._caches: dict[str, ProcessCache[object, object]] = {}
        self._lock = threading.Lock()

    def cache(
        self, name: str, max_entries: int | Callable[[], int], close: Callable[[V], None] | None = None
    ) -> ProcessCache[K, V]:
        """The cache ``name`` (created on first use; a module asks once, when it loads)."""
        with self._lock:
            cache = self._caches.get(name)
            if cache is None:
                cache = ProcessCache(name, max_entries, close)  # type: ignore[arg-type]
                self._caches[name] = cache
            return cache  # type: ignore[return-value]

    def names(self) -> list[str]:
        with self._lock:
            return sorted(self._caches)

    def close(self) -> None:
        """Clears every cache, closing what it holds (background threads stop after their work)."""
        with self._lock:
            caches = list(self._caches.values())
        for c in caches:
            c.clear()


STATE = ProcessState()


def process_cache(
    name: str, max_entries: int | Callable[[], int], close: Callable[[V], None] | None = None
) -> ProcessCache[K, V]:
    """``STATE.cache``: the bounded cache ``name`` of this process."""
    return STATE.cache(name, max_entries, close)


def close_process_state() -> None:
    """Closes every cache of this process (``STATE.close``)."""
    STATE.close()
