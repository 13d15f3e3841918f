"""Consumers (``meta/consumer_manager.py``) as Paimon's procedures change them: ``reset_consumer``
moves or deletes one, ``clear_consumers`` deletes those whose id fully matches a regular expression
and not another."""

from __future__ import annotations

import re
from dataclasses import dataclass

from paimon_sql.errors import ValidationError
from paimon_sql.meta.consumer_manager import Consumer, ConsumerManager
from paimon_sql.meta.file_store import FileStore


@dataclass(frozen=True)
class ClearConsumersResult:
    cleared: tuple[str, ...]


def reset_consumer(store: FileStore, consumer_id: str, next_snapshot_id: int | None) -> None:
    """Sets the consumer's next snapshot (creating it), or deletes it when ``next_snapshot_id`` is None."""
    manager = ConsumerManager.of(store)
    if next_snapshot_id is None:
        manager.delete(consumer_id)
        return
    manager.path(consumer_id)  # the id is checked first
    if isinstance(next_snapshot_id, bool) or not isinstance(next_snapshot_id, int) or next_snapshot_id < 1:
        raise ValidationError(
            f"reset_consumer of table {store.name}: nextSnapshotId must be a positive snapshot id, "
            f"got {next_snapshot_id!r}"
        )
    manager.reset(consumer_id, Consumer(next_snapshot_id))


def clear_consumers(store: FileStore, including: str | None = None, excluding: str | None = None) -> ClearConsumersResult:
    """Deletes the consumers whose id fully matches ``including`` (default: all) and not ``excluding``."""
    try:
        inc = re.compile(including if including is not None else ".*")
        exc = re.compile(excluding) if excluding is not None else None
    except re.error as e:
        raise ValidationError(f"clear_consumers of table {store.name}: invalid regular expression: {e}") from None
    manager = ConsumerManager.of(store)
    cleared = []
    for cid in manager.ids():
        if inc.fullmatch(cid) and not (exc is not None and exc.fullmatch(cid)):
            if manager.delete(cid):
                cleared.append(cid)
    return ClearConsumersResult(tuple(cleared))
