package org.paimon_sql.spark;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.catalyst.analysis.NoSuchNamespaceException;
import org.apache.spark.sql.catalyst.analysis.NoSuchTableException;
import org.apache.spark.sql.catalyst.analysis.TableAlreadyExistsException;
import org.apache.spark.sql.catalyst.util.CharVarcharUtils;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.StagedTable;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableCatalog;
import org.apache.spark.sql.connector.catalog.TableInfo;
import org.apache.spark.sql.connector.expressions.IdentityTransform;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.types.StructType;

/**
 * {@code REPLACE TABLE} / {@code CREATE OR REPLACE TABLE [AS SELECT]} and {@code CREATE TABLE ...
 * LIKE} of the {@link PaimonCatalog}, as Paimon 2.x's Spark integration does them:
 *
 * <ul>
 *   <li>a replace keeping the partitioning is done in place (the Python side truncates the table
 *       with one OVERWRITE commit, then commits the new definition as the next schema id): old
 *       snapshots, tags and branches stay, time travel reads the rows before the replace;
 *   <li>a replace changing the partitioning cannot be done in place (Paimon's catalog refuses it):
 *       the table is dropped and created again, as Spark's non-atomic replace does in Paimon;
 *   <li>a self-referencing {@code REPLACE TABLE t AS SELECT ... FROM t} reads the snapshot before
 *       the replace ({@link ReplaceTableSelfReference}).
 * </ul>
 */
final class ReplaceTables {
  private ReplaceTables() {}

  /** Spark's table properties a {@code CREATE TABLE LIKE} does not copy (Paimon's list). */
  private static final Set<String> NOT_COPIED = Set.of("path", TableCatalog.PROP_PROVIDER,
      TableCatalog.PROP_COMMENT, TableCatalog.PROP_LOCATION, TableCatalog.PROP_OWNER,
      TableCatalog.PROP_EXTERNAL, TableCatalog.PROP_IS_MANAGED_LOCATION);

  static boolean samePartitioning(Transform[] a, Transform[] b) {
    if (a.length != b.length) {
      return false;
    }
    for (int i = 0; i < a.length; i++) {
      if (!a[i].describe().equals(b[i].describe())) {
        return false;
      }
    }
    return true;
  }

  /** The replace of the existing table {@code ident} (see the class comment). */
  @SuppressWarnings("unchecked")
  static StagedTable replace(PaimonCatalog catalog, Identifier ident, StructType schema,
      Transform[] partitions, Map<String, String> properties)
      throws NoSuchTableException, NoSuchNamespaceException {
    Table existing = catalog.loadTable(ident);
    Map<String, Object> p = catalog.ctx();
    p.put("namespace", ident.namespace()[0]);
    p.put("table", ident.name());
    p.put("schema", schema.json());
    p.put("partition_keys", partitionKeys(ident, partitions));
    p.put("properties", properties);
    if (!samePartitioning(existing.partitioning(), partitions)) {
      // the new definition is checked before the table is dropped
      Map<String, Object> check = new LinkedHashMap<>(p);
      check.put("check_only", true);
      catalog.request("replace_table", check);
      catalog.dropTable(ident);
      try {
        return catalog.stageCreate(ident, schema, partitions, properties);
      } catch (TableAlreadyExistsException e) {
        throw Errors.sneaky(e);
      }
    }
    Map<String, Object> r = catalog.bridge().call("replace_table", p,
        e -> e.is(ErrorKind.NO_SUCH_TABLE) ? new NoSuchTableException(ident) : null);
    PaimonTable table = PaimonTable.fromDescription(catalog, ident, r);
    return new StagedPaimonTable(catalog, ident, table, (Map<String, Object>) r.get("undo"));
  }

  /** The undo of a replace whose query failed: the table as it was (when nothing else committed). */
  static void undo(PaimonCatalog catalog, Identifier ident, Map<String, Object> undo) {
    Map<String, Object> p = catalog.ctx();
    p.put("namespace", ident.namespace()[0]);
    p.put("table", ident.name());
    p.put("undo", undo);
    catalog.request("undo_replace", p);
  }

  /** The latest snapshot id of {@code ident}, or null when it has none. */
  static Long latestSnapshot(PaimonCatalog catalog, Identifier ident) {
    Map<String, Object> p = catalog.ctx();
    p.put("namespace", ident.namespace()[0]);
    p.put("table", ident.name());
    Object id = catalog.request("latest_snapshot", p).get("snapshot");
    return id instanceof Number n ? n.longValue() : null;
  }

  private static List<String> partitionKeys(Identifier ident, Transform[] partitions) {
    List<String> keys = new ArrayList<>();
    for (Transform t : partitions) {
      if (!(t instanceof IdentityTransform) || t.references().length != 1
          || t.references()[0].fieldNames().length != 1) {
        throw Errors.sneaky(new PaimonException(ErrorKind.UNSUPPORTED,
            "Paimon tables are partitioned by columns only; unsupported partition transform "
                + t.describe() + " for table " + PaimonCatalog.quoted(ident), null));
      }
      keys.add(t.references()[0].fieldNames()[0]);
    }
    return keys;
  }

  /**
   * {@code CREATE TABLE t2 LIKE t1 [TBLPROPERTIES (...)] [LOCATION ...]}: the source's columns
   * (CHAR / VARCHAR as declared), partitioning, comment and, when both are Paimon tables, its
   * properties (options, primary key) but its location; the statement's properties win. No data.
   */
  static Table createLike(PaimonCatalog catalog, Identifier ident, TableInfo info, Table source)
      throws TableAlreadyExistsException, NoSuchNamespaceException {
    Map<String, String> src = source.properties();
    Map<String, String> given = info.properties();
    for (String k : given.keySet()) {
      if (k.startsWith("hive.")) { // STORED AS / ROW FORMAT: Spark's serde properties
        throw Errors.sneaky(new PaimonException(ErrorKind.UNSUPPORTED,
            "CREATE TABLE LIKE ... STORED AS is not supported for SparkCatalog. Table "
                + PaimonCatalog.quoted(ident) + " of catalog " + catalog.name() + " is a Paimon table: "
                + "its file format is its option 'file.format'", null));
      }
    }
    String sourceProvider = lower(src.getOrDefault(TableCatalog.PROP_PROVIDER, "unknown"));
    String targetProvider = lower(given.getOrDefault(TableCatalog.PROP_PROVIDER,
        src.getOrDefault(TableCatalog.PROP_PROVIDER, "paimon")));
    Map<String, String> props = new LinkedHashMap<>();
    if (sourceProvider.equals(targetProvider)) {
      src.forEach((k, v) -> {
        if (!NOT_COPIED.contains(k)) {
          props.put(k, v);
        }
      });
    }
    if (src.containsKey(TableCatalog.PROP_COMMENT)) {
      props.put(TableCatalog.PROP_COMMENT, src.get(TableCatalog.PROP_COMMENT));
    }
    props.put(TableCatalog.PROP_PROVIDER, targetProvider);
    props.putAll(given);
    @SuppressWarnings("deprecation")
    StructType schema = CharVarcharUtils.getRawSchema(source.schema());
    return catalog.createTable(ident, schema, source.partitioning(), props);
  }

  private static String lower(String s) {
    return s.toLowerCase(Locale.ROOT);
  }
}
