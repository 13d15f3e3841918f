package org.paimon_sql.spark;

import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.catalyst.analysis.NamespaceAlreadyExistsException;
import org.apache.spark.sql.catalyst.analysis.NoSuchFunctionException;
import org.apache.spark.sql.catalyst.analysis.NoSuchNamespaceException;
import org.apache.spark.sql.catalyst.analysis.NoSuchTableException;
import org.apache.spark.sql.catalyst.analysis.NonEmptyNamespaceException;
import org.apache.spark.sql.catalyst.analysis.TableAlreadyExistsException;
import org.apache.spark.sql.connector.catalog.FunctionCatalog;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.NamespaceChange;
import org.apache.spark.sql.connector.catalog.ProcedureCatalog;
import org.apache.spark.sql.connector.catalog.StagedTable;
import org.apache.spark.sql.connector.catalog.StagingTableCatalog;
import org.apache.spark.sql.connector.catalog.SupportsNamespaces;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableCatalog;
import org.apache.spark.sql.connector.catalog.TableChange;
import org.apache.spark.sql.connector.catalog.TableInfo;
import org.apache.spark.sql.connector.catalog.functions.UnboundFunction;
import org.apache.spark.sql.connector.catalog.procedures.UnboundProcedure;
import org.apache.spark.sql.connector.expressions.IdentityTransform;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Paimon catalog for Spark: metadata and procedures are handled by the Python engine through
 * {@link PythonBridge}; table data is read and written by the Python data source in Spark's
 * Python workers.
 *
 * <pre>
 * spark.sql.catalog.paimon=org.paimon_sql.spark.PaimonCatalog
 * spark.sql.catalog.paimon.warehouse=/path/or/uri
 * spark.sql.catalog.paimon.python=/path/to/python    (optional; default: spark.pyspark.python)
 * </pre>
 */
public class PaimonCatalog
    implements StagingTableCatalog, SupportsNamespaces, ProcedureCatalog, FunctionCatalog {
  private static final Logger LOG = LoggerFactory.getLogger(PaimonCatalog.class);
  public static final String DATA_SOURCE = "paimon_sql";
  public static final String DEFAULT_DATABASE = "default";
  public static final String SYSTEM_NAMESPACE = "sys";

  private String catalogName;
  private String warehouse;
  private String defaultDatabase = DEFAULT_DATABASE;
  private String dataSourceName = DATA_SOURCE;
  /** The catalog's options as configured (Paimon's catalog options: sys.catalog_options shows them). */
  private Map<String, String> catalogOptions = new LinkedHashMap<>();
  /** The bridge of this catalog's Python (option {@code python}, else Spark's); set on first use. */
  private PythonBridge bridge;

  @Override
  public void initialize(String name, CaseInsensitiveStringMap options) {
    ShimVersion.check(org.apache.spark.package$.MODULE$.SPARK_VERSION());
    this.catalogName = name;
    this.warehouse = absoluteWarehouse(options.getOrDefault("warehouse", "warehouse"));
    this.defaultDatabase = options.getOrDefault("default-database", DEFAULT_DATABASE);
    this.dataSourceName = options.getOrDefault("data-source", DATA_SOURCE);
    this.catalogOptions = new LinkedHashMap<>(options.asCaseSensitiveMap());
    this.bridge = PythonBridge.of(options.get("python"));
    Map<String, Object> p = ctx();
    p.put("default_database", defaultDatabase);
    bridge().call("initialize", p, null);
    if (DATA_SOURCE.equals(dataSourceName)) {
      // Spark's own Python data source paths (streaming, the procedures' jobs) then find the data
      // source without Spark's lookup of every installed one (a Python process)
      try {
        EngineDataSource.register(org.apache.spark.sql.SparkSession.active());
      } catch (Exception e) { // Spark's checked SparkException too (Scala declares none)
        LOG.debug("paimon catalog '" + name + "': data source not registered (Spark's lookup finds it): " + e);
      }
    }
    LOG.info("paimon catalog '" + name + "' on warehouse " + warehouse);
  }

  /**
   * A catalog on {@code warehouse} for the tables {@link PaimonSource} reads and writes by path when
   * the session has no Paimon catalog there; it is not initialized, so it creates nothing (no
   * default database) in the warehouse.
   */
  static PaimonCatalog ofPath(String warehouse) {
    PaimonCatalog c = new PaimonCatalog();
    c.catalogName = PaimonSource.NAME;
    c.warehouse = warehouse;
    c.catalogOptions = new LinkedHashMap<>(Map.of("warehouse", warehouse));
    return c;
  }

  /** A path without a scheme is made absolute here: Python workers may run in another folder. */
  static String absoluteWarehouse(String w) {
    if (w.matches("^[A-Za-z][A-Za-z0-9+.-]*:.*") && !w.matches("^[A-Za-z]:[\\\\/].*")) {
      return w;
    }
    return Paths.get(w).toAbsolutePath().normalize().toString();
  }

  @Override
  public String name() {
    return catalogName;
  }

  /** Column {@code DEFAULT} values in CREATE / REPLACE TABLE and ALTER COLUMN (kept in the schema). */
  @Override
  public java.util.Set<org.apache.spark.sql.connector.catalog.TableCatalogCapability> capabilities() {
    return java.util.Set.of(
        org.apache.spark.sql.connector.catalog.TableCatalogCapability.SUPPORT_COLUMN_DEFAULT_VALUE);
  }

  @Override
  public String[] defaultNamespace() {
    return new String[] {defaultDatabase};
  }

  public String warehouse() {
    return warehouse;
  }

  String dataSourceName() {
    return dataSourceName;
  }

  Map<String, Object> ctx() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("warehouse", warehouse);
    m.put("catalog", catalogName);
    m.put("catalog_options", catalogOptions);
    // Paimon TIMESTAMP as Spark TIMESTAMP (schemas shown, CREATE / ALTER TABLE types)
    m.put("legacy_timestamp_mapping", DynamicOptions.legacyTimestampMapping());
    return m;
  }

  /** The Python bridge of this catalog (its option {@code python}, else Spark's Python). */
  PythonBridge bridge() {
    if (bridge == null) {
      bridge = PythonBridge.forSession();
    }
    return bridge;
  }

  /** Calls {@code method} on this catalog's bridge; Python errors become Spark's exceptions. */
  Map<String, Object> request(String method, Map<String, Object> params) {
    return bridge().call(method, params, null);
  }

  /**
   * A call that needs no catalog (the parser's rewrite, a path's table, scan planning): on the
   * bridge of Spark's Python.
   */
  static Map<String, Object> call(String method, Map<String, Object> params) {
    return PythonBridge.forSession().call(method, params, null);
  }

  /**
   * The database of a one-level namespace; another namespace is refused with Paimon's message
   * (its {@code CatalogUtils.checkNamespace}: {@code SELECT * FROM paimon1.db.t} while the current
   * catalog is {@code paimon} reaches here as the namespace {@code [paimon1, db]}).
   */
  private String database(String[] namespace) {
    if (namespace.length != 1) {
      throw Errors.sneaky(new PaimonException(ErrorKind.ILLEGAL_ARGUMENT, String.format(
          "Current catalog is %s, catalog %s does not exist or Paimon only support single namespace, "
              + "but got %s", catalogName, namespace.length > 0 ? namespace[0] : "unknown",
          Arrays.toString(namespace)), null));
    }
    return namespace[0];
  }

  /**
   * The target of {@code ALTER TABLE ... RENAME TO}, which Spark does not resolve against the
   * catalogs: {@code paimon.db.t2} arrives as the namespace {@code [paimon, db]}. A leading element
   * naming this catalog is dropped (Paimon's {@code removeCatalogName}); another catalog is
   * refused, as Paimon refuses it.
   */
  private Identifier withoutCatalogName(Identifier ident) {
    String[] ns = ident.namespace();
    if (ns.length <= 1) {
      return ident;
    }
    if (!ns[0].equals(catalogName)) {
      throw Errors.sneaky(new PaimonException(ErrorKind.ILLEGAL_ARGUMENT, String.format(
          "Only supports operations within the same catalog, target catalog name: %s, current "
              + "catalog name: %s", ns[0], catalogName), null));
    }
    return Identifier.of(Arrays.copyOfRange(ns, 1, ns.length), ident.name());
  }

  // ------------------------------------------------------------------------------ namespaces

  @Override
  @SuppressWarnings("unchecked")
  public String[][] listNamespaces() {
    List<String> l = (List<String>) request("list_namespaces", ctx()).get("namespaces");
    String[][] out = new String[l.size()][];
    for (int i = 0; i < l.size(); i++) {
      out[i] = new String[] {l.get(i)};
    }
    return out;
  }

  @Override
  public String[][] listNamespaces(String[] namespace) throws NoSuchNamespaceException {
    if (namespace.length == 0) {
      return listNamespaces();
    }
    if (!namespaceExists(namespace)) {
      throw new NoSuchNamespaceException(namespace);
    }
    return new String[0][];
  }

  @Override
  public boolean namespaceExists(String[] namespace) {
    if (namespace.length != 1) {
      return false;
    }
    Map<String, Object> p = ctx();
    p.put("namespace", namespace[0]);
    return Boolean.TRUE.equals(request("namespace_exists", p).get("exists"));
  }

  @Override
  @SuppressWarnings("unchecked")
  public Map<String, String> loadNamespaceMetadata(String[] namespace) throws NoSuchNamespaceException {
    if (namespace.length != 1) {
      throw new NoSuchNamespaceException(namespace);
    }
    Map<String, Object> p = ctx();
    p.put("namespace", namespace[0]);
    return new HashMap<>((Map<String, String>) bridge().call("load_namespace_metadata", p,
        e -> e.is(ErrorKind.NO_SUCH_NAMESPACE) ? new NoSuchNamespaceException(namespace) : null).get("metadata"));
  }

  @Override
  public void createNamespace(String[] namespace, Map<String, String> metadata)
      throws NamespaceAlreadyExistsException {
    Map<String, Object> p = ctx();
    p.put("namespace", database(namespace));
    p.put("metadata", metadata);
    bridge().call("create_namespace", p,
        e -> e.is(ErrorKind.ALREADY_EXISTS) ? new NamespaceAlreadyExistsException(namespace) : null);
  }

  /** ALTER NAMESPACE ... SET / UNSET DBPROPERTIES: the engine's catalog decides (the JDBC one keeps them). */
  @Override
  public void alterNamespace(String[] namespace, NamespaceChange... changes) throws NoSuchNamespaceException {
    List<Map<String, Object>> list = new ArrayList<>();
    for (NamespaceChange c : changes) {
      Map<String, Object> m = new LinkedHashMap<>();
      if (c instanceof NamespaceChange.SetProperty set) {
        m.put("set", set.property());
        m.put("value", set.value());
      } else if (c instanceof NamespaceChange.RemoveProperty remove) {
        m.put("remove", remove.property());
      } else {
        throw Errors.sneaky(new PaimonException(ErrorKind.UNSUPPORTED,
            "ALTER NAMESPACE change " + c + " is not supported by the Paimon catalog '" + catalogName + "'", null));
      }
      list.add(m);
    }
    Map<String, Object> p = ctx();
    p.put("namespace", database(namespace));
    p.put("changes", list);
    bridge().call("alter_namespace", p,
        e -> e.is(ErrorKind.NO_SUCH_NAMESPACE) ? new NoSuchNamespaceException(namespace) : null);
  }

  @Override
  public boolean dropNamespace(String[] namespace, boolean cascade)
      throws NoSuchNamespaceException, NonEmptyNamespaceException {
    Map<String, Object> p = ctx();
    p.put("namespace", database(namespace));
    p.put("cascade", cascade);
    return Boolean.TRUE.equals(bridge().call("drop_namespace", p, e -> switch (e.kind) {
      case NON_EMPTY_NAMESPACE -> new NonEmptyNamespaceException(namespace, e.getMessage(), scala.Option.apply(null));
      case NO_SUCH_NAMESPACE -> new NoSuchNamespaceException(namespace);
      default -> null;
    }).get("dropped"));
  }

  // ---------------------------------------------------------------------------------- tables

  @Override
  @SuppressWarnings("unchecked")
  public Identifier[] listTables(String[] namespace) throws NoSuchNamespaceException {
    Map<String, Object> p = ctx();
    p.put("namespace", database(namespace));
    List<String> l = (List<String>) bridge().call("list_tables", p,
        e -> e.is(ErrorKind.NO_SUCH_NAMESPACE) ? new NoSuchNamespaceException(namespace) : null).get("tables");
    return l.stream().map(t -> Identifier.of(namespace, t)).toArray(Identifier[]::new);
  }

  @Override
  public Table loadTable(Identifier ident) throws NoSuchTableException {
    return load(ident, null, null);
  }

  /** {@code VERSION AS OF 3} (a snapshot id) or {@code VERSION AS OF 'tag'} (a tag name). */
  @Override
  public Table loadTable(Identifier ident, String version) throws NoSuchTableException {
    return load(ident, version, null);
  }

  /** {@code TIMESTAMP AS OF ...}: microseconds since the epoch. */
  @Override
  public Table loadTable(Identifier ident, long timestamp) throws NoSuchTableException {
    return load(ident, null, timestamp);
  }

  @SuppressWarnings("unchecked")
  private PaimonTable load(Identifier ident, String version, Long timestampMicros)
      throws NoSuchTableException {
    Map<String, Object> p = ctx();
    p.put("namespace", database(ident.namespace()));
    p.put("table", ident.name());
    if (version != null) {
      p.put("version", version);
    }
    if (timestampMicros != null) {
      p.put("timestamp_micros", timestampMicros);
    }
    p.put("dynamic_options", DynamicOptions.of(name(), ident));
    return PaimonTable.fromDescription(this, ident, bridge().call("load_table", p, e -> notFound(ident, e)));
  }

  /**
   * A missing table or database becomes Spark's NoSuchTableException (Spark then reports the table
   * as not found, and IF EXISTS works); other errors (a missing snapshot, tag, branch or system
   * table of an existing table) keep the engine's message.
   */
  static NoSuchTableException notFound(Identifier ident, BridgeException e) {
    return e.is(ErrorKind.NO_SUCH_TABLE) || e.is(ErrorKind.NO_SUCH_NAMESPACE) ? new NoSuchTableException(ident) : null;
  }

  static String quoted(Identifier ident) {
    List<String> parts = new ArrayList<>(Arrays.asList(ident.namespace()));
    parts.add(ident.name());
    StringBuilder sb = new StringBuilder();
    for (String s : parts) {
      if (sb.length() > 0) {
        sb.append('.');
      }
      sb.append('`').append(s.replace("`", "``")).append('`');
    }
    return sb.toString();
  }

  @Override
  @SuppressWarnings("deprecation")
  public Table createTable(
      Identifier ident, StructType schema, Transform[] partitions, Map<String, String> properties)
      throws TableAlreadyExistsException, NoSuchNamespaceException {
    Map<String, Object> p = ctx();
    p.put("namespace", database(ident.namespace()));
    p.put("table", ident.name());
    p.put("schema", schema.json());
    List<String> partitionKeys = new ArrayList<>();
    for (Transform t : partitions) {
      if (!(t instanceof IdentityTransform) || t.references().length != 1
          || t.references()[0].fieldNames().length != 1) {
        throw Errors.sneaky(new PaimonException(ErrorKind.UNSUPPORTED,
            "Paimon tables are partitioned by columns only; unsupported partition transform "
                + t.describe() + " for table " + quoted(ident), null));
      }
      partitionKeys.add(t.references()[0].fieldNames()[0]);
    }
    p.put("partition_keys", partitionKeys);
    p.put("properties", properties);
    Map<String, Object> r = bridge().call("create_table", p, e -> switch (e.kind) {
      case ALREADY_EXISTS -> new TableAlreadyExistsException(ident);
      case NO_SUCH_NAMESPACE -> new NoSuchNamespaceException(ident.namespace());
      default -> null;
    });
    return PaimonTable.fromDescription(this, ident, r);
  }

  @Override
  public Table alterTable(Identifier ident, TableChange... changes) throws NoSuchTableException {
    Map<String, Object> p = ctx();
    p.put("namespace", database(ident.namespace()));
    p.put("table", ident.name());
    p.put("changes", TableChanges.toJson(changes));
    return PaimonTable.fromDescription(this, ident, bridge().call("alter_table", p, e -> notFound(ident, e)));
  }

  /** CTAS: the table is created when staged and dropped again if the query fails. */
  @Override
  @SuppressWarnings("deprecation")
  public StagedTable stageCreate(
      Identifier ident, StructType schema, Transform[] partitions, Map<String, String> properties)
      throws TableAlreadyExistsException, NoSuchNamespaceException {
    return new StagedPaimonTable(this, ident, (PaimonTable) createTable(ident, schema, partitions, properties));
  }

  /**
   * {@code REPLACE TABLE} of an existing table, in place as Paimon 2.x ({@link ReplaceTables}):
   * old snapshots, tags and branches are kept.
   */
  @Override
  @SuppressWarnings("deprecation")
  public StagedTable stageReplace(
      Identifier ident, StructType schema, Transform[] partitions, Map<String, String> properties)
      throws NoSuchNamespaceException, NoSuchTableException {
    if (!tableExists(ident)) {
      throw new NoSuchTableException(ident);
    }
    return ReplaceTables.replace(this, ident, schema, partitions, properties);
  }

  @Override
  @SuppressWarnings("deprecation")
  public StagedTable stageCreateOrReplace(
      Identifier ident, StructType schema, Transform[] partitions, Map<String, String> properties)
      throws NoSuchNamespaceException {
    if (tableExists(ident)) {
      try {
        return ReplaceTables.replace(this, ident, schema, partitions, properties);
      } catch (NoSuchTableException e) {
        // dropped meanwhile: created below
      }
    }
    try {
      return stageCreate(ident, schema, partitions, properties);
    } catch (TableAlreadyExistsException e) {
      throw Errors.sneaky(e);
    }
  }

  /** {@code CREATE TABLE t2 LIKE t1} (Spark 4.1+), as Paimon's {@code PaimonCreateTableLikeCommand}. */
  @Override
  public Table createTableLike(Identifier ident, TableInfo info, Table source)
      throws TableAlreadyExistsException, NoSuchNamespaceException {
    return ReplaceTables.createLike(this, ident, info, source);
  }

  @Override
  public boolean dropTable(Identifier ident) {
    if (ident.namespace().length != 1) {
      return false;
    }
    Map<String, Object> p = ctx();
    p.put("namespace", ident.namespace()[0]);
    p.put("table", ident.name());
    return Boolean.TRUE.equals(request("drop_table", p).get("dropped"));
  }

  @Override
  public void renameTable(Identifier oldIdent, Identifier newIdent)
      throws NoSuchTableException, TableAlreadyExistsException {
    Map<String, Object> p = ctx();
    p.put("namespace", database(oldIdent.namespace()));
    p.put("table", oldIdent.name());
    // RENAME TO u (one part) keeps the namespace
    Identifier target = withoutCatalogName(newIdent);
    p.put("new_namespace",
        target.namespace().length == 0 ? oldIdent.namespace()[0] : database(target.namespace()));
    p.put("new_table", target.name());
    bridge().call("rename_table", p, e -> switch (e.kind) {
      case ALREADY_EXISTS -> new TableAlreadyExistsException(newIdent);
      case NO_SUCH_TABLE -> new NoSuchTableException(oldIdent);
      default -> null;
    });
  }

  // ------------------------------------------------------------------------------ procedures

  @Override
  public UnboundProcedure loadProcedure(Identifier ident) {
    if (ident.namespace().length != 1 || !SYSTEM_NAMESPACE.equalsIgnoreCase(ident.namespace()[0])) {
      throw Errors.sneaky(new PaimonException(ErrorKind.NOT_FOUND, "Procedure " + catalogName + "."
          + String.join(".", ident.namespace()) + "." + ident.name() + " does not exist: the"
          + " procedures of catalog " + catalogName + " are in namespace '" + SYSTEM_NAMESPACE
          + "' (CALL " + catalogName + "." + SYSTEM_NAMESPACE + "." + ident.name() + "(...))", null));
    }
    Map<String, Object> p = ctx();
    p.put("name", ident.name());
    return new PaimonProcedure(this, request("describe_procedure", p));
  }

  @Override
  @SuppressWarnings("unchecked")
  public Identifier[] listProcedures(String[] namespace) {
    // every namespace shows the procedures, which live in 'sys' (SHOW PROCEDURES lists the
    // current namespace)
    List<String> l = (List<String>) request("list_procedures", ctx()).get("procedures");
    return l.stream()
        .map(n -> Identifier.of(new String[] {SYSTEM_NAMESPACE}, n))
        .toArray(Identifier[]::new);
  }

  // ------------------------------------------------------------------------------- functions

  /**
   * The catalog's built-in functions ({@link PaimonBucketFunction}: {@code paimon_bucket},
   * {@code paimon_timestamp_millis}), in the namespace 'sys' and in the empty namespace (where
   * Spark looks up the functions of a write's required distribution).
   */
  static final String BUCKET_TRANSFORM = "bucket";

  private static final Map<String, UnboundFunction> FUNCTIONS = Map.of(
      PaimonBucketFunction.NAME, PaimonBucketFunction.INSTANCE,
      // what Spark looks up for a scan's bucket(n, key) layout (NativeParquetScan), as in Paimon
      BUCKET_TRANSFORM, PaimonBucketFunction.INSTANCE,
      PaimonBucketFunction.SLOT_NAME, PaimonBucketFunction.SLOTS,
      PaimonBucketFunction.TimestampMillis.NAME, PaimonBucketFunction.TimestampMillis.INSTANCE);

  private static boolean isFunctionNamespace(String[] namespace) {
    return namespace.length == 0
        || (namespace.length == 1 && SYSTEM_NAMESPACE.equalsIgnoreCase(namespace[0]));
  }

  @Override
  public Identifier[] listFunctions(String[] namespace) {
    if (!isFunctionNamespace(namespace)) {
      return new Identifier[0];
    }
    return FUNCTIONS.keySet().stream().sorted()
        .map(n -> Identifier.of(namespace, n))
        .toArray(Identifier[]::new);
  }

  @Override
  public UnboundFunction loadFunction(Identifier ident) throws NoSuchFunctionException {
    UnboundFunction f = isFunctionNamespace(ident.namespace())
        ? FUNCTIONS.get(ident.name().toLowerCase(java.util.Locale.ROOT))
        : null;
    if (f == null) {
      throw new NoSuchFunctionException(ident);
    }
    return f;
  }
}
