-- Time travel, tags and CALL sys.rollback.
-- Run: paimon-sql --warehouse /tmp/wh -f sql-examples/02_time_travel_and_rollback.sql
CREATE TABLE events (id BIGINT, kind STRING) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1');
INSERT INTO events VALUES (1, 'open'), (2, 'open');
INSERT INTO events VALUES (2, 'close'), (3, 'open');
INSERT INTO events VALUES (4, 'open');

SELECT snapshot_id, commit_kind, total_record_count, delta_record_count FROM events$snapshots ORDER BY snapshot_id;
SELECT * FROM events VERSION AS OF 1 ORDER BY id;
SELECT * FROM events VERSION AS OF 2 ORDER BY id;

CALL sys.create_tag(table => 'default.events', tag => 'before_cleanup', snapshot => 2);
SELECT tag_name, snapshot_id FROM events$tags;
SELECT count(*) FROM events VERSION AS OF 'before_cleanup';

-- roll back to snapshot 2: snapshot 3 is gone, and so is row 4
CALL sys.rollback(table => 'default.events', snapshot => 2);
SELECT * FROM events ORDER BY id;
SELECT snapshot_id FROM events$snapshots ORDER BY snapshot_id;

-- 'version' takes a snapshot id or a tag name; rolling back past a tag's snapshot deletes the tag
CALL sys.rollback(table => 'default.events', version => '1');
SELECT * FROM events ORDER BY id;
CALL sys.delete_tag(table => 'default.events', tag => 'before_cleanup');
SELECT count(*) FROM events$tags;
