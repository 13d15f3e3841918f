-- Partitions: SHOW PARTITIONS, ALTER TABLE ... DROP PARTITION (one OVERWRITE commit), TRUNCATE TABLE
-- ... PARTITION, CALL sys.expire_partitions (values-time), partition expiry after every commit,
-- CALL sys.mark_partition_done.
-- Run: paimon-sql --warehouse /tmp/wh -f sql-examples/07_partitions.sql
CREATE TABLE logs (id BIGINT, msg STRING, dt STRING, hh STRING) PARTITIONED BY (dt, hh)
  TBLPROPERTIES ('primary-key' = 'id,dt,hh', 'bucket' = '1');
INSERT INTO logs VALUES (1, 'a', '2024-06-01', '00'), (2, 'b', '2024-06-01', '01'),
  (3, 'c', '2024-06-02', '00'), (4, 'd', '2024-06-03', '00'), (5, 'e', '9999-12-31', '00');
SHOW PARTITIONS logs;
SHOW PARTITIONS logs PARTITION (hh = '00');
ALTER TABLE logs DROP PARTITION (dt = '2024-06-01', hh = '01');
TRUNCATE TABLE logs PARTITION (dt = '2024-06-03', hh = '00');
SELECT snapshot_id, commit_kind FROM logs$snapshots ORDER BY snapshot_id;
SELECT * FROM logs ORDER BY id;
-- what would expire (dry_run), then expire: partitions whose dt is more than a day old
CALL sys.expire_partitions(table => 'logs', expiration_time => '1 d', timestamp_formatter => 'yyyy-MM-dd',
  dry_run => true);
CALL sys.expire_partitions(table => 'logs', expiration_time => '1 d', timestamp_formatter => 'yyyy-MM-dd');
SELECT * FROM logs ORDER BY id;
CALL sys.expire_partitions(table => 'logs', expiration_time => '1 d');
-- with partition.expiration-time, every commit expires (end-input.check-partition-expire)
CREATE TABLE daily (id BIGINT, dt STRING) PARTITIONED BY (dt) TBLPROPERTIES (
  'partition.expiration-time' = '7 d', 'end-input.check-partition-expire' = 'true',
  'partition.timestamp-formatter' = 'yyyyMMdd');
INSERT INTO daily VALUES (1, '20240601'), (2, '99991231');
SELECT * FROM daily;
CALL sys.mark_partition_done(table => 'daily', partitions => 'dt=99991231');
