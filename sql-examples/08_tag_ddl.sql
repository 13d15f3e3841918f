-- Apache Paimon's tag statements: SHOW TAGS and ALTER TABLE ... CREATE / REPLACE / RENAME / DELETE TAG.
-- Run: paimon-sql --warehouse /tmp/wh -f sql-examples/08_tag_ddl.sql
CREATE TABLE events (id BIGINT, kind STRING) TBLPROPERTIES ('primary-key' = 'id');
INSERT INTO events VALUES (1, 'open');
INSERT INTO events VALUES (2, 'open');
INSERT INTO events VALUES (1, 'closed');

-- the latest snapshot, an older one, and one kept for two days (the ALTER statements print nothing)
ALTER TABLE events CREATE TAG `2024-10-12`;
ALTER TABLE events CREATE TAG first AS OF VERSION 1;
ALTER TABLE default.events CREATE TAG weekly AS OF VERSION 2 RETAIN 2 DAYS;
SHOW TAGS events;
SELECT tag_name, snapshot_id, time_retained FROM `events$tags` ORDER BY tag_name;
SELECT * FROM events VERSION AS OF 'first' ORDER BY id;

-- IF NOT EXISTS keeps an existing tag; CREATE OR REPLACE (or REPLACE) moves it
ALTER TABLE events CREATE TAG IF NOT EXISTS first AS OF VERSION 3;
ALTER TABLE events CREATE OR REPLACE TAG weekly RETAIN 12 HOURS;
ALTER TABLE events REPLACE TAG daily AS OF VERSION 2;
SELECT tag_name, snapshot_id, time_retained FROM `events$tags` ORDER BY tag_name;

-- rename one, delete several at once (missing names are skipped)
ALTER TABLE events RENAME TAG first TO initial;
ALTER TABLE events DELETE TAG `2024-10-12,daily,nope`;
SHOW TAGS paimon.default.events;
