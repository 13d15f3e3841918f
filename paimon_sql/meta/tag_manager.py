"""Tags: ``tag/tag-<name>`` files, each a snapshot JSON (plus tag creation facts)."""

from __future__ import annotations

from paimon_sql.errors import NotFoundError
from paimon_sql.fs.file_io import FileIO, join
from paimon_sql.meta.decoding import read_text
from paimon_sql.meta.snapshot import Snapshot
from paimon_sql.names import check_name

TAG_PREFIX = "tag-"


class TagManager:
    def __init__(self, file_io: FileIO, table_path: str, table_name: str = "") -> None:
        self.file_io = file_io
        self.dir = join(table_path, "tag")
        self.table_name = table_name or table_path

    def path(self, name: str) -> str:
        return join(self.dir, TAG_PREFIX + check_name("tag", name, f"table {self.table_name}"))

    def tag_names(self) -> list[str]:
        return [n[len(TAG_PREFIX):] for n in self.file_io.list_names(self.dir) if n.startswith(TAG_PREFIX)]

    def exists(self, name: str) -> bool:
        return self.file_io.exists(self.path(name))

    def tagged_snapshot(self, name: str) -> Snapshot:
        p = self.path(name)
        try:
            text = read_text(self.file_io, p, "tag file")
        except NotFoundError as e:
            raise NotFoundError(f"Tag {name!r} of table {self.table_name} does not exist") from e
        return Snapshot.from_json(text, p)
