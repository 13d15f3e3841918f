package org.paimon_sql.spark;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.spark.sql.connector.distributions.Distribution;
import org.apache.spark.sql.connector.distributions.Distributions;
import org.apache.spark.sql.connector.expressions.Expression;
import org.apache.spark.sql.connector.expressions.Expressions;
import org.apache.spark.sql.connector.expressions.SortOrder;
import org.apache.spark.sql.connector.metric.CustomMetric;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.write.BatchWrite;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.RequiresDistributionAndOrdering;
import org.apache.spark.sql.connector.write.streaming.StreamingWrite;
import org.apache.spark.sql.execution.datasources.v2.python.PythonDataSourceV2;
import org.apache.spark.sql.execution.datasources.v2.python.PythonWrite;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.TimestampType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Spark write of a Paimon table: the Python data source writes in every task and commits one
 * snapshot on the driver (a batch write: in the bridge, see {@link BridgeBatchWrite}).
 *
 * <p>The required distribution: rows of a fixed-bucket table (bucket &gt; 0 with a bucket key:
 * primary-key tables, append tables with {@code bucket-key}) are clustered by (partition columns,
 * {@code paimon_bucket(n, bucket-key columns)}), so each bucket of a partition is written by one
 * task: one file per bucket and write, and reads need no merge across files of one write. Rows of
 * other primary-key tables (dynamic bucket), or whose bucket-key types {@link PaimonBucketFunction}
 * does not support, are clustered by the primary key. Either way all rows of one key are written
 * by one task (in order), so the latest one wins.
 */
public class PaimonWrite implements RequiresDistributionAndOrdering {
  private static final Logger LOG = LoggerFactory.getLogger(PaimonWrite.class);
  private static final Pattern TIMESTAMP_PRECISION =
      Pattern.compile("^TIMESTAMP(?:_LTZ)?\\((\\d+)\\).*", Pattern.CASE_INSENSITIVE);

  /** The streaming query's id (kept in its checkpoint): the commit user of a streaming write. */
  public static final String STREAM_QUERY_ID = "paimon.stream.query-id";

  private final PaimonTable table;
  private final Expression[] bucketed; // the fixed-bucket clustering, or null
  private final String dataSourceName;
  private final LogicalWriteInfo info;
  private final boolean truncate;

  PaimonWrite(PaimonTable table, String dataSourceName, LogicalWriteInfo info, boolean truncate) {
    this.table = table;
    this.bucketed = bucketClustering(table);
    this.dataSourceName = dataSourceName;
    this.info = info;
    this.truncate = truncate;
  }

  @Override
  public Distribution requiredDistribution() {
    return distributionOf(table, bucketed);
  }

  /** The distribution of every write into {@code table} (see the class comment). */
  static Distribution distributionOf(PaimonTable table) {
    return distributionOf(table, bucketClustering(table));
  }

  private static Distribution distributionOf(PaimonTable table, Expression[] bucketed) {
    if (bucketed != null) {
      return Distributions.clustered(bucketed);
    }
    if (table.primaryKeys().isEmpty()) {
      return Distributions.unspecified();
    }
    Expression[] keys =
        table.primaryKeys().stream().map(PaimonWrite::column).toArray(Expression[]::new);
    return Distributions.clustered(keys);
  }

  /** A reference to exactly this column (Expressions.column would parse dots and backticks). */
  static Expression column(String name) {
    return Expressions.column("`" + name.replace("`", "``") + "`");
  }

  /**
   * (partition columns..., paimon_bucket(n, bucket-key columns...)) for a fixed-bucket table, or
   * null when the table has no fixed buckets or a bucket-key column cannot be hashed (Spark looks
   * the function up in this table's catalog, a FunctionCatalog, and binds it to the columns' types).
   */
  static Expression[] bucketClustering(PaimonTable table) {
    int n = table.bucket();
    List<String> keys = table.bucketKeys();
    if (n <= 0 || keys.isEmpty()) {
      return null;
    }
    if (table.isLoadedByPath()) {
      // df.write.format("paimon").save(path): Spark's plan has no catalog to find paimon_bucket
      // in, so the write clusters by the primary key (append tables: none)
      return null;
    }
    List<Expression> args = new ArrayList<>();
    List<DataType> types = new ArrayList<>();
    args.add(Expressions.literal(n));
    types.add(DataTypes.IntegerType);
    for (int i = 0; i < keys.size(); i++) {
      StructField field = field(table, keys.get(i));
      if (field == null) {
        LOG.info("bucket-key column " + keys.get(i) + " not in the schema of " + table.name()
            + ": writes fall back to clustering by the primary key (append tables: none)");
        return null;
      }
      Expression ref = column(field.name());
      DataType type = field.dataType();
      if (type instanceof TimestampType && !table.bucketKeyTypes().get(i).contains("LOCAL TIME ZONE")) {
        // a Paimon TIMESTAMP read as Spark TIMESTAMP (legacy-timestamp-mapping.enabled): its hash
        // is of the JVM zone's wall clock, which paimon_bucket does not compute
        LOG.info("bucket-key column " + field.name() + " of " + table.name() + " is a Paimon TIMESTAMP read as"
            + " Spark TIMESTAMP: writes fall back to clustering by the primary key (append tables: none)");
        return null;
      }
      if ((type instanceof TimestampType || type instanceof TimestampNTZType)
          && isCompactTimestamp(table.bucketKeyTypes().get(i))) {
        // Paimon TIMESTAMP(p <= 3) holds epoch millis, hashed like a BIGINT
        ref = Expressions.apply(PaimonBucketFunction.TimestampMillis.NAME, ref);
        type = DataTypes.LongType;
      }
      args.add(ref);
      types.add(type);
    }
    if (!PaimonBucketFunction.canBind(types.toArray(new DataType[0]))) {
      LOG.info("bucket-key types " + table.bucketKeyTypes() + " of " + table.name()
          + " are not supported by " + PaimonBucketFunction.NAME + ": writes fall back to"
          + " clustering by the primary key (append tables: none)");
      return null;
    }
    List<Expression> clustering = new ArrayList<>();
    for (String p : table.partitionKeys()) {
      clustering.add(column(p));
    }
    // an unpartitioned table: one shuffle partition per bucket (see requiredNumPartitions)
    String fn = slotted(table) ? PaimonBucketFunction.SLOT_NAME : PaimonBucketFunction.NAME;
    clustering.add(Expressions.apply(fn, args.toArray(new Expression[0])));
    return clustering.toArray(new Expression[0]);
  }

  /** The table's column {@code name} (exact), or null. */
  static StructField field(PaimonTable table, String name) {
    @SuppressWarnings("deprecation")
    StructField[] fields = table.schema().fields();
    for (StructField f : fields) {
      if (f.name().equals(name)) {
        return f;
      }
    }
    return null;
  }

  /** Whether a Paimon timestamp type (TIMESTAMP(p), TIMESTAMP(p) WITH LOCAL TIME ZONE) has
   *  precision <= 3, which a BinaryRow stores in its slot as epoch millis. */
  static boolean isCompactTimestamp(String paimonType) {
    Matcher m = TIMESTAMP_PRECISION.matcher(paimonType.trim());
    return m.matches() && Integer.parseInt(m.group(1)) <= 3;
  }

  /** Unpartitioned fixed-bucket tables are clustered by {@code paimon_bucket_slot}, with as many
   *  shuffle partitions as buckets: each bucket is written by a task of its own. */
  private static boolean slotted(PaimonTable table) {
    return table.partitionKeys().isEmpty() && table.bucket() > 0
        && table.bucket() <= PaimonBucketFunction.MAX_SLOT_BUCKETS;
  }

  @Override
  public int requiredNumPartitions() {
    return bucketed != null && slotted(table) ? table.bucket() : 0;
  }

  /** The number of write tasks {@code table} asks for (0: Spark's choice). */
  static int numPartitionsOf(PaimonTable table) {
    return bucketClustering(table) != null && slotted(table) ? table.bucket() : 0;
  }

  @Override
  public SortOrder[] requiredOrdering() {
    return new SortOrder[0];
  }

  @Override
  public String description() {
    return "Paimon write to " + table.name();
  }

  @Override
  public BatchWrite toBatch() {
    table.commitPendingSchemaMerge(); // the write runs now (not when it was planned or explained)
    Warmup.awaitWrites();
    return BridgeBatchWrite.of(dataSourceName, info, truncate);
  }

  @Override
  public StreamingWrite toStreaming() {
    // one micro-batch (Spark plans a write per batch): the Python stream writer commits it with
    // the batch id as commitIdentifier under the query's commit user (see stream_writer.py)
    Map<String, String> options = new HashMap<>(info.options().asCaseSensitiveMap());
    options.put(STREAM_QUERY_ID, info.queryId());
    final CaseInsensitiveStringMap withQuery = new CaseInsensitiveStringMap(options);
    LogicalWriteInfo streaming = PaimonWriteBuilder.withOptions(info, withQuery);
    PythonDataSourceV2 ds = new PythonDataSourceV2();
    ds.setShortName(dataSourceName);
    return new PythonWrite(ds, dataSourceName, streaming, truncate).toStreaming();
  }

  @Override
  public CustomMetric[] supportedCustomMetrics() {
    return EngineDataSource.metrics();
  }

  @Override
  public CustomTaskMetric[] reportDriverMetrics() {
    return new CustomTaskMetric[0];
  }
}
