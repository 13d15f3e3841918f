"""Deletion vectors: which row positions of a data file are deleted.

Layout of one vector inside a DELETION_VECTORS index file (the file starts with a version byte):
big-endian int ``length``, a magic number, the bitmap, big-endian CRC32 of (magic + bitmap).
 * v1 (``BitmapDeletionVector``): big-endian magic 1581511376, then a portable 32-bit RoaringBitmap;
   ``length`` counts magic + bitmap.
 * v2 (``Bitmap64DeletionVector``, Iceberg's layout): little-endian magic 1681511377, then a 64-bit
   roaring map (little-endian long count, then per 32-bit bucket a little-endian int key and a
   portable RoaringBitmap).
"""

from __future__ import annotations

import struct
import zlib

import numpy as np
from pyroaring import BitMap

from paimon_sql.errors import CorruptFileError

MAGIC_V1 = 1581511376
MAGIC_V2 = 1681511377
INDEX_FILE_VERSION = 1


def deserialize(data: bytes, where: str = "<deletion vector>") -> np.ndarray:
    """Decodes one serialized vector (starting at its length field); returns sorted deleted positions."""
    if len(data) < 8:
        raise CorruptFileError(f"Corrupt deletion vector in {where}: {len(data)} bytes")
    (length,) = struct.unpack_from(">i", data, 0)
    magic_be = struct.unpack_from(">i", data, 4)[0]
    magic_le = struct.unpack_from("<i", data, 4)[0]
    try:
        if magic_be == MAGIC_V1:
            bitmap = BitMap.deserialize(data[8 : 4 + length])
            return np.asarray(bitmap.to_array(), dtype=np.int64)
        if magic_le == MAGIC_V2:
            body = data[8 : 4 + length]
            (count,) = struct.unpack_from("<q", body, 0)
            pos = 8
            parts = []
            for _ in range(count):
                (key,) = struct.unpack_from("<i", body, pos)
                pos += 4
                bm = BitMap.deserialize(body[pos:])
                pos += len(bm.serialize())
                parts.append(np.asarray(bm.to_array(), dtype=np.int64) + (np.int64(key) << 32))
            return np.concatenate(parts) if parts else np.empty(0, dtype=np.int64)
    except (ValueError, struct.error) as e:
        raise CorruptFileError(f"Corrupt deletion vector in {where}: {e}") from e
    raise CorruptFileError(f"Corrupt deletion vector in {where}: unknown magic number {magic_be}")


def serialize_v1(positions: np.ndarray) -> bytes:
    """Encodes deleted positions as a v1 vector (length, magic, bitmap, crc)."""
    bitmap = BitMap(np.asarray(positions, dtype=np.uint32))
    body = struct.pack(">i", MAGIC_V1) + bitmap.serialize()
    return struct.pack(">i", len(body)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)


def serialize_v2(positions: np.ndarray) -> bytes:
    """Encodes deleted positions as a v2 vector (``Bitmap64DeletionVector``): big-endian length of
    (magic + bitmap), little-endian magic, Paimon's ``OptimizedRoaringBitmap64`` (little-endian count
    of 32-bit bitmaps, one per high word from 0 to the highest used, each as a little-endian key and
    a run-optimized portable RoaringBitmap), big-endian CRC32 of (magic + bitmap)."""
    pos = np.unique(np.asarray(positions, dtype=np.int64))
    if pos.size and pos[0] < 0:
        raise ValueError(f"negative deletion vector position {int(pos[0])}")
    highs = (pos >> 32).astype(np.int64)
    count = int(highs[-1]) + 1 if pos.size else 0
    parts = [struct.pack("<i", MAGIC_V2), struct.pack("<q", count)]
    bounds = np.searchsorted(highs, np.arange(count + 1))
    for key in range(count):
        bm = BitMap((pos[bounds[key]:bounds[key + 1]] & 0xFFFFFFFF).astype(np.uint32))
        bm.run_optimize()
        parts += [struct.pack("<i", key), bm.serialize()]
    body = b"".join(parts)
    return struct.pack(">i", len(body)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)


def serialize(positions: np.ndarray, bitmap64: bool) -> bytes:
    """A v2 vector with ``deletion-vectors.bitmap64``, else a v1 vector."""
    return serialize_v2(positions) if bitmap64 else serialize_v1(positions)
