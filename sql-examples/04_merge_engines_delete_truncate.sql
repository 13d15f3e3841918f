-- Merge engines, DELETE FROM and TRUNCATE TABLE.
CREATE NAMESPACE IF NOT EXISTS ex4;
USE ex4;

-- aggregation: each column keeps its own aggregate of all rows of a key
CREATE TABLE page_views (page STRING, views BIGINT, last_visit DATE, visitors STRING)
  TBLPROPERTIES ('primary-key' = 'page', 'bucket' = '2', 'merge-engine' = 'aggregation',
                 'fields.views.aggregate-function' = 'sum',
                 'fields.last_visit.aggregate-function' = 'max',
                 'fields.visitors.aggregate-function' = 'listagg');
INSERT INTO page_views VALUES ('home', 3, DATE'2024-01-01', 'ann'), ('docs', 1, DATE'2024-01-01', 'bob');
INSERT INTO page_views VALUES ('home', 2, DATE'2024-01-03', 'cy'), ('docs', 4, DATE'2023-12-31', NULL);
SELECT * FROM page_views ORDER BY page;

-- partial-update: a write fills in only its non-null columns
CREATE TABLE profiles (id INT, name STRING, email STRING, city STRING)
  TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1', 'merge-engine' = 'partial-update');
INSERT INTO profiles VALUES (1, 'ann', NULL, NULL), (2, 'bob', 'bob@x.org', NULL);
INSERT INTO profiles VALUES (1, NULL, 'ann@x.org', 'Oslo'), (2, NULL, NULL, 'Rome');
SELECT * FROM profiles ORDER BY id;

-- DELETE FROM: one commit (-D rows for a primary-key table)
CREATE TABLE orders (id BIGINT, amount DOUBLE, dt STRING) PARTITIONED BY (dt)
  TBLPROPERTIES ('primary-key' = 'id,dt', 'bucket' = '2');
INSERT INTO orders VALUES (1, 9.5, '2024-05-01'), (2, 20.0, '2024-05-01'), (3, 7.25, '2024-05-02');
DELETE FROM orders WHERE amount < 10 AND dt = '2024-05-01';
SELECT * FROM orders ORDER BY id;
SELECT snapshot_id, commit_kind, total_record_count, delta_record_count FROM orders$snapshots;

-- TRUNCATE TABLE: an OVERWRITE commit that keeps nothing; older snapshots still read
TRUNCATE TABLE orders;
SELECT count(*) FROM orders;
SELECT count(*) FROM orders VERSION AS OF 2;
