"""Paimon's MurmurHash of BinaryRows and fixed-bucket assignment, vectorised with numpy.

Facts (Apache Paimon ``MurmurHashUtils``, ``BinarySection.hashCode``, ``DefaultBucketFunction``):

* ``BinaryRow.hashCode()`` = ``MurmurHashUtils.hashBytes(row bytes)`` with seed 42 over the row
  bytes only (not the 4-byte arity prefix of the serialised form). It is MurmurHash3 x86_32 over
  the little-endian 4-byte words, except that trailing bytes (never present for rows, whose size
  is a multiple of 8) are each mixed as a *sign-extended* byte in a full round, and the final
  mix xors the byte length.
* Fixed bucket = ``Math.abs(hash % numBuckets)`` with Java's truncating remainder, where the
  hashed row is the bucket key (default: the primary key minus partition columns, else the
  ``bucket-key`` option).
* Dynamic-bucket HASH index files store the same ``hashCode()`` of the trimmed primary key.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from paimon_sql.errors import ValidationError
from paimon_sql.format import binary_row as _br
from paimon_sql.types import DataType

__all__ = [
    "DEFAULT_SEED",
    "murmur_hash_bytes",
    "murmur_hash_matrix",
    "murmur_hash_rows",
    "hash_columns",
    "bucket_of",
    "bucket_of_hashes",
]

DEFAULT_SEED = 42

_C1 = np.uint32(0xCC9E2D51)
_C2 = np.uint32(0x1B873593)
_M5 = np.uint32(5)
_N1 = np.uint32(0xE6546B64)
_F1 = np.uint32(0x85EBCA6B)
_F2 = np.uint32(0xC2B2AE35)


def _rotl(x: np.ndarray, r: int) -> np.ndarray:
    return (x << np.uint32(r)) | (x >> np.uint32(32 - r))


def _mix(h: np.ndarray, k: np.ndarray) -> np.ndarray:
    k = k * _C1
    k = _rotl(k, 15)
    k *= _C2
    h = h ^ k
    h = _rotl(h, 13)
    h *= _M5
    h += _N1
    return h


def _fmix(h: np.ndarray, length: int) -> np.ndarray:
    h = h ^ np.uint32(length & 0xFFFFFFFF)
    h ^= h >> np.uint32(16)
    h *= _F1
    h ^= h >> np.uint32(13)
    h *= _F2
    h ^= h >> np.uint32(16)
    return h


def murmur_hash_matrix(mat: np.ndarray, seed: int = DEFAULT_SEED) -> np.ndarray:
    """Java ``MurmurHashUtils.hashBytes`` of every row of an (n, length) uint8 matrix (int32)."""
    mat = np.asarray(mat, dtype=np.uint8)
    if mat.ndim != 2:
        raise ValidationError(f"murmur_hash_matrix needs a 2-D byte matrix, got shape {mat.shape}")
    n, length = mat.shape
    aligned = length - length % 4
    h = np.full(n, seed & 0xFFFFFFFF, dtype=np.uint32)
    with np.errstate(over="ignore"):
        if aligned:
            words = np.ascontiguousarray(mat[:, :aligned]).view("<u4")
            cols = np.ascontiguousarray(words.T) if words.shape[1] > 1 else words.T
            for j in range(cols.shape[0]):
                h = _mix(h, cols[j])
        for i in range(aligned, length):
            # Java mixes a trailing byte as a sign-extended int.
            k = mat[:, i].view(np.int8).astype(np.int32).view(np.uint32)
            h = _mix(h, k)
        return _fmix(h, length).view(np.int32)


def murmur_hash_bytes(data: bytes, seed: int = DEFAULT_SEED) -> int:
    """Java ``MurmurHashUtils.hashBytes`` of one byte string."""
    arr = np.frombuffer(data, dtype=np.uint8).reshape(1, len(data))
    return int(murmur_hash_matrix(arr, seed)[0])


def _hash_sections(flat: np.ndarray, starts: np.ndarray, sizes: np.ndarray, seed: int) -> np.ndarray:
    n = len(sizes)
    out = np.empty(n, dtype=np.int32)
    if n == 0:
        return out
    first = int(sizes[0])
    if (sizes == first).all():
        return murmur_hash_matrix(_gather(flat, starts, first), seed)
    for size in np.unique(sizes):
        rows = np.nonzero(sizes == size)[0]
        out[rows] = murmur_hash_matrix(_gather(flat, starts[rows], int(size)), seed)
    return out


def _gather(flat: np.ndarray, starts: np.ndarray, size: int) -> np.ndarray:
    """(len(starts), size) matrix of ``flat[s : s + size]``."""
    n = len(starts)
    if size == 0 or n == 0:
        return np.zeros((n, size), dtype=np.uint8)
    s0 = int(starts[0])
    stride = int(starts[1] - s0) if n > 1 else size
    if stride >= size and (n == 1 or (np.diff(starts) == stride).all()):
        # Evenly spaced rows (e.g. fixed-size serialised rows): a strided view, no index arrays.
        view = np.lib.stride_tricks.as_strided(flat[s0:], shape=(n, size), strides=(stride, 1))
        return np.ascontiguousarray(view)
    if size % 4 == 0 and s0 % 4 == 0 and (starts % 4 == 0).all():
        words = flat[: len(flat) - len(flat) % 4].view("<u4")
        return words[(starts // 4)[:, None] + np.arange(size // 4)].view(np.uint8)
    return flat[starts[:, None] + np.arange(size)]


def murmur_hash_rows(blobs: Any, serialized: bool = True, seed: int = DEFAULT_SEED) -> np.ndarray:
    """``BinaryRow.hashCode()`` of each row (int32). ``blobs`` are serialised rows (4-byte arity
    prefix, as :func:`binary_row.encode_rows` returns) unless ``serialized`` is False, in which case
    every byte is hashed. Accepts a sequence of bytes or an Arrow binary array."""
    flat, starts, lengths, null = _br._blobs_to_flat(blobs)
    if null.any():
        raise ValidationError("Cannot hash a null BinaryRow")
    if serialized:
        short = lengths < 4
        if short.any():
            raise ValidationError(
                f"Serialised BinaryRow {int(np.nonzero(short)[0][0])} is shorter than its 4-byte arity"
            )
        starts = starts + 4
        lengths = lengths - 4
    return _hash_sections(flat, starts, lengths, seed)


def hash_columns(columns: Sequence[Any], types: Sequence[DataType], seed: int = DEFAULT_SEED) -> np.ndarray:
    """``BinaryRow.hashCode()`` of the rows formed by the columns, without per-row Python objects:
    fixed-width and short-string rows hash straight from the fixed-part matrix; rows with
    variable parts are grouped by length."""
    arrays, n = _br._check_columns(columns, types)
    if not arrays:
        raise ValidationError("hash_columns needs at least one column")
    enc = _br._encode_rows_fixed(arrays, types, n)
    if enc.sizes is None or not any(v.pad.any() for _, v in enc.pieces):
        return murmur_hash_matrix(enc.words.view(np.uint8), seed)
    sec = _br._rows_to_sections(enc, None)
    return _hash_sections(sec.flat, sec.starts, sec.sizes, seed)


def bucket_of_hashes(hashes: np.ndarray, num_buckets: int) -> np.ndarray:
    """``Math.abs(hash % numBuckets)`` with Java's truncating remainder (int32)."""
    if num_buckets <= 0:
        raise ValidationError(f"Number of buckets must be positive: {num_buckets}")
    h = np.asarray(hashes, dtype=np.int64)
    return np.abs(np.fmod(h, num_buckets)).astype(np.int32)


def bucket_of(columns: Sequence[Any], types: Sequence[DataType], num_buckets: int) -> np.ndarray:
    """Fixed bucket (``DefaultBucketFunction``) of each row of the bucket-key columns."""
    return bucket_of_hashes(hash_columns(columns, types), num_buckets)
