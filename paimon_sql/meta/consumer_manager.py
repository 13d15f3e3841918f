"""Consumers (Paimon's ``ConsumerManager``): ``consumer/consumer-<id>`` files under a table's (or
branch's) directory, each holding the next snapshot a reader will read, ``{"nextSnapshot": N}``.
Snapshot expiry keeps every snapshot from the smallest one on; ``consumer.expiration-time`` deletes
consumers not updated for that long."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING

from paimon_sql.errors import CorruptFileError, NotFoundError
from paimon_sql.fs.file_io import FileIO, join
from paimon_sql.names import check_name

if TYPE_CHECKING:
    from paimon_sql.meta.file_store import FileStore

CONSUMER_PREFIX = "consumer-"


@dataclass(frozen=True)
class Consumer:
    """One consumer file: the next snapshot its reader will read."""

    next_snapshot: int

    def to_json(self) -> bytes:
        """Paimon's JSON (``JsonSerdeUtil.toJson``)."""
        return f'{{\n  "nextSnapshot" : {self.next_snapshot}\n}}'.encode()

    @staticmethod
    def from_json(text: str, path: str) -> Consumer:
        try:
            nxt = json.loads(text)["nextSnapshot"]
            if isinstance(nxt, bool) or not isinstance(nxt, int):
                raise TypeError(f"nextSnapshot is {nxt!r}")
        except (ValueError, KeyError, TypeError) as e:
            raise CorruptFileError(f"Corrupt consumer file {path}: {e}") from e
        return Consumer(nxt)


class ConsumerManager:
    """The consumers of the table or branch at ``meta_path`` (``table``: its name, for messages)."""

    def __init__(self, file_io: FileIO, meta_path: str, table: str = "") -> None:
        self.file_io = file_io
        self.folder = join(meta_path, "consumer")
        self.table = table

    @staticmethod
    def of(store: FileStore) -> ConsumerManager:
        """The consumers of ``store``'s table or branch."""
        return ConsumerManager(store.file_io, store.meta_path, store.name)

    def path(self, consumer_id: str) -> str:
        check_name("consumer", consumer_id, f"table {self.table}" if self.table else "")
        return join(self.folder, CONSUMER_PREFIX + consumer_id)

    def ids(self) -> list[str]:
        """The consumer ids, sorted."""
        return sorted(self._id_of(n) for n in self.file_io.list_names(self.folder) if self._id_of(n))

    def consumer(self, consumer_id: str) -> Consumer | None:
        """The consumer, None when there is none."""
        path = self.path(consumer_id)
        try:
            return Consumer.from_json(self.file_io.read_text(path), self._where(path))
        except NotFoundError:
            return None

    def consumers(self) -> dict[str, Consumer]:
        """Every consumer by id (in listing order; one deleted while listing is left out)."""
        out: dict[str, Consumer] = {}
        for name in self.file_io.list_names(self.folder):
            cid = self._id_of(name)
            if not cid:
                continue
            path = join(self.folder, name)
            try:
                text = self.file_io.read_text(path)
            except NotFoundError:
                continue  # deleted since the listing
            out[cid] = Consumer.from_json(text, self._where(path))
        return out

    def reset(self, consumer_id: str, consumer: Consumer) -> None:
        """Writes (creates or replaces, atomically) the consumer's file."""
        self.file_io.overwrite_atomic(self.path(consumer_id), consumer.to_json())

    def delete(self, consumer_id: str) -> bool:
        """Deletes the consumer; whether there was one."""
        return self.file_io.delete(self.path(consumer_id))

    def min_next_snapshot(self) -> int | None:
        """The smallest ``nextSnapshot`` of the consumers; None without any."""
        return min((c.next_snapshot for c in self.consumers().values()), default=None)

    def expire(self, cutoff_ms: int) -> int:
        """Deletes the consumers last modified before ``cutoff_ms`` (``ConsumerManager.expire``);
        returns how many."""
        deleted = 0
        for st in self.file_io.list_status(self.folder):
            if not st.is_dir and self._id_of(st.path.rsplit("/", 1)[-1]) and st.mtime_ms < cutoff_ms:
                deleted += int(self.file_io.delete(st.path))
        return deleted

    @staticmethod
    def _id_of(file_name: str) -> str:
        """The consumer id of a file of the folder ('' for other files)."""
        return file_name[len(CONSUMER_PREFIX):] if file_name.startswith(CONSUMER_PREFIX) else ""

    def _where(self, path: str) -> str:
        return f"{path} of table {self.table}" if self.table else path
