"""The kinds metadata records carry: a manifest entry's ADD/DELETE, a data file's source, and a
snapshot's commit kind (Paimon's ``FileKind``, ``FileSource``, ``Snapshot.CommitKind``)."""

from __future__ import annotations

from enum import Enum, IntEnum


class FileKind(IntEnum):
    """``_KIND`` of a manifest entry."""

    ADD = 0
    DELETE = 1


class FileSource(IntEnum):
    """``_FILE_SOURCE`` of a data file: written by a commit, or by compaction."""

    APPEND = 0
    COMPACT = 1


class CommitKind(str, Enum):
    """``commitKind`` of a snapshot (a string in the JSON)."""

    APPEND = "APPEND"
    COMPACT = "COMPACT"
    OVERWRITE = "OVERWRITE"
    ANALYZE = "ANALYZE"
