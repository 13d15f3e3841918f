"""FileStore: everything the scan and write layers need to know about one table (or branch).

It bundles the table's storage paths, its schema, its typed options and its metadata managers.
It is cheap to build and immutable in spirit: a new schema means a new FileStore.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from paimon_sql.errors import PaimonError
from paimon_sql.format.binary_row import decode_row
from paimon_sql.format.partition_path import partition_path
from paimon_sql.fs.data_paths import ExternalPathProvider, to_io_path
from paimon_sql.fs.file_io import FileIO, join, parent
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
    # Every data file path is built here: bucket_dir (where a bucket's files live in the table),
    # new_data_file (where a new file goes: the bucket folder, or an external root) and
    # data_file_path / entry_path (where an existing file is, from its _EXTERNAL_PATH if set).
    @cached_property
    def data_root(self) -> str:
        """The folder holding the partition folders: the table's, or its ``data-file.path-directory``."""
        sub = self.options.data_file_path_directory(self.name)
        return join(self.path, sub) if sub else self.path

    @cached_property
    def external_paths(self) -> ExternalPathProvider | None:
        """The external roots new data files go to (``data-file.external-paths``), or None."""
        return self.options.external_path_provider(self.name)

    def relative_bucket_path(self, partition_values: list[object], bucket: int) -> str:
        """``[<path-directory>/]<k=v/...>/bucket-<n>``, relative to the table (or an external root)."""
        rel = partition_path(
            [f.name for f in self.partition_fields], partition_values, self.partition_types,
            self.options.partition_default_name, self.options.partition_legacy_name,
        )
        sub = self.options.data_file_path_directory(self.name)
        return join(*[p for p in (sub, rel) if p], f"bucket-{bucket}") if (sub or rel) else f"bucket-{bucket}"

    def bucket_dir(self, partition_values: list[object], bucket: int) -> str:
        return join(self.path, self.relative_bucket_path(partition_values, bucket))

    def new_data_file(self, bucket_dir: str, file_name: str) -> tuple[str, str | None]:
        """(FileIO path, ``_EXTERNAL_PATH``) of a new data file of the bucket at ``bucket_dir``:
        in the bucket folder (no external path), or under an external root."""
        provider = self.external_paths
        if provider is None:
            return join(bucket_dir, file_name), None
        prefix = self.path.rstrip("/") + "/"
        if not bucket_dir.startswith(prefix):
            raise PaimonError(f"Table {self.name}: bucket folder {bucket_dir} is not inside the table folder {self.path}")
        external = provider.next_path(bucket_dir[len(prefix):], file_name)
        return to_io_path(external, self.file_io.capabilities.local_paths, f"Table {self.name}"), external

    def data_file_path(self, bucket_dir: str, file_name: str, external_path: str | None = None) -> str:
        if external_path:
            return to_io_path(external_path, self.file_io.capabilities.local_paths, f"Table {self.name}")
        return join(bucket_dir, file_name)

    def extra_file_path(self, bucket_dir: str, extra_file: str, external_path: str | None = None) -> str:
        """An extra file (e.g. a file index) of a data file: beside it (Paimon's ``toAlignedPath``)."""
        if external_path:
            return join(parent(self.data_file_path(bucket_dir, "", external_path)), extra_file)
        return join(bucket_dir, extra_file)

    def entry_path(self, entry: ManifestEntry) -> str:
        """Where the data file of a manifest entry lives."""
        f = entry.file
        if f.external_path:
            return self.data_file_path("", f.file_name, f.external_path)
        values = list(decode_row(entry.partition, self.partition_types)) if self.partition_fields else []
        return self.data_file_path(self.bucket_dir(values, entry.bucket), f.file_name, f.external_path)

    def index_file_path(self, file_name: str) -> str:
        return join(self.path, "index", file_name)
