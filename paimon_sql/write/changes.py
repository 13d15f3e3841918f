"""What a write hands to its commit: the files it added and removed (``CommitChanges``) and the
base it laid them out by (``WriteBase``). Picklable: Spark tasks send them to the driver."""

from __future__ import annotations

from dataclasses import dataclass, field

from paimon_sql.meta.index_file_meta import IndexManifestEntry
from paimon_sql.meta.manifest_entry import ManifestEntry


@dataclass(frozen=True)
class WriteBase:
    """What a writer laid its files out by: the snapshot its sequence numbers and dynamic-bucket
    assignments continue from (None: the table had none) and the schema it wrote with."""

    snapshot_id: int | None
    schema_id: int



@dataclass
class CommitChanges:
    """What one write adds to a table (and, for overwrite/delete, what it removes)."""

    entries: list[ManifestEntry] = field(default_factory=list)
    # what the writers' compaction removed (DELETE) and added (ADD): committed as a COMPACT snapshot
    # after the one adding ``entries``
    compact_entries: list[ManifestEntry] = field(default_factory=list)
    # the compacted buckets' new DELETION_VECTORS index files, committed with the COMPACT snapshot
    # (each replaces its bucket's index; a DELETE entry removes it when no vector is left)
    compact_index_entries: list[IndexManifestEntry] = field(default_factory=list)
    # new HASH index files; they replace the index of the same (partition, bucket)
    index_entries: list[IndexManifestEntry] = field(default_factory=list)
    # changelog files (ADD entries): of the written records, committed with ``entries``
    # (changelog-producer input), and of the compaction, committed with the COMPACT snapshot
    # (lookup, full-compaction)
    changelog_entries: list[ManifestEntry] = field(default_factory=list)
    compact_changelog_entries: list[ManifestEntry] = field(default_factory=list)
    written_paths: list[str] = field(default_factory=list)
    # the snapshot and schema the writer numbered and laid out its files by (None: unknown)
    base: WriteBase | None = None
