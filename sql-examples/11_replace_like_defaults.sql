-- REPLACE TABLE in place (history kept), CREATE TABLE ... LIKE, column DEFAULT values.
-- Run: paimon-sql --warehouse /tmp/wh -f sql-examples/11_replace_like_defaults.sql
CREATE TABLE t (id BIGINT, data STRING) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '2');
INSERT INTO t VALUES (1, 'old'), (2, 'older');

-- a new definition, in place: the rows before it stay readable by time travel
REPLACE TABLE t (id BIGINT, name STRING, score INT DEFAULT 10) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '4');
SELECT count(*) FROM t;
SELECT * FROM t VERSION AS OF 1 ORDER BY id;
SELECT snapshot_id, schema_id, commit_kind FROM `t$snapshots` ORDER BY snapshot_id;

-- defaults fill the columns an INSERT leaves out, and NULLs
INSERT INTO t (id, name) VALUES (3, 'c');
INSERT INTO t VALUES (4, 'd', NULL), (5, 'e', 7);
ALTER TABLE t ALTER COLUMN score SET DEFAULT 20;
INSERT INTO t (id, name) VALUES (6, 'f');
SELECT * FROM t ORDER BY id;

-- a self-referencing replace reads the rows before it
CREATE OR REPLACE TABLE t TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '4') AS SELECT id, name, score FROM t WHERE score > 10;
SELECT * FROM t ORDER BY id;

-- same columns, keys, partitioning, options and comment; no data
CREATE TABLE t2 LIKE t TBLPROPERTIES ('bucket' = '1');
SHOW TBLPROPERTIES t2;
SELECT count(*) FROM t2;
