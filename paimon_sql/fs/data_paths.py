"""Where data files go: the checks of the path options (``data-file.path-directory``,
``data-file.external-paths``), the conversion of a stored external path to a FileIO path, and the
choice of an external root for a new file (Paimon's ``ExternalPathProvider`` strategies).

An external path is stored in ``DataFileMeta._EXTERNAL_PATH`` as Paimon's ``Path.toString()``
writes it: ``file:/abs/dir/<partition>/bucket-N/<file>`` for a local root given as ``file:///abs/dir``
or ``file:/abs/dir``. Only local (``file:``) roots are supported: other schemes are refused with an
``UnsupportedError`` naming the option.
"""

from __future__ import annotations

import random
import struct
from collections.abc import Sequence
from dataclasses import dataclass, field

from paimon_sql.errors import UnsupportedError, ValidationError
from paimon_sql.names import file_name_problem

FILE_SCHEME = "file"


def check_data_directory(key: str, value: str, where: str) -> str:
    """``value`` of ``key`` (``data-file.path-directory``) if it is a relative folder inside the
    table (``/``-separated safe names), else a ValidationError naming the option."""
    text = value.strip()
    problem = None
    if not text:
        problem = "must not be empty"
    elif text.startswith("/") or ":" in text.split("/")[0]:
        problem = "must be a folder relative to the table's folder (no leading '/' and no scheme)"
    else:
        for part in text.strip("/").split("/"):
            why = file_name_problem(part)
            if why is not None:
                problem = f"folder {part!r}: {why}"
                break
    if problem is not None:
        raise ValidationError(f"Invalid value {value!r} for option {key!r}{_of(where)}: {problem}")
    return text.strip("/")


def parse_root(key: str, text: str, where: str) -> tuple[str, str]:
    """(scheme, root) of one comma-separated element of ``key``; the root is the canonical
    ``file:/abs/dir`` form for local paths and "" for other schemes (which are not checked
    further: they are refused where used). ValidationError for an element without a scheme
    (Paimon: "scheme should not be null") or a local path that is not a clean absolute path."""
    t = text.strip()
    if not t:
        raise ValidationError(f"Invalid value for option {key!r}{_of(where)}: an element is empty")
    colon = t.find(":")
    if colon <= 0 or "/" in t[:colon]:
        raise ValidationError(
            f"Invalid value {text!r} for option {key!r}{_of(where)}: scheme should not be null "
            "(write a URI such as file:///path/to/dir)"
        )
    scheme, rest = t[:colon], t[colon + 1:]
    if scheme.lower() != FILE_SCHEME:
        return scheme, ""
    if rest.startswith("//"):
        authority, slash, path = rest[2:].partition("/")
        if authority not in ("", "localhost"):
            raise ValidationError(
                f"Invalid value {text!r} for option {key!r}{_of(where)}: a file: URI must not name a host"
            )
        rest = slash + path
    if not rest.startswith("/"):
        raise ValidationError(f"Invalid value {text!r} for option {key!r}{_of(where)}: the path must be absolute")
    parts = [p for p in rest.split("/") if p and p != "."]
    for p in parts:
        why = file_name_problem(p)
        if why is not None:
            raise ValidationError(f"Invalid value {text!r} for option {key!r}{_of(where)}: folder {p!r}: {why}")
    if not parts:
        raise ValidationError(f"Invalid value {text!r} for option {key!r}{_of(where)}: the root folder cannot hold data files")
    return scheme, "file:/" + "/".join(parts)


def to_io_path(external_path: str, local_fs: bool, where: str) -> str:
    """The FileIO path of a stored ``_EXTERNAL_PATH`` (``file:/a/b``, ``file:///a/b`` or ``/a/b``)."""
    p = external_path
    if p.startswith("file:"):
        rest = p[len("file:"):]
        if rest.startswith("//"):
            authority, slash, path = rest[2:].partition("/")
            if authority not in ("", "localhost"):
                raise UnsupportedError(f"{where}: external data file {p} names a host; only local paths are supported")
            rest = slash + path
        p = rest
    elif not p.startswith("/"):
        raise UnsupportedError(
            f"{where}: external data file {p} is on another file system; only local (file:) external paths are supported"
        )
    if not local_fs:
        raise UnsupportedError(f"{where}: external data file {external_path} is local but the table is not")
    return p


def parse_weights(key: str, text: str, where: str) -> tuple[int, ...]:
    """``data-file.external-paths.weights``: comma-separated positive integers (Paimon's rule)."""
    out: list[int] = []
    for part in text.split(","):
        try:
            w = int(part.strip())
        except ValueError:
            raise ValidationError(
                f"Invalid value {text!r} for option {key!r}{_of(where)}: {part.strip()!r} is not an integer"
            ) from None
        if w <= 0 or w > 2**31 - 1:
            raise ValidationError(f"Invalid value {text!r} for option {key!r}{_of(where)}: Weight must be positive, got: {w}")
        out.append(w)
    return tuple(out)


@dataclass
class ExternalPathProvider:
    """Chooses the external root of each new data file, as Paimon's providers do:
    ``round-robin`` / ``specific-fs`` (the next root in turn, from a random start),
    ``entropy-inject`` (the next root in turn, and three 4-bit folders plus one 8-bit folder from
    the murmur3 hash of the file name under the bucket folder) and ``weight-robin`` (a root drawn
    by weight; round-robin with fewer than two roots or no weights)."""

    strategy: str
    roots: tuple[str, ...]
    weights: tuple[int, ...] | None = None
    _position: dict[str, int] = field(default_factory=dict)

    def next_path(self, relative_bucket_path: str, file_name: str) -> str:
        """The ``file:/...`` path of a new file of the bucket at ``relative_bucket_path``."""
        if self.strategy == "weight-robin" and len(self.roots) >= 2 and self.weights:
            root = random.choices(self.roots, weights=self.weights)[0]
            return f"{root}/{relative_bucket_path}/{file_name}"
        start = 0 if self.strategy == "entropy-inject" else random.randrange(len(self.roots))
        pos = self._position.get(relative_bucket_path, start) + 1
        if pos >= len(self.roots):
            pos = 0
        self._position[relative_bucket_path] = pos
        root = self.roots[pos]
        if self.strategy == "entropy-inject":
            return f"{root}/{relative_bucket_path}/{entropy_dirs(file_name)}/{file_name}"
        return f"{root}/{relative_bucket_path}/{file_name}"


def entropy_dirs(file_name: str) -> str:
    """The low 20 bits of murmur3_32(file name), as ``bbbb/bbbb/bbbb/bbbbbbbb`` (Paimon's
    EntropyInjectExternalPathProvider)."""
    bits = format(murmur3_32(file_name.encode("utf-8")) | 0x80000000, "032b")[-20:]
    return f"{bits[0:4]}/{bits[4:8]}/{bits[8:12]}/{bits[12:]}"


def murmur3_32(data: bytes, seed: int = 0) -> int:
    """Standard MurmurHash3 x86 32-bit (Guava's ``Hashing.murmur3_32``), unsigned."""
    c1, c2, mask = 0xCC9E2D51, 0x1B873593, 0xFFFFFFFF
    h = seed & mask
    n = len(data) & ~3
    for (k,) in struct.iter_unpack("<I", data[:n]):
        k = (k * c1) & mask
        k = ((k << 15) | (k >> 17)) & mask
        h ^= (k * c2) & mask
        h = ((h << 13) | (h >> 19)) & mask
        h = (h * 5 + 0xE6546B64) & mask
    tail = data[n:]
    if tail:
        k = int.from_bytes(tail, "little")
        k = (k * c1) & mask
        k = ((k << 15) | (k >> 17)) & mask
        h ^= (k * c2) & mask
    h ^= len(data)
    h ^= h >> 16
    h = (h * 0x85EBCA6B) & mask
    h ^= h >> 13
    h = (h * 0xC2B2AE35) & mask
    h ^= h >> 16
    return h


def local_roots(key: str, elements: Sequence[tuple[str, str]], where: str) -> tuple[str, ...]:
    """The roots of ``elements`` ((scheme, root) pairs); UnsupportedError naming ``key`` for a
    scheme other than ``file``."""
    for scheme, root in elements:
        if not root:
            raise UnsupportedError(
                f"Option {key!r}{_of(where)}: external paths on scheme {scheme!r} are not supported by "
                "paimon_sql yet (only local file: paths are)"
            )
    return tuple(r for _, r in elements)


def local_root_folders(text: str | None) -> list[str]:
    """The local folders of the ``file:`` roots in a comma-separated root option (what Paimon's
    DROP TABLE deletes with the table); elements that are not clean local roots are left out."""
    out: list[str] = []
    for part in (text or "").split(","):
        try:
            _, root = parse_root("", part, "")
        except ValidationError:
            continue
        if root:
            out.append(root[len("file:"):])
    return out


def _of(where: str) -> str:
    return f" of table {where}" if where else ""
