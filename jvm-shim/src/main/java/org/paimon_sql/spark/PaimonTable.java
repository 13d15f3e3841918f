package org.paimon_sql.spark;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.SupportsAtomicPartitionManagement;
import org.apache.spark.sql.connector.catalog.SupportsDeleteV2;
import org.apache.spark.sql.connector.catalog.MetadataColumn;
import org.apache.spark.sql.connector.catalog.SupportsMetadataColumns;
import org.apache.spark.sql.connector.catalog.SupportsRowLevelOperations;
import org.apache.spark.sql.connector.catalog.SupportsSchemaEvolution;
import org.apache.spark.sql.connector.catalog.TableChange;
import org.apache.spark.sql.connector.catalog.SupportsWrite;
import org.apache.spark.sql.connector.catalog.TruncatableTable;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.expressions.Expressions;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.RowLevelOperationBuilder;
import org.apache.spark.sql.connector.write.RowLevelOperationInfo;
import org.apache.spark.sql.connector.write.WriteBuilder;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * A Paimon table in Spark. Its scans and writes run in the Python data source ({@code paimon_sql},
 * Spark's PythonDataSourceV2); this class adds what the Python source lacks for catalog tables:
 * the table's identity (warehouse, table, time travel) merged into every scan/write's options,
 * column pruning, partition overwrite modes and the write distribution of primary-key tables; and
 * partition management ({@code SHOW PARTITIONS}, {@code ALTER TABLE ... DROP PARTITION},
 * {@code TRUNCATE TABLE ... PARTITION}) through the Python bridge.
 */
public class PaimonTable
    implements SupportsRead, SupportsWrite, SupportsDeleteV2, TruncatableTable, SupportsAtomicPartitionManagement,
        SupportsMetadataColumns, SupportsRowLevelOperations, SupportsSchemaEvolution {
  private final PaimonCatalog catalog;
  private final Identifier ident;
  private final StructType schema;
  private final Map<String, String> properties;
  private final List<String> partitionKeys;
  private final List<String> primaryKeys;
  private final Map<String, String> dataSourceOptions;
  private final boolean readOnly;
  private int bucket = -1;
  private List<String> bucketKeys = Collections.emptyList();
  private List<String> bucketKeyTypes = Collections.emptyList();
  /** Loaded by {@link PaimonSource} (a path): Spark's relation has no catalog to look functions up in. */
  private boolean byPath = false;
  /**
   * A {@code write.merge-schema} change planned while the write was analysed and committed when it
   * runs (the bridge call's parameters), or null; see {@link MergeSchemaWrites}.
   */
  private Map<String, Object> pendingSchemaMerge = null;

  PaimonTable(
      PaimonCatalog catalog,
      Identifier ident,
      StructType schema,
      Map<String, String> properties,
      List<String> partitionKeys,
      List<String> primaryKeys,
      Map<String, String> dataSourceOptions,
      boolean readOnly) {
    this.catalog = catalog;
    this.ident = ident;
    this.schema = schema;
    this.properties = Collections.unmodifiableMap(properties);
    this.partitionKeys = partitionKeys;
    this.primaryKeys = primaryKeys;
    this.dataSourceOptions = dataSourceOptions;
    this.readOnly = readOnly;
  }

  /** Builds a table from the Python {@code load_table} answer. */
  @SuppressWarnings("unchecked")
  static PaimonTable fromDescription(PaimonCatalog catalog, Identifier ident, Map<String, Object> r) {
    StructType schema = (StructType) DataType.fromJson((String) r.get("schema"));
    Map<String, String> props = new LinkedHashMap<>((Map<String, String>) r.get("properties"));
    Map<String, String> opts = new HashMap<>((Map<String, String>) r.get("options"));
    List<String> parts = new ArrayList<>((List<String>) r.get("partition_keys"));
    List<String> pks = new ArrayList<>((List<String>) r.get("primary_keys"));
    boolean ro = Boolean.TRUE.equals(r.get("read_only"));
    PaimonTable t = new PaimonTable(catalog, ident, schema, props, parts, pks, opts, ro);
    // fixed-bucket layout (absent in answers of system tables: no buckets)
    if (r.get("bucket") instanceof Number bucket) {
      t.bucket = bucket.intValue();
    }
    if (r.get("bucket_keys") instanceof List && r.get("bucket_key_types") instanceof List) {
      List<String> keys = new ArrayList<>((List<String>) r.get("bucket_keys"));
      List<String> types = new ArrayList<>((List<String>) r.get("bucket_key_types"));
      if (keys.size() == types.size()) {
        t.bucketKeys = Collections.unmodifiableList(keys);
        t.bucketKeyTypes = Collections.unmodifiableList(types);
      }
    }
    return t;
  }

  /**
   * This table read with option {@code read.changelog} (Paimon's SparkSource reads it as the
   * table's audit log): a first column {@code rowkind} (+I, -U, +U, -D); read only.
   */
  PaimonTable withRowKindColumn() {
    StructType s = new StructType()
        .add("rowkind", org.apache.spark.sql.types.DataTypes.StringType, false);
    for (org.apache.spark.sql.types.StructField f : schema.fields()) {
      s = s.add(f);
    }
    PaimonTable t = new PaimonTable(catalog, ident, s, properties, partitionKeys, primaryKeys,
        dataSourceOptions, true);
    t.byPath = byPath;
    return t;
  }

  /** Marks this table as loaded by path ({@link PaimonSource}); returns it. */
  PaimonTable loadedByPath() {
    this.byPath = true;
    return this;
  }

  /**
   * This table as a planned {@code write.merge-schema} change would leave it: the change (the bridge
   * call {@code merge_write_schema} with {@code params}) is committed by {@link #commitPendingSchemaMerge},
   * when a write into this table runs.
   */
  PaimonTable withPendingSchemaMerge(Map<String, Object> params) {
    this.pendingSchemaMerge = new HashMap<>(params);
    return this;
  }

  /**
   * Commits the schema change planned for this write, if any (once): merged with the table's
   * schema of now, which must give the schema the write was planned with; a schema changed in
   * between (another writer's ALTER) fails the write before any data is written.
   */
  @SuppressWarnings("unchecked")
  synchronized void commitPendingSchemaMerge() {
    if (pendingSchemaMerge == null) {
      return;
    }
    Map<String, Object> p = new HashMap<>(pendingSchemaMerge);
    p.put("commit", true);
    Map<String, Object> r = catalog.bridge().call("merge_write_schema", p, e -> PaimonCatalog.notFound(ident, e));
    StructType committed = (StructType) DataType.fromJson((String) r.get("schema"));
    if (!committed.sameType(schema)) {
      throw Errors.sneaky(new PaimonException(ErrorKind.COMMIT_CONFLICT,
          "Table " + PaimonCatalog.quoted(ident) + ": its schema changed while the write with "
              + "write.merge-schema was planned (planned " + schema.simpleString() + ", now "
              + committed.simpleString() + "); run the write again", null));
    }
    pendingSchemaMerge = null;
  }

  /** Whether this table is read only (a time travel or a system table). */
  boolean isReadOnly() {
    return readOnly;
  }

  /** Whether {@link PaimonSource} loaded this table (by path, without a catalog in Spark's plan). */
  boolean isLoadedByPath() {
    return byPath;
  }

  @Override
  public String name() {
    return catalog.name() + "." + PaimonCatalog.quoted(ident);
  }

  @Override
  @SuppressWarnings("deprecation")
  public StructType schema() {
    return schema;
  }

  @Override
  public Transform[] partitioning() {
    return partitionKeys.stream().map(Expressions::identity).toArray(Transform[]::new);
  }

  @Override
  public Map<String, String> properties() {
    return properties;
  }

  public List<String> partitionKeys() {
    return partitionKeys;
  }

  public List<String> primaryKeys() {
    return primaryKeys;
  }

  /** The table's {@code bucket} option: > 0 fixed buckets, -1 dynamic (or bucket-unaware). */
  public int bucket() {
    return bucket;
  }

  /** The columns Paimon hashes into a fixed bucket (the bucket-key option, else the primary key
   *  minus the partition columns); empty when there are none. */
  public List<String> bucketKeys() {
    return bucketKeys;
  }

  /** The Paimon types of {@link #bucketKeys()}, e.g. {@code TIMESTAMP(3) NOT NULL}. */
  public List<String> bucketKeyTypes() {
    return bucketKeyTypes;
  }

  public Map<String, String> dataSourceOptions() {
    return Collections.unmodifiableMap(dataSourceOptions);
  }

  @Override
  public Set<TableCapability> capabilities() {
    if (readOnly) {
      // a time-travelled table (a stream by path starts at its snapshot) or a system table (the
      // Python source refuses streams of those)
      return EnumSet.of(TableCapability.BATCH_READ, TableCapability.MICRO_BATCH_READ);
    }
    return EnumSet.of(
        TableCapability.BATCH_READ,
        TableCapability.MICRO_BATCH_READ,
        TableCapability.BATCH_WRITE,
        TableCapability.STREAMING_WRITE,
        TableCapability.TRUNCATE,
        TableCapability.OVERWRITE_BY_FILTER,
        TableCapability.OVERWRITE_DYNAMIC,
        TableCapability.AUTOMATIC_SCHEMA_EVOLUTION);
  }

  /**
   * The schema changes Spark's automatic schema evolution ({@code MERGE WITH SCHEMA EVOLUTION}, and
   * {@code MERGE INTO} with Paimon's {@code spark.paimon.write.merge-schema}, see
   * {@link MergeSchemaWrites}) may make: new columns and ROW fields; type changes only with
   * {@code spark.paimon.write.merge-schema.type-widening} (the catalog's ALTER then applies Paimon's
   * rules and refuses what Paimon refuses).
   */
  @Override
  public boolean supportsColumnChange(TableChange.ColumnChange change) {
    if (change instanceof TableChange.AddColumn) {
      return true;
    }
    if (change instanceof TableChange.UpdateColumnType) {
      SparkSession s = SparkSession.active();
      return Boolean.parseBoolean(s.conf().get("spark.paimon." + MergeSchemaWrites.TYPE_WIDENING, "false").trim());
    }
    return false;
  }

  // ---------------------------------------------------------------- metadata columns, row-level DML

  /** Paimon's metadata columns ({@link PaimonMetadataColumns}). */
  @Override
  public MetadataColumn[] metadataColumns() {
    return PaimonMetadataColumns.of(this);
  }

  /**
   * UPDATE, MERGE INTO and DELETE conditions that {@link #canDeleteWhere} cannot take: append
   * tables by {@link PaimonAppendRowLevel} (copy-on-write, or deletion vectors), primary-key
   * tables as delta writes by key ({@link PaimonRowLevel}).
   */
  @Override
  public RowLevelOperationBuilder newRowLevelOperationBuilder(RowLevelOperationInfo info) {
    if (readOnly) {
      throw new UnsupportedOperationException("Table " + name() + " is read-only");
    }
    if (primaryKeys.isEmpty()) {
      return PaimonAppendRowLevel.builder(this, info);
    }
    return () -> PaimonRowLevel.deltaOperation(this, info);
  }

  /** The table's {@code deletion-vectors.enabled} option. */
  boolean deletionVectorsEnabled() {
    return "true".equalsIgnoreCase(properties.getOrDefault("deletion-vectors.enabled", "false").trim());
  }

  /** A bridge request about this table (the catalog's context and the table's name). */
  Map<String, Object> bridgeRequest() {
    return partitionRequest();
  }

  /** The name of the Python data source that reads and writes this table. */
  String dataSourceName() {
    return catalog.dataSourceName();
  }

  // ---------------------------------------------------------------- DELETE FROM / TRUNCATE TABLE

  /** DELETE FROM with a condition that has an exact SQL form (see {@link PredicateSql}). */
  @Override
  public boolean canDeleteWhere(Predicate[] predicates) {
    for (Predicate p : predicates) {
      for (org.apache.spark.sql.connector.expressions.NamedReference r : p.references()) {
        if (PaimonMetadataColumns.NAMES.contains(String.join(".", r.fieldNames()))) {
          return false; // a metadata column: the row-level path reads it
        }
      }
    }
    return !readOnly && PredicateSql.of(predicates) != null;
  }

  /** One Paimon commit: -D rows for a primary-key table, rewritten files for an append table. */
  @Override
  public void deleteWhere(Predicate[] predicates) {
    String where = PredicateSql.of(predicates);
    if (where == null) {
      throw new IllegalArgumentException("Cannot delete from " + name() + " where " + java.util.Arrays.toString(predicates));
    }
    if (where.replace("(", "").replace(")", "").trim().equals("TRUE")) {
      truncateTable(); // DELETE FROM t (no condition): Paimon truncates the table
      return;
    }
    Map<String, Object> p = catalog.ctx();
    p.put("table", dataSourceOptions.get("table"));
    p.put("where", where);
    catalog.request("delete_where", p);
  }

  /** One OVERWRITE commit that keeps no file. */
  @Override
  public boolean truncateTable() {
    Map<String, Object> p = catalog.ctx();
    p.put("table", dataSourceOptions.get("table"));
    catalog.request("truncate_table", p);
    return true;
  }

  // ---------------------------------------------------------------- partitions

  @Override
  public StructType partitionSchema() {
    List<StructField> fields = new ArrayList<>();
    for (String key : partitionKeys) {
      fields.add(schema.apply(key));
    }
    return new StructType(fields.toArray(new StructField[0]));
  }

  private Map<String, Object> partitionRequest() {
    Map<String, Object> p = catalog.ctx();
    p.put("table", dataSourceOptions.get("table"));
    return p;
  }

  /** Partition identifiers as lists of JSON-able values (see {@link Values}). */
  private List<List<Object>> partitionValues(InternalRow[] idents) {
    StructType ps = partitionSchema();
    List<List<Object>> out = new ArrayList<>();
    for (InternalRow row : idents) {
      if (row.numFields() > ps.size()) {
        throw new IllegalArgumentException("Partition values length " + row.numFields()
            + " exceeds partition keys " + partitionKeys + " of " + name());
      }
      List<Object> values = new ArrayList<>();
      for (int i = 0; i < row.numFields(); i++) {
        values.add(Values.arg(row, i, ps.fields()[i].dataType()));
      }
      out.add(values);
    }
    return out;
  }

  /** Every partition of the latest snapshot with its statistics, from the Python bridge. */
  @SuppressWarnings("unchecked")
  private List<Map<String, Object>> partitionEntries() {
    Object parts = catalog.request("list_partitions", partitionRequest()).get("partitions");
    return parts instanceof List<?> l ? (List<Map<String, Object>>) l : Collections.emptyList();
  }

  private InternalRow toRow(List<?> values) {
    StructType ps = partitionSchema();
    Object[] out = new Object[ps.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = Values.toCatalyst(values.get(i), ps.fields()[i].dataType());
    }
    return new GenericInternalRow(out);
  }

  @Override
  public InternalRow[] listPartitionIdentifiers(String[] names, InternalRow ident) {
    StructType ps = partitionSchema();
    if (names.length != ident.numFields()) {
      throw new IllegalArgumentException("Number of partition names (" + names.length
          + ") must be equal to the number of partition values (" + ident.numFields() + ")");
    }
    int[] idx = new int[names.length];
    for (int i = 0; i < names.length; i++) {
      idx[i] = java.util.Arrays.asList(ps.fieldNames()).indexOf(names[i]);
      if (idx[i] < 0) {
        throw new IllegalArgumentException("Partition column " + names[i] + " is not one of "
            + partitionKeys + " of " + name());
      }
    }
    List<InternalRow> out = new ArrayList<>();
    for (Map<String, Object> entry : partitionEntries()) {
      InternalRow row = toRow((List<?>) entry.get("values"));
      boolean match = true;
      for (int i = 0; i < names.length && match; i++) {
        DataType t = ps.fields()[idx[i]].dataType();
        match = java.util.Objects.equals(row.get(idx[i], t), ident.isNullAt(i) ? null : ident.get(i, t));
      }
      if (match) {
        out.add(row);
      }
    }
    return out.toArray(new InternalRow[0]);
  }

  /**
   * Whether the partition {@code ident} exists. A prefix of the partition columns (a partial spec
   * of {@link PaimonDropPartitions}) names every partition under it and always "exists": Paimon
   * drops it without an existence check, even when it matches no partition.
   */
  @Override
  public boolean partitionExists(InternalRow ident) {
    if (ident.numFields() < partitionKeys.size()) {
      return true;
    }
    return SupportsAtomicPartitionManagement.super.partitionExists(ident);
  }

  /** The table's name as Paimon's Spark table reports it in messages: {@code db.t} (no catalog). */
  String paimonName() {
    return String.join(".", ident.namespace()) + "." + ident.name();
  }

  @Override
  public Map<String, String> loadPartitionMetadata(InternalRow ident) {
    StructType ps = partitionSchema();
    for (InternalRow row : listPartitionIdentifiers(ps.fieldNames(), ident)) {
      for (Map<String, Object> entry : partitionEntries()) {
        if (toRow((List<?>) entry.get("values")).equals(row)) {
          Map<String, String> m = new LinkedHashMap<>();
          for (String k : new String[] {"recordCount", "fileSizeInBytes", "fileCount", "lastFileCreationTime"}) {
            m.put(k, String.valueOf(entry.get(k)));
          }
          return m;
        }
      }
    }
    return Collections.emptyMap();
  }

  /** One OVERWRITE commit deleting the files of every partition given (a prefix of the partition
   *  columns selects every partition under it). */
  @Override
  public boolean dropPartitions(InternalRow[] idents) {
    if (readOnly) {
      throw new UnsupportedOperationException("Table " + name() + " is read-only");
    }
    Map<String, Object> p = partitionRequest();
    p.put("partitions", partitionValues(idents));
    catalog.request("drop_partitions", p);
    return true;
  }

  @Override
  public boolean truncatePartitions(InternalRow[] idents) {
    return dropPartitions(idents);
  }

  @Override
  public boolean truncatePartition(InternalRow ident) {
    return dropPartitions(new InternalRow[] {ident});
  }

  /** A Paimon partition exists while it has files; there is no metastore to add an empty one to. */
  @Override
  public void createPartitions(InternalRow[] idents, Map<String, String>[] properties) {
    throw new UnsupportedOperationException("Cannot add partitions to " + name()
        + ": a Paimon table's partitions exist while they hold data (write rows into them instead)");
  }

  @Override
  public void replacePartitionMetadata(InternalRow ident, Map<String, String> properties) {
    throw new UnsupportedOperationException("Cannot alter partition properties of " + name()
        + ": Paimon partitions have no properties of their own");
  }

  /**
   * The session's dynamic options ({@link DynamicOptions}), then the per-query options, then the
   * table's own (identity, time travel); the table's identity cannot be overridden.
   */
  CaseInsensitiveStringMap mergedOptions(CaseInsensitiveStringMap perQuery, Map<String, String> extra) {
    Map<String, String> m = DynamicOptions.of(catalog.name(), ident);
    m.putAll(perQuery.asCaseSensitiveMap());
    m.putAll(dataSourceOptions);
    m.putAll(extra);
    return new CaseInsensitiveStringMap(m);
  }

  /** The catalog this table was loaded from (its bridge answers the table's calls). */
  PaimonCatalog catalog() {
    return catalog;
  }

  /** The table's identifier in {@link #catalog()}. */
  Identifier identifier() {
    return ident;
  }

  /**
   * Every scan gets a Python data source object of its own (see {@link PaimonScanBuilder}), so the
   * Python reader may take Spark's filters ({@code paimon.filter-pushdown}) when the session lets
   * Python sources take them ({@code spark.sql.python.filterPushdown.enabled}, which the session
   * extension turns on unless the user set it: Spark refuses a Python reader that takes filters
   * while it is off); it also learns the cluster's parallelism, to plan at least that many input
   * partitions.
   */
  @Override
  public ScanBuilder newScanBuilder(CaseInsensitiveStringMap options) {
    Map<String, String> extra = new HashMap<>();
    extra.put("paimon.filter-pushdown",
        String.valueOf(org.apache.spark.sql.internal.SQLConf.get().pythonFilterPushDown()));
    // system tables show instants (commit times) as the wall clock of the JVM's default zone, as
    // Paimon does; the Python workers learn it here
    extra.put("paimon.read.time-zone", java.time.ZoneId.systemDefault().getId());
    if (!options.containsKey("paimon.read.parallelism")) {
      try {
        extra.put("paimon.read.parallelism",
            String.valueOf(SparkSession.active().sparkContext().defaultParallelism()));
      } catch (RuntimeException e) {
        // no active session: the Python reader plans by split size only
      }
    }
    String bucketKey = NativeParquetScan.reportableBucketKey(this);
    return new PaimonScanBuilder(
        catalog.dataSourceName(), schema, mergedOptions(options, extra), partitionKeys,
        bucketKey, NativeParquetScan.keyOrdered(this, bucketKey));
  }

  @Override
  public WriteBuilder newWriteBuilder(LogicalWriteInfo info) {
    if (readOnly) {
      throw new UnsupportedOperationException("Table " + name() + " is read-only");
    }
    return new PaimonWriteBuilder(this, catalog.dataSourceName(), info);
  }

  @Override
  public String toString() {
    return "PaimonTable(" + name() + ")";
  }
}
