"""Shared by the system tables that describe one snapshot's data files (files, partitions,
buckets, manifests): partition values as text, and the manifest entries of a snapshot."""

from __future__ import annotations

from collections.abc import Sequence

import pyarrow as pa
import pyarrow.compute as pc

from paimon_sql.format.binary_row import decode_rows
from paimon_sql.meta.file_store import FileStore
from paimon_sql.meta.manifest_entry import ManifestEntry
from paimon_sql.meta.snapshot import Snapshot
from paimon_sql.table.system._format import cast_to_string, row_cast_strings


def partition_row_strings(store: FileStore, partitions: Sequence[bytes]) -> dict[bytes, str]:
    """Each distinct partition as Paimon casts the partition row to STRING: ``{2024-01-01, 3}``
    (``{}`` for an unpartitioned table)."""
    uniq = list(dict.fromkeys(partitions))
    if not uniq:
        return {}
    fields = store.partition_fields
    cols = decode_rows(uniq, store.partition_types) if fields else []
    texts = row_cast_strings(cols, fields, len(uniq)).to_pylist()
    return dict(zip(uniq, texts))


def partition_spec_strings(store: FileStore, partitions: Sequence[bytes]) -> dict[bytes, str]:
    """Each distinct partition as ``$partitions`` shows it: ``dt=2024-01-01/hh=3`` (each value cast to
    STRING, null as the default partition name; ``""`` for an unpartitioned table)."""
    uniq = list(dict.fromkeys(partitions))
    if not uniq:
        return {}
    fields = store.partition_fields
    if not fields:
        return {p: "" for p in uniq}
    cols = decode_rows(uniq, store.partition_types)
    default = store.options.partition_default_name
    parts: list[pa.Array | str] = []
    for i, (c, f) in enumerate(zip(cols, fields)):
        if i:
            parts.append("/")
        parts.append(f"{f.name}=")
        parts.append(pc.fill_null(cast_to_string(c, f.type), default))
    texts = pc.binary_join_element_wise(*parts, "").to_pylist()
    return dict(zip(uniq, texts))


def all_entries(store: FileStore, snapshot: Snapshot) -> list[ManifestEntry]:
    """Every entry (ADD and DELETE) of the snapshot's data manifests, in manifest order."""
    out: list[ManifestEntry] = []
    for m in store.manifests.data_manifests(snapshot):
        out.extend(store.manifests.read_manifest(m.file_name))
    return out

