"""The partial-update merge with sequence groups (Paimon's ``PartialUpdateMergeFunction`` with
``fields.<seq>.sequence-group``), for keys with several records, and the checks of those options.

The records of the keys become *events* (``Events``): every record is one, and a key whose first
record is a retraction gets one more before it (``init``) that initialises the row with its values.
Per group, a record takes part when its sequence fields are not all null, and *wins* when they are
not older than the row's (the running maximum, ties to the newer record). Sequence fields and plain
protected fields come from the last winner (null if that winner retracts); aggregated protected
fields fold the records taking part, each as its aggregator's ``in_sequence_group`` says.
With ``remove_record_on_sequence_group``, a key's last removing -D (``_row_removals``) replaces the
row: the merge runs on from it as from an initial row, and the row is a -D if it is last.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from paimon_sql.errors import UnsupportedError, ValidationError
from paimon_sql.format.system_fields import KIND, SEQ
from paimon_sql.lsm.agg_base import FieldAgg, SequenceGroupMerge, segments_of, take_or_null
from paimon_sql.lsm.aggregate import AGGREGATORS, LAST_NON_NULL_VALUE, aggregate_column, field_agg
from paimon_sql.lsm.merge_arrays import (
    KIND_DELETE,
    KIND_INSERT,
    KIND_UPDATE_BEFORE,
    PER_KEY_NULL_PLACEMENT,
    first_where,
    last_non_null,
    last_where,
    partial_update_seq_and_insert,
)
from paimon_sql.lsm.merge_spec import MergeSpec, SequenceGroup
from paimon_sql.options import CoreOptions
from paimon_sql.types import DataField


@dataclass(frozen=True)
class Events:
    """The records of the keys being merged, as events (per event: a row of ``table`` and flags),
    cut into keys by ``starts``/``ends`` (per key, inclusive)."""

    table: pa.Table
    init: np.ndarray  # initialises the row: a key's leading retraction (duplicated), or a removal
    add: np.ndarray  # +I/+U
    retract: np.ndarray  # -U/-D, not the init events
    delete: np.ndarray  # -D, not the init events
    key_of: np.ndarray
    starts: np.ndarray
    ends: np.ndarray

    @staticmethod
    def of(t: pa.Table, retract: np.ndarray, kinds: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> Events:
        """The events of the records ``t`` (sorted by key and sequence; keys ``starts``/``ends``)."""
        n = t.num_rows
        first = np.zeros(n, dtype=bool)
        first[starts] = True
        dup = np.flatnonzero(first & retract)
        idx = np.sort(np.concatenate([np.arange(n), dup])) if len(dup) else np.arange(n)
        init = np.zeros(len(idx), dtype=bool)
        init[np.searchsorted(idx, dup, side="left")] = True
        key_of = np.repeat(np.arange(len(starts)), ends - starts + 1)[idx]
        e_retract = retract[idx] & ~init
        return Events(
            table=t.take(pa.array(idx)) if len(dup) else t, init=init, add=~retract[idx], retract=e_retract,
            delete=(kinds[idx] == KIND_DELETE) & e_retract, key_of=key_of, **_bounds(key_of, len(starts)),
        )

    def restart_at(self, resets: np.ndarray) -> Events:
        """The events from each key's last of ``resets`` on (all of a key without any), the resets
        becoming initial rows."""
        last = np.full(len(self.starts), -1, dtype=np.int64)
        np.maximum.at(last, self.key_of[resets], resets)
        begin = np.where(last >= 0, last, self.starts)
        keep = np.arange(len(self.key_of)) >= begin[self.key_of]
        init = self.init.copy()
        init[resets] = True
        key_of = self.key_of[keep]
        return Events(
            table=self.table.take(pa.array(np.flatnonzero(keep))), init=init[keep], add=self.add[keep],
            retract=(self.retract & ~init)[keep], delete=(self.delete & ~init)[keep], key_of=key_of,
            **_bounds(key_of, len(self.starts)),
        )

    def all_null(self, columns: Sequence[str]) -> np.ndarray:
        """Events whose ``columns`` are all null (a sequence group an event leaves alone)."""
        return _all_null(self.table, columns)


def _bounds(key_of: np.ndarray, keys: int) -> dict[str, np.ndarray]:
    return {
        "starts": np.searchsorted(key_of, np.arange(keys), side="left"),
        "ends": np.searchsorted(key_of, np.arange(keys), side="right") - 1,
    }


@dataclass(frozen=True)
class _FieldEvents:
    """What an aggregated field of a sequence group folds: the events, which of them take part
    (``part``), win (``win``), retract (``ret``) or add (``add``), and per key whether the
    aggregator was called before these events (``initialized``: they start where a removal
    replaced the row; None when no removal did)."""

    arr: pa.Array
    init: np.ndarray
    part: np.ndarray
    win: np.ndarray
    ret: np.ndarray
    add: np.ndarray
    starts: np.ndarray
    ends: np.ndarray
    initialized: np.ndarray | None

    @property
    def pos(self) -> np.ndarray:
        return np.arange(len(self.init))

    def per_row(self, at: np.ndarray) -> np.ndarray:
        """A per-key value repeated over the key's events."""
        return np.repeat(at, self.ends - self.starts + 1)


def merge_with_groups(t: pa.Table, starts: np.ndarray, ends: np.ndarray, spec: MergeSpec) -> pa.Table:
    """One row per key of ``t`` (keys ``starts``..``ends``, each with several records)."""
    kinds = np.asarray(t.column(KIND).to_numpy(), dtype=np.int8)
    retract = (kinds == KIND_UPDATE_BEFORE) | (kinds == KIND_DELETE)
    ev = Events.of(t, retract, kinds, starts, ends)
    removed = np.zeros(len(starts), dtype=bool)  # the key's last record removed the row
    touched: dict[tuple[str, ...], np.ndarray] = {}
    if spec.remove_record_on_sequence_group and ev.delete.any():
        resets, triggers = _row_removals(ev, spec)
        _check_removal_retracts(ev, resets, triggers, spec, list(t.column_names))
        if len(resets):
            # the last removal replaced the whole row: the merge goes on from it, as from a first record
            restarted = ev.restart_at(resets)
            last = np.full(len(starts), -1, dtype=np.int64)
            np.maximum.at(last, ev.key_of[resets], resets)
            before = np.arange(len(ev.key_of)) < np.where(last >= 0, last, ev.starts)[ev.key_of]
            for g in spec.sequence_groups:  # first_value: had the group's aggregator been called before?
                called = before & ev.add & ~ev.all_null(g.sequence_fields)
                touched[g.sequence_fields] = np.add.reduceat(called.astype(np.int64), ev.starts) > 0
            removed = last == ev.ends
            ev = restarted
    applied = ev.retract & (not spec.ignore_delete)
    out: dict[str, pa.Array] = {}
    aggs = {fa.column: fa for fa in spec.field_aggs}
    for g in spec.sequence_groups:
        part = (ev.add | applied) & ~ev.all_null(g.sequence_fields)
        win = _group_wins(ev.table, g.sequence_fields, ev.init | part, ev.key_of, ev.starts)
        last_win = last_where(win, ev.starts, ev.ends)
        for c in g.sequence_fields:
            out[c] = take_or_null(ev.table.column(c).combine_chunks(), last_win)
        null_win = np.where(last_win >= 0, ev.retract[np.maximum(last_win, 0)], False)
        for f in g.fields:
            fa = aggs.get(f)
            arr = ev.table.column(f).combine_chunks()
            if fa is None:
                out[f] = take_or_null(arr, np.where(null_win, -1, last_win))
            else:
                out[f] = _group_field_agg(fa, _FieldEvents(
                    arr, ev.init, part, win, applied & part, ev.add & part, ev.starts, ev.ends,
                    touched.get(g.sequence_fields),
                ))
    rows = ev.init | ev.add  # fields outside groups: newest non-null of the row's initial values and inserts
    keys = set(spec.key_columns)
    seq_out, meet_insert = partial_update_seq_and_insert(t, retract, starts, ends, spec.ignore_delete)
    cols = []
    for name in t.column_names:
        if name in keys:
            cols.append(t.column(name).take(pa.array(ends)))
        elif name == KIND:
            cols.append(pa.array(np.where(meet_insert & ~removed, KIND_INSERT, KIND_DELETE).astype(np.int8)))
        elif name == SEQ:
            cols.append(pa.array(seq_out))
        elif name in out:
            cols.append(out[name])
        else:
            cols.append(last_non_null(ev.table.column(name), ev.starts, ev.ends, rows))
    return pa.Table.from_arrays(cols, names=t.column_names)


def _tuple_rank(t: pa.Table, columns: Sequence[str]) -> np.ndarray:
    """Dense rank of each row's values of ``columns``, compared in order with nulls first."""
    ranks = []
    for c in columns:
        col = t.column(c).combine_chunks()
        if PER_KEY_NULL_PLACEMENT:
            r = pc.rank(col, sort_keys=[("", "ascending", "at_start")], tiebreaker="dense")
        else:
            r = pc.rank(col, sort_keys="ascending", null_placement="at_start", tiebreaker="dense")
        ranks.append(np.asarray(r, dtype=np.int64))
    if len(ranks) == 1:
        return ranks[0]
    return np.unique(np.stack(ranks, axis=1), axis=0, return_inverse=True)[1].reshape(-1).astype(np.int64)


def _all_null(t: pa.Table, columns: Sequence[str]) -> np.ndarray:
    """Rows whose ``columns`` are all null."""
    empty = np.ones(t.num_rows, dtype=bool)
    for c in columns:
        empty &= np.asarray(t.column(c).is_null().to_numpy(), dtype=bool)
    return empty


def _group_wins(t: pa.Table, sequence_fields: Sequence[str], counted: np.ndarray, key_of: np.ndarray,
                starts: np.ndarray) -> np.ndarray:
    """The ``counted`` records whose sequence fields are not older than the row's (the running
    maximum of the key's counted records before them: Paimon's ``compare(record, row) >= 0``)."""
    rank = _tuple_rank(t, sequence_fields)
    off = key_of * (int(rank.max()) + 2)
    run = np.maximum.accumulate(np.where(counted, rank + off, off - 1))
    prev = np.empty(len(rank), dtype=np.int64)
    prev[1:] = run[:-1]
    prev[starts] = off[starts] - 1
    return counted & (rank + off >= prev)


def _row_removals(ev: Events, spec: MergeSpec) -> tuple[np.ndarray, np.ndarray]:
    """The -D records that remove their key's row (``partial-update.remove-record-on-sequence-group``)
    and, for each, the column position where Paimon's field loop meets the removal.

    A -D removes the row when, in a group of one of the listed sequence fields, its sequence fields
    are not all null and not older than the row's; the row then becomes the -D's values, from which
    later records merge on. As the row's sequence fields change at each removal, a key's removals
    are found one after the other (each round looks at the records after the last one found)."""
    listed = set(spec.remove_record_on_sequence_group)
    groups = [g for g in spec.sequence_groups if listed & set(g.sequence_fields)]
    names = list(ev.table.column_names)
    trigger_col = [min(names.index(c) for c in g.sequence_fields) for g in groups]
    found: list[np.ndarray] = []
    found_at: list[np.ndarray] = []
    begin = ev.starts.copy()
    restarted = np.zeros(len(ev.starts), dtype=bool)
    todo = np.flatnonzero(np.add.reduceat(ev.delete.astype(np.int64), ev.starts) > 0)
    while len(todo):
        lens = ev.ends[todo] - begin[todo] + 1
        s_ends = np.cumsum(lens) - 1
        s_starts = s_ends - lens + 1
        sel = np.repeat(begin[todo] - s_starts, lens) + np.arange(int(lens.sum()))
        sub = ev.table.take(pa.array(sel))
        s_key = np.repeat(np.arange(len(todo)), lens)
        s_init = ev.init[sel].copy()
        s_init[s_starts[restarted[todo]]] = True  # a removal is the row's new first record
        s_retract = ev.retract[sel] & ~s_init
        s_add = ev.add[sel]
        trig = np.full(len(sel), np.iinfo(np.int64).max, dtype=np.int64)
        for g, col in zip(groups, trigger_col):
            part = (s_add | s_retract) & ~_all_null(sub, g.sequence_fields)
            won = part & _group_wins(sub, g.sequence_fields, s_init | part, s_key, s_starts)
            trig = np.where(won, np.minimum(trig, col), trig)
        removal = ev.delete[sel] & ~s_init & (trig < np.iinfo(np.int64).max)
        first = first_where(removal, s_starts, s_ends)
        hit = first >= 0
        keys = todo[hit]
        found.append(sel[first[hit]])
        found_at.append(trig[first[hit]])
        begin[keys] = sel[first[hit]]
        restarted[keys] = True
        todo = keys[begin[keys] < ev.ends[keys]]
    if not found:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    return np.concatenate(found), np.concatenate(found_at)


def _check_retracts(fa: FieldAgg, retracting: bool) -> None:
    if retracting and not fa.ignore_retract and not AGGREGATORS[fa.function].retracts:
        raise UnsupportedError(
            f"Aggregate function '{fa.function}' does not support retraction (a -U/-D record of field "
            f"{fa.column!r}); to ignore retraction messages set 'fields.{fa.column}.ignore-retract' = 'true'"
        )


def _check_removal_retracts(ev: Events, resets: np.ndarray, triggers: np.ndarray, spec: MergeSpec,
                            names: Sequence[str]) -> None:
    """A removing -D still retracts, as Paimon's field loop does, the aggregated fields of its
    non-empty groups that come before the column where the removal happens: an aggregate function
    without retraction fails there as it does for any -D."""
    if not len(resets):
        return
    aggs = {fa.column: fa for fa in spec.field_aggs}
    sub = ev.table.take(pa.array(resets))
    for g in spec.sequence_groups:
        live = ~_all_null(sub, g.sequence_fields)
        for f in g.fields:
            fa = aggs.get(f)
            if fa is not None:
                _check_retracts(fa, bool((live & (names.index(f) < triggers)).any()))


def _group_field_agg(fa: FieldAgg, fe: _FieldEvents) -> pa.Array:
    """An aggregated field of a sequence group: records that win call agg(acc, x), older ones
    agg(x, acc) (aggReversed), retractions retract(acc, x); the initial row sets acc."""
    if fa.ignore_retract:  # FieldIgnoreRetractAgg: a retraction leaves the value
        fe = replace(fe, part=fe.part & ~fe.ret, ret=np.zeros_like(fe.ret))
    else:
        _check_retracts(fa, bool(fe.ret.any()))
    how = AGGREGATORS[fa.function].in_sequence_group
    assert how is not None, fa.function  # refused by partial_update_spec
    return _GROUP_MERGES[how](fa, fe)


def _group_last(fa: FieldAgg, fe: _FieldEvents) -> pa.Array:
    """last_value: the last record setting the value (null if it retracts)."""
    last = last_where(fe.init | (fe.add & fe.win) | fe.ret, fe.starts, fe.ends)
    return take_or_null(fe.arr, np.where((last >= 0) & fe.ret[np.maximum(last, 0)], -1, last))


def _group_last_non_null(fa: FieldAgg, fe: _FieldEvents) -> pa.Array:
    """last_non_null_value: the last record that settles the value (initial row, newer non-null,
    retracted non-null), else the first older non-null value after it fills the null."""
    valid = np.asarray(fe.arr.is_valid().to_numpy(zero_copy_only=False), dtype=bool)
    d = last_where(fe.init | (fe.add & fe.win & valid) | (fe.ret & valid), fe.starts, fe.ends)
    settled = (d >= 0) & ~fe.ret[np.maximum(d, 0)] & valid[np.maximum(d, 0)]
    after = fe.per_row(np.where(d >= 0, d, fe.starts - 1))
    fill = first_where(fe.add & ~fe.win & valid & (fe.pos > after), fe.starts, fe.ends)
    return take_or_null(fe.arr, np.where(settled, d, fill))


def _group_first(fa: FieldAgg, fe: _FieldEvents) -> pa.Array:
    """first_value, with Paimon's 'initialized' flag: the first record sets it (newer: its value,
    older: keeps acc); afterwards each older record replaces the value and newer ones keep it."""
    f = first_where(fe.add, fe.starts, fe.ends)
    no_first = fe.ends + 1
    if fe.initialized is not None:  # set already: every older record replaces the value
        f = np.where(fe.initialized, -1, f)
        no_first = np.where(fe.initialized, fe.starts - 1, no_first)
    after = fe.per_row(np.where(f >= 0, f, no_first))
    later_old = last_where(fe.add & ~fe.win & (fe.pos > after), fe.starts, fe.ends)
    base = np.where(fe.init[fe.starts], fe.starts, -1)
    f_wins = (f >= 0) & fe.win[np.maximum(f, 0)]
    return take_or_null(fe.arr, np.where(later_old >= 0, later_old, np.where(f_wins, f, base)))


def _group_fold(fa: FieldAgg, fe: _FieldEvents) -> pa.Array:
    """Commutative functions: agg and aggReversed agree, so the records taking part fold in row
    order, from the initial row."""
    sub_rows = np.flatnonzero(fe.init | fe.part)
    key_of = fe.per_row(np.arange(len(fe.starts)))[sub_rows]
    present = np.unique(key_of)
    g_starts = np.searchsorted(key_of, present, side="left")
    g_ends = np.searchsorted(key_of, present, side="right") - 1
    seg = segments_of(g_starts, g_ends, fe.ret[sub_rows], fe.init[sub_rows])
    if not len(sub_rows):
        return pa.nulls(len(fe.starts), fe.arr.type)
    folded = aggregate_column(fe.arr.take(pa.array(sub_rows)), seg, fa)
    where = np.full(len(fe.starts), -1, dtype=np.int64)
    where[present] = np.arange(len(present))
    return take_or_null(folded.take(pa.array(seg.ids[g_ends])), where)


_GROUP_MERGES: dict[SequenceGroupMerge, Callable[[FieldAgg, _FieldEvents], pa.Array]] = {
    "last": _group_last, "last_non_null": _group_last_non_null, "first": _group_first, "fold": _group_fold,
}


_REMOVE_ON_GROUP = "partial-update.remove-record-on-sequence-group"
_PK_IN_GROUP = (
    "The sequence-group '{}' contains primary key field '{}', which is not allowed. Primary key columns "
    "cannot be put in sequence-group."
)


def partial_update_spec(
    options: CoreOptions, spec: MergeSpec, value_fields: Sequence[DataField], primary_keys: Sequence[str],
    where: str,
) -> MergeSpec:
    """``spec`` with the partial-update engine's options: sequence groups and the aggregate functions
    of their fields, checked as Paimon's PartialUpdateMergeFunction.Factory checks them."""
    table = f" (table {where})" if where else ""
    if options.ignore_delete and options.partial_update_remove_record_on_delete:
        raise ValidationError(
            "ignore-delete and partial-update.remove-record-on-delete have conflicting behavior so should "
            f"not be enabled at the same time{table}."
        )
    if options.ignore_delete and options.contains(_REMOVE_ON_GROUP):
        raise ValidationError(
            f"ignore-delete and {_REMOVE_ON_GROUP} have conflicting behavior so should not be enabled "
            f"at the same time{table}."
        )
    names = {f.name for f in value_fields}
    groups: list[SequenceGroup] = []
    protected: dict[str, str] = {}
    for seqs, fields in options.sequence_groups().items():
        key = "fields." + ",".join(seqs) + ".sequence-group"
        for f in (*seqs, *fields):
            if f not in names:
                raise ValidationError(f"Field {f} can not be found in table schema ({key}){table}")
            if f in primary_keys:
                raise ValidationError(_PK_IN_GROUP.format(key, f) + table)
        for f in (*fields, *seqs):
            if f in protected:
                raise ValidationError(f"Field {f} is defined repeatedly by multiple groups: {key}{table}")
            protected[f] = key
        groups.append(SequenceGroup(tuple(seqs), tuple(fields)))
    if groups and options.partial_update_remove_record_on_delete:
        raise ValidationError(
            "sequence-group and partial-update.remove-record-on-delete have conflicting behavior so should "
            f"not be enabled at the same time{table}."
        )
    sequence_fields = {s for g in groups for s in g.sequence_fields}
    if options.contains(_REMOVE_ON_GROUP) and not (
        set(options.partial_update_remove_record_on_sequence_group) <= sequence_fields
        and options.partial_update_remove_record_on_sequence_group
    ):
        raise ValidationError(
            f"field '{options.raw.get(_REMOVE_ON_GROUP, '')}' defined in '{_REMOVE_ON_GROUP}' "
            f"option must be part of sequence groups{table}"
        )
    aggs = []
    for fld in value_fields:
        if fld.name in primary_keys or fld.name in sequence_fields:
            continue
        function = options.field_aggregate_function(fld.name) or options.fields_default_aggregate_function
        if function is None:
            continue
        if function != LAST_NON_NULL_VALUE and fld.name not in protected:
            raise ValidationError(
                f"Must use sequence group for aggregation functions but not found for field {fld.name}.{table}"
            )
        if fld.name not in protected:
            continue  # last_non_null_value outside a group is what partial-update does anyway
        fa = field_agg(fld, function, options)
        if AGGREGATORS[function].in_sequence_group is None:
            raise UnsupportedError(
                f"Aggregate function '{function}' of field {fld.name!r} in a partial-update sequence group is "
                f"not supported by paimon_sql yet{table}"
            )
        aggs.append(fa)
    return replace(
        spec,
        remove_record_on_delete=options.partial_update_remove_record_on_delete,
        sequence_groups=tuple(groups),
        field_aggs=tuple(aggs),
        remove_record_on_sequence_group=tuple(options.partial_update_remove_record_on_sequence_group),
    )
