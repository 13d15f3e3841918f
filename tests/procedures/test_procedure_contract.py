"""The procedure registry against Apache Paimon's procedures: every registered procedure's output
columns (names and Spark SQL types) are exactly those of the Paimon procedure class of the same
name (its ``OUTPUT_TYPE``), and a procedure Paimon does not have is marked as ours below. A new
procedure that is in neither table fails here until it is added to one of them."""

from __future__ import annotations

import time

import pyarrow as pa
import pytest

from paimon_sql import Catalog, Table
from paimon_sql.procedures import PROCEDURES, call_procedure
from paimon_sql.procedures.registry import VERBOSE

_BOOL = (("result", "BOOLEAN"),)
_ROLLBACK = (("previous_snapshot_id", "BIGINT"), ("current_snapshot_id", "BIGINT"))

# name -> OUTPUT_TYPE of Paimon's procedure class (paimon-spark-common, org.apache.paimon.spark.procedure,
# unless noted); LongType = BIGINT, IntegerType = INT.
PAIMON_OUTPUTS: dict[str, tuple[tuple[str, str], ...]] = {
    "clear_consumers": _BOOL,  # ClearConsumersProcedure
    "compact": _BOOL,  # CompactProcedure
    "compact_database": (("result", "STRING"),),  # CompactDatabaseProcedure
    "compact_manifest": _BOOL,  # CompactManifestProcedure
    "copy": _BOOL,  # CopyFilesProcedure
    "create_branch": _BOOL,  # CreateBranchProcedure
    "create_tag": _BOOL,  # CreateTagProcedure (CreateOrReplaceTagBaseProcedure)
    "create_tag_from_timestamp": (  # CreateTagFromTimestampProcedure
        ("tagName", "STRING"), ("snapshot", "BIGINT"), ("commit_time", "BIGINT"), ("watermark", "STRING"),
    ),
    "delete_branch": _BOOL,  # DeleteBranchProcedure
    "delete_tag": _BOOL,  # DeleteTagProcedure
    # Flink only: org.apache.paimon.flink.procedure.ExpireChangelogsProcedure returns String[] (one
    # STRING column, Flink's "result")
    "expire_changelogs": (("result", "STRING"),),
    "expire_partitions": (("expired_partitions", "STRING"),),  # ExpirePartitionsProcedure
    "expire_snapshots": (("deleted_snapshots_count", "INT"),),  # ExpireSnapshotsProcedure
    "expire_tags": (("expired_tags", "STRING"),),  # ExpireTagsProcedure
    "fast_forward": _BOOL,  # FastForwardProcedure
    "mark_partition_done": _BOOL,  # MarkPartitionDoneProcedure
    "merge_branch": _BOOL,  # MergeBranchProcedure
    "purge_files": (("result", "STRING"),),  # PurgeFilesProcedure
    "remove_orphan_files": (  # RemoveOrphanFilesProcedure
        ("deletedFileCount", "BIGINT"), ("deletedFileTotalLenInBytes", "BIGINT"),
    ),
    "remove_unexisting_files": (("fileName", "STRING"),),  # RemoveUnexistingFilesProcedure
    "rename_branch": _BOOL,  # RenameBranchProcedure
    "rename_tag": _BOOL,  # RenameTagProcedure
    "repair_earliest_snapshot": (  # RepairEarliestSnapshotProcedure
        ("previous_earliest_snapshot_id", "BIGINT"), ("current_earliest_snapshot_id", "BIGINT"),
    ),
    "replace_tag": _BOOL,  # ReplaceTagProcedure (CreateOrReplaceTagBaseProcedure)
    "rescale": _BOOL,  # RescaleProcedure
    "reset_consumer": _BOOL,  # ResetConsumerProcedure
    "rollback": _ROLLBACK,  # RollbackProcedure
    "rollback_to_timestamp": _ROLLBACK,  # RollbackToTimestampProcedure
    "rollback_to_watermark": _ROLLBACK,  # RollbackToWatermarkProcedure
    "trigger_tag_automatic_creation": _BOOL,  # TriggerTagAutomaticCreationProcedure
}

# Procedures Paimon does not have: ours, each carrying a SQL statement of Paimon's Spark extension
# (not listed by SHOW PROCEDURES; a statement returns no columns).
OURS: dict[str, str] = {
    "alter_table_create_tag": "ALTER TABLE t CREATE [OR REPLACE] TAG / REPLACE TAG (CreateOrReplaceTagExec)",
    "alter_table_delete_tag": "ALTER TABLE t DELETE TAG (DeleteTagExec)",
    "alter_table_rename_tag": "ALTER TABLE t RENAME TAG (RenameTagExec)",
}


def test_every_procedure_is_paimons_or_marked_ours() -> None:
    unknown = sorted(set(PROCEDURES) - set(PAIMON_OUTPUTS) - set(OURS))
    assert not unknown, f"procedures in neither PAIMON_OUTPUTS nor OURS: {unknown}"
    assert not set(PAIMON_OUTPUTS) & set(OURS)
    assert sorted(set(PAIMON_OUTPUTS) - set(PROCEDURES)) == []  # the table names only registered ones


@pytest.mark.parametrize("name", sorted(PAIMON_OUTPUTS))
def test_output_is_paimons(name: str) -> None:
    proc = PROCEDURES[name]
    assert proc.output == PAIMON_OUTPUTS[name]
    assert proc.listed
    # our extra columns only come with the opt-in argument, named the same everywhere
    if proc.verbose_output:
        assert proc.params[-1].name == VERBOSE and proc.params[-1].default is False
        assert not {c for c, _ in proc.verbose_output} & {c for c, _ in proc.output}
    assert proc.columns({}) == list(PAIMON_OUTPUTS[name])
    assert proc.columns({VERBOSE: False}) == list(PAIMON_OUTPUTS[name])


@pytest.mark.parametrize("name", sorted(OURS))
def test_ours_are_statements(name: str) -> None:
    proc = PROCEDURES[name]
    assert proc.output == () and not proc.listed and not proc.verbose_output


def test_verbose_is_the_only_way_to_more_columns() -> None:
    verbose = sorted(n for n, p in PROCEDURES.items() if p.verbose_output)
    assert verbose == ["expire_changelogs", "expire_snapshots"]
    for n in verbose:
        proc = PROCEDURES[n]
        assert proc.columns({VERBOSE: True}) == [*PAIMON_OUTPUTS[n], *proc.verbose_output]
        assert [p.name for p in proc.params].count(VERBOSE) == 1
    for n, proc in PROCEDURES.items():
        if not proc.verbose_output:
            assert VERBOSE not in [p.name for p in proc.params], n


def test_rows_of_paimons_create_tag_from_tags_commit_time(catalog: Catalog) -> None:
    """CreateTagFromTimestampProcedureTest "Create tags from tags commit-time": create_tag -> Row(true),
    expire_snapshots(retain_max 1, retain_min 1) -> Row(1), then the tag's snapshot is found by time."""
    t = catalog.create_table("db.T", pa.schema([("a", pa.int32()), ("b", pa.string())]), primary_keys=["a"],
                             options={"bucket": "3"})
    assert isinstance(t, Table)
    for i in (1, 2):
        t.write(pa.table({"a": pa.array([i], pa.int32()), "b": ["a"]}))
        time.sleep(0.01)
    assert call_procedure(catalog, "create_tag", {"table": "db.T", "tag": "test_tag", "snapshot": 1}).rows == [(True,)]
    latest, tagged = t.snapshot(2).time_millis, t.snapshot(1).time_millis
    r = call_procedure(catalog, "expire_snapshots", {"table": "db.T", "retain_max": 1, "retain_min": 1})
    assert (r.columns, r.rows) == ([("deleted_snapshots_count", "INT")], [(1,)])
    r = call_procedure(catalog, "create_tag_from_timestamp", {"table": "db.T", "tag": "test_tag1",
                                                              "timestamp": tagged - 1})
    assert r.rows == [("test_tag1", 1, tagged, "null")]
    r = call_procedure(catalog, "create_tag_from_timestamp", {"table": "db.T", "tag": "test_tag2",
                                                              "timestamp": tagged + 1})
    assert r.rows == [("test_tag2", 2, latest, "null")]
