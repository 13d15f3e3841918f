-- Incremental reads, $audit_log and $binlog.
-- Run: paimon-sql --warehouse /tmp/wh -f sql-examples/09_incremental_reads.sql
CREATE TABLE orders (id BIGINT, status STRING)
  TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1', 'write-only' = 'true');
INSERT INTO orders VALUES (1, 'new'), (2, 'new');
INSERT INTO orders VALUES (1, 'paid'), (3, 'new');
DELETE FROM orders WHERE id = 2;
CALL sys.create_tag(table => 'default.orders', tag => 't1', snapshot => 1);
CALL sys.create_tag(table => 'default.orders', tag => 't3', snapshot => 3);

-- snapshot ids (start exclusive, end inclusive): the records the writes added, unmerged; as in
-- Paimon, a DELETE's -D record is one of them (its row kind shows in the audit log)
SELECT * FROM paimon_incremental_query('orders', '1', '3') ORDER BY id, status;
-- with their row kinds
SELECT * FROM paimon_incremental_query('`orders$audit_log`', '1', '3') ORDER BY id, rowkind;
-- two tags: the difference of the two snapshots (a deleted key reads as -D in the audit log)
SELECT * FROM paimon_incremental_query('orders', 't1', 't3') ORDER BY id;
SELECT * FROM paimon_incremental_query('`orders$audit_log`', 't1', 't3') ORDER BY id;
-- the same as a per-query option
SELECT * FROM orders WITH ('incremental-between' = '2,3') ORDER BY id;

-- $audit_log keeps the -D of a key until compaction drops it; $binlog packs each column in an array
SELECT * FROM orders$audit_log ORDER BY id;
SELECT * FROM orders$binlog ORDER BY rowkind;
CALL sys.compact(table => 'default.orders');
SELECT * FROM orders$audit_log ORDER BY id;
