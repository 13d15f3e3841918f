"""``MergeSpec``: what merging the records of a primary-key table needs to know about it (built by
its merge engine, :mod:`paimon_sql.lsm.engines`), and the partial-update ``SequenceGroup``."""

from __future__ import annotations

from dataclasses import dataclass

from paimon_sql.lsm.agg_base import FieldAgg


@dataclass(frozen=True)
class SequenceGroup:
    """A partial-update sequence group: ``fields`` change only with records whose ``sequence_fields``
    (compared in order, nulls first) are not all null; a record older than the row's sequence leaves
    them (aggregated fields: aggregates them in reverse), a newer or equal one sets them."""

    sequence_fields: tuple[str, ...]
    fields: tuple[str, ...]


@dataclass(frozen=True)
class MergeSpec:
    """What a merge needs to know about the table."""

    key_columns: tuple[str, ...]
    sequence_columns: tuple[str, ...] = ()  # the 'sequence.field' columns, compared before _SEQUENCE_NUMBER
    sequence_ascending: bool = True  # 'sequence.field.sort-order' (nulls are the oldest either way)
    ignore_delete: bool = False
    # partial-update / aggregation: a -D record replaces the key's row (and, last, removes it)
    remove_record_on_delete: bool = False
    # aggregation: how each value column is aggregated (columns without one keep the newest value);
    # partial-update: the aggregate functions of columns in sequence groups
    field_aggs: tuple[FieldAgg, ...] = ()
    # partial-update: 'fields.<s1,s2>.sequence-group' = 'f1,f2'
    sequence_groups: tuple[SequenceGroup, ...] = ()
    # partial-update: 'partial-update.remove-record-on-sequence-group' (sequence fields): a -D record
    # that updates the group of one of them removes the row (it becomes the row's new initial values)
    remove_record_on_sequence_group: tuple[str, ...] = ()
