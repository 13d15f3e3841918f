-- Compaction: writers compact at the trigger (an APPEND then a COMPACT snapshot), CALL sys.compact
-- (full, minor, by partition or bucket), first-row tables, append tables.
-- Run: paimon-sql --warehouse /tmp/wh -f sql-examples/06_compaction.sql
CREATE TABLE events (id BIGINT, v STRING, dt STRING) PARTITIONED BY (dt)
  TBLPROPERTIES ('primary-key' = 'id,dt', 'bucket' = '1', 'write-only' = 'true');
INSERT INTO events VALUES (1, 'a', 'd1'), (2, 'a', 'd2');
INSERT INTO events VALUES (1, 'b', 'd1'), (3, 'b', 'd2');
INSERT INTO events VALUES (2, 'c', 'd2');
SELECT partition, bucket, level, record_count FROM events$files ORDER BY partition, level, record_count;
CALL sys.compact(table => 'events', partitions => 'dt=d2');
SELECT partition, bucket, level, record_count FROM events$files ORDER BY partition, level, record_count;
CALL sys.compact(table => 'events');
SELECT snapshot_id, commit_kind FROM events$snapshots ORDER BY snapshot_id;
SELECT partition, bucket, level, record_count FROM events$files ORDER BY partition, level, record_count;
SELECT * FROM events ORDER BY id, dt;
-- a writer compacts when universal compaction picks (here: more sorted runs than the trigger)
CREATE TABLE hot (id BIGINT, v STRING) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1',
  'num-sorted-run.compaction-trigger' = '2');
INSERT INTO hot VALUES (1, 'a'), (2, 'a');
INSERT INTO hot VALUES (2, 'b');
INSERT INTO hot VALUES (3, 'c');
SELECT snapshot_id, commit_kind FROM hot$snapshots ORDER BY snapshot_id;
SELECT level, record_count FROM hot$files;
-- first-row keeps the first row of a key; its writers move files out of level 0 at once
CREATE TABLE first_seen (id BIGINT, v STRING) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1',
  'merge-engine' = 'first-row');
INSERT INTO first_seen VALUES (1, 'first'), (2, 'first');
INSERT INTO first_seen VALUES (1, 'second'), (3, 'second');
SELECT * FROM first_seen ORDER BY id;
-- append tables: small files are merged (bucket-unaware: compaction.min.file-num of them)
CREATE TABLE logs (line STRING) TBLPROPERTIES ('compaction.min.file-num' = '3');
INSERT INTO logs VALUES ('one');
INSERT INTO logs VALUES ('two');
INSERT INTO logs VALUES ('three');
CALL sys.compact(table => 'logs');
SELECT count(*) AS files FROM logs$files;
SELECT * FROM logs ORDER BY line;
