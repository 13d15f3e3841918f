"""Long-lived changelogs of one table (or branch): ``changelog/changelog-<id>``.

With a decoupled changelog lifecycle (``changelog.num-retained.*`` or ``changelog.time-retained``
above the snapshot retention), snapshot expiry keeps what a changelog reader of an expired snapshot
needs and writes the snapshot's JSON (Paimon's ``Changelog``, the same fields as a snapshot) into
``changelog/changelog-<id>`` before it deletes ``snapshot/snapshot-<id>``; changelog expiry deletes
them later. The folder has its own ``EARLIEST`` / ``LATEST`` hints (Paimon's ``ChangelogManager``).
"""

from __future__ import annotations

import contextlib
import re

from paimon_sql.errors import NotFoundError
from paimon_sql.fs.file_io import FileIO, join
from paimon_sql.meta.decoding import read_text
from paimon_sql.meta.snapshot import Snapshot

CHANGELOG_PREFIX = "changelog-"
_CHANGELOG_RE = re.compile(r"^changelog-(\d+)$")


class ChangelogManager:
    def __init__(self, file_io: FileIO, table_path: str, table_name: str = "") -> None:
        self.file_io = file_io
        self.dir = join(table_path, "changelog")
        self.table_name = table_name or table_path

    def path(self, changelog_id: int) -> str:
        return join(self.dir, f"{CHANGELOG_PREFIX}{changelog_id}")

    def ids(self) -> list[int]:
        """The ids of the long-lived changelogs on disk, ascending (by listing: the hints are only
        hints)."""
        return sorted(int(m.group(1)) for n in self.file_io.list_names(self.dir) if (m := _CHANGELOG_RE.match(n)))

    def changelog(self, changelog_id: int) -> Snapshot:
        p = self.path(changelog_id)
        try:
            text = read_text(self.file_io, p, "changelog file")
        except NotFoundError as e:
            raise NotFoundError(f"Changelog {changelog_id} of table {self.table_name} does not exist") from e
        return Snapshot.from_json(text, p)

    def try_changelog(self, changelog_id: int) -> Snapshot | None:
        try:
            return self.changelog(changelog_id)
        except NotFoundError:
            return None

    def commit(self, snapshot: Snapshot) -> None:
        """Writes ``snapshot`` as changelog ``snapshot.id`` (overwriting: a rerun of an interrupted
        expiry writes the same content) and points the ``LATEST`` hint at it."""
        self.file_io.overwrite_atomic(self.path(snapshot.id), snapshot.to_json().encode("utf-8"))
        self.write_hint("LATEST", snapshot.id)

    def write_hint(self, name: str, value: int) -> None:
        with contextlib.suppress(OSError):  # hints are best effort: readers list the folder
            self.file_io.overwrite_atomic(join(self.dir, name), str(value).encode())
