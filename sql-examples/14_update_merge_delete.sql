-- UPDATE, MERGE INTO and DELETE with any condition on a primary-key table: each statement writes
-- only the changed rows (+U, +I, -D) keyed by the primary key, in one snapshot; no file is rewritten.
-- Run: paimon-sql --warehouse /tmp/wh -f sql-examples/14_update_merge_delete.sql
CREATE TABLE accounts (id BIGINT, owner STRING, balance DECIMAL(10, 2))
  TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '2', 'changelog-producer' = 'input');
INSERT INTO accounts VALUES (1, 'ann', 100.00), (2, 'bob', 50.00), (3, 'cy', 0.00), (4, 'dee', 75.50);

-- an UPDATE by an expression, and one by a subquery
UPDATE accounts SET balance = balance * 1.10 WHERE balance > 60;
UPDATE accounts SET owner = upper(owner) WHERE id IN (SELECT max(id) FROM accounts);
SELECT * FROM accounts ORDER BY id;

-- MERGE INTO: matched rows updated or deleted, new rows inserted, target rows without a match updated
CREATE TEMPORARY VIEW payments AS SELECT * FROM VALUES
  (1, 'ann', -10.00), (3, 'cy', 0.00), (5, 'eve', 20.00) AS payments(id, owner, amount);
MERGE INTO accounts t USING payments p ON t.id = p.id
  WHEN MATCHED AND p.amount = 0 THEN DELETE
  WHEN MATCHED THEN UPDATE SET balance = t.balance + p.amount
  WHEN NOT MATCHED THEN INSERT (id, owner, balance) VALUES (p.id, p.owner, p.amount)
  WHEN NOT MATCHED BY SOURCE AND t.balance < 60 THEN UPDATE SET owner = concat(t.owner, ' (low)');
SELECT * FROM accounts ORDER BY id;

-- a DELETE whose condition Spark cannot push down (arithmetic): the same row-level path
DELETE FROM accounts WHERE id % 2 = 0;
SELECT * FROM accounts ORDER BY id;

-- one snapshot per statement, and the changes with their row kinds (deleted rows in full)
SELECT snapshot_id, commit_kind FROM accounts$snapshots ORDER BY snapshot_id;
SELECT * FROM paimon_incremental_query('`accounts$audit_log`', '3', '4') ORDER BY id;
SELECT * FROM paimon_incremental_query('`accounts$audit_log`', '4', '5') ORDER BY id;
-- (Paimon's refusals: `UPDATE accounts SET id = 10` fails with "Can't update the primary key column.")
