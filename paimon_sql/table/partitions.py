"""``table.partitions``: a table's partitions (``SHOW PARTITIONS``, ``ALTER TABLE ... DROP PARTITION``,
Paimon's ``expire_partitions`` and ``mark_partition_done``), and the partition specs and partition
predicates the other table operations take. The logic is in ``ops/partitions.py``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from paimon_sql.errors import ValidationError
from paimon_sql.lazy import lazy_module
from paimon_sql.predicate import Predicate, parse_predicate, referenced_columns
from paimon_sql.table.facets import Facet

if TYPE_CHECKING:
    from paimon_sql.meta.schema import TableSchema
    from paimon_sql.ops import partitions as partition_ops
else:
    partition_ops = lazy_module("paimon_sql.ops.partitions")


class Partitions(Facet):
    """The partitions of one table. ``table.partitions()`` lists them."""

    __slots__ = ()

    def __call__(self) -> list[partition_ops.PartitionInfo]:
        """The partitions with files in the latest snapshot (``SHOW PARTITIONS``), sorted by their
        folder text, with their row, byte and file counts and newest file time."""
        return partition_ops.list_partitions(self.table.store)

    def drop(
        self, partitions: Sequence[Mapping[str, Any]], dry_run: bool = False, *, commit_if_empty: bool = False
    ) -> partition_ops.DropPartitionsResult:
        """Drops every partition matching one of ``partitions`` (specs column -> value, None for
        null; a spec may give only some columns, e.g. ``{"dt": "2024-01-01"}`` drops every hour of
        that day) in one OVERWRITE commit (``ALTER TABLE t DROP PARTITION``). Nothing matching is
        no commit, unless ``commit_if_empty`` (then an OVERWRITE snapshot changing nothing, as
        Paimon's ``truncatePartitions``)."""
        committer = self.table.new_commit()
        committer.check_maintenance()
        return partition_ops.drop_partitions(self.table.store, partitions, dry_run=dry_run,
                                             commit_if_empty=commit_if_empty, committer=committer)

    def expire(
        self,
        expiration_time: str | None = None,
        timestamp_formatter: str | None = None,
        timestamp_pattern: str | None = None,
        expire_strategy: str | None = None,
        max_expires: int | None = None,
        options: Mapping[str, str] | None = None,
        dry_run: bool = False,
    ) -> partition_ops.ExpirePartitionsResult:
        """Drops the partitions older than ``expiration_time`` (Paimon's ``expire_partitions``; each
        argument overrides its table option: ``partition.expiration-time``,
        ``partition.timestamp-formatter``, ``partition.timestamp-pattern``,
        ``partition.expiration-strategy``, ``partition.expiration-max-num``; ``options`` sets others).
        ``dry_run`` drops nothing and reports what would go."""
        if max_expires is not None and (isinstance(max_expires, bool) or not isinstance(max_expires, int)):
            raise ValidationError(f"expire_partitions of table {self.identifier}: max_expires must be an integer, got {max_expires!r}")
        dynamic = dict(options or {})
        for key, value in (("partition.expiration-strategy", expire_strategy),
                           ("partition.timestamp-formatter", timestamp_formatter),
                           ("partition.timestamp-pattern", timestamp_pattern),
                           ("partition.expiration-time", expiration_time),
                           ("partition.expiration-max-num", None if max_expires is None else str(max_expires))):
            if value is not None and value != "":
                dynamic[key] = value
        table = self.table.copy(dynamic) if dynamic else self.table
        committer = self.table._committer(table.store, maintain=False)  # expiry is maintenance itself
        committer.check_maintenance()
        return partition_ops.expire_partitions(table.store, dry_run=dry_run, committer=committer)

    def mark_done(self, partitions: Sequence[Mapping[str, Any]]) -> list[str]:
        """Marks each partition (a full spec) done with the table's ``partition.mark-done-action``
        (``success-file``: ``<partition>/_SUCCESS``); returns the partition paths."""
        return partition_ops.mark_partitions_done(self.table.store, partitions)


def partition_spec(schema: TableSchema, identifier: str, overwrite: bool | Mapping[str, Any] | str) -> dict[str, str]:
    """An overwrite's partition spec (``True``: the whole table, ``{}``), its keys checked."""
    if overwrite is True:
        return {}
    if not isinstance(overwrite, Mapping):
        raise ValidationError(f"overwrite must be True or a partition spec dict, got {overwrite!r}")
    spec = {}
    for k, v in overwrite.items():
        if k not in schema.partition_keys:
            raise ValidationError(
                f"Overwrite spec key {k!r} is not a partition column of table {identifier} "
                f"(partition keys: {list(schema.partition_keys)})"
            )
        spec[k] = str(v)
    return spec


def partition_predicate(
    schema: TableSchema, identifier: str, where: str | Predicate | None, what: str
) -> Predicate | None:
    """``where`` (SQL text or a Predicate) parsed; it may use partition columns only."""
    if where is None:
        return None
    pred = parse_predicate(where, list(schema.fields)) if isinstance(where, str) else where
    outside = sorted(referenced_columns(pred) - set(schema.partition_keys))
    if outside:
        raise ValidationError(
            f"{what} of table {identifier}: Only partition predicate is supported, but the "
            f"where condition uses {outside} (partition keys: {list(schema.partition_keys)})"
        )
    return pred
