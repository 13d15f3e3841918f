"""Looking keys up in the levels above a compaction's output (changelog-producer ``lookup``) with
bounded memory, as Paimon's LookupLevels bounds its lookup files by ``lookup.cache-max-memory-size``.

Paimon builds a local lookup file (hash or sort store) per remote data file and keeps the pages it
reads in a cache of at most ``lookup.cache-max-memory-size`` bytes (``lookup.cache-max-disk-size``
bounding the local files). Here a compaction looks the keys of its level-0 records up in a
vectorised pass per file instead, and what that pass holds of a looked-up file is bounded the same
way: a parquet file is read in batches of whole rows whose decoded size is at most a quarter of
``lookup.cache-max-memory-size`` (the bytes per row estimated from the row group's uncompressed
size), row groups whose key statistics cannot hold a wanted key are skipped, only the rows whose
key is wanted are kept, and levels are visited from the lowest up, a key found in one level no
longer being looked for in the levels above (the record of the lowest level is the one a lookup
returns). No local files are written, so ``lookup.cache-max-disk-size`` is never reached; no decoded
data is kept between compactions (a file looked up again is read again). ORC and Avro files are
read whole (they are decoded file by file here).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from paimon_sql.errors import CorruptFileError, NotFoundError
from paimon_sql.format.data_files import file_format_of
from paimon_sql.lsm.changelog import LEVEL, key_mask
from paimon_sql.meta.data_file_meta import DataFileMeta
from paimon_sql.meta.file_store import FileStore
from paimon_sql.options import CoreOptions
from paimon_sql.options.merge import LOOKUP_CACHE_MAX_MEMORY_SIZE
from paimon_sql.scan.reader import data_file_plan, evolve_file_table, read_data_file
from paimon_sql.scan.split import DataSplit
from paimon_sql.types import DataField

# a batch holds at most this share of lookup.cache-max-memory-size (decoded Arrow data may be
# larger than the parquet uncompressed size the rows per batch are estimated from)
BATCH_SHARE = 4

# parquet reads stream column chunks through a buffer of this many bytes (no whole row group
# read into memory first)
READ_BUFFER = 1 << 16


def lookup_memory_bytes(options: CoreOptions) -> int:
    """``lookup.cache-max-memory-size`` in bytes (default 256 mb; a value that does not parse is
    refused naming the option when read)."""
    return options.get(LOOKUP_CACHE_MAX_MEMORY_SIZE)


def _stats_comparable(t: pa.DataType) -> bool:
    """Key types whose parquet min/max compare with the key values as Paimon orders keys (no
    floating point: NaN and -0.0 order differently)."""
    return bool(pa.types.is_integer(t) or pa.types.is_string(t) or pa.types.is_large_string(t)
                or pa.types.is_date(t))


class LookupFileReader:
    """Finds the records of wanted keys in data files of one bucket, holding at most a bounded
    batch of each file in memory at a time."""

    def __init__(
        self, store: FileStore, split: DataSplit, fields: Sequence[DataField], system_columns: Sequence[str],
        key_fields: Sequence[DataField], key_names: Sequence[str], memory_bytes: int,
    ) -> None:
        self.store = store
        self.split = split
        self.fields = list(fields)
        self.system_columns = list(system_columns)
        self.key_fields = list(key_fields)
        self.key_names = list(key_names)
        self.memory_bytes = memory_bytes
        # the largest batch (decoded bytes) read so far: what the bound is about
        self.peak_batch_bytes = 0

    def batch_rows(self, bytes_per_row: float) -> int:
        """Rows per batch: a quarter of the memory bound at ``bytes_per_row``."""
        return max(1, int(self.memory_bytes / BATCH_SHARE / max(bytes_per_row, 1.0)))

    def matches(self, f: DataFileMeta, need: pa.Table, keep: np.ndarray | None) -> pa.Table | None:
        """The rows of ``f`` (with ``LEVEL``) whose key is one of ``need``'s, without those ``keep``
        (a mask over the file's rows, a deletion vector) drops; None when none. Parquet files are
        read in bounded batches; others whole."""
        fmt = file_format_of(f.file_name, self.store.options.file_format).lower()
        found: list[pa.Table] = []
        try:
            self._filter(self._parquet_parts(f, need, keep) if fmt == "parquet" else iter([self._whole(f, keep)]),
                         need, found)
        except (CorruptFileError, NotFoundError):
            if fmt != "parquet":
                raise
            # a damaged or lost file: read as scans read it (refused, or skipped with
            # scan.ignore-corrupt-files / scan.ignore-lost-files), whole
            found.clear()
            self._filter(iter([self._whole(f, keep)]), need, found)
        if not found:
            return None
        out = pa.concat_tables(found) if len(found) > 1 else found[0]
        return out.append_column(LEVEL, pa.array(np.full(out.num_rows, f.level, dtype=np.int32)))

    def _filter(self, parts: Iterator[pa.Table], need: pa.Table, found: list[pa.Table]) -> None:
        ints = self._sorted_int_keys(need)
        for t in parts:
            if ints is not None and t.column(self.key_names[0]).null_count == 0:
                # one integer key: a binary search in the sorted wanted keys (no hash set per batch)
                keys = np.asarray(t.column(self.key_names[0]).to_numpy(), dtype=np.int64)
                pos = np.minimum(np.searchsorted(ints, keys), len(ints) - 1)
                hit = ints[pos] == keys
            else:
                hit = key_mask(t, need, self.key_names)
            if hit.any():
                found.append(t.filter(pa.array(hit)))

    def _sorted_int_keys(self, need: pa.Table) -> np.ndarray | None:
        """The wanted keys, sorted, when the key is one integer column without nulls."""
        if len(self.key_names) != 1 or need.num_rows == 0:
            return None
        col = need.column(self.key_names[0])
        if not pa.types.is_integer(col.type) or col.null_count:
            return None
        return np.sort(np.asarray(col.to_numpy(), dtype=np.int64))

    def _whole(self, f: DataFileMeta, keep: np.ndarray | None) -> pa.Table:
        t = read_data_file(self.store, self.split, f, self.fields, self.system_columns, self.key_fields)
        return t.filter(pa.array(keep)) if keep is not None else t

    def _parquet_parts(self, f: DataFileMeta, need: pa.Table, keep: np.ndarray | None) -> Iterator[pa.Table]:
        store = self.store
        file_cols, plan = data_file_plan(store, f, self.fields, self.system_columns, self.key_fields)
        path = store.data_file_path(self.split.bucket_dir, f.file_name, f.external_path)
        lo_hi = self._need_range(need)
        key_col = plan[0][0][1] if self.key_fields else None  # the first key's column in the file
        try:
            with store.file_io.open_input_file(path) as fh:
                meta = pq.read_metadata(fh)
                if meta.num_rows != f.row_count:
                    raise CorruptFileError(f"it holds {meta.num_rows} rows, but its manifest entry records {f.row_count}")
                groups = [meta.row_group(g) for g in range(meta.num_row_groups)]
                # row groups within a batch's share of the bound are read whole (pre-buffered, the
                # fastest read); larger ones stream in bounded batches through a small buffer
                whole = all(rg.total_byte_size <= self.memory_bytes / BATCH_SHARE for rg in groups)
                pf = pq.ParquetFile(fh, metadata=meta, pre_buffer=whole, buffer_size=0 if whole else READ_BUFFER,
                                    page_checksum_verification=True)
                leaves = [meta.schema.column(i).path for i in range(meta.num_columns)]
                key_index = leaves.index(key_col) if key_col in leaves else -1
                offset = 0
                for g, rg in enumerate(groups):
                    start, offset = offset, offset + rg.num_rows
                    if rg.num_rows == 0 or self._skip(rg, key_index, lo_hi):
                        continue
                    batches: Iterator[pa.Table | pa.RecordBatch]
                    if whole:
                        batches = iter([pf.read_row_group(g, columns=file_cols, use_threads=True)])
                    else:
                        batches = pf.iter_batches(batch_size=self.batch_rows(rg.total_byte_size / rg.num_rows),
                                                  row_groups=[g], columns=file_cols, use_threads=True)
                    pos = start
                    for batch in batches:
                        n = batch.num_rows
                        raw = batch if isinstance(batch, pa.Table) else pa.Table.from_batches([batch])
                        t = evolve_file_table(raw, n, plan)
                        self.peak_batch_bytes = max(self.peak_batch_bytes, t.nbytes)
                        if keep is not None:
                            t = t.filter(pa.array(keep[pos:pos + n]))
                        pos += n
                        yield t
        except (CorruptFileError, pa.ArrowException, OSError, ValueError) as e:
            raise CorruptFileError(f"Table {store.name}: corrupt data file {path}: {e}") from e

    def _need_range(self, need: pa.Table) -> tuple[object, object] | None:
        """The min and max of the wanted keys' first column, when row group statistics can be
        compared with them."""
        if not self.key_names or need.num_rows == 0:
            return None
        col = need.column(self.key_names[0])
        if not _stats_comparable(col.type) or col.null_count:
            return None
        mm = pc.min_max(col)
        return mm["min"].as_py(), mm["max"].as_py()

    @staticmethod
    def _skip(rg: pq.RowGroupMetaData, key_index: int, lo_hi: tuple[object, object] | None) -> bool:
        """True when the row group's first-key statistics show it holds no wanted key."""
        if lo_hi is None or key_index < 0:
            return False
        st = rg.column(key_index).statistics
        if st is None or not st.has_min_max:
            return False
        try:
            return bool(st.max < lo_hi[0] or st.min > lo_hi[1])
        except TypeError:  # statistics of another physical type than the key values
            return False
