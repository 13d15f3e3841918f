"""The merge engines as objects, in one registry: what each engine merges, whether paimon_sql can
write it, whether batch reads skip level 0, and its rule for DELETE statements.

Writers (the write buffer and compaction), readers and the planner ask the table's engine instead
of comparing ``merge-engine`` strings. Adding an engine is one entry in ``MERGE_ENGINES``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from paimon_sql.errors import UnsupportedError
from paimon_sql.lsm.merge import (
    MergeFunction,
    MergeSpec,
    aggregation,
    build_merge_spec,
    deduplicate,
    first_row,
    partial_update,
)
from paimon_sql.options import CoreOptions
from paimon_sql.types import DataField


@dataclass(frozen=True)
class MergeEngine:
    name: str
    merge: MergeFunction
    # written by paimon_sql
    writable: bool = True
    # batch reads skip level-0 files (first-row: rows become visible once compaction moved them up,
    # which writers do at once, as Paimon's lookup compaction does)
    skips_level0: bool = False
    # the option a DELETE statement needs ('' when deletes are always allowed; None when never)
    delete_option: str | None = ""

    def spec(
        self, options: CoreOptions, key_columns: Sequence[str], value_fields: Sequence[DataField],
        primary_keys: Sequence[str], where: str = "",
    ) -> MergeSpec:
        """The MergeSpec for merging ``value_fields``; raises for options paimon_sql does not implement."""
        return build_merge_spec(options, key_columns, value_fields, primary_keys, where)

    def check_batch_delete(self, options: CoreOptions, where: str) -> None:
        """Paimon's rule for DELETE statements on primary-key tables (``validatePKUpsertDeletable``)."""
        if self.delete_option is None:
            raise UnsupportedError(f"Merge engine {self.name} can not support batch delete (table {where})")
        if not self.delete_option or _enabled(options, self.delete_option):
            return
        if self.name == "partial-update" and options.partial_update_remove_record_on_sequence_group:
            return
        raise UnsupportedError(
            f"Merge engine {self.name} doesn't support batch delete by default (table {where}): "
            f"set '{self.delete_option}' = 'true'"
        )

    def merge_fields(self, options: CoreOptions, fields: Sequence[DataField],
                     all_fields: Sequence[DataField]) -> list[DataField]:
        """The value fields a merge must read to produce ``fields``: the sequence fields, and for
        partial-update with sequence groups every column (groups compare their sequence fields)."""
        names = {f.name for f in fields}
        by_name = {f.name: f for f in all_fields}
        extra = [by_name[n] for n in options.sequence_fields if n not in names and n in by_name]
        if self.name == "partial-update" and options.sequence_groups():
            extra += [f for f in all_fields if f.name not in names and f not in extra]
        return list(fields) + extra


def _enabled(options: CoreOptions, key: str) -> bool:
    if key == "partial-update.remove-record-on-delete":
        return options.partial_update_remove_record_on_delete
    if key == "aggregation.remove-record-on-delete":
        return options.aggregation_remove_record_on_delete
    raise AssertionError(key)


MERGE_ENGINES: dict[str, MergeEngine] = {
    "deduplicate": MergeEngine("deduplicate", deduplicate),
    "partial-update": MergeEngine(
        "partial-update", partial_update, delete_option="partial-update.remove-record-on-delete"
    ),
    "aggregation": MergeEngine("aggregation", aggregation, delete_option="aggregation.remove-record-on-delete"),
    "first-row": MergeEngine("first-row", first_row, skips_level0=True, delete_option=None),
}


def engine(name: str) -> MergeEngine:
    try:
        return MERGE_ENGINES[name]
    except KeyError:
        raise UnsupportedError(f"Unknown merge-engine {name!r}; known: {sorted(MERGE_ENGINES)}") from None


def engine_of(options: CoreOptions) -> MergeEngine:
    return engine(options.merge_engine)
