-- UPDATE, MERGE INTO and DELETE on append tables (no primary key), and the metadata columns.
CREATE NAMESPACE IF NOT EXISTS ex12;
USE ex12;

-- copy-on-write: only the data files holding a matching row are rewritten (an OVERWRITE snapshot)
CREATE TABLE events (id INT, kind STRING, amount DOUBLE, dt STRING) PARTITIONED BY (dt);
INSERT INTO events VALUES (1, 'click', 1.0, '2024-05-01'), (2, 'view', 2.0, '2024-05-01'),
  (3, 'click', 3.0, '2024-05-02'), (4, 'view', 4.0, '2024-05-02');
UPDATE events SET amount = amount * 10 WHERE kind = 'click' AND id % 2 = 1;
SELECT * FROM events ORDER BY id;

-- MERGE INTO with several clauses and a subquery source
MERGE INTO events t
USING (SELECT * FROM VALUES (2, 'view', 20.0, '2024-05-01'), (5, 'buy', 5.0, '2024-05-03') AS s(id, kind, amount, dt)) s
ON t.id = s.id
WHEN MATCHED THEN UPDATE SET amount = s.amount
WHEN NOT MATCHED THEN INSERT *
WHEN NOT MATCHED BY SOURCE AND t.kind = 'view' THEN DELETE;
SELECT * FROM events ORDER BY id;

-- DELETE with a condition Spark cannot push down
DELETE FROM events WHERE id IN (SELECT id FROM events WHERE amount > 20);
SELECT * FROM events ORDER BY id;
SELECT snapshot_id, commit_kind FROM events$snapshots;

-- metadata columns: the partition and bucket of each row (also __paimon_file_path, __paimon_row_index)
SELECT id, __paimon_partition, __paimon_bucket FROM events ORDER BY id;

-- deletion vectors: matched rows are marked deleted, new rows appended, no file rewritten
CREATE TABLE dv (id INT, v STRING) TBLPROPERTIES ('deletion-vectors.enabled' = 'true');
INSERT INTO dv VALUES (1, 'a'), (2, 'b'), (3, 'c');
UPDATE dv SET v = upper(v) WHERE id % 2 = 1;
DELETE FROM dv WHERE id * 2 = 4;
SELECT * FROM dv ORDER BY id;
SELECT snapshot_id, commit_kind FROM dv$snapshots;
