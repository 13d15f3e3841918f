"""``merge_map_with_keytime``: Paimon's ``FieldMergeMapWithKeyTimeAgg``.

The column is a ``MAP<K, ROW<...>>``; one field of the row (``fields.<f>.ts-field``, else the last)
is the entry's time. Folding an input map onto the accumulated one (both non-null; a null side
leaves the other as it is, and the first map is kept as it is) builds a new Java ``HashMap``: the
accumulated entries are put in order, then each input entry in order: a null row removes its key,
a row with a null time is skipped, otherwise the row replaces the entry when the key is absent, its
value or its time is null, or the new time is greater (Java ``String.compareTo``, i.e. by UTF-16
code units: the time is read as a string). The result's entries are in that ``HashMap``'s
iteration order, reproduced with the key hash codes (as ``merge_map`` does) and the map's growth,
removals and re-insertions. No retraction (as in Paimon).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import numpy as np
import pyarrow as pa

from paimon_sql import types as pt
from paimon_sql.errors import UnsupportedError, ValidationError
from paimon_sql.lsm.agg_base import Aggregator, FieldAgg, Segments, agg_and_retract_rows, fold_segments
from paimon_sql.lsm.agg_java_keys import MapKeyHash, java_value, set_key
from paimon_sql.types import DataType

_TREEIFY = 8  # HashMap.TREEIFY_THRESHOLD
_MIN_TREEIFY_CAPACITY = 64


class _KeyHash(MapKeyHash):
    def default(self, t: DataType) -> Callable[[Any], int] | None:
        raise UnsupportedError(
            f"merge_map_with_keytime is not supported for map keys of type {t.to_string()} (Java's HashMap "
            "order of their hash codes is not reproduced)"
        )


class JavaHashMap:
    """The iteration order of a ``java.util.HashMap`` under puts and removes: buckets in index order
    (``(h ^ h >>> 16) & (capacity - 1)``), insertion order inside a bucket (a re-inserted key goes
    last); the table starts at 16 on the first put and doubles when the size exceeds 3/4 of it, or
    when a put makes a bucket hold more than 8 keys while the table is under 64 (``treeifyBin``).
    A bucket turned into a tree (more than 8 keys in a table of 64 or more) is not modelled: that
    raises. ``hash_of`` None: no hash codes, arrival order is kept."""

    def __init__(self, hash_of: Callable[[Any], int] | None, what: str) -> None:
        self.hash_of = hash_of
        self.what = what
        self.cap = 0
        self.seq = 0
        self.entries: dict[Any, list[Any]] = {}  # equality key -> [key, value, order, hash]
        self.bins: dict[int, int] = {}  # bucket -> keys in it

    def _bucket(self, h: int) -> int:
        return (h ^ (h >> 16)) & (self.cap - 1)

    def _rebin(self) -> None:
        self.bins = {}
        for e in self.entries.values():
            b = self._bucket(e[3])
            self.bins[b] = self.bins.get(b, 0) + 1

    def get(self, key: Any) -> tuple[bool, Any]:
        e = self.entries.get(set_key(key))
        return (False, None) if e is None else (True, e[1])

    def put(self, key: Any, value: Any) -> None:
        k = set_key(key)
        e = self.entries.get(k)
        if e is not None:
            e[1] = value
            return
        self.seq += 1
        h = 0 if self.hash_of is None else self.hash_of(java_value(key))
        self.entries[k] = [key, value, self.seq, h]
        if self.hash_of is None:
            return
        if self.cap == 0:
            self.cap = 16
            self._rebin()
            return
        b = self._bucket(h)
        before = self.bins.get(b, 0)
        self.bins[b] = before + 1
        if before >= _TREEIFY:
            if self.cap >= _MIN_TREEIFY_CAPACITY:
                raise UnsupportedError(
                    f"{self.what}: more than {_TREEIFY} map keys fall into one Java HashMap bucket, which "
                    "Java turns into a tree whose order paimon_sql does not reproduce"
                )
            self.cap *= 2
            self._rebin()
        if len(self.entries) > self.cap * 3 // 4:
            self.cap *= 2
            self._rebin()

    def remove(self, key: Any) -> None:
        e = self.entries.pop(set_key(key), None)
        if e is not None and self.hash_of is not None:
            self.bins[self._bucket(e[3])] -= 1

    def items(self) -> list[tuple[Any, Any]]:
        es = list(self.entries.values())
        if self.hash_of is not None:
            es.sort(key=lambda e: (self._bucket(e[3]), e[2]))
        return [(e[0], e[1]) for e in es]


def _java_string_greater(a: str, b: str) -> bool:
    """``a.compareTo(b) > 0`` for Java strings (UTF-16 code units)."""
    if a.isascii() and b.isascii():
        return a > b
    return a.encode("utf-16-be", "surrogatepass") > b.encode("utf-16-be", "surrogatepass")


class MergeMapWithKeyTime(Aggregator):
    """Paimon's ``merge_map_with_keytime`` (see the module docstring)."""

    name = "merge_map_with_keytime"

    def check_type(self, field: str, t: DataType) -> None:
        if not isinstance(t, pt.MapType):
            raise ValidationError(f"Data type for field '{field}' must be 'MAP' but was '{t.to_string()}'")
        if not isinstance(t.value, pt.RowType):
            raise ValidationError(
                f"Value type of MAP for field '{field}' must be ROW but was '{t.value.to_string()}'"
            )
        if len(t.value.fields) < 2:
            raise ValidationError(
                f"ROW type for field '{field}' must have at least 2 fields, but found {len(t.value.fields)}"
            )
        t.key.accept(_KeyHash())

    def check_options(self, fa: FieldAgg) -> None:
        self.time_field(fa)

    @staticmethod
    def time_field(fa: FieldAgg) -> str:
        row = cast(pt.RowType, cast(pt.MapType, fa.data_type).value)
        names = [f.name for f in row.fields]
        name = names[-1] if fa.ts_field is None else fa.ts_field
        if name not in names:
            raise ValidationError(
                f"Timestamp field '{name}' not found in ROW type for field '{fa.column}'. Available fields: "
                f"[{', '.join(names)}]"
            )
        t = row.fields[names.index(name)].type
        if t.root not in ("CHAR", "VARCHAR"):
            raise UnsupportedError(
                f"merge_map_with_keytime time field '{name}' of field '{fa.column}' is {t.to_string()}: Paimon "
                "reads the time as a string (only CHAR/VARCHAR time fields work there), paimon_sql refuses others"
            )
        return name

    def reduce(self, values: pa.Array, seg: Segments, fa: FieldAgg, active: np.ndarray) -> pa.Array:
        agg, _ = agg_and_retract_rows(seg, active)
        ts = self.time_field(fa)
        hash_of = cast(pt.MapType, fa.data_type).key.accept(_KeyHash())
        what = f"Aggregation of field {fa.column!r} (merge_map_with_keytime)"

        def step(acc: list[tuple[Any, Any]] | None, x: list[tuple[Any, Any]] | None, r: int) -> Any:
            if not agg[r] or x is None:
                return acc
            return x if acc is None else _merge(acc, x, ts, hash_of, what)

        return fold_segments(values, seg, step)


def _merge(acc: list[tuple[Any, Any]], x: list[tuple[Any, Any]], ts: str,
           hash_of: Callable[[Any], int] | None, what: str) -> list[tuple[Any, Any]]:
    m = JavaHashMap(hash_of, what)
    for k, v in acc:
        m.put(k, v)
    for k, row in x:
        if row is None:
            m.remove(k)
            continue
        new_ts = row[ts]
        if new_ts is None:
            continue
        _, old = m.get(k)
        if old is None or old[ts] is None or _java_string_greater(new_ts, old[ts]):
            m.put(k, row)
    return m.items()
