-- System tables: Paimon's metadata as tables (unquoted t$files works through the SQL extension).
-- Run: paimon-sql --warehouse /tmp/wh -f sql-examples/03_system_tables.sql
CREATE TABLE logs (id BIGINT, msg STRING, dt STRING) PARTITIONED BY (dt)
TBLPROPERTIES ('primary-key' = 'id,dt', 'bucket' = '2');
INSERT INTO logs VALUES (1, 'a', 'd1'), (2, 'b', 'd1'), (3, 'c', 'd2');
INSERT INTO logs VALUES (4, 'd', 'd2');

SELECT * FROM logs$files ORDER BY `partition`, bucket, record_count;
SELECT `partition`, bucket, record_count, level FROM logs$files ORDER BY `partition`, bucket, record_count;
SELECT `partition`, record_count, file_count FROM logs$partitions ORDER BY `partition`;
SELECT `partition`, bucket, record_count, file_count FROM logs$buckets ORDER BY `partition`, bucket;
SELECT schema_id, primary_keys, partition_keys FROM logs$schemas;
SELECT * FROM logs$options ORDER BY key;
SELECT snapshot_id, commit_kind FROM default.`logs$snapshots`;
