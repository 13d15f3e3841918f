-- Changelog producers: input (the written records) and lookup (compaction looks each written key
-- up in the older levels and writes -U/+U, +I and -D), read back with their row kinds.
-- Run: paimon-sql --warehouse /tmp/wh -f sql-examples/10_changelog_producers.sql
CREATE TABLE accounts_input (id BIGINT, balance INT)
  TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1', 'changelog-producer' = 'input');
INSERT INTO accounts_input VALUES (1, 100), (2, 200);
INSERT INTO accounts_input VALUES (1, 150);
DELETE FROM accounts_input WHERE id = 2;
-- each APPEND snapshot carries its changelog
SELECT snapshot_id, commit_kind, changelog_record_count FROM accounts_input$snapshots ORDER BY snapshot_id;
-- the changelog of snapshots 2 and 3: the input records as written
SELECT * FROM paimon_incremental_query('`accounts_input$audit_log`', '1', '3') ORDER BY id, rowkind;

CREATE TABLE accounts_lookup (id BIGINT, balance INT)
  TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1', 'changelog-producer' = 'lookup');
INSERT INTO accounts_lookup VALUES (1, 100), (2, 200);
INSERT INTO accounts_lookup VALUES (1, 150), (3, 300);
DELETE FROM accounts_lookup WHERE id = 2;
-- every write commits APPEND then COMPACT; the COMPACT snapshot holds the changelog
SELECT snapshot_id, commit_kind, changelog_record_count FROM accounts_lookup$snapshots ORDER BY snapshot_id;
-- an update reads as -U/+U of the old and new rows, a delete as -D
SELECT * FROM paimon_incremental_query('`accounts_lookup$audit_log`', '2', '6') ORDER BY id, rowkind;
SELECT * FROM accounts_lookup ORDER BY id;
