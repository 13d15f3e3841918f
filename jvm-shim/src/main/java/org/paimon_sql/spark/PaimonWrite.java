package org.paimon_sql.spark;

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

/**
 * One Spark write of a Paimon table: the Python data source writes in every task and commits one
 * snapshot on the driver. Rows of a primary-key table are clustered by the primary key, so all
 * rows of one key are written by one task (in order) and the latest one wins.
 */
public class PaimonWrite implements RequiresDistributionAndOrdering {
  private final PaimonTable table;
  private final PythonWrite delegate;

  PaimonWrite(PaimonTable table, String dataSourceName, LogicalWriteInfo info, boolean truncate) {
    this.table = table;
    PythonDataSourceV2 ds = new PythonDataSourceV2();
    ds.setShortName(dataSourceName);
    this.delegate = new PythonWrite(ds, dataSourceName, info, truncate);
  }

  @Override
  public Distribution requiredDistribution() {
    if (table.primaryKeys().isEmpty()) {
      return Distributions.unspecified();
    }
    Expression[] keys =
        table.primaryKeys().stream().map(Expressions::column).toArray(Expression[]::new);
    return Distributions.clustered(keys);
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
    return delegate.toBatch();
  }

  @Override
  public StreamingWrite toStreaming() {
    throw new UnsupportedOperationException("Streaming writes to " + table.name() + " are not supported");
  }

  @Override
  public CustomMetric[] supportedCustomMetrics() {
    return delegate.supportedCustomMetrics();
  }

  @Override
  public CustomTaskMetric[] reportDriverMetrics() {
    return delegate.reportDriverMetrics();
  }
}
