"""Reading splits into Arrow: schema evolution by field id, deletion vectors, merge-on-read, filters."""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, cast

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from paimon_sql.arrow_arrays import one_array
from paimon_sql.casting import cast_array
from paimon_sql.errors import CorruptFileError, NotFoundError, PaimonError, UnsupportedError
from paimon_sql.format import deletion_vector
from paimon_sql.format.data_files import file_format_of, read_file
from paimon_sql.format.system_fields import KEY_PREFIX
from paimon_sql.lsm.changelog import LEVEL, lookup_merge_filter, lookup_merges_levels
from paimon_sql.lsm.engines import engine_of
from paimon_sql.lsm.levels import KeyComparator, interval_partition
from paimon_sql.lsm.merge import KIND, SEQ, MergeSpec
from paimon_sql.lsm.merge_runs import encode_keys, sorted_view
from paimon_sql.meta.data_file_meta import DataFileMeta
from paimon_sql.meta.file_store import FileStore
from paimon_sql.meta.schema import TableSchema
from paimon_sql.predicate import Predicate, to_arrow_expression
from paimon_sql.scan.default_values import fill_defaults
from paimon_sql.scan.split import DataSplit, DeletionFile
from paimon_sql.types import ArrayType, DataField, DataType, MapType, RowType, to_arrow_field, to_arrow_type

# how a data file's columns become the output columns: (out name, file column, field) per output
# column, and the file schema's fields by id (``data_file_plan``)
Wanted = tuple[list[tuple[str, "str | None", "DataField | None"]], dict[int, DataField]]

_LOG = logging.getLogger(__name__)


def output_schema(fields: Sequence[DataField]) -> pa.Schema:
    return pa.schema([to_arrow_field(f) for f in fields])


def _file_format(store: FileStore, f: DataFileMeta) -> str:
    return file_format_of(f.file_name, store.options.file_format)


def _cast(arr: pa.ChunkedArray | pa.Array, source: DataType, field: DataField) -> pa.ChunkedArray | pa.Array:
    """A file's column (Paimon type ``source``, the file schema's) as ``field``'s type: the Arrow
    representation normalised, and Paimon's cast rules applied after a type change."""
    target = to_arrow_type(field.type)
    if arr.type.equals(target) and source.copy(True) == field.type.copy(True):
        return arr
    if _has_row(source) and _has_row(field.type):
        chunks = arr.chunks if isinstance(arr, pa.ChunkedArray) else [arr]
        return pa.chunked_array([_evolve(c, source, field.type) for c in chunks], type=target)
    if isinstance(arr, pa.ChunkedArray):
        return pa.chunked_array([cast_array(c, source, field.type) for c in arr.chunks], type=target)
    return cast_array(arr, source, field.type)


def _has_row(t: DataType) -> bool:
    if isinstance(t, RowType):
        return True
    if isinstance(t, ArrayType):
        return _has_row(t.element)
    if isinstance(t, MapType):
        return _has_row(t.key) or _has_row(t.value)
    return False


def _evolve(arr: pa.Array, source: DataType, target: DataType) -> pa.Array:
    """``arr`` (a file's values of type ``source``) as ``target`` after nested schema changes: ROW
    fields matched by field id (Paimon's nested ids), added ones null, dropped ones gone, renamed
    ones keep their values, widened ones cast; ARRAY elements and MAP values recursively."""
    out_type = to_arrow_type(target)
    if isinstance(source, RowType) and isinstance(target, RowType):
        if isinstance(arr, pa.ChunkedArray):
            arr = arr.combine_chunks()
        by_id = {f.id: (i, f) for i, f in enumerate(source.fields)}
        children = []
        for f in target.fields:
            hit = by_id.get(f.id)
            if hit is None:
                children.append(pa.nulls(len(arr), to_arrow_type(f.type)))
            else:
                children.append(_evolve(arr.field(hit[0]), hit[1].type, f.type))
        mask = arr.is_null() if arr.null_count else None
        return pa.StructArray.from_arrays(children, fields=list(out_type), mask=mask)
    if isinstance(source, ArrayType) and isinstance(target, ArrayType) and _has_row(target.element):
        lst = arr.cast(pa.large_list(arr.type.value_type)) if pa.types.is_large_list(out_type) else arr
        values = _evolve(lst.values, source.element, target.element)
        offsets = lst.offsets
        mask = lst.is_null() if lst.null_count else None
        cls = pa.LargeListArray if pa.types.is_large_list(out_type) else pa.ListArray
        return cls.from_arrays(offsets, values, type=out_type, mask=mask)
    if isinstance(source, MapType) and isinstance(target, MapType) and _has_row(target.value):
        keys = _evolve(arr.keys, source.key, target.key)
        items = _evolve(arr.items, source.value, target.value)
        mask = arr.is_null() if arr.null_count else None
        return pa.MapArray.from_arrays(arr.offsets, keys, items, type=out_type, mask=mask)
    return cast_array(arr, source, target)


def data_file_plan(
    store: FileStore, f: DataFileMeta, fields: Sequence[DataField], system_columns: Sequence[str] = (),
    key_fields: Sequence[DataField] = (),
) -> tuple[list[str], Wanted]:
    """The columns to read from data file ``f`` and how they map to the output (see
    ``read_data_file``; ``evolve_file_table`` applies the mapping to what was read)."""
    if f.write_cols is not None:
        # data evolution: the file holds some columns of rows whose others live in other files
        # (matched by first_row_id); reading it alone would return NULL for those
        raise UnsupportedError(
            f"Table {store.name}: data file {f.file_name} holds only the columns {list(f.write_cols)} "
            "(data-evolution.enabled); reading data-evolution tables is not supported yet"
        )
    file_schema: TableSchema = (
        store.schema if f.schema_id == store.schema.id else store.schemas.schema(f.schema_id)
    )
    by_id = file_schema.field_by_id()
    wanted: list[tuple[str, str | None, DataField | None]] = []  # (out name, file column, field)
    for kf in key_fields:
        old = by_id.get(kf.id)
        wanted.append((KEY_PREFIX + kf.name, KEY_PREFIX + old.name if old else None, kf))
    for s in system_columns:
        wanted.append((s, s, None))
    for fld in fields:
        prev = by_id.get(fld.id)
        wanted.append((fld.name, prev.name if prev else None, fld))
    file_cols = sorted({c for _, c, _ in wanted if c is not None})
    return file_cols, (wanted, by_id)


def evolve_file_table(table: pa.Table | None, n: int, plan: Wanted) -> pa.Table:
    """The output columns of ``plan`` (``data_file_plan``) from ``table``, the file columns read
    (None when none were: ``n`` rows)."""
    wanted, by_id = plan
    arrays, names = [], []
    present = set(table.column_names) if table is not None else set()
    for out, col, target in wanted:
        if col is None or (target is not None and col not in present):
            # a column the file's schema has but the file lacks (Paimon's readers fill nulls: files a
            # `copy` gave a newer schema id, or written by writers that skip all-null columns)
            assert target is not None
            arrays.append(pa.nulls(n, to_arrow_type(target.type)))
        else:
            assert table is not None
            arr = table.column(col)
            arrays.append(_cast(arr, by_id[target.id].type, target) if target is not None else arr)
        names.append(out)
    return pa.Table.from_arrays(arrays, names=names)


def read_data_file(
    store: FileStore,
    split: DataSplit,
    f: DataFileMeta,
    fields: Sequence[DataField],
    system_columns: Sequence[str] = (),
    key_fields: Sequence[DataField] = (),
) -> pa.Table:
    """Reads one data file as the current schema's ``fields`` (mapped by field id), plus the given
    system columns (``_SEQUENCE_NUMBER``, ``_VALUE_KIND``) and ``_KEY_<name>`` columns."""
    file_cols, plan = data_file_plan(store, f, fields, system_columns, key_fields)
    path = store.data_file_path(split.bucket_dir, f.file_name, f.external_path)
    try:
        table = read_file(store.file_io, path, _file_format(store, f), file_cols, f.row_count, f.file_size)
    except CorruptFileError as e:
        if not store.options.scan_ignore_corrupt_files:
            raise CorruptFileError(f"Table {store.name}: {e}") from e
        _LOG.warning("scan.ignore-corrupt-files: skipping a data file of table %s: %s", store.name, e)
        return _no_rows(plan[0])
    except NotFoundError as e:
        if not store.options.scan_ignore_lost_files:
            raise NotFoundError(f"Table {store.name}: {e}") from e
        _LOG.warning("scan.ignore-lost-files: skipping a data file of table %s: %s", store.name, e)
        return _no_rows(plan[0])
    out_table = evolve_file_table(table if file_cols else None, table.num_rows if file_cols else f.row_count, plan)
    dv = split.deletion_files.get(f.file_name)
    if dv is not None:
        out_table = apply_deletion_vector(store, out_table, dv)
    return out_table


def _no_rows(wanted: Sequence[tuple[str, str | None, DataField | None]]) -> pa.Table:
    """What ``read_data_file`` returns for a skipped file: its output columns, no rows."""
    system = {SEQ: pa.int64(), KIND: pa.int8()}
    return pa.table({
        out: pa.array([], to_arrow_type(target.type) if target is not None else system.get(out, pa.int64()))
        for out, _, target in wanted
    })


def apply_deletion_vector(store: FileStore, table: pa.Table, dv: DeletionFile) -> pa.Table:
    with store.file_io.open_input_file(dv.path) as fh:
        fh.seek(dv.offset)
        data = fh.read(dv.length + 8 if dv.length else 0)
    deleted = deletion_vector.deserialize(data, dv.path)
    if deleted.size == 0:
        return table
    keep = np.ones(table.num_rows, dtype=bool)
    deleted = deleted[deleted < table.num_rows]
    keep[deleted] = False
    return table.filter(pa.array(keep))


def read_split(
    store: FileStore, split: DataSplit, fields: Sequence[DataField], predicate: Predicate | None = None,
    defaults: bool = True, keep_row_kind: bool = False, sequence_number: bool = False,
) -> pa.Table:
    """All live rows of ``split`` as a table of ``fields`` (filtered by ``predicate`` if given).
    Nulls of columns with a ``fields.<name>.default-value`` read as that value, before the filter;
    ``defaults=False`` keeps them (a rewrite of the data, which must not store the defaults).

    ``keep_row_kind``: a last column ``_VALUE_KIND`` (int8: 0 +I, 1 -U, 2 +U, 3 -D) holds each row's
    kind, and retractions are kept (Paimon's ``forceKeepDelete``: a key whose merged record is a
    delete reads as that -D row; rows of append tables are +I).

    ``sequence_number`` (primary-key tables): a first column ``_SEQUENCE_NUMBER`` (int64) holds each
    row's sequence number (of the merged record: Paimon's ``key-value.sequence_number.enabled``)."""
    schema = output_schema(fields)
    if keep_row_kind:
        schema = schema.append(pa.field(KIND, pa.int8(), False))
    if sequence_number:
        if not store.has_primary_key:
            raise UnsupportedError(f"Table {store.name}: sequence numbers are only read from primary-key tables "
                                   "(table-read.sequence-number.enabled)")
        schema = schema.insert(0, pa.field(SEQ, pa.int64(), False))
    if not store.has_primary_key:
        parts = [read_data_file(store, split, f, fields) for f in split.files]
        if keep_row_kind:
            parts = [p.append_column(KIND, pa.array(np.zeros(p.num_rows, dtype=np.int8))) for p in parts]
    else:
        value_fields = engine_of(store.options).merge_fields(store.options, fields, store.schema.fields)
        spec = check_merge_supported(store, value_fields)
        names = ([SEQ] if sequence_number else []) + [f.name for f in fields] + ([KIND] if keep_row_kind else [])
        system = (SEQ, KIND) if sequence_number else (KIND,)
        parts = []
        for files, merge in _sections(store, split):
            if not merge:  # one sorted run: every key has one record, read as it is
                for f in files:
                    t = read_data_file(store, split, f, fields, system)
                    parts.append(t.select(names) if keep_row_kind else _drop_retract_rows(t).select(names))
                continue
            lookup = lookup_merges_levels(store.options)
            sequence = lookup or not _sequence_by_file(files, spec, sequence_number)
            if not lookup:
                parts.extend(_merge_section(store, split, files, value_fields, spec, sequence, keep_row_kind,
                                            sequence_number, names))
                continue
            # Paimon's LookupMergeFunction (see lsm/changelog.py)
            runs = [_read_run(store, split, f, value_fields, sequence) for f in files]
            runs = [r.append_column(LEVEL, pa.array(np.full(r.num_rows, f.level, dtype=np.int32)))
                    for r, f in zip(runs, files)]
            table = lookup_merge_filter(pa.concat_tables(runs), spec.key_columns).drop_columns([LEVEL])
            merged = engine_of(store.options).merge(table, spec, keep_row_kind)
            parts.append(_with_sequence(merged, store, sequence_number).select(names))
    if not parts:
        return schema.empty_table()
    result = pa.concat_tables(parts) if len(parts) > 1 else parts[0]
    if defaults:
        result = fill_defaults(result, fields, store.options, store.name)
    if predicate is not None:
        result = result.filter(to_arrow_expression(predicate))
    return result.cast(schema) if not result.schema.equals(schema) else result


def _merge_section(store: FileStore, split: DataSplit, files: Sequence[DataFileMeta],
                   value_fields: Sequence[DataField], spec: MergeSpec, sequence: bool, keep_row_kind: bool,
                   sequence_number: bool, names: list[str]) -> list[pa.Table]:
    """The merged rows of a section's ``files`` (several sorted runs), in key order, as ``names``
    (``keep_row_kind``: retractions kept, see ``read_split``).

    The files are merged oldest first: the records of a key then arrive in sequence order and need
    no re-sort (``sorted_view`` checks it unless ``sequence`` is False: ordered by file alone, see
    ``_sequence_by_file``). Key ranges only one file holds are read as they are
    (``key_range_pieces``); in a ``deduplicate`` merge by file order, a range whose newest file
    holds every key of the older ones is that file's rows (``_newest_covers``), and an older file
    that newer ones may replace (they hold as many rows) is read for its key columns first
    (``_read_keys``): its values only if a range needs them (``_read_needed``)."""
    by_age = sorted(files, key=lambda f: f.max_sequence_number)  # stable: equal ages keep their order
    # first-row drops retractions in a merge: keys only one run holds are split off only when
    # retractions are not kept (and a covered range is its newest slice without retractions)
    split_ranges = not keep_row_kind
    cover = (split_ranges and not sequence and store.options.merge_engine == "deduplicate"
             and not spec.ignore_delete)
    runs: list[pa.Table | None] | None = None
    # a file can go unread past its keys only if the newer files hold at least as many rows (every
    # key of it in a newer file): those are read keys first, the others whole (the newest always)
    keys_first = [cover and sum(n.row_count for n in by_age[i + 1:]) >= f.row_count
                  for i, f in enumerate(by_age)]
    if any(keys_first):
        first = [_read_keys(store, split, f) if k else _read_run(store, split, f, value_fields, sequence)
                 for f, k in zip(by_age, keys_first)]
        per = _run_keys(first, spec.key_columns)
        plan, covered = _piece_plan(first, spec, per, split_ranges, cover)
        runs = _read_needed(store, split, by_age, first, keys_first, value_fields, sequence,
                            _needed_runs(plan, covered))
    if runs is None:  # every file read whole (or a file skipped under scan.ignore-*-files: as read whole)
        runs = [_read_run(store, split, f, value_fields, sequence) for f in by_age]
        full = cast(list[pa.Table], runs)
        per = _run_keys(full, spec.key_columns)
        plan, covered = _piece_plan(full, spec, per, split_ranges, cover)

    def run(i: int) -> pa.Table:
        r = cast(list[pa.Table | None], runs)[i]
        if r is None:
            raise AssertionError(f"a merge of table {store.name} needs a file it did not read")
        return r

    parts: list[pa.Table] = []
    for piece, whole in zip(plan, covered):
        if isinstance(piece, tuple) or whole:
            # (run, start, stop) of keys no other run holds; or the newest slice of a covered range
            i, start, stop = piece if isinstance(piece, tuple) else piece[-1]
            parts.append(_drop_retract_rows(run(i).slice(start, stop - start)).select(names))
            continue
        codes = None
        if per is not None and all(isinstance(k, _IntKeys) for k in per):
            codes = np.concatenate([cast(_IntKeys, per[i]).codes[a:b] for i, a, b in piece])
        merged = _merge_runs(pa.concat_tables([run(i).slice(a, b - a) for i, a, b in piece]),
                             store, spec, keep_row_kind, sequence_number, codes, not sequence)
        parts.append(merged.select(names))
    return parts


def _piece_plan(runs: Sequence[pa.Table], spec: MergeSpec, per: Sequence[_IntKeys | _BytesKeys] | None,
                split_ranges: bool, cover: bool) -> tuple[list[Slice | list[Slice]], list[bool]]:
    """The pieces of a section's runs (``key_range_pieces``, or one piece of every run) and, per
    piece, whether its newest slice wins whole (``cover``: a deduplicate merge by file order)."""
    pieces = key_range_pieces(runs, spec.key_columns, per) if split_ranges else None
    plan: list[Slice | list[Slice]] = (
        pieces if pieces is not None else [[(i, 0, r.num_rows) for i, r in enumerate(runs)]])
    covered = [cover and isinstance(p, list) and per is not None and _newest_covers(per, p) for p in plan]
    return plan, covered


def _needed_runs(plan: Sequence[Slice | list[Slice]], covered: Sequence[bool]) -> set[int]:
    """The runs whose rows a merge following ``plan`` reads."""
    needed: set[int] = set()
    for piece, whole in zip(plan, covered):
        if isinstance(piece, tuple):
            needed.add(piece[0])
        elif whole:
            needed.add(piece[-1][0])
        else:
            needed.update(i for i, _, _ in piece)
    return needed


def _read_keys(store: FileStore, split: DataSplit, f: DataFileMeta) -> pa.Table:
    """The ``_KEY_`` columns of data file ``f``."""
    return read_data_file(store, split, f, [], (), store.key_fields)


def _read_needed(store: FileStore, split: DataSplit, files: Sequence[DataFileMeta], first: Sequence[pa.Table],
                 keys_first: Sequence[bool], value_fields: Sequence[DataField], sequence: bool,
                 needed: set[int]) -> list[pa.Table | None] | None:
    """The runs (as ``_read_run`` reads them) of a section's ``files``: ``first`` holds what was
    read of each, the run itself or, where ``keys_first``, its key columns, to which the rest of the
    file is added if it is ``needed``; None for a file not needed. None in all when a file's rest
    has other rows than its keys (a file skipped under ``scan.ignore-corrupt-files``)."""
    read, system = _run_columns(store, value_fields, sequence)
    out: list[pa.Table | None] = []
    for i, (f, k) in enumerate(zip(files, first)):
        if not keys_first[i] or i not in needed:
            out.append(k if not keys_first[i] else None)
            continue
        rest = read_data_file(store, split, f, read, system)
        if rest.num_rows != k.num_rows:
            return None
        out.append(_as_run(store, k, rest, value_fields, system))
    return out


def _merge_runs(table: pa.Table, store: FileStore, spec: MergeSpec, keep_row_kind: bool,
                sequence_number: bool, codes: np.ndarray | None = None, oldest_first: bool = False) -> pa.Table:
    """The concatenated runs ``table`` (oldest first) merged by their key order (lsm/merge_runs.py);
    the key columns (and the sequence numbers, unless asked for or compared by sequence groups) are
    not gathered into the result. ``codes`` and ``oldest_first``: see ``sorted_view`` (a table
    whose runs are ordered by file has no ``_SEQUENCE_NUMBER``: see ``_read_run``)."""
    view = sorted_view(table, spec, codes, oldest_first)
    drop_seq = SEQ in table.column_names and not (sequence_number or spec.sequence_groups)
    unused = [*spec.key_columns, *((SEQ,) if drop_seq else ())]
    merged = engine_of(store.options).merge(table.drop_columns(unused), spec, keep_row_kind, view=view)
    return _with_sequence(merged, store, sequence_number)


def _with_sequence(merged: pa.Table, store: FileStore, sequence_number: bool) -> pa.Table:
    """``merged``, checked to hold ``_SEQUENCE_NUMBER`` when the read returns it."""
    if sequence_number and SEQ not in merged.column_names:
        raise UnsupportedError(f"Table {store.name}: the merge engine does not keep sequence numbers")
    return merged


# at most this many key ranges of a section are merged apart (runs whose files interleave with
# many others' make many small ranges: one merge of the whole section then)
MAX_MERGED_RANGES = 16
Slice = tuple[int, int, int]  # (run, start row, stop row)


class _IntKeys:
    """A run's keys as the int64 codes of ``lsm.merge_runs.encode_keys`` (Python ints outside)."""

    def __init__(self, codes: np.ndarray) -> None:
        self.codes = codes
        self._strictly_sorted: bool | None = None

    def __len__(self) -> int:
        return len(self.codes)

    def at(self, i: int) -> Any:
        return int(self.codes[i])

    @staticmethod
    def after(key: Any) -> Any:
        return key + 1

    def position(self, key: Any) -> int:
        """The number of keys below ``key``."""
        return int(np.searchsorted(self.codes, np.int64(key), "left")) if key <= _INT64_MAX else len(self.codes)

    def strictly_sorted(self) -> bool:
        """Whether each key is above the one before (computed once)."""
        if self._strictly_sorted is None:
            c = self.codes
            self._strictly_sorted = len(c) < 2 or bool((c[1:] > c[:-1]).all())
        return self._strictly_sorted


class _BytesKeys:
    """A run's keys of one string or binary column, compared as bytes (Paimon compares strings by
    their UTF-8 bytes, as Arrow and Python's ``bytes`` do)."""

    def __init__(self, col: pa.Array) -> None:
        self.col = col
        self.string = pa.types.is_string(col.type) or pa.types.is_large_string(col.type)

    def __len__(self) -> int:
        return len(self.col)

    def at(self, i: int) -> Any:
        v = self.col[i].as_py()
        return v.encode() if self.string else bytes(v)

    @staticmethod
    def after(key: Any) -> Any:
        return key + b"\x00"  # the next byte string

    def position(self, key: Any) -> int:
        bound = pa.scalar(key.decode() if self.string else key, self.col.type)
        return int(pc.sum(pc.less(self.col, bound)).as_py() or 0)

    def strictly_sorted(self) -> bool:
        n = len(self.col)
        return n < 2 or bool(pc.all(pc.less(self.col.slice(0, n - 1), self.col.slice(1))).as_py())


_INT64_MAX = int(np.iinfo(np.int64).max)


def _run_keys(runs: Sequence[pa.Table], key_columns: Sequence[str]) -> Sequence[_IntKeys | _BytesKeys] | None:
    """Each run's keys in a form whose order is Paimon's key order, or None."""
    sizes = [r.num_rows for r in runs]
    if len(key_columns) == 1 and not any(r.column(key_columns[0]).null_count for r in runs):
        # a single column without nulls: its codes are its values, comparable across runs
        per_run = [encode_keys(r.select(list(key_columns)), key_columns) for r in runs]
        if all(c is not None for c in per_run):
            return [_IntKeys(cast(np.ndarray, c)) for c in per_run]
    codes = encode_keys(pa.concat_tables([r.select(list(key_columns)) for r in runs]), key_columns)
    if codes is not None:
        bounds = np.cumsum([0, *sizes])
        return [_IntKeys(codes[bounds[i]:bounds[i + 1]]) for i in range(len(runs))]
    if len(key_columns) == 1:
        cols = [one_array(r.column(key_columns[0])) for r in runs]
        t = cols[0].type
        if (pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_binary(t)
                or pa.types.is_large_binary(t)) and not any(c.null_count for c in cols):
            return [_BytesKeys(c) for c in cols]
    return None


def key_range_pieces(runs: Sequence[pa.Table], key_columns: Sequence[str],
                     per: Sequence[_IntKeys | _BytesKeys] | None = None) -> list[Slice | list[Slice]] | None:
    """The rows of a section's ``runs`` (each in key order, each key at most once in a run) in key
    order, as pieces: a ``(run, start, stop)`` slice of keys that no other run has (one record
    each: no merge), or a list of slices to merge (a key range that several runs cover). Only
    the merged ranges need the merge's sort and gather; in a table whose newer commits add keys
    above the older ones (two overlapping commits: the upper part of every bucket) most rows
    skip it.

    None when nothing would be saved: no row outside the shared ranges, keys that are neither
    int64-coded (``lsm.merge_runs.encode_keys``) nor one string or binary column (composite keys
    with strings, decimals), a run not strictly in key order, or more than ``MAX_MERGED_RANGES``
    shared ranges. ``per``: the runs' ``_run_keys``, if the caller has them (else computed)."""
    if len(runs) < 2 or sum(r.num_rows for r in runs) == 0:
        return None
    if per is None:
        per = _run_keys(runs, key_columns)
    if per is None or not all(k.strictly_sorted() for k in per):
        return None
    # the key ranges (half-open: [first key, the key after the last)) that two runs or more cover
    delta: dict[Any, int] = {}
    for k in per:
        if len(k):
            lo, hi = k.at(0), k.after(k.at(len(k) - 1))
            delta[lo] = delta.get(lo, 0) + 1
            delta[hi] = delta.get(hi, 0) - 1
    shared: list[tuple[Any, Any]] = []
    depth, opened = 0, None
    for at in sorted(delta):
        depth += delta[at]
        if depth >= 2 and opened is None:
            opened = at
        elif depth < 2 and opened is not None:
            shared.append((opened, at))
            opened = None
    if len(shared) > MAX_MERGED_RANGES:
        return None
    # cuts[i]: run i's first row of each shared range and first row after it
    cuts = []
    for k in per:
        cut = [0]
        for a, b in shared:
            cut.append(k.position(a))
            cut.append(k.position(b))
        cut.append(len(k))
        cuts.append(cut)
    if sum(cut[2 * g + 1] - cut[2 * g] for cut in cuts for g in range(len(shared) + 1)) == 0:
        return None  # every row is in a shared range
    pieces: list[Slice | list[Slice]] = []
    for g in range(len(shared) + 1):
        # the gap before shared range g (after the last one): slices of one run each, disjoint
        gap: list[Slice] = [(i, cut[2 * g], cut[2 * g + 1]) for i, cut in enumerate(cuts)
                            if cut[2 * g + 1] > cut[2 * g]]
        gap.sort(key=lambda sl: per[sl[0]].at(sl[1]))
        pieces.extend(gap)
        if g < len(shared):
            pieces.append([(i, cut[2 * g + 1], cut[2 * g + 2]) for i, cut in enumerate(cuts)
                           if cut[2 * g + 2] > cut[2 * g + 1]])
    return pieces


# the largest key span ``_newest_covers`` marks, per row of the piece (a bitmap of the span)
_COVER_SPAN_PER_ROW = 8


def _newest_covers(per: Sequence[_IntKeys | _BytesKeys], piece: Sequence[Slice]) -> bool:
    """Whether every key of ``piece``'s older slices is also a key of its last (newest) slice:
    int64-coded keys (``_IntKeys``) of runs strictly in key order only, whose span in the newest
    slice is at most ``_COVER_SPAN_PER_ROW`` per row of the piece (one byte per key value of the
    span, marked)."""
    if len(piece) < 2 or not all(isinstance(per[i], _IntKeys) and per[i].strictly_sorted() for i, _, _ in piece):
        return False
    i, start, stop = piece[-1]
    newest = cast(_IntKeys, per[i]).codes[start:stop]
    if len(newest) == 0:
        return False
    lo, hi = int(newest[0]), int(newest[-1])  # strictly sorted
    older = [cast(_IntKeys, per[j]).codes[a:b] for j, a, b in piece[:-1]]
    rows = len(newest) + sum(len(c) for c in older)
    if hi - lo + 1 > _COVER_SPAN_PER_ROW * rows:
        return False
    if any(len(c) > len(newest) or int(c[0]) < lo or int(c[-1]) > hi for c in older if len(c)):
        return False
    marked = np.zeros(hi - lo + 1, dtype=bool)
    marked[newest - np.int64(lo)] = True
    return all(bool(marked[c - np.int64(lo)].all()) for c in older)


def _read_run(store: FileStore, split: DataSplit, f: DataFileMeta, value_fields: Sequence[DataField],
              sequence: bool = True) -> pa.Table:
    """Data file ``f`` as a run to merge: its ``_KEY_`` columns, ``_SEQUENCE_NUMBER``,
    ``_VALUE_KIND`` and ``value_fields``. A value field that is a key field is not read a second time:
    a key-value file's value row holds the key fields with the key's very values, so the column is
    the ``_KEY_`` column (read as the same field, through the same casts).

    ``sequence=False``: ``_SEQUENCE_NUMBER`` is neither read nor returned: the merge orders a key's
    records by file alone (see ``_sequence_by_file``)."""
    read, system = _run_columns(store, value_fields, sequence)
    if len(read) == len(value_fields):
        return read_data_file(store, split, f, value_fields, system, store.key_fields)
    t = read_data_file(store, split, f, read, system, store.key_fields)
    return _as_run(store, t, t, value_fields, system)


def _run_columns(store: FileStore, value_fields: Sequence[DataField],
                 sequence: bool) -> tuple[list[DataField], tuple[str, ...]]:
    """What a run reads besides its ``_KEY_`` columns: the value fields that are not key fields
    (those are the ``_KEY_`` columns), and the system columns."""
    key_ids = {k.id for k in store.key_fields}
    return [v for v in value_fields if v.id not in key_ids], ((SEQ, KIND) if sequence else (KIND,))


def _as_run(store: FileStore, keys: pa.Table, rest: pa.Table, value_fields: Sequence[DataField],
            system: Sequence[str]) -> pa.Table:
    """A run's table (``_read_run``'s layout) from a file's ``_KEY_`` columns (``keys``) and its
    other columns (``rest``; the same table when read at once)."""
    key_column = {k.id: KEY_PREFIX + k.name for k in store.key_fields}
    cols = ([keys.column(c) for c in key_column.values()] + [rest.column(c) for c in system]
            + [keys.column(key_column[v.id]) if v.id in key_column else rest.column(v.name) for v in value_fields])
    return pa.Table.from_arrays(cols, names=[*key_column.values(), *system, *(v.name for v in value_fields)])


def _sequence_by_file(files: Sequence[DataFileMeta], spec: MergeSpec, sequence_number: bool) -> bool:
    """Whether a merge of ``files`` (oldest first: by ``max_sequence_number``) orders each key's records by
    file alone: the files' sequence-number ranges do not overlap (every record of an older file is
    older than every record of a newer one; a file holds a key once), the merge compares no
    ``sequence.field`` and neither it nor the read returns ``_SEQUENCE_NUMBER``. The column is then
    not read (it is as costly to decode as the key)."""
    if sequence_number or spec.sequence_columns or spec.sequence_groups:
        return False
    by_age = sorted(files, key=lambda f: f.max_sequence_number)
    return all(a.max_sequence_number < b.min_sequence_number for a, b in zip(by_age, by_age[1:]))


READ_THREADS = max(1, min(4, os.cpu_count() or 1))


def read_splits_parallel(
    jobs: Sequence[tuple[FileStore, DataSplit, Sequence[DataField]]], predicate: Predicate | None
) -> list[pa.Table]:
    """Reads splits on a few threads (pyarrow decodes and sorts without the GIL); keeps order."""
    if len(jobs) <= 1:
        return [read_split(st, sp, f, predicate) for st, sp, f in jobs]
    with ThreadPoolExecutor(max_workers=READ_THREADS) as pool:
        return list(pool.map(lambda j: read_split(j[0], j[1], j[2], predicate), jobs))


def _sections(store: FileStore, split: DataSplit) -> list[tuple[Sequence[DataFileMeta], bool]]:
    """The split's files in key-range sections (Paimon's IntervalPartition), with whether each
    needs a merge (several sorted runs) or can be read file by file (one run). A split whose keys
    cannot be ordered (undecodable min/max keys) is one section to merge."""
    if split.raw_convertible:
        return [(split.files, False)]
    if len(split.files) <= 1:
        return [(split.files, False)]
    try:
        sections = interval_partition(split.files, KeyComparator([k.type for k in store.key_fields]))
    except (PaimonError, TypeError):
        return [(split.files, True)]
    return [([f for run in section for f in run.files], len(section) > 1) for section in sections]


def check_merge_supported(store: FileStore, value_fields: Sequence[DataField] | None = None) -> MergeSpec:
    """The merge of ``value_fields`` (default: every column) by the table's merge engine; options and
    aggregate functions paimon_sql does not implement fail loudly instead of merging wrongly."""
    fields = list(store.schema.fields) if value_fields is None else value_fields
    return engine_of(store.options).spec(
        store.options,
        [KEY_PREFIX + k.name for k in store.key_fields],
        fields,
        store.schema.primary_keys,
        store.name,
    )


def _drop_retract_rows(table: pa.Table) -> pa.Table:
    kinds = table.column(KIND)
    if table.num_rows == 0 or pc.max(kinds).as_py() == 0:
        return table  # inserts only: one pass
    if pc.all(pc.or_(pc.equal(kinds, 0), pc.equal(kinds, 2))).as_py() in (True, None):
        return table
    return table.filter(pc.or_(pc.equal(kinds, 0), pc.equal(kinds, 2)))
