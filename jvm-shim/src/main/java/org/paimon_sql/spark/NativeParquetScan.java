package org.paimon_sql.spark;

import java.io.File;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.paths.SparkPath;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.Statistics;
import org.apache.spark.sql.connector.read.SupportsReportOrdering;
import org.apache.spark.sql.connector.read.SupportsReportPartitioning;
import org.apache.spark.sql.connector.expressions.NullOrdering;
import org.apache.spark.sql.connector.expressions.SortDirection;
import org.apache.spark.sql.connector.expressions.SortOrder;
import org.apache.spark.sql.connector.read.SupportsReportStatistics;
import org.apache.spark.sql.connector.read.partitioning.KeyGroupedPartitioning;
import org.apache.spark.sql.connector.read.partitioning.Partitioning;
import org.apache.spark.sql.connector.read.partitioning.UnknownPartitioning;
import org.apache.spark.sql.connector.expressions.Expressions;
import org.apache.spark.sql.connector.expressions.LogicalExpressions;
import org.apache.spark.sql.connector.read.SupportsRuntimeV2Filtering;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.execution.datasources.FilePartition;
import org.apache.spark.sql.execution.datasources.FilePartition$;
import org.apache.spark.sql.execution.datasources.PartitionedFile;
import org.apache.spark.sql.execution.datasources.parquet.ParquetOptions;
import org.apache.spark.sql.execution.datasources.parquet.ParquetReadSupport;
import org.apache.spark.sql.execution.datasources.parquet.ParquetReadSupport$;
import org.apache.spark.sql.execution.datasources.parquet.ParquetWriteSupport$;
import org.apache.spark.sql.execution.datasources.v2.parquet.ParquetPartitionReaderFactory;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.internal.SQLConf$;
import org.apache.spark.sql.internal.connector.SupportsMetadata;
import org.apache.spark.sql.sources.Filter;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.util.SerializableConfiguration;

/**
 * A scan whose files Spark's own vectorised parquet reader reads as they are stored: the Python
 * engine planned it (snapshot, manifests, partition and file pruning) and found that no file needs
 * anything from Paimon on top (no key merge, no deletion vector, no retraction row, no schema
 * change of a read column; see {@code paimon_sql/spark/native_read.py}). Every other scan runs
 * the engine's reader in Spark's Python workers ({@link PaimonScan}).
 *
 * <p>Files are split and packed into tasks the way Spark's file sources do it
 * ({@code spark.sql.files.maxPartitionBytes}, {@code openCostInBytes}, the default parallelism).
 * Spark's filters were all kept as post-scan filters; the reader uses them to skip row groups.
 */
final class NativeParquetScan implements Scan, Batch, SupportsMetadata, SupportsReportStatistics,
    SupportsRuntimeV2Filtering, SupportsReportPartitioning, SupportsReportOrdering {
  /** One data file of the plan: its bucket and the bucket count it was written with. */
  record DataFile(String path, long size, long rows, int bucket, int totalBuckets) {}

  /** How the bridge plans the scan: enough to plan it again with runtime filters. */
  record Planning(Map<String, String> options, List<String> columns, List<String> filters,
      List<String> partitionKeys) {
    /**
     * The bridge's {@code plan_native_read} answer, with {@code more} filters (Spark SQL text)
     * and, when {@code snapshot} is given, at that snapshot read as the latest one.
     */
    Map<String, Object> plan(Object snapshot, List<String> more, boolean mixed) {
      Map<String, String> opts = new HashMap<>(options);
      if (snapshot != null) {
        opts.put(PaimonScanBuilder.LATEST_SNAPSHOT_OPTION, String.valueOf(snapshot));
      }
      List<String> all = new ArrayList<>(filters);
      all.addAll(more);
      Map<String, Object> p = new HashMap<>();
      p.put("options", opts);
      p.put("columns", columns);
      p.put("filters", all);
      p.put("mixed", mixed);
      return PaimonCatalog.call("plan_native_read", p);
    }
  }

  private final StructType tableSchema;
  private final StructType readSchema;
  private final Filter[] filters;
  private final List<Filter> partitionFilters;
  private final List<Filter> dataFilters;
  private volatile List<DataFile> files;
  private final Object snapshot;
  private final Planning planning;
  private final List<String> runtimeFilters = new ArrayList<>();
  private final String bucketKey; // the column a bucketed scan reports its layout by, or null
  private final boolean keyOrdered; // the bucket key is the primary key (each file sorted by it)

  NativeParquetScan(StructType tableSchema, StructType readSchema, Filter[] filters,
      List<Filter> partitionFilters, List<Filter> dataFilters, List<DataFile> files, Object snapshot,
      Planning planning, String bucketKey, boolean keyOrdered) {
    this.bucketKey = bucketKey;
    this.keyOrdered = keyOrdered;
    this.tableSchema = tableSchema;
    this.readSchema = readSchema;
    this.filters = filters;
    this.partitionFilters = partitionFilters;
    this.dataFilters = dataFilters;
    this.files = files;
    this.snapshot = snapshot;
    this.planning = planning;
  }

  // ------------------------------------------------------------------ runtime (dynamic) filters

  /**
   * The partition columns the scan reads: Spark's dynamic partition pruning may filter the scan by
   * them at run time (Spark requires them in the scan's output).
   */
  @Override
  public NamedReference[] filterAttributes() {
    List<String> read = java.util.Arrays.asList(readSchema.fieldNames());
    return planning.partitionKeys().stream()
        .filter(read::contains)
        .map(k -> (NamedReference) PaimonWrite.column(k))
        .toArray(NamedReference[]::new);
  }

  /**
   * Plans the scan again, at the same snapshot, with the runtime filters (e.g. the partition
   * values a join's other side selects) added to the query's: the files of partitions they rule
   * out are dropped. Filters with no SQL form here prune nothing (Spark still evaluates the join).
   */
  @Override
  public void filter(Predicate[] predicates) {
    List<String> added = new ArrayList<>();
    for (Predicate p : predicates) {
      String sql = PredicateSql.ofOne(p);
      if (sql != null) {
        added.add(sql);
      }
    }
    if (added.isEmpty() || snapshot == null) {
      return;
    }
    Map<String, Object> r = planning.plan(snapshot, added, false);
    if (Boolean.TRUE.equals(r.get("native")) && String.valueOf(snapshot).equals(String.valueOf(r.get("snapshot")))) {
      files = files(r.get("files"));
      runtimeFilters.addAll(added);
    }
  }

  @Override
  public StructType readSchema() {
    return readSchema;
  }

  @Override
  public String description() {
    return "(native parquet, " + files.size() + " files, snapshot " + snapshot + ") PartitionFilters: "
        + partitionFilters + ", PushedFilters: " + dataFilters
        + (runtimeFilters.isEmpty() ? "" : ", PrunedAtRuntimeBy: " + runtimeFilters);
  }

  @Override
  public Batch toBatch() {
    return this;
  }

  @Override
  public Statistics estimateStatistics() {
    long bytes = 0;
    long rows = 0;
    for (DataFile f : files) {
      bytes += f.size();
      rows += f.rows();
    }
    return statistics(bytes, rows);
  }

  /** Spark statistics of a scan; -1 for what is not known. */
  static Statistics statistics(long sizeInBytes, long numRows) {
    return new Statistics() {
      @Override
      public OptionalLong sizeInBytes() {
        return sizeInBytes >= 0 ? OptionalLong.of(sizeInBytes) : OptionalLong.empty();
      }

      @Override
      public OptionalLong numRows() {
        return numRows >= 0 ? OptionalLong.of(numRows) : OptionalLong.empty();
      }
    };
  }

  // ------------------------------------------------------------------ bucket layout (SPJ)

  /**
   * The bucket-key column a scan of {@code table} may report its layout by (see
   * {@link #outputPartitioning}), or null: fixed buckets hashed from ONE bucket-key column (Spark's
   * bucket transform takes one column) whose type {@code paimon_bucket} hashes as Paimon does
   * (no timestamps: their Paimon precision is not in the Spark type, as Paimon's Spark scan also
   * declines), and a table loaded from the catalog (Spark finds the {@code bucket} function there).
   */
  static String reportableBucketKey(PaimonTable table) {
    if (table.bucket() <= 0 || table.bucketKeys().size() != 1 || table.isLoadedByPath()) {
      return null;
    }
    String key = table.bucketKeys().get(0);
    org.apache.spark.sql.types.StructField f = PaimonWrite.field(table, key);
    if (f == null) {
      return null;
    }
    org.apache.spark.sql.types.DataType t = f.dataType();
    boolean timestamp = t instanceof org.apache.spark.sql.types.TimestampType
        || t instanceof org.apache.spark.sql.types.TimestampNTZType;
    return timestamp || !PaimonBucketFunction.canBind(org.apache.spark.sql.types.DataTypes.IntegerType, t)
        ? null : key;
  }

  /**
   * Whether a bucketed scan of {@code table} (see {@link #reportableBucketKey}) may also report its
   * rows in key order (Spark's sort-merge join then sorts nothing on this side): a primary-key table
   * whose primary key is that one column (every data file is sorted by it), of a type Spark orders
   * as Paimon does (integers, DATE, DECIMAL, STRING by its UTF-8 bytes; not floating point).
   */
  static boolean keyOrdered(PaimonTable table, String bucketKey) {
    if (bucketKey == null || !table.primaryKeys().equals(List.of(bucketKey))) {
      return false;
    }
    org.apache.spark.sql.types.DataType t = PaimonWrite.field(table, bucketKey).dataType();
    return t instanceof org.apache.spark.sql.types.IntegralType
        || t instanceof org.apache.spark.sql.types.DateType
        || t instanceof org.apache.spark.sql.types.DecimalType
        || t instanceof org.apache.spark.sql.types.StringType;
  }

  /**
   * The rows of each input partition in primary-key order: a bucketed scan of a key-ordered table
   * (see {@link #keyOrdered}) where every bucket is one file (a sorted run; its byte ranges read in
   * order). Several files of a bucket (levels, or partitions of the table) are not merged in order,
   * so no order is reported for them.
   */
  @Override
  public SortOrder[] outputOrdering() {
    if (!keyOrdered || bucketCount() == 0) {
      return new SortOrder[0];
    }
    java.util.Set<Integer> seen = new java.util.HashSet<>();
    for (DataFile f : files) {
      if (!seen.add(f.bucket())) {
        return new SortOrder[0];
      }
    }
    return new SortOrder[] {
        Expressions.sort(PaimonWrite.column(bucketKey), SortDirection.ASCENDING, NullOrdering.NULLS_FIRST)};
  }

  /**
   * The bucket count of every file when the scan can report its layout: Spark's v2 bucketing is
   * on, the bucket key is read, and every file was written with the same bucket count (a table
   * rescaled in part has files of two counts); else 0.
   */
  private int bucketCount() {
    if (bucketKey == null || !SQLConf.get().v2BucketingEnabled() || files.isEmpty()) {
      return 0;
    }
    boolean read = false;
    for (String f : readSchema.fieldNames()) {
      read |= SQLConf.get().caseSensitiveAnalysis() ? f.equals(bucketKey) : f.equalsIgnoreCase(bucketKey);
    }
    if (!read) {
      return 0;
    }
    int n = files.get(0).totalBuckets();
    for (DataFile f : files) {
      if (f.totalBuckets() != n || f.bucket() < 0 || f.bucket() >= n) {
        return 0;
      }
    }
    return n;
  }

  /**
   * Paimon's bucket layout, as Paimon's own Spark scan reports it: {@code bucket(n, key)} with one
   * input partition per bucket (a bucket's files in every partition of the table; partition key:
   * the bucket number), so a join or aggregation on the bucket key needs no shuffle of this side
   * (a storage-partitioned join; with {@code spark.sql.sources.v2.bucketing.shuffle.enabled} the
   * other side is shuffled by the same {@code bucket} function, {@code paimon_bucket}).
   */
  @Override
  public Partitioning outputPartitioning() {
    int n = bucketCount();
    if (n == 0) {
      return new UnknownPartitioning(0);
    }
    java.util.Set<Integer> buckets = new java.util.TreeSet<>();
    for (DataFile f : files) {
      buckets.add(f.bucket());
    }
    return new KeyGroupedPartitioning(
        new org.apache.spark.sql.connector.expressions.Expression[] {
            LogicalExpressions.bucket(n, new NamedReference[] {(NamedReference) PaimonWrite.column(bucketKey)})},
        buckets.size());
  }

  @Override
  public InputPartition[] planInputPartitions() {
    SparkSession spark = SparkSession.active();
    SQLConf conf = SQLConf.get();
    long openCost = conf.filesOpenCostInBytes();
    long total = 0;
    for (DataFile f : files) {
      total += f.size() + openCost;
    }
    int minPartitions = conf.filesMinPartitionNum().isDefined()
        ? (Integer) conf.filesMinPartitionNum().get()
        : spark.sparkContext().defaultParallelism();
    long maxSplit = Math.min(conf.filesMaxPartitionBytes(), Math.max(openCost, total / Math.max(1, minPartitions)));
    List<PartitionedFile> parts = new ArrayList<>();
    java.util.TreeMap<Integer, List<PartitionedFile>> byBucket = new java.util.TreeMap<>();
    boolean bucketed = bucketCount() > 0;
    for (DataFile f : files) {
      SparkPath path = SparkPath.fromPath(new Path(new File(f.path()).toURI()));
      for (long start = 0; start < f.size(); start += maxSplit) {
        long len = Math.min(maxSplit, f.size() - start);
        PartitionedFile pf = new PartitionedFile(InternalRow.empty(), path, start, len, new String[0], 0L, f.size(),
            scala.collection.immutable.Map$.MODULE$.empty());
        (bucketed ? byBucket.computeIfAbsent(f.bucket(), b -> new ArrayList<>()) : parts).add(pf);
      }
    }
    if (bucketed) {  // one task per bucket (see outputPartitioning)
      List<InputPartition> out = new ArrayList<>();
      for (Map.Entry<Integer, List<PartitionedFile>> e : byBucket.entrySet()) {
        out.add(new BucketFilePartition(out.size(), e.getValue().toArray(new PartitionedFile[0]), e.getKey()));
      }
      return out.toArray(new InputPartition[0]);
    }
    // largest first, as Spark's file sources do before packing
    parts.sort((a, b) -> Long.compare(b.length(), a.length()));
    scala.collection.immutable.Seq<FilePartition> packed = FilePartition$.MODULE$.getFilePartitions(
        spark, scala.jdk.javaapi.CollectionConverters.asScala(parts).toList(), maxSplit);
    return scala.jdk.javaapi.CollectionConverters.asJava(packed).toArray(new InputPartition[0]);
  }

  @Override
  public PartitionReaderFactory createReaderFactory() {
    SparkSession spark = SparkSession.active();
    SQLConf conf = spark.sessionState().conf();
    Configuration hadoop = spark.sessionState().newHadoopConf();
    String json = readSchema.json();
    hadoop.set("parquet.read.support.class", ParquetReadSupport.class.getName());
    // pages written with a CRC (paimon_sql writes them) are verified: a damaged page fails the read
    hadoop.setBoolean("parquet.page.verify-checksum.enabled", true);
    hadoop.set(ParquetReadSupport$.MODULE$.SPARK_ROW_REQUESTED_SCHEMA(), json);
    hadoop.set(ParquetWriteSupport$.MODULE$.SPARK_ROW_SCHEMA(), json);
    SQLConf$ keys = SQLConf$.MODULE$;
    hadoop.set(keys.SESSION_LOCAL_TIMEZONE().key(), conf.sessionLocalTimeZone());
    hadoop.setBoolean(keys.NESTED_SCHEMA_PRUNING_ENABLED().key(), conf.nestedSchemaPruningEnabled());
    hadoop.setBoolean(keys.CASE_SENSITIVE().key(), conf.caseSensitiveAnalysis());
    hadoop.setBoolean(keys.PARQUET_BINARY_AS_STRING().key(), conf.isParquetBinaryAsString());
    hadoop.setBoolean(keys.PARQUET_INT96_AS_TIMESTAMP().key(), conf.isParquetINT96AsTimestamp());
    hadoop.setBoolean(keys.PARQUET_INFER_TIMESTAMP_NTZ_ENABLED().key(), conf.parquetInferTimestampNTZEnabled());
    hadoop.setBoolean(keys.LEGACY_PARQUET_NANOS_AS_LONG().key(), conf.legacyParquetNanosAsLong());
    Broadcast<SerializableConfiguration> broadcast =
        SerializableConfiguration.broadcast(spark.sparkContext(), hadoop);
    // Paimon's files carry no Spark version: their dates and timestamps are proleptic Gregorian
    Map<String, String> opts = new HashMap<>();
    opts.put("datetimeRebaseMode", "CORRECTED");
    opts.put("int96RebaseMode", "CORRECTED");
    return new ParquetPartitionReaderFactory(conf, broadcast, tableSchema, readSchema, new StructType(),
        filters, scala.Option.empty(), new ParquetOptions(Errors.scalaMap(opts), conf));
  }

  @Override
  public scala.collection.immutable.Map<String, String> getMetaData() {
    Map<String, String> m = new HashMap<>();
    m.put("Format", "parquet (native)");
    m.put("PartitionFilters", partitionFilters.toString());
    m.put("PushedFilters", dataFilters.toString());
    m.put("ReadSchema", readSchema.simpleString());
    m.put("Files", String.valueOf(files.size()));
    return Errors.scalaMap(m);
  }

  /** A number of a bridge answer, or {@code otherwise}. */
  static long longOr(Object n, long otherwise) {
    return n instanceof Number num ? num.longValue() : otherwise;
  }

  static List<DataFile> files(Object raw) {
    List<DataFile> out = new ArrayList<>();
    if (raw instanceof List<?> list) {
      for (Object o : list) {
        Map<?, ?> m = (Map<?, ?>) o;
        out.add(new DataFile(String.valueOf(m.get("path")), ((Number) m.get("size")).longValue(),
            ((Number) m.get("rows")).longValue(), (int) longOr(m.get("bucket"), -1),
            (int) longOr(m.get("total_buckets"), 0)));
      }
    }
    return out;
  }
}
