package org.paimon_sql.spark;

import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation;
import org.apache.spark.sql.sources.Filter;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * The Spark job of a procedure (compaction, ...): a batch read of the Python data source with the
 * {@code paimon.job.*} options, whose input partitions are the job's tasks and whose rows are their
 * messages (see {@code paimon_sql/spark/jobs.py}), planned in the bridge ({@link BridgeRead}) like
 * a table's scan.
 */
final class JobTable implements Table, SupportsRead {
  /** The job's rows (paimon_sql.spark.jobs.JOB_SCHEMA). */
  static final StructType SCHEMA = new StructType().add("message", DataTypes.StringType, false);

  private final String name;
  private final String dataSourceName;

  private JobTable(String name, String dataSourceName) {
    this.name = name;
    this.dataSourceName = dataSourceName;
  }

  /** Runs the job of procedure {@code name} with data source {@code options}: its messages. */
  static java.util.List<Row> run(String name, String dataSourceName, Map<String, String> options) {
    JobTable table = new JobTable(name, dataSourceName);
    DataSourceV2Relation relation = DataSourceV2Relation.create(table, scala.Option.empty(),
        scala.Option.empty(), new CaseInsensitiveStringMap(options), scala.Option.empty());
    org.apache.spark.sql.classic.SparkSession session =
        (org.apache.spark.sql.classic.SparkSession) SparkSession.active();
    return org.apache.spark.sql.classic.Dataset.ofRows(session, relation).collectAsList();
  }

  @Override
  public String name() {
    return "paimon job of " + name;
  }

  @Override
  @SuppressWarnings("deprecation")
  public StructType schema() {
    return SCHEMA;
  }

  @Override
  public Set<TableCapability> capabilities() {
    return Set.of(TableCapability.BATCH_READ);
  }

  @Override
  public ScanBuilder newScanBuilder(CaseInsensitiveStringMap options) {
    return () -> BridgeRead.plan(dataSourceName, SCHEMA, options, new Filter[0]).scan();
  }
}
