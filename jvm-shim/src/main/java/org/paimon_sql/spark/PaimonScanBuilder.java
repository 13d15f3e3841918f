package org.paimon_sql.spark;

import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.expressions.aggregate.Aggregation;
import org.apache.spark.sql.connector.expressions.aggregate.CountStar;
import org.apache.spark.sql.connector.read.SupportsPushDownAggregates;
import org.apache.spark.sql.connector.read.SupportsPushDownFilters;
import org.apache.spark.sql.connector.read.SupportsPushDownRequiredColumns;
import org.apache.spark.sql.execution.datasources.v2.python.PythonDataSourceV2;
import org.apache.spark.sql.execution.datasources.v2.python.PythonScanBuilder;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.sources.Filter;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * Column pruning on top of Spark's PythonScanBuilder (which only pushes filters). Spark calls
 * pushFilters, then pruneColumns, then build: every filter stays a post-scan filter (Spark
 * re-evaluates it, so its columns stay in the required schema) and is offered to Python at build
 * time, for a Python data source created for the pruned schema. Python uses the filters it accepts
 * to skip partitions, files and rows; EXPLAIN shows them as the scan's pushed filters.
 */
public class PaimonScanBuilder
    implements ScanBuilder, SupportsPushDownFilters, SupportsPushDownRequiredColumns, SupportsPushDownAggregates {
  /** Scan option: {@code false} reads every file through the Python engine. */
  static final String NATIVE_OPTION = "paimon.read.native";
  /** The session's default for {@link #NATIVE_OPTION} (default {@code true}). */
  static final String NATIVE_CONF = "spark.paimon.read.native";
  /** Python-source options of the Python part of a {@link MixedScan} (see source_options.py). */
  static final String SKIP_BUCKETS_OPTION = "paimon.read.skip-buckets";
  static final String LATEST_SNAPSHOT_OPTION = "paimon.read.latest-snapshot-id";
  /**
   * Python-source option: the read schema ends with the hidden input-file column (see
   * source_options.py). On a relation (set by {@link InputFileScans}): {@code false} when the query
   * does not call {@code input_file_name()}, so the scan leaves the column out.
   */
  static final String INPUT_FILE_OPTION = "paimon.read.input-file";
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(PaimonScanBuilder.class);
  private final String dataSourceName;
  private final StructType fullSchema;
  private final CaseInsensitiveStringMap options;
  private final java.util.List<String> partitionKeys;
  private StructType required;
  private Filter[] filters = new Filter[0];
  private MetadataCountScan countScan; // count(*) answered from the manifests
  private long plannedSize = -1; // bytes of the files a Python scan reads, when the bridge planned it

  private final String bucketKey; // see NativeParquetScan.reportableBucketKey
  private final boolean keyOrdered; // see NativeParquetScan.keyOrdered

  PaimonScanBuilder(String dataSourceName, StructType fullSchema, CaseInsensitiveStringMap options,
      java.util.List<String> partitionKeys, String bucketKey, boolean keyOrdered) {
    this.dataSourceName = dataSourceName;
    this.bucketKey = bucketKey;
    this.keyOrdered = keyOrdered;
    this.partitionKeys = partitionKeys;
    this.fullSchema = fullSchema;
    this.required = fullSchema;
    this.options = options;
  }

  @Override
  public Filter[] pushFilters(Filter[] fs) {
    this.filters = fs;
    return fs;
  }

  @Override
  public Filter[] pushedFilters() {
    return filters;
  }

  @Override
  public void pruneColumns(StructType requiredSchema) {
    // count(*) asks for no column, but a zero-column Arrow batch has no row count: keep one
    this.required =
        requiredSchema.fields().length == 0 ? new StructType(new StructField[] {cheapestColumn()}) : requiredSchema;
  }

  private StructField cheapestColumn() {
    for (StructField f : fullSchema.fields()) {
      DataType t = f.dataType();
      if (t instanceof BooleanType || t instanceof ByteType || t instanceof ShortType
          || t instanceof IntegerType || t instanceof DateType) {
        return f;
      }
    }
    for (StructField f : fullSchema.fields()) {
      if (f.dataType() instanceof LongType) {
        return f;
      }
    }
    return fullSchema.fields()[0];
  }

  StructType requiredSchema() {
    return required;
  }

  /** {@code count(*)} without GROUP BY (Spark offers it only when no filter is left to evaluate). */
  private static boolean countStar(Aggregation agg) {
    return agg.groupByExpressions().length == 0 && agg.aggregateExpressions().length == 1
        && agg.aggregateExpressions()[0] instanceof CountStar;
  }

  @Override
  public boolean supportCompletePushDown(Aggregation agg) {
    return countStar(agg);
  }

  @Override
  public boolean pushAggregation(Aggregation agg) {
    if (!countStar(agg) || filters.length > 0 || !nativeEnabled()) {
      return false;
    }
    java.util.Map<String, Object> p = new java.util.HashMap<>();
    p.put("options", options.asCaseSensitiveMap());
    java.util.Map<String, Object> r = PaimonCatalog.call("count_rows", p);
    if (!(r.get("count") instanceof Number count)) {
      LOG.debug("count(*) of {} reads the files: {}", options.get("table"), r.get("reason"));
      return false;
    }
    countScan = new MetadataCountScan(count.longValue(), r.get("snapshot"));
    return true;
  }

  @Override
  public Scan build() {
    if (streaming()) {
      // a Structured Streaming read: Spark's Python scan, whose micro-batch stream is the Python
      // source's stream reader; it reads every column of the table (Spark pushes neither filters
      // nor columns into a streaming scan)
      PythonDataSourceV2 ds = new PythonDataSourceV2();
      ds.setShortName(dataSourceName);
      return new PythonScanBuilder(ds, dataSourceName, fullSchema, options).build();
    }
    if (countScan != null) {
      return countScan;
    }
    Scan nativeScan = nativeScan();
    if (nativeScan != null) {
      return nativeScan;
    }
    return pythonScan(options);
  }

  /**
   * Whether Spark builds this scan for a streaming query: Spark's MicroBatchExecution calls
   * {@code table.newScanBuilder(options).build().toMicroBatchStream(...)} inside the partial
   * function with which it turns the query's streaming relations into streams, and gives the
   * builder no other sign, so the caller is looked up on the stack. (A batch query run inside a
   * stream, e.g. in foreachBatch, runs after that function returned: it is not taken for one.)
   */
  private static boolean streaming() {
    for (StackTraceElement e : Thread.currentThread().getStackTrace()) {
      String c = e.getClassName();
      if (c.startsWith("org.apache.spark.sql.execution.streaming") && c.contains("MicroBatchExecution$$anonfun")
          && e.getMethodName().equals("applyOrElse")) {
        return true;
      }
    }
    return false;
  }

  /** The scan in Spark's Python data source (the engine's reader in Python workers). */
  private PaimonScan pythonScan(CaseInsensitiveStringMap opts) {
    Warmup.awaitReads();
    // the hidden input-file column unless the session's InputFileScans found no input_file_name()
    // in the query (a session without the extension marks nothing: the column is sent)
    StructType schema = "false".equalsIgnoreCase(opts.get(INPUT_FILE_OPTION)) ? required : withInputFile(required);
    java.util.Map<String, String> o = new java.util.HashMap<>(opts.asCaseSensitiveMap());
    o.remove(INPUT_FILE_OPTION);
    if (schema != required) {
      o.put(INPUT_FILE_OPTION, "true");
    }
    opts = new CaseInsensitiveStringMap(o);
    BridgeRead.Planned planned = BridgeRead.plan(dataSourceName, schema, opts, filters);
    return new PaimonScan(planned.scan(), planned.accepted(), partitionKeys, plannedSize);
  }

  /**
   * {@code schema} plus the hidden column naming each batch's data file, for input_file_name() (see
   * {@link ColumnarPythonReaderFactory}); as it is when a column already has that name.
   */
  static StructType withInputFile(StructType schema) {
    for (String n : schema.fieldNames()) {
      if (n.equalsIgnoreCase(ColumnarPythonReaderFactory.INPUT_FILE_COLUMN)) {
        return schema;
      }
    }
    return schema.add(ColumnarPythonReaderFactory.INPUT_FILE_COLUMN, org.apache.spark.sql.types.DataTypes.StringType, true);
  }

  private static boolean hasTimestamp(org.apache.spark.sql.types.DataType t) {
    if (t instanceof org.apache.spark.sql.types.TimestampType) {
      return true;
    }
    if (t instanceof StructType) {
      for (org.apache.spark.sql.types.StructField f : ((StructType) t).fields()) {
        if (hasTimestamp(f.dataType())) {
          return true;
        }
      }
      return false;
    }
    if (t instanceof org.apache.spark.sql.types.ArrayType) {
      return hasTimestamp(((org.apache.spark.sql.types.ArrayType) t).elementType());
    }
    if (t instanceof org.apache.spark.sql.types.MapType) {
      org.apache.spark.sql.types.MapType m = (org.apache.spark.sql.types.MapType) t;
      return hasTimestamp(m.keyType()) || hasTimestamp(m.valueType());
    }
    return false;
  }

  /** Whether scans may be read by Spark's parquet reader: the scan option, else the session's. */
  private boolean nativeEnabled() {
    String session = SQLConf.get().getConfString(NATIVE_CONF, "true");
    String v = options.getOrDefault(NATIVE_OPTION, session).trim().toLowerCase(java.util.Locale.ROOT);
    if (!v.equals("true") && !v.equals("false")) {
      throw new IllegalArgumentException(
          "Option " + NATIVE_OPTION + " (or " + NATIVE_CONF + ") must be true or false, got '" + v + "'");
    }
    return v.equals("true");
  }

  /**
   * The scan as a {@link NativeParquetScan} when the Python engine's plan says every file can be
   * read as it is stored (see {@code paimon_sql/spark/native_read.py}); else null.
   */
  private Scan nativeScan() {
    if (!nativeEnabled() || PaimonMetadataColumns.any(required)) {
      return null; // metadata columns: the Python reader fills them
    }
    if (DynamicOptions.legacyTimestampMapping() && hasTimestamp(fullSchema)) {
      // Spark TIMESTAMP read from Paimon TIMESTAMP wall clocks needs the JVM zone's shift, which
      // Spark's parquet reader does not make: the Python reader reads such scans
      return null;
    }
    java.util.List<String> texts = new java.util.ArrayList<>();
    for (Filter f : filters) {
      String sql = null;
      try {
        sql = PredicateSql.ofOne(f.toV2());
      } catch (RuntimeException e) {
        // no V2 form: Spark evaluates it after the scan, as it does every filter
      }
      texts.add(sql);
    }
    NativeParquetScan.Planning planning = new NativeParquetScan.Planning(
        new java.util.HashMap<>(options.asCaseSensitiveMap()), java.util.Arrays.asList(required.fieldNames()),
        texts, partitionKeys);
    java.util.Map<String, Object> r = planning.plan(null, java.util.List.of(), true);
    if (!Boolean.TRUE.equals(r.get("native"))) {
      LOG.debug("Python reads {}: {}", options.get("table"), r.get("reason"));
      plannedSize = NativeParquetScan.longOr(r.get("size_bytes"), -1);
      return null;
    }
    java.util.List<?> accepted = r.get("accepted") instanceof java.util.List<?> l ? l : null;
    java.util.List<Filter> partitionFilters = new java.util.ArrayList<>();
    java.util.List<Filter> dataFilters = new java.util.ArrayList<>();
    for (int i = 0; i < filters.length; i++) {
      if (accepted != null && i < accepted.size() && Boolean.TRUE.equals(accepted.get(i))) {
        (PaimonScan.onPartitions(filters[i], partitionKeys) ? partitionFilters : dataFilters).add(filters[i]);
      }
    }
    int pythonBuckets = (int) NativeParquetScan.longOr(r.get("python_buckets"), 0);
    boolean whole = pythonBuckets == 0; // only a wholly native scan may report the bucket layout
    NativeParquetScan parquet = new NativeParquetScan(fullSchema, required, filters, partitionFilters,
        dataFilters, NativeParquetScan.files(r.get("files")), r.get("snapshot"), planning,
        whole ? bucketKey : null, whole && keyOrdered);
    if (whole) {
      return parquet;
    }
    LOG.debug("Python reads {} buckets of {}: {}", pythonBuckets, options.get("table"), r.get("python_reason"));
    java.util.Map<String, String> rest = new java.util.HashMap<>(options.asCaseSensitiveMap());
    rest.put(SKIP_BUCKETS_OPTION, String.valueOf(r.get("skip_buckets")));
    rest.put(LATEST_SNAPSHOT_OPTION, String.valueOf(r.get("snapshot")));
    return new MixedScan(pythonScan(new CaseInsensitiveStringMap(rest)), parquet, pythonBuckets,
        NativeParquetScan.longOr(r.get("size_bytes"), -1));
  }
}
