"""Snapshots of one table (or branch): listing, reading, hints, and the exclusive commit of a new one."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable
from typing import TypeVar

from paimon_sql.errors import CorruptFileError, NotFoundError
from paimon_sql.fs.file_io import FileIO, join
from paimon_sql.meta.decoding import read_text
from paimon_sql.meta.snapshot import Snapshot

SNAPSHOT_PREFIX = "snapshot-"
_SNAPSHOT_RE = re.compile(r"^snapshot-(\d+)$")
# reading the latest snapshot while newer commits and snapshot expiry go on: tries in all
_LATEST_ATTEMPTS = 3
T = TypeVar("T")


# the watermark Paimon treats as absent (Long.MIN_VALUE, what Flink commits before the first one)
_NO_WATERMARK = -(2**63)


class SnapshotManager:
    def __init__(self, file_io: FileIO, table_path: str, table_name: str = "") -> None:
        self.file_io = file_io
        self.table_path = table_path
        self.dir = join(table_path, "snapshot")
        self.table_name = table_name or table_path

    def path(self, snapshot_id: int) -> str:
        return join(self.dir, f"{SNAPSHOT_PREFIX}{snapshot_id}")

    def snapshot_ids(self) -> list[int]:
        ids = []
        for name in self.file_io.list_names(self.dir):
            m = _SNAPSHOT_RE.match(name)
            if m:
                ids.append(int(m.group(1)))
        return sorted(ids)

    def _read_hint(self, name: str) -> int | None:
        try:
            value = int(self.file_io.read_bytes(join(self.dir, name)).decode("ascii").strip())
        except (NotFoundError, ValueError):  # a missing, non-ASCII or non-numeric hint is no hint
            return None
        return value if 0 < value < 2**63 else None

    def latest_id(self) -> int | None:
        """The newest snapshot id. The LATEST hint may be stale or missing: it is only a start."""
        hint = self._read_hint("LATEST")
        if hint is not None and self.file_io.exists(self.path(hint)):
            nxt = hint + 1
            while self.file_io.exists(self.path(nxt)):
                nxt += 1
            return nxt - 1
        ids = self.snapshot_ids()
        return ids[-1] if ids else None

    def earliest_id(self) -> int | None:
        hint = self._read_hint("EARLIEST")
        if hint is not None and self.file_io.exists(self.path(hint)):
            prev = hint - 1
            while prev > 0 and self.file_io.exists(self.path(prev)):
                prev -= 1
            return prev + 1
        ids = self.snapshot_ids()
        return ids[0] if ids else None

    def exists(self, snapshot_id: int) -> bool:
        return self.file_io.exists(self.path(snapshot_id))

    def snapshot(self, snapshot_id: int) -> Snapshot:
        """Snapshot ``snapshot_id``; a file that does not decode, or holds another snapshot id than
        its name (a next commit would then number itself wrong), is a CorruptFileError."""
        p = self.path(snapshot_id)
        try:
            text = read_text(self.file_io, p, "snapshot file")
        except NotFoundError as e:
            raise NotFoundError(f"Snapshot {snapshot_id} of table {self.table_name} does not exist") from e
        snap = Snapshot.from_json(text, p)
        if snap.id != snapshot_id:
            raise CorruptFileError(
                f"Corrupt snapshot file {p} of table {self.table_name}: it holds snapshot id {snap.id}"
            )
        return snap

    def latest(self) -> Snapshot | None:
        sid = self.latest_id()
        return self.snapshot(sid) if sid is not None else None

    def read_latest(self, read: Callable[[Snapshot], T]) -> tuple[Snapshot, T] | None:
        """``read`` of the latest snapshot (None: the table has none). Expiry may delete the
        snapshot, its manifests or its files while ``read`` reads them, once newer commits landed:
        then ``read`` runs again on the new latest (a NotFoundError while the snapshot is still the
        latest is a missing file, and raised)."""
        attempt = 0
        while True:
            snap: Snapshot | None = None
            try:
                snap = self.latest()
                return None if snap is None else (snap, read(snap))
            except NotFoundError:
                attempt += 1
                if attempt == _LATEST_ATTEMPTS or (snap is not None and self.latest_id() == snap.id):
                    raise

    def snapshot_at_or_before(self, timestamp_ms: int) -> Snapshot | None:
        """The latest snapshot committed at or before ``timestamp_ms`` (Paimon's time travel rule,
        ``earlierOrEqualTimeMills``); commit times grow with snapshot ids, so a binary search reads
        O(log n) snapshot files."""
        ids = self.snapshot_ids()
        lo, hi, best = 0, len(ids) - 1, None
        while lo <= hi:
            mid = (lo + hi) // 2
            s = self.snapshot(ids[mid])
            if s.time_millis <= timestamp_ms:
                best, lo = s, mid + 1
            else:
                hi = mid - 1
        return best

    def snapshot_at_or_after_watermark(self, watermark: int) -> Snapshot | None:
        """The earliest snapshot whose watermark is at least ``watermark`` (Paimon's
        ``laterOrEqualWatermark``; a snapshot without a watermark, or with Long.MIN_VALUE, has none)."""
        for sid in self.snapshot_ids():
            s = self.snapshot(sid)
            if s.watermark is not None and s.watermark != _NO_WATERMARK and s.watermark >= watermark:
                return s
        return None

    def try_commit(self, snapshot: Snapshot) -> bool:
        """Creates ``snapshot-<id>`` exclusively; False if another writer won that id. How is the
        warehouse's ``SnapshotCommit`` (``file_io.snapshot_commit``: atomic create locally, a
        conditional PUT on S3, see ``paimon_sql.fs.snapshot_commit``)."""
        ok = self.file_io.try_create_exclusive(self.path(snapshot.id), snapshot.to_json().encode())
        if ok:
            self.write_hints(snapshot.id)
        return ok

    def write_hints(self, latest_id: int) -> None:
        with contextlib.suppress(Exception):  # hints are best effort: readers fall back to listing
            self.file_io.overwrite_atomic(join(self.dir, "LATEST"), str(latest_id).encode())
            if self._read_hint("EARLIEST") is None:
                earliest = self.earliest_id()
                if earliest is not None:
                    self.file_io.overwrite_atomic(join(self.dir, "EARLIEST"), str(earliest).encode())

    def snapshot_at_or_after(self, timestamp_ms: int) -> Snapshot | None:
        """The earliest snapshot committed at or after ``timestamp_ms`` (Paimon's
        ``laterOrEqualTimeMills``); a binary search like :meth:`snapshot_at_or_before`."""
        ids = self.snapshot_ids()
        lo, hi, best = 0, len(ids) - 1, None
        while lo <= hi:
            mid = (lo + hi) // 2
            s = self.snapshot(ids[mid])
            if s.time_millis >= timestamp_ms:
                best, hi = s, mid - 1
            else:
                lo = mid + 1
        return best

    def snapshot_at_or_before_watermark(self, watermark: int) -> Snapshot | None:
        """The latest snapshot that carries a watermark at or below ``watermark`` (Paimon's
        ``earlierOrEqualWatermark``, used by ``rollback_to_watermark``). Watermarks grow with
        snapshot ids; a snapshot without one takes the place of the nearest earlier one that has
        one, so a binary search finds it. Among snapshots with the same watermark the latest is
        taken (Paimon's search may stop at any of them)."""
        ids = self.snapshot_ids()
        cache: dict[int, int | None] = {}

        def mark(i: int) -> int | None:
            if i not in cache:
                w = self.snapshot(ids[i]).watermark
                cache[i] = None if w is None or w == _NO_WATERMARK else w
            return cache[i]

        lo, hi, best = 0, len(ids) - 1, None
        while lo <= hi:
            mid = (lo + hi) // 2
            pos = mid
            while pos >= lo and mark(pos) is None:  # the nearest earlier snapshot with a watermark
                pos -= 1
            if pos < lo:
                lo = mid + 1  # none in [lo, mid]
                continue
            w = mark(pos)
            assert w is not None
            if w <= watermark:
                best, lo = pos, mid + 1
            else:
                hi = pos - 1
        return self.snapshot(ids[best]) if best is not None else None
