-- CREATE TABLE ... TBLPROPERTIES: a partitioned primary-key table with 2 buckets.
-- Run: paimon-sql --warehouse /tmp/wh -f sql-examples/01_create_table_tblproperties.sql
CREATE NAMESPACE IF NOT EXISTS shop;
CREATE TABLE shop.orders (
  order_id BIGINT,
  customer STRING,
  amount   DECIMAL(10, 2),
  dt       STRING
) PARTITIONED BY (dt)
TBLPROPERTIES ('primary-key' = 'order_id,dt', 'bucket' = '2', 'file.format' = 'parquet');

INSERT INTO shop.orders VALUES
  (1, 'ann', 10.50, '2024-05-01'),
  (2, 'bob', 20.00, '2024-05-01'),
  (3, 'cid', 7.25,  '2024-05-02');

-- an upsert: the newest row of a key wins
INSERT INTO shop.orders VALUES (2, 'bob', 25.00, '2024-05-01'), (4, 'dee', 3.00, '2024-05-02');

SELECT * FROM shop.orders ORDER BY order_id;
SELECT dt, count(*), sum(amount) FROM shop.orders GROUP BY dt ORDER BY dt;
SHOW TBLPROPERTIES shop.orders;
DESCRIBE shop.orders;

-- static and dynamic partition overwrite
INSERT OVERWRITE shop.orders PARTITION (dt = '2024-05-02') VALUES (5, 'eve', 1.00);
SET spark.sql.sources.partitionOverwriteMode=dynamic;
INSERT OVERWRITE shop.orders VALUES (6, 'fay', 2.00, '2024-05-03');
SELECT * FROM shop.orders ORDER BY order_id;

ALTER TABLE shop.orders ADD COLUMNS (note STRING);
ALTER TABLE shop.orders SET TBLPROPERTIES ('target-file-size' = '64 mb');
SELECT order_id, note FROM shop.orders WHERE dt = '2024-05-01' ORDER BY order_id;
SHOW TABLES IN shop;
