"""The merge engines as objects, in one registry: what each engine merges, how it reads its options
into a MergeSpec, and its capabilities (whether paimon_sql can write it, whether a write keeps only
each key's newest record, whether batch reads skip level 0, whether a commit may be renumbered on a
newer snapshot, which columns a merge reads, and its rule for DELETE statements).

Writers (the write buffer and compaction), readers and the planner ask the table's engine instead
of comparing ``merge-engine`` strings. Adding an engine is one entry in ``MERGE_ENGINES`` plus the
module of its merge function.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from paimon_sql.errors import PaimonError, UnsupportedError
from paimon_sql.lsm.merge import (
    MergeFunction,
    MergeSpec,
    aggregation_spec,
    deduplicate,
    first_row,
)
from paimon_sql.lsm.merge_gather import aggregation, partial_update
from paimon_sql.lsm.partial_update_groups import partial_update_spec
from paimon_sql.options import CoreOptions
from paimon_sql.types import DataField

# an engine's options added to the common MergeSpec (checked; raising for what is not implemented)
SpecOptions = Callable[[CoreOptions, MergeSpec, Sequence[DataField], Sequence[str], str], MergeSpec]


def _no_options(options: CoreOptions, spec: MergeSpec, value_fields: Sequence[DataField],
                primary_keys: Sequence[str], where: str) -> MergeSpec:
    return spec


def _always(options: CoreOptions) -> bool:
    return True


def _never(options: CoreOptions) -> bool:
    return False


@dataclass(frozen=True)
class MergeEngine:
    name: str
    merge: MergeFunction
    spec_options: SpecOptions = _no_options
    # written by paimon_sql
    writable: bool = True
    # a write keeps each key's newest record of the buffer: a stable sort by key, no merge function
    newest_record_wins: bool = False
    # batch reads skip level-0 files (first-row: rows become visible once compaction moved them up,
    # which writers do at once, as Paimon's lookup compaction does)
    skips_level0: bool = False
    # a commit that lost a race may renumber its level-0 files on the newer snapshot instead of
    # writing them again (not first-row: its writers compact their level-0 files at once)
    resequences: bool = True
    # the option a DELETE statement needs ('' when deletes are always allowed; None when never) ...
    delete_option: str | None = ""
    # ... and whether the table's options allow DELETE statements
    deletes_allowed: Callable[[CoreOptions], bool] = _always
    # a merge reads every value column, whatever the read projects (partial-update sequence groups
    # compare their sequence fields)
    merges_all_fields: Callable[[CoreOptions], bool] = _never

    def spec(
        self, options: CoreOptions, key_columns: Sequence[str], value_fields: Sequence[DataField],
        primary_keys: Sequence[str], where: str = "",
    ) -> MergeSpec:
        """The MergeSpec for merging ``value_fields``; raises for options paimon_sql does not implement."""
        base = MergeSpec(
            key_columns=tuple(key_columns),
            sequence_columns=tuple(options.sequence_fields),
            sequence_ascending=options.sequence_field_ascending,
            ignore_delete=options.ignore_delete,
        )
        try:
            return self.spec_options(options, base, value_fields, primary_keys, where)
        except PaimonError as e:  # the aggregators' messages are Paimon's; say which table they are about
            if where and where not in str(e):
                raise type(e)(f"{e} (table {where})") from e
            raise

    def check_batch_delete(self, options: CoreOptions, where: str) -> None:
        """Paimon's rule for DELETE statements on primary-key tables (``validatePKUpsertDeletable``)."""
        if self.delete_option is None:
            raise UnsupportedError(f"Merge engine {self.name} can not support batch delete (table {where})")
        if self.deletes_allowed(options):
            return
        raise UnsupportedError(
            f"Merge engine {self.name} doesn't support batch delete by default (table {where}): "
            f"set '{self.delete_option}' = 'true'"
        )

    def merge_fields(self, options: CoreOptions, fields: Sequence[DataField],
                     all_fields: Sequence[DataField]) -> list[DataField]:
        """The value fields a merge must read to produce ``fields``: the sequence fields, and every
        column when the engine's merge compares others (``merges_all_fields``)."""
        names = {f.name for f in fields}
        by_name = {f.name: f for f in all_fields}
        extra = [by_name[n] for n in options.sequence_fields if n not in names and n in by_name]
        if self.merges_all_fields(options):
            extra += [f for f in all_fields if f.name not in names and f not in extra]
        return list(fields) + extra


MERGE_ENGINES: dict[str, MergeEngine] = {
    "deduplicate": MergeEngine("deduplicate", deduplicate, newest_record_wins=True),
    "partial-update": MergeEngine(
        "partial-update", partial_update, partial_update_spec,
        delete_option="partial-update.remove-record-on-delete",
        deletes_allowed=lambda o: o.partial_update_remove_record_on_delete
        or bool(o.partial_update_remove_record_on_sequence_group),
        merges_all_fields=lambda o: bool(o.sequence_groups()),
    ),
    "aggregation": MergeEngine(
        "aggregation", aggregation, aggregation_spec, delete_option="aggregation.remove-record-on-delete",
        deletes_allowed=lambda o: o.aggregation_remove_record_on_delete,
    ),
    "first-row": MergeEngine(
        "first-row", first_row, skips_level0=True, resequences=False, delete_option=None, deletes_allowed=_never
    ),
}


def engine(name: str) -> MergeEngine:
    try:
        return MERGE_ENGINES[name]
    except KeyError:
        raise UnsupportedError(f"Unknown merge-engine {name!r}; known: {sorted(MERGE_ENGINES)}") from None


def engine_of(options: CoreOptions) -> MergeEngine:
    return engine(options.merge_engine)


def build_merge_spec(
    options: CoreOptions,
    key_columns: Sequence[str],
    value_fields: Sequence[DataField],
    primary_keys: Sequence[str],
    where: str = "",
) -> MergeSpec:
    """The MergeSpec of the table's merge engine (``options``) for merging ``value_fields``; raises
    for options paimon_sql does not implement (naming them and ``where``, the table)."""
    return engine_of(options).spec(options, key_columns, value_fields, primary_keys, where)
