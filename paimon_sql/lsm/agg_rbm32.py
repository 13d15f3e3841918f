"""``rbm32``'s fold: Paimon's ``FieldRoaringBitmap32Agg`` deserializes the accumulated bitmap and the
input (Java RoaringBitmap's portable format), calls ``acc.or(input)``, then ``RoaringBitmap32.serialize``,
which runs ``runOptimize()`` before writing. The containers follow Java's rules (the ``ior`` choices of
``agg_rbm64``, which uses the same container classes; a run container, which ``runOptimize`` also
turns into an array or bitmap when that is smaller), so the bytes are Java's."""

from __future__ import annotations

import numpy as np

from paimon_sql.lsm.agg_rbm64 import (
    _ARRAY,
    _BITMAP,
    _MAX_ARRAY,
    _RUN,
    RoaringBitmapAgg,
    _Container,
    _efficient,
    _ior,
    _run_count,
)
from paimon_sql.lsm.agg_rbm64 import _run_optimize as _optimize_array_or_bitmap

_NO_RUN_COOKIE = 12346
_RUN_COOKIE = 12347
_NO_OFFSET_THRESHOLD = 4


class Roaring32:
    """A Java ``RoaringBitmap``: containers by 16-bit key, ascending."""

    def __init__(self, keys: list[int], containers: list[_Container]) -> None:
        self.keys = keys
        self.containers = containers

    @staticmethod
    def parse(data: bytes) -> Roaring32:
        cookie = int.from_bytes(data[:4], "little")
        if cookie & 0xFFFF == _RUN_COOKIE:
            size = (cookie >> 16) + 1
            runs = np.unpackbits(np.frombuffer(data, dtype=np.uint8, count=(size + 7) // 8, offset=4),
                                 bitorder="little")[:size].astype(bool)
            pos = 4 + (size + 7) // 8
        elif cookie == _NO_RUN_COOKIE and len(data) >= 8:
            size = int.from_bytes(data[4:8], "little")
            runs = np.zeros(size, dtype=bool)
            pos = 8
        else:
            raise ValueError(f"not a portable Roaring bitmap (cookie {cookie}, {len(data)} bytes)")
        header = np.frombuffer(data, dtype="<u2", count=2 * size, offset=pos).astype(np.int64)
        pos += 4 * size
        if cookie == _NO_RUN_COOKIE or size >= _NO_OFFSET_THRESHOLD:
            pos += 4 * size
        keys = header[0::2].tolist()
        containers = []
        for is_run, card in zip(runs.tolist(), (header[1::2] + 1).tolist()):
            kind = _RUN if is_run else _BITMAP if card > _MAX_ARRAY else _ARRAY
            size = 2 + 4 * int.from_bytes(data[pos:pos + 2], "little") if is_run else 8192 if kind == _BITMAP else 2 * card
            body = bytes(data[pos:pos + size])
            if len(body) != size:
                raise ValueError("truncated container")
            pos += size
            c = _Container(kind, card, body)
            if is_run:
                c.card = len(c.values())  # Java recomputes a run container's cardinality
            containers.append(c)
        return Roaring32(keys, containers)

    def or_(self, other: Roaring32) -> None:
        """``RoaringBitmap.or``: shared keys ``ior``-ed, the other's keys cloned in."""
        mine = dict(zip(self.keys, self.containers))
        for key, x in zip(other.keys, other.containers):
            acc = mine.get(key)
            mine[key] = _Container(x.kind, x.card, x.body, x._values) if acc is None else _ior(acc, x)
        self.keys = sorted(mine)
        self.containers = [mine[k] for k in self.keys]

    def run_optimize(self) -> None:
        """``RoaringBitmap.runOptimize``: every container's own ``runOptimize`` result is kept."""
        for i, c in enumerate(self.containers):
            if c.settled:
                continue
            if c.kind == _RUN:
                values = c.values()
                kind = _efficient(len(values), _run_count(values))
                if kind != _RUN:
                    c = _Container.of(kind, values)
                c.settled = True
            else:
                c = _optimize_array_or_bitmap(c)
            self.containers[i] = c

    def serialize(self) -> bytes:
        n = len(self.keys)
        runs = np.array([c.kind == _RUN for c in self.containers], dtype=bool)
        descriptive = np.empty(2 * n, dtype="<u2")
        descriptive[0::2] = self.keys
        descriptive[1::2] = [c.card - 1 for c in self.containers]
        if runs.any():
            head = (_RUN_COOKIE | ((n - 1) << 16)).to_bytes(4, "little") + np.packbits(runs, bitorder="little").tobytes()
            with_offsets = n >= _NO_OFFSET_THRESHOLD
        else:
            head = _NO_RUN_COOKIE.to_bytes(4, "little") + n.to_bytes(4, "little")
            with_offsets = True
        head += descriptive.tobytes()
        if with_offsets:
            sizes = np.array([len(c.body) for c in self.containers], dtype=np.int64)
            offsets = len(head) + 4 * n + np.concatenate([[0], np.cumsum(sizes)[:-1]])
            head += offsets.astype("<u4").tobytes()
        return head + b"".join(c.body for c in self.containers)


class RoaringBitmap32(RoaringBitmapAgg):
    """``rbm32``: Java ``RoaringBitmap``'s portable serialization."""

    name = "rbm32"
    parse = staticmethod(Roaring32.parse)
