"""``rbm64``: Paimon's ``FieldRoaringBitmap64Agg``, the union of serialized 64-bit Roaring bitmaps.

Paimon stores these values with Java RoaringBitmap's ``Roaring64Bitmap`` (``RoaringBitmap64`` in
paimon-common), whose ``serialize`` writes the bitmap's in-memory structure, not a portable
format: an adaptive radix tree (ART) over the 48-bit high parts of the values (Node4, Node16,
Node48 and Node256 inner nodes with their path-compressed prefixes, leaves holding a container
index) followed by the container store (one array of slots whose length is its grown capacity,
each slot a run, bitmap or array container of 16-bit low parts). Paimon's fold deserializes the
accumulator and the input, calls ``acc.or(input)``, ``runOptimize()`` and ``serialize()``.

The bytes depend on the history of every bitmap (insertion order of the high parts, container
kinds), so this module models that structure as Java builds it: the ART insertions, node growth and
container-store growth are reproduced step by step, and each container's kind follows Java's
``ior`` and ``runOptimize`` rules, so the output is byte for byte what Paimon writes (checked
against the RoaringBitmap jar in ``tests/lsm/test_rbm64.py``; the format is that of RoaringBitmap
1.2.1, the version Paimon ships). ``rbm64_bytes`` and ``rbm64_values`` convert between values and
these bytes.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Protocol

import numpy as np
import pyarrow as pa

from paimon_sql.errors import ValidationError
from paimon_sql.lsm.agg_base import Aggregator, FieldAgg, Segments, agg_and_retract_rows
from paimon_sql.types import DataType

# container kinds as Java's art.Containers writes them
_RUN, _BITMAP, _ARRAY = 0, 1, 2
# node kinds: NodeType ordinals
_N4, _N16, _N48, _N256, _LEAF = 0, 1, 2, 3, 4
_EMPTY = 0xFF  # a free Node48 child-index byte
_MAX_ARRAY = 4096  # ArrayContainer.DEFAULT_MAX_SIZE
_FULL = 1 << 16
_NOT_TRIMMED = 0xFE
_NO_KEYS = bytearray()
_LONG = struct.Struct("<q")
_INT = struct.Struct("<i")


class _Container:
    """One container: its kind, cardinality and serialized body as Java writes them (decoded into
    the sorted low 16-bit values only when needed)."""

    __slots__ = ("kind", "card", "body", "_values", "settled")

    def __init__(self, kind: int, card: int, body: bytes, values: np.ndarray | None = None) -> None:
        self.kind = kind
        self.card = card
        self.body = body
        self._values = values
        self.settled = False  # runOptimize() already applied

    def values(self) -> np.ndarray:
        if self._values is None:
            if self.kind == _ARRAY:
                self._values = np.frombuffer(self.body, dtype="<u2").astype(np.uint16)
            elif self.kind == _BITMAP:
                bits = np.unpackbits(np.frombuffer(self.body, dtype=np.uint8), bitorder="little")
                self._values = np.flatnonzero(bits).astype(np.uint16)
            else:
                self._values = _run_values(self.body)
        return self._values

    @staticmethod
    def of(kind: int, values: np.ndarray) -> _Container:
        """A container of ``kind`` holding the sorted distinct ``values``."""
        c = _Container(kind, len(values), b"", values)
        if kind == _ARRAY:
            c.body = values.astype("<u2").tobytes()
        elif kind == _BITMAP:
            bits = np.zeros(_FULL, dtype=np.uint8)
            bits[values] = 1
            c.body = np.packbits(bits, bitorder="little").tobytes()
        else:
            starts, lengths = _runs(values)
            pairs = np.empty(2 * len(starts), dtype="<u2")
            pairs[0::2] = starts
            pairs[1::2] = lengths
            c.body = len(starts).to_bytes(2, "little") + pairs.tobytes()
        return c

    def is_full_run(self) -> bool:
        return self.kind == _RUN and self.body[:6] == b"\x01\x00\x00\x00\xff\xff"


def _run_values(body: bytes) -> np.ndarray:
    n = int.from_bytes(body[:2], "little")
    pairs = np.frombuffer(body, dtype="<u2", count=2 * n, offset=2).astype(np.int64)
    starts, counts = pairs[0::2], pairs[1::2] + 1
    offsets = np.repeat(np.cumsum(counts) - counts, counts)
    return (np.repeat(starts, counts) + np.arange(int(counts.sum())) - offsets).astype(np.uint16)


def _runs(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Starts and lengths (count - 1) of the maximal runs of sorted distinct values."""
    if len(values) == 0:
        return values.astype(np.int64), values.astype(np.int64)
    v = values.astype(np.int64)
    breaks = np.flatnonzero(np.diff(v) != 1)
    first = np.concatenate([[0], breaks + 1])
    last = np.concatenate([breaks, [len(v) - 1]])
    return v[first], v[last] - v[first]


def _run_count(values: np.ndarray) -> int:
    if len(values) == 0:
        return 0
    return 1 + int(np.count_nonzero(np.diff(values.astype(np.int32)) != 1))


def _efficient(card: int, runs: int) -> int:
    """``RunContainer.toEfficientContainer``'s choice."""
    if 2 + 4 * runs <= min(8192, 2 * card + 2):
        return _RUN
    return _ARRAY if card <= _MAX_ARRAY else _BITMAP


def _ior(acc: _Container, x: _Container) -> _Container:
    """``acc.ior(x)`` with Java's choice of the resulting container."""
    if acc.kind == _RUN and acc.is_full_run():
        return acc
    present = np.zeros(_FULL, dtype=bool)
    present[acc.values()] = True
    present[x.values()] = True
    union = np.flatnonzero(present).astype(np.uint16)
    card = len(union)
    full = card == _FULL
    pair = (acc.kind, x.kind)
    if pair == (_ARRAY, _ARRAY):
        kind = _ARRAY if card <= _MAX_ARRAY else _RUN if full else _BITMAP
    elif pair == (_BITMAP, _ARRAY):
        kind = _BITMAP  # BitmapContainer.ior(ArrayContainer) never turns a full bitmap into a run
    elif x.kind == _BITMAP or pair == (_BITMAP, _RUN):
        kind = _RUN if full else _BITMAP
    else:  # array|run, run|array, run|run: a run merge made efficient
        kind = _efficient(card, _run_count(union))
    return _Container.of(kind, union)


def _run_optimize(c: _Container) -> _Container:
    """``Roaring64Bitmap.runOptimize`` on one container: an array or bitmap becomes a run container
    when that is strictly smaller; a run container stays one."""
    if c.kind == _BITMAP or (c.kind == _ARRAY and c.card > 3):  # 3 values never take fewer bytes as runs
        values = c.values()
        runs = _run_count(values)
        size = 2 * len(values) if c.kind == _ARRAY else 8192
        if size > 2 + 4 * runs:
            c = _Container.of(_RUN, values)
    c.settled = True
    return c


class _Node:
    """An ART node. Leaves: ``key`` (the 6 high bytes) and ``idx`` (the container index); inner
    nodes: ``keys`` (Node4/Node16: the child key bytes by position; Node48: the child slot per key
    byte; Node256: unused) and ``children``. ``count`` and ``prefix`` are the header's."""

    __slots__ = ("kind", "count", "prefix", "keys", "children", "key", "idx")

    def __init__(self, kind: int, prefix: bytes = b"") -> None:
        self.kind = kind
        self.count = 0
        self.prefix = prefix
        self.keys = bytearray()
        self.children: list[_Node | None] = []
        self.key = b""
        self.idx = 0
        if kind == _N4:
            self.keys, self.children = bytearray(4), [None] * 4
        elif kind == _N16:
            self.keys, self.children = bytearray(16), [None] * 16
        elif kind == _N48:
            self.keys, self.children = bytearray([_EMPTY]) * 256, [None] * 48
        elif kind == _N256:
            self.children = [None] * 256

    @staticmethod
    def leaf(key: bytes, idx: int) -> _Node:
        n = _Node.__new__(_Node)
        n.kind, n.count, n.prefix, n.keys, n.children, n.key, n.idx = _LEAF, 0, b"", _NO_KEYS, [], key, idx
        return n

    def positions(self) -> Iterator[int]:
        """The positions of the children in key order (``getNextLargerPos``)."""
        if self.kind in (_N4, _N16):
            yield from range(self.count)
        elif self.kind == _N48:
            yield from (b for b in range(256) if self.keys[b] != _EMPTY)
        else:
            yield from (b for b in range(256) if self.children[b] is not None)

    def child(self, pos: int) -> _Node:
        c = self.children[self.keys[pos]] if self.kind == _N48 else self.children[pos]
        assert c is not None
        return c

    def set_child(self, pos: int, node: _Node) -> None:
        if self.kind == _N48:
            self.children[self.keys[pos]] = node
        else:
            self.children[pos] = node

    def child_pos(self, b: int) -> int:
        if self.kind in (_N4, _N16):
            for i in range(self.count):
                if self.keys[i] == b:
                    return i
            return -1
        if self.kind == _N48:
            return b if self.keys[b] != _EMPTY else -1
        return b if self.children[b] is not None else -1


def _sort_small(keys: bytearray, children: list[_Node | None], left: int, right: int) -> None:
    """``Node.sortSmallByteArray``: insertion sort of positions left..right by unsigned byte."""
    for i in range(left, right):
        j = i
        ai, child = keys[i + 1], children[i + 1]
        while ai < keys[j]:
            keys[j + 1] = keys[j]
            children[j + 1] = children[j]
            if j == left:
                j -= 1
                break
            j -= 1
        keys[j + 1] = ai
        children[j + 1] = child


def _insert_child(node: _Node, child: _Node, b: int) -> _Node:
    """``Node.insertLeaf`` (also used to hang an inner node under a fresh Node4): the node, or the
    grown node that replaces it."""
    if node.kind == _N4:
        if node.count < 4:
            node.keys[node.count] = b
            node.children[node.count] = child
            node.count += 1
            _sort_small(node.keys, node.children, 0, node.count - 1)
            return node
        grown = _Node(_N16, node.prefix)
        grown.count = 4
        grown.keys[0:4] = node.keys[0:4]
        grown.children[0:4] = node.children[0:4]
        return _insert_child(grown, child, b)
    if node.kind == _N16:
        if node.count < 16:
            node.keys[node.count] = b
            node.children[node.count] = child
            _sort_small(node.keys, node.children, 0, node.count)
            node.count += 1
            return node
        grown = _Node(_N48, node.prefix)
        for i in range(node.count):
            grown.keys[node.keys[i]] = i
            grown.children[i] = node.children[i]
        grown.count = node.count
        return _insert_child(grown, child, b)
    if node.kind == _N48:
        if node.count < 48:
            pos = node.count
            if node.children[pos] is not None:
                pos = node.children.index(None)
            node.children[pos] = child
            node.keys[b] = pos
            node.count += 1
            return node
        grown = _Node(_N256, node.prefix)
        for p in node.positions():
            grown.children[p] = node.child(p)
        grown.count = node.count
        return _insert_child(grown, child, b)
    node.count += 1
    node.children[b] = child
    return node


def _mismatch(a: bytes, b: bytes) -> int:
    """The first index where ``a`` and ``b`` differ (the shorter length when one prefixes the other)."""
    for i in range(min(len(a), len(b))):
        if a[i] != b[i]:
            return i
    return min(len(a), len(b))


def _art_insert(node: _Node | None, key: bytes, depth: int, idx: int) -> _Node:
    """``Art.insert``: the subtree with ``key`` added, its root possibly a new node."""
    if node is None:
        return _Node.leaf(key, idx)
    if node.kind == _LEAF:
        common = _mismatch(node.key[depth:], key[depth:])
        node.prefix = b""
        split = _Node(_N4, key[depth:depth + common])
        _insert_child(split, node, node.key[depth + common])
        _insert_child(split, _Node.leaf(key, idx), key[depth + common])
        return split
    if node.prefix:
        m = _mismatch(node.prefix, key[depth:])
        if m != len(node.prefix):
            split = _Node(_N4, node.prefix[:m])
            _insert_child(split, node, node.prefix[m])
            node.prefix = node.prefix[m + 1:]
            _insert_child(split, _Node.leaf(key, idx), key[depth + m])
            return split
        depth += len(node.prefix)
    pos = node.child_pos(key[depth])
    if pos >= 0:
        child = node.child(pos)
        fresh = _art_insert(child, key, depth + 1, idx)
        if fresh is not child:
            node.set_child(pos, fresh)
        return node
    return _insert_child(node, _Node.leaf(key, idx), key[depth])


class Roaring64:
    """A Java ``Roaring64Bitmap`` as its ``serialize`` writes it (see the module docstring)."""

    def __init__(self) -> None:
        self.root: _Node | None = None
        self.key_size = 0
        self.arrays: list[list[_Container | None]] = []
        self.container_size = 0
        self.first_level = -1
        self.second_level = 0
        self.index: dict[bytes, int] = {}  # high part -> container index

    # --- reading -------------------------------------------------------------------------------
    @staticmethod
    def parse(data: bytes) -> Roaring64:
        bm = Roaring64()
        if data[0] == 0:
            return bm
        bm.key_size = _LONG.unpack_from(data, 1)[0]
        bm.root, pos = _read_node(data, 9, bm.index)
        (n_arrays,) = _INT.unpack_from(data, pos)
        pos += 4
        for _ in range(n_arrays):
            (slots,) = _INT.unpack_from(data, pos + 1)
            pos += 5
            arr: list[_Container | None] = []
            for _ in range(slots):
                if data[pos] == 0:
                    arr.append(None)
                    pos += 1
                    continue
                if data[pos] != 1:
                    raise ValueError(f"the null tag byte value: {data[pos]} is not right")
                kind = data[pos + 1]
                (card,) = _INT.unpack_from(data, pos + 2)
                pos += 6
                if kind == _RUN:
                    size = 2 + 4 * int.from_bytes(data[pos:pos + 2], "little")
                elif kind == _BITMAP:
                    size = 8192
                elif kind == _ARRAY:
                    size = 2 * card
                else:
                    raise ValueError(f"Not supported container type: {kind}")
                body = bytes(data[pos:pos + size])
                if len(body) != size:
                    raise ValueError("truncated container")
                pos += size
                c = _Container(kind, card, body)
                if kind == _RUN:
                    c.card = len(c.values())  # Java recomputes a run container's cardinality
                arr.append(c)
            bm.arrays.append(arr)
        bm.container_size = _LONG.unpack_from(data, pos)[0]
        bm.first_level, bm.second_level = struct.unpack_from("<ii", data, pos + 8)
        return bm

    def container(self, idx: int) -> _Container:
        c = self.arrays[idx >> 32][idx & 0xFFFFFFFF]
        if c is None:
            raise ValueError(f"no container at index {idx}")
        return c

    def leaves(self) -> Iterator[_Node]:
        """The leaves in key order (Java's ``KeyIterator``)."""
        stack = [self.root] if self.root is not None else []
        while stack:
            node = stack.pop()
            assert node is not None
            if node.kind == _LEAF:
                yield node
            else:
                stack.extend(node.child(p) for p in reversed(list(node.positions())))

    # --- Java's operations ---------------------------------------------------------------------
    def add_container(self, c: _Container) -> int:
        """``Containers.addContainer``: the next slot, the slot array grown by half when full."""
        if self.first_level == -1 or self.second_level + 1 == 0x7FFFFFFF - 9:
            self.arrays.append([None])
            self.first_level += 1
            self.second_level = 0
        else:
            self.second_level += 1
        arr = self.arrays[self.first_level]
        if self.second_level + 1 > len(arr):
            cap = len(arr) + (len(arr) >> 1)
            arr.extend([None] * (max(cap, self.second_level + 1) - len(arr)))
        arr[self.second_level] = c
        self.container_size += 1
        return (self.first_level << 32) | self.second_level

    def put(self, key: bytes, c: _Container) -> None:
        idx = self.add_container(c)
        self.root = _art_insert(self.root, key, 0, idx)
        self.key_size += 1
        self.index[key] = idx

    def or_(self, other: Roaring64) -> None:
        """``Roaring64Bitmap.or``: the other's high parts in key order, new ones appended."""
        for leaf in other.leaves():
            x = other.container(leaf.idx)
            idx = self.index.get(leaf.key)
            if idx is None:
                self.put(leaf.key, _Container(x.kind, x.card, x.body, x._values))
            else:
                self.arrays[idx >> 32][idx & 0xFFFFFFFF] = _ior(self.container(idx), x)

    def run_optimize(self) -> None:
        for arr in self.arrays:
            for i, c in enumerate(arr):
                if c is not None and not c.settled:
                    arr[i] = _run_optimize(c)

    # --- writing -------------------------------------------------------------------------------
    def serialize(self) -> bytes:
        if self.root is None:
            return b"\x00"
        out = [b"\x01", _LONG.pack(self.key_size)]
        _write_node(self.root, out)
        out.append(_INT.pack(len(self.arrays)))
        for arr in self.arrays:
            out.append(bytes([_NOT_TRIMMED]) + _INT.pack(len(arr)))
            for c in arr:
                if c is None:
                    out.append(b"\x00")
                else:
                    out.append(bytes([1, c.kind]) + _INT.pack(c.card))
                    out.append(c.body)
        out.append(_LONG.pack(self.container_size) + struct.pack("<ii", self.first_level, self.second_level))
        return b"".join(out)

    def values(self) -> np.ndarray:
        """All values, ascending as unsigned 64-bit numbers."""
        parts = [
            (np.uint64(int.from_bytes(leaf.key, "big")) << np.uint64(16))
            | self.container(leaf.idx).values().astype(np.uint64)
            for leaf in self.leaves()
        ]
        return np.concatenate(parts) if parts else np.zeros(0, dtype=np.uint64)


def _read_node(data: bytes, pos: int, index: dict[bytes, int]) -> tuple[_Node, int]:
    kind = data[pos]
    count = int.from_bytes(data[pos + 1:pos + 3], "little", signed=True)
    plen = data[pos + 3]
    prefix = bytes(data[pos + 4:pos + 4 + plen])
    pos += 4 + plen
    if kind == _LEAF:
        node = _Node.leaf(bytes(data[pos:pos + 6]), _LONG.unpack_from(data, pos + 6)[0])
        node.count, node.prefix = count, prefix
        index[node.key] = node.idx
        return node, pos + 14
    if kind > _N256:
        raise ValueError(f"unknown ART node type {kind}")
    node = _Node(kind, prefix)
    node.count = count
    if kind == _N4:
        node.keys[:] = data[pos:pos + 4][::-1]
        pos += 4
    elif kind == _N16:
        node.keys[:] = data[pos:pos + 8][::-1] + data[pos + 8:pos + 16][::-1]
        pos += 16
    elif kind == _N48:
        raw = np.frombuffer(data, dtype=np.uint8, count=256, offset=pos).reshape(32, 8)[:, ::-1]
        node.keys[:] = raw.tobytes()
        pos += 256
    else:
        present = np.unpackbits(np.frombuffer(data, dtype=np.uint8, count=32, offset=pos), bitorder="little")
        pos += 32
    children = []
    for _ in range(count):
        child, pos = _read_node(data, pos, index)
        children.append(child)
    if kind in (_N4, _N16):
        node.children[:count] = children
    elif kind == _N48:
        for p, child in zip((b for b in range(256) if node.keys[b] != _EMPTY), children):
            node.children[node.keys[p]] = child
    else:
        for p, child in zip(np.flatnonzero(present).tolist(), children):
            node.children[p] = child
    return node, pos


def _write_node(node: _Node, out: list[bytes]) -> None:
    out.append(bytes([node.kind]) + node.count.to_bytes(2, "little", signed=True) + bytes([len(node.prefix)]))
    out.append(node.prefix)
    if node.kind == _LEAF:
        out.append(node.key + _LONG.pack(node.idx))
        return
    if node.kind == _N4:
        out.append(bytes(node.keys[3::-1]))
    elif node.kind == _N16:
        out.append(bytes(node.keys[7::-1]) + bytes(node.keys[15:7:-1]))
    elif node.kind == _N48:
        out.append(np.frombuffer(bytes(node.keys), dtype=np.uint8).reshape(32, 8)[:, ::-1].tobytes())
    else:
        present = np.array([c is not None for c in node.children], dtype=bool)
        out.append(np.packbits(present, bitorder="little").tobytes())
    for p in node.positions():
        _write_node(node.child(p), out)


def rbm64_bytes(values: Iterable[int] | np.ndarray) -> bytes:
    """The bytes Paimon's ``RoaringBitmap64`` writes for a bitmap of ``values`` (unsigned 64-bit
    numbers, or signed longs as Java sees them) added in ascending order."""
    if isinstance(values, np.ndarray):
        arr = values.view(np.uint64) if values.dtype == np.int64 else values.astype(np.uint64)
    else:
        arr = np.array([int(x) & 0xFFFFFFFFFFFFFFFF for x in values], dtype=np.uint64)
    v = np.sort(arr)
    v = v[np.concatenate([[True], v[1:] != v[:-1]])] if len(v) else v
    bm = Roaring64()
    if len(v):
        highs = v >> np.uint64(16)
        cut = np.flatnonzero(np.diff(highs)) + 1
        for high, lows in zip(highs[np.concatenate([[0], cut])].tolist(), np.split(v, cut)):
            low = (lows & np.uint64(0xFFFF)).astype(np.uint16)
            bm.put(int(high).to_bytes(6, "big"), _Container.of(_ARRAY if len(low) <= _MAX_ARRAY else _BITMAP, low))
    bm.run_optimize()
    return bm.serialize()


def rbm64_values(data: bytes) -> np.ndarray:
    """The values of a serialized ``Roaring64Bitmap``, ascending as unsigned 64-bit numbers."""
    return Roaring64.parse(data).values()


class RoaringBitmapAgg(Aggregator):
    """Paimon's ``rbm32`` / ``rbm64``: per key, the union of the serialized bitmaps folded pair by
    pair as Paimon does (a lone value is kept as it is; null inputs are skipped; no retraction), each
    result written as Java writes it (``runOptimize`` first)."""

    @staticmethod
    def parse(data: bytes) -> _Bitmap:
        """The bitmap of a serialized value."""
        raise NotImplementedError

    def check_type(self, field: str, t: DataType) -> None:
        if t.root != "VARBINARY":
            raise ValidationError(
                f"Data type for roaring bitmap column must be 'VarBinaryType' but was '{t.to_string()}' "
                f"(field {field!r}, function {self.name})"
            )

    def reduce(self, values: pa.Array, seg: Segments, fa: FieldAgg, active: np.ndarray) -> pa.Array:
        return fold_bitmaps(values, seg, fa, active, self.parse)


class RoaringBitmap64(RoaringBitmapAgg):
    """``rbm64``: Java ``Roaring64Bitmap``'s own serialization."""

    name = "rbm64"
    parse = staticmethod(Roaring64.parse)


class _Bitmap(Protocol):
    def or_(self, other: Any) -> None: ...

    def run_optimize(self) -> None: ...

    def serialize(self) -> bytes: ...


def fold_bitmaps(values: pa.Array, seg: Segments, fa: FieldAgg, active: np.ndarray,
                 parse: Callable[[bytes], _Bitmap]) -> pa.Array:
    """Per segment, Paimon's pairwise bitmap fold: a null input is skipped, the first value is kept
    as it is, each later one is ``or``-ed in and the result run-optimized (serialized once at the end:
    the model of a serialized result is the model it was written from)."""
    agg, _ = agg_and_retract_rows(seg, active)
    py = values.to_pylist()
    out: list[bytes | None] = []
    for start, end in zip(seg.starts.tolist(), seg.ends.tolist()):
        acc: bytes | None = None
        bm: _Bitmap | None = None
        for r in range(start, end + 1):
            x = py[r]
            if seg.reset_rows[r] and r == start:
                acc = x
            elif agg[r] and x is not None:
                if acc is None:
                    acc = x
                    continue
                try:
                    if bm is None:
                        bm = parse(acc)
                    bm.or_(parse(x))
                except (ValueError, IndexError, struct.error) as e:
                    raise ValidationError(
                        f"Unable to se/deserialize roaring bitmap of field {fa.column!r} ({fa.function}): {e}"
                    ) from e
                bm.run_optimize()
        out.append(bm.serialize() if bm is not None else acc)
    return pa.array(out, type=values.type)
