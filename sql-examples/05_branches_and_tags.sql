-- Branches (create from a tag, write, fast-forward, rename, delete) and tag maintenance.
-- Run: paimon-sql --warehouse /tmp/wh -f sql-examples/05_branches_and_tags.sql
CREATE TABLE orders (id BIGINT, status STRING) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1');
INSERT INTO orders VALUES (1, 'new'), (2, 'new');
INSERT INTO orders VALUES (2, 'paid');
INSERT INTO orders VALUES (3, 'new');

-- a branch from the state tagged at snapshot 2, and an empty one with the current schema
CALL sys.create_tag(table => 'default.orders', tag => 'v2', snapshot => 2);
CALL sys.create_branch(table => 'default.orders', branch => 'fix', tag => 'v2');
CALL sys.create_branch('default.orders', 'scratch');
SELECT branch_name FROM `orders$branches` ORDER BY branch_name;
SELECT * FROM `orders$branch_fix` ORDER BY id;

-- write the branch; main does not change
INSERT INTO `orders$branch_fix` VALUES (2, 'refunded'), (4, 'new');
SELECT * FROM `orders$branch_fix` ORDER BY id;
SELECT snapshot_id FROM `orders$branch_fix$snapshots` ORDER BY snapshot_id;
SELECT * FROM orders ORDER BY id;

-- fast-forward main to the branch: main's snapshots and tags after snapshot 2 are the branch's
CALL sys.fast_forward(table => 'default.orders', branch => 'fix');
SELECT * FROM orders ORDER BY id;
SELECT snapshot_id FROM `orders$snapshots` ORDER BY snapshot_id;
INSERT INTO orders VALUES (5, 'new');
SELECT * FROM orders ORDER BY id;

-- tags: point one elsewhere with a retention, rename it
CALL sys.replace_tag(table => 'default.orders', tag => 'v2', snapshot => 1, time_retained => '7 d');
CALL sys.rename_tag(table => 'default.orders', tag => 'v2', target_tag => 'first');
SELECT tag_name, snapshot_id, time_retained FROM `orders$tags`;
SELECT * FROM orders VERSION AS OF 'first' ORDER BY id;

-- rename and delete branches (a comma-separated list)
CALL sys.rename_branch(table => 'default.orders', from_branch => 'scratch', to_branch => 'sandbox');
CALL sys.delete_branch(table => 'default.orders', branch => 'fix,sandbox');
SELECT count(*) FROM `orders$branches`;
