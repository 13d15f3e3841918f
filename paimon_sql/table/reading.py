"""The read side of the TableHandle facade: the ``TableScan`` a ``Table.scan`` / ``read`` / ``plan`` builds
(Paimon's ``ReadBuilder``, pyiceberg's ``Table.scan``), with the incremental range taken from the
keyword arguments or the table's (dynamic) ``incremental-between*`` options, and the
``incremental-to-auto-tag`` range resolved against the table's automatic tags."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING

from paimon_sql.errors import ValidationError
from paimon_sql.lazy import lazy_module
from paimon_sql.meta.travel import TimeTravel
from paimon_sql.predicate import Predicate
from paimon_sql.scan import incremental
from paimon_sql.scan.incremental import INCREMENTAL_OPTIONS, IncrementalRange, IncrementalSpec
from paimon_sql.scan.table_scan import TableScan
from paimon_sql.table.facets import TableHandle

if TYPE_CHECKING:
    from paimon_sql.meta.file_store import FileStore
    from paimon_sql.ops import tag_auto as tag_auto_ops
else:
    tag_auto_ops = lazy_module("paimon_sql.ops.tag_auto")


def new_scan(
    table: TableHandle, columns: Sequence[str] | None, filter: str | Predicate | None, snapshot_id: int | None,
    tag: str | None, timestamp_ms: int | None, latest_snapshot_id: int | None, watermark: int | None,
    read_optimized: bool, incremental_between: tuple[int | str, int | str] | str | None,
    incremental_between_timestamp: tuple[int, int] | str | None, incremental_to_auto_tag: str | None,
    incremental_mode: str | None, keep_row_kind: bool, limit: int | None,
) -> TableScan:
    """``Table.scan`` (see there for the arguments)."""
    travel = TimeTravel(snapshot_id, tag, timestamp_ms, watermark).check(f"a read of table {table.identifier}")
    scan = TableScan(table.store, travel=travel, latest_snapshot_id=latest_snapshot_id,
                     read_optimized=read_optimized).select(columns).where(filter)
    scan = scan.with_row_kind(keep_row_kind).with_limit(limit)
    spec = incremental_spec(table.identifier, dict(table.schema.options), incremental_between,
                            incremental_between_timestamp, incremental_to_auto_tag, incremental_mode)
    if spec is not None:
        scan = scan.with_incremental(resolve_auto_tag(table.store, table.identifier, spec))
    return scan


def incremental_spec(
    identifier: str, opts: dict[str, str], between: tuple[int | str, int | str] | str | None,
    between_timestamp: tuple[int, int] | str | None, to_auto_tag: str | None, mode: str | None,
) -> IncrementalSpec | None:
    """The incremental range of a read: the keyword arguments over the table's options ``opts``
    (a keyword drops the options' range; ``mode`` alone needs a range among the options)."""
    given = [n for n, v in (("incremental_between", between), ("incremental_between_timestamp", between_timestamp),
                            ("incremental_to_auto_tag", to_auto_tag)) if v is not None]
    if len(given) > 1:
        raise ValidationError(f"Give at most one of {', '.join(given)} for a read of table {identifier}")
    if given:
        for key in INCREMENTAL_OPTIONS:
            if key != incremental.SCAN_MODE and key != incremental.TAG_TO_SNAPSHOT:
                opts.pop(key, None)
    if mode is not None:
        opts[incremental.SCAN_MODE] = mode
    if between is not None:
        if isinstance(between, str):
            opts[incremental.BETWEEN] = between
        else:
            return dataclasses.replace(
                IncrementalSpec.of_between(between, identifier, opts.get(incremental.SCAN_MODE, "auto")),
                tag_to_snapshot=str(opts.get(incremental.TAG_TO_SNAPSHOT, "false")).lower() == "true")
    if between_timestamp is not None:
        if isinstance(between_timestamp, str):
            opts[incremental.BETWEEN_TIMESTAMP] = between_timestamp
        elif (isinstance(between_timestamp, (tuple, list)) and len(between_timestamp) == 2
              and all(isinstance(v, int) and not isinstance(v, bool) for v in between_timestamp)):
            opts[incremental.BETWEEN_TIMESTAMP] = f"{between_timestamp[0]},{between_timestamp[1]}"
        else:
            raise ValidationError(f"incremental_between_timestamp of a read of table {identifier} must be "
                                  f"a (start, end) pair of epoch milliseconds, got {between_timestamp!r}")
    if to_auto_tag is not None:
        if not isinstance(to_auto_tag, str):
            raise ValidationError(f"incremental_to_auto_tag of a read of table {identifier} must be a tag "
                                  f"name, got {to_auto_tag!r}")
        opts[incremental.TO_AUTO_TAG] = to_auto_tag
    if mode is not None and not given and not any(k in opts for k in (
            incremental.BETWEEN, incremental.BETWEEN_TIMESTAMP, incremental.TO_AUTO_TAG)):
        raise ValidationError(f"incremental_mode of a read of table {identifier} needs an incremental "
                              "range (incremental_between, incremental_between_timestamp or "
                              "incremental_to_auto_tag)")
    return IncrementalSpec.of_options(opts, identifier)


def resolve_auto_tag(store: FileStore, identifier: str, spec: IncrementalSpec) -> IncrementalSpec | IncrementalRange:
    """``incremental-to-auto-tag``: the diff between the automatic tag before ``spec.to_auto_tag``
    and it (Paimon's ``IncrementalDiffStartingScanner.toEndAutoTag``); empty when the end tag
    does not exist or no automatic tag precedes it."""
    if spec.to_auto_tag is None or spec.between is not None or spec.between_timestamp is not None:
        return spec
    handler = tag_auto_ops.PeriodHandler.of(store)
    end_name = spec.to_auto_tag
    end_time = handler.tag_to_time(end_name)
    if end_time is None:
        raise ValidationError(f"Option {incremental.TO_AUTO_TAG!r} of table {identifier}: Specified tag "
                              f"'{end_name}' is not an auto-created tag.")
    tags = store.tags
    if not tags.exists(end_name):
        return incremental.EMPTY
    previous = []
    for name in tags.tag_names():
        t = handler.tag_to_time(name)
        if t is not None and t < end_time:
            previous.append((t, name))
    if not previous:
        return incremental.EMPTY
    start = tags.tagged_snapshot(max(previous)[1])
    end = tags.tagged_snapshot(end_name)
    return IncrementalRange("diff", start.id, end.id, start, end)
