"""Consumers (Paimon's ConsumerManager): ``consumer/consumer-<id>`` files holding the next snapshot a
reader will read (``{"nextSnapshot": N}``); snapshot expiry keeps every snapshot from the smallest
one on (ops/expire.py). ``reset_consumer`` moves or deletes one, ``clear_consumers`` deletes those
whose id fully matches a regular expression and not another."""

from __future__ import annotations

import re
from dataclasses import dataclass

from paimon_sql.errors import ValidationError
from paimon_sql.fs.file_io import join
from paimon_sql.meta.file_store import FileStore
from paimon_sql.names import check_name
from paimon_sql.ops.expire import CONSUMER_PREFIX


@dataclass(frozen=True)
class ClearConsumersResult:
    cleared: tuple[str, ...]


def consumer_path(store: FileStore, consumer_id: str) -> str:
    check_name("consumer", consumer_id, f"table {store.name}")
    return join(store.meta_path, "consumer", CONSUMER_PREFIX + consumer_id)


def consumer_ids(store: FileStore) -> list[str]:
    return sorted(
        n[len(CONSUMER_PREFIX):] for n in store.file_io.list_names(join(store.meta_path, "consumer"))
        if n.startswith(CONSUMER_PREFIX) and len(n) > len(CONSUMER_PREFIX)
    )


def reset_consumer(store: FileStore, consumer_id: str, next_snapshot_id: int | None) -> None:
    """Sets the consumer's next snapshot (creating it), or deletes it when ``next_snapshot_id`` is None."""
    path = consumer_path(store, consumer_id)
    if next_snapshot_id is None:
        store.file_io.delete(path)
        return
    if isinstance(next_snapshot_id, bool) or not isinstance(next_snapshot_id, int) or next_snapshot_id < 1:
        raise ValidationError(
            f"reset_consumer of table {store.name}: nextSnapshotId must be a positive snapshot id, "
            f"got {next_snapshot_id!r}"
        )
    # Paimon's JSON (JsonSerdeUtil.toJson), replaced atomically
    store.file_io.overwrite_atomic(path, f'{{\n  "nextSnapshot" : {next_snapshot_id}\n}}'.encode())


def clear_consumers(store: FileStore, including: str | None = None, excluding: str | None = None) -> ClearConsumersResult:
    """Deletes the consumers whose id fully matches ``including`` (default: all) and not ``excluding``."""
    try:
        inc = re.compile(including if including is not None else ".*")
        exc = re.compile(excluding) if excluding is not None else None
    except re.error as e:
        raise ValidationError(f"clear_consumers of table {store.name}: invalid regular expression: {e}") from None
    cleared = []
    for cid in consumer_ids(store):
        if inc.fullmatch(cid) and not (exc is not None and exc.fullmatch(cid)):
            if store.file_io.delete(join(store.meta_path, "consumer", CONSUMER_PREFIX + cid)):
                cleared.append(cid)
    return ClearConsumersResult(tuple(cleared))

