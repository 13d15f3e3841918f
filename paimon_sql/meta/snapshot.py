"""``snapshot/snapshot-<id>``: one committed version of a table (JSON, Paimon snapshot version 3)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from paimon_sql.errors import CorruptFileError
from paimon_sql.meta.decoding import check_file_names, check_int, decoding
from paimon_sql.meta.kinds import CommitKind

CURRENT_VERSION = 3
COMMIT_KINDS = tuple(k.value for k in CommitKind)
# Identifier Paimon uses for commits that have no streaming checkpoint (batch writes, compaction).
BATCH_COMMIT_IDENTIFIER = 9223372036854775807


@dataclass(frozen=True)
class Snapshot:
    id: int
    schema_id: int
    base_manifest_list: str
    delta_manifest_list: str
    commit_user: str
    commit_identifier: int
    commit_kind: str
    time_millis: int
    total_record_count: int | None = None
    delta_record_count: int | None = None
    base_manifest_list_size: int | None = None
    delta_manifest_list_size: int | None = None
    changelog_manifest_list: str | None = None
    changelog_manifest_list_size: int | None = None
    index_manifest: str | None = None
    changelog_record_count: int | None = None
    watermark: int | None = None
    statistics: str | None = None
    properties: dict[str, str] | None = None
    next_row_id: int | None = None
    log_offsets: dict[str, int] | None = None
    version: int = CURRENT_VERSION
    # Fields of other JSON documents that embed a snapshot (tags carry tagCreateTime/tagTimeRetained).
    extra: dict[str, Any] = field(default_factory=dict)

    _KEYS = (
        ("version", "version"),
        ("id", "id"),
        ("schema_id", "schemaId"),
        ("base_manifest_list", "baseManifestList"),
        ("base_manifest_list_size", "baseManifestListSize"),
        ("delta_manifest_list", "deltaManifestList"),
        ("delta_manifest_list_size", "deltaManifestListSize"),
        ("changelog_manifest_list", "changelogManifestList"),
        ("changelog_manifest_list_size", "changelogManifestListSize"),
        ("index_manifest", "indexManifest"),
        ("commit_user", "commitUser"),
        ("commit_identifier", "commitIdentifier"),
        ("commit_kind", "commitKind"),
        ("time_millis", "timeMillis"),
        ("log_offsets", "logOffsets"),
        ("total_record_count", "totalRecordCount"),
        ("delta_record_count", "deltaRecordCount"),
        ("changelog_record_count", "changelogRecordCount"),
        ("watermark", "watermark"),
        ("statistics", "statistics"),
        ("properties", "properties"),
        ("next_row_id", "nextRowId"),
    )
    _REQUIRED = ("id", "schemaId", "baseManifestList", "deltaManifestList", "commitKind", "timeMillis")

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for attr, key in self._KEYS:
            value = getattr(self, attr)
            if value is None and key not in ("changelogManifestList",):
                continue  # Paimon omits absent optional fields (JsonInclude NON_NULL)
            out[key] = value
        out.update(self.extra)
        return out

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, separators=(",", " : "))

    @staticmethod
    def from_dict(obj: dict[str, Any], path: str = "<snapshot>") -> Snapshot:
        missing = [k for k in Snapshot._REQUIRED if k not in obj]
        if missing:
            raise CorruptFileError(f"Corrupt snapshot file {path}: missing {missing}")
        known = {key for _, key in Snapshot._KEYS}
        kwargs: dict[str, Any] = {attr: obj.get(key) for attr, key in Snapshot._KEYS if key in obj}
        kwargs.setdefault("version", 1)
        kwargs.setdefault("commit_user", "")
        kwargs.setdefault("commit_identifier", BATCH_COMMIT_IDENTIFIER)
        kind = kwargs.get("commit_kind")
        if kind not in COMMIT_KINDS:
            raise CorruptFileError(f"Corrupt snapshot file {path}: unknown commitKind {kind!r}")
        extra = {k: v for k, v in obj.items() if k not in known}
        what = "snapshot file"
        check_int(kwargs["id"], "id", what, path, 1)
        check_int(kwargs["schema_id"], "schemaId", what, path, 0)
        check_int(kwargs["time_millis"], "timeMillis", what, path)
        lists = [kwargs["base_manifest_list"], kwargs["delta_manifest_list"]]
        lists += [kwargs[k] for k in ("changelog_manifest_list", "index_manifest", "statistics") if kwargs.get(k)]
        check_file_names(lists, what, path)
        with decoding(what, path):
            return Snapshot(extra=extra, **kwargs)

    @staticmethod
    def from_json(text: str, path: str = "<snapshot>") -> Snapshot:
        try:
            obj = json.loads(text)
        except ValueError as e:
            raise CorruptFileError(f"Corrupt snapshot file {path}: {e}") from e
        if not isinstance(obj, dict):
            raise CorruptFileError(f"Corrupt snapshot file {path}: not a JSON object")
        return Snapshot.from_dict(obj, path)
