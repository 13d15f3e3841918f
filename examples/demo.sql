-- paimon_sql demo: Paimon tables in Spark SQL, backed by the Python engine.
-- Run: scripts/demo.sh   (or: paimon-sql --warehouse /tmp/demo-wh -f examples/demo.sql)
CREATE TABLE items (id BIGINT, name STRING, price DOUBLE, dt STRING) PARTITIONED BY (dt)
  TBLPROPERTIES ('primary-key' = 'id,dt', 'bucket' = '2');
INSERT INTO items VALUES (1, 'apple', 1.0, '2024-01-01'), (2, 'pear', 2.0, '2024-01-01'), (3, 'plum', 3.0, '2024-01-01');
INSERT INTO items VALUES (2, 'pear', 2.5, '2024-01-01'), (4, 'kiwi', 4.0, '2024-01-02');
SELECT * FROM items ORDER BY id;
SELECT * FROM items VERSION AS OF 1 ORDER BY id;
SELECT snapshot_id, commit_kind, total_record_count FROM items$snapshots;
SELECT `partition`, bucket, record_count FROM items$files ORDER BY `partition`, bucket;
CALL sys.create_tag(table => 'items', tag => 'first', snapshot => 1);
CALL sys.rollback(table => 'items', tag => 'first');
SELECT * FROM items ORDER BY id;
DELETE FROM items WHERE name = 'plum';
SELECT * FROM items ORDER BY id;
CREATE TABLE page_views (page STRING, views BIGINT, last_visit DATE)
  TBLPROPERTIES ('primary-key' = 'page', 'bucket' = '1', 'merge-engine' = 'aggregation',
                 'fields.views.aggregate-function' = 'sum', 'fields.last_visit.aggregate-function' = 'max');
INSERT INTO page_views VALUES ('home', 3, DATE'2024-01-01'), ('docs', 1, DATE'2024-01-01');
INSERT INTO page_views VALUES ('home', 2, DATE'2024-01-03'), ('docs', 4, DATE'2023-12-31');
SELECT * FROM page_views ORDER BY page;
