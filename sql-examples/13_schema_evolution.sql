-- Schema evolution: every change is a new schema version; files written before are read by field id,
-- cast with Paimon's rules after a type change, in any file format.
CREATE NAMESPACE IF NOT EXISTS ex13;
USE ex13;

CREATE TABLE orders (id BIGINT, qty INT, price DOUBLE, note STRING, info STRUCT<city: STRING, zip: INT>)
  TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1', 'file.format' = 'orc');
INSERT INTO orders VALUES (1, 2, 9.5, 'first', STRUCT('Oslo', 150)), (2, 5, 3.25, NULL, STRUCT('Rome', 118));

-- add (also nested, with a position), rename (a primary-key column too), move, widen, retype
ALTER TABLE orders ADD COLUMN status STRING AFTER id;
ALTER TABLE orders ADD COLUMN info.country STRING FIRST;
ALTER TABLE orders RENAME COLUMN id TO order_id;
ALTER TABLE orders RENAME COLUMN info.zip TO postcode;
ALTER TABLE orders ALTER COLUMN price FIRST;
ALTER TABLE orders ALTER COLUMN note AFTER order_id;
ALTER TABLE orders ALTER COLUMN qty TYPE BIGINT;
ALTER TABLE orders ALTER COLUMN info.postcode TYPE STRING;
ALTER TABLE orders ALTER COLUMN qty COMMENT 'units ordered';
DESCRIBE orders;

-- the old rows read with the new schema; an upsert through the renamed key replaces one of them
INSERT INTO orders VALUES (7.0, 2, 'second', 'paid', 6, STRUCT('IT', 'Rome', '00118'));
SELECT * FROM orders ORDER BY order_id;

-- nullability: DROP NOT NULL (a primary-key column stays NOT NULL)
CREATE TABLE readings (sensor INT NOT NULL, value DOUBLE NOT NULL) TBLPROPERTIES ('bucket-key' = 'sensor', 'bucket' = '2');
INSERT INTO readings VALUES (1, 0.5);
ALTER TABLE readings ALTER COLUMN value DROP NOT NULL;
INSERT INTO readings VALUES (2, NULL);
SELECT * FROM readings ORDER BY sensor;
DESCRIBE readings;

-- drop a column, then add one with the same name: a new field id, so old rows read NULL
ALTER TABLE readings DROP COLUMN value;
ALTER TABLE readings ADD COLUMN value STRING;
SELECT * FROM readings ORDER BY sensor;
SELECT schema_id, fields FROM readings$schemas ORDER BY schema_id;
