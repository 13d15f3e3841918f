"""FileStore: everything the scan and write layers need to know about one table (or branch).

It bundles the table's storage paths, its schema, its typed options and its metadata managers.
It is cheap to build and immutable in spirit: a new schema means a new FileStore.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from paimon_sql.format.binary_row import decode_row
from paimon_sql.format.partition_path import partition_path
from paimon_sql.fs.file_io import FileIO, join
from paimon_sql.meta.changelog_manager import ChangelogManager
from paimon_sql.meta.manifest_entry import ManifestEntry
from paimon_sql.meta.manifest_store import ManifestStore
from paimon_sql.meta.schema import TableSchema
from paimon_sql.meta.schema_manager import SchemaManager
from paimon_sql.meta.snapshot_manager import SnapshotManager
from paimon_sql.meta.tag_manager import TagManager
from paimon_sql.names import check_name
from paimon_sql.options import CoreOptions
from paimon_sql.types import DataField, DataType

MAIN_BRANCH = "main"
BRANCH_PREFIX = "branch-"


def branch_path(table_path: str, branch: str) -> str:
    if branch == MAIN_BRANCH:
        return table_path
    return join(table_path, "branch", BRANCH_PREFIX + check_name("branch", branch, table_path))


def branch_identifier(table_name: str, branch: str) -> str:
    return table_name if branch == MAIN_BRANCH else f"{table_name}$branch_{branch}"


@dataclass
class FileStore:
    file_io: FileIO
    path: str
    name: str  # "db.table" (for messages)
    schema: TableSchema
    branch: str = MAIN_BRANCH
    options: CoreOptions = field(init=False)

    def __post_init__(self) -> None:
        if self.branch != MAIN_BRANCH:
            check_name("branch", self.branch, f"table {self.name}")
        self.options = CoreOptions(self.schema.options)

    # -- structure -------------------------------------------------------------------------------
    @property
    def has_primary_key(self) -> bool:
        return bool(self.schema.primary_keys)

    @cached_property
    def partition_fields(self) -> list[DataField]:
        return self.schema.fields_of(list(self.schema.partition_keys))

    @cached_property
    def partition_types(self) -> list[DataType]:
        return [f.type for f in self.partition_fields]

    @cached_property
    def key_fields(self) -> list[DataField]:
        return self.schema.fields_of(self.schema.trimmed_primary_keys) if self.has_primary_key else []

    @cached_property
    def bucket_key_fields(self) -> list[DataField]:
        return self.schema.fields_of(self.schema.bucket_keys)

    @property
    def meta_path(self) -> str:
        """Where this branch keeps its schemas, snapshots and tags (data and manifests are shared)."""
        return branch_path(self.path, self.branch)

    def for_branch(self, branch: str, schema: TableSchema) -> FileStore:
        return FileStore(self.file_io, self.path, branch_identifier(self.name.split("$")[0], branch), schema, branch)

    def with_schema(self, schema: TableSchema) -> FileStore:
        return FileStore(self.file_io, self.path, self.name, schema, self.branch)

    # -- managers --------------------------------------------------------------------------------
    @cached_property
    def snapshots(self) -> SnapshotManager:
        return SnapshotManager(self.file_io, self.meta_path, self.name)

    @cached_property
    def changelogs(self) -> ChangelogManager:
        return ChangelogManager(self.file_io, self.meta_path, self.name)

    @cached_property
    def schemas(self) -> SchemaManager:
        return SchemaManager(self.file_io, self.meta_path, self.name)

    @cached_property
    def tags(self) -> TagManager:
        return TagManager(self.file_io, self.meta_path, self.name)

    @cached_property
    def manifests(self) -> ManifestStore:
        return ManifestStore(
            self.file_io, self.path, self.partition_types,
            self.options.manifest_format, self.options.manifest_compression,
        )

    # -- paths -----------------------------------------------------------------------------------
    def bucket_dir(self, partition_values: list[object], bucket: int) -> str:
        rel = partition_path(
            [f.name for f in self.partition_fields], partition_values, self.partition_types,
            self.options.partition_default_name, self.options.partition_legacy_name,
        )
        return join(self.path, rel, f"bucket-{bucket}") if rel else join(self.path, f"bucket-{bucket}")

    def data_file_path(self, bucket_dir: str, file_name: str, external_path: str | None = None) -> str:
        if external_path:
            return external_path
        return join(bucket_dir, file_name)

    def entry_path(self, entry: ManifestEntry) -> str:
        """Where the data file of a manifest entry lives."""
        values = list(decode_row(entry.partition, self.partition_types)) if self.partition_fields else []
        f = entry.file
        return self.data_file_path(self.bucket_dir(values, entry.bucket), f.file_name, f.external_path)

    def index_file_path(self, file_name: str) -> str:
        return join(self.path, "index", file_name)
