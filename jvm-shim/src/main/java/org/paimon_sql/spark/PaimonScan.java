package org.paimon_sql.spark;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.connector.metric.CustomMetric;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.Statistics;
import org.apache.spark.sql.connector.read.SupportsReportStatistics;
import org.apache.spark.sql.execution.datasources.v2.python.PythonPartitionReaderFactory;
import org.apache.spark.sql.internal.connector.SupportsMetadata;
import org.apache.spark.sql.sources.Filter;
import org.apache.spark.sql.types.StructType;

/**
 * The Python data source's scan, described for EXPLAIN: the filters Python accepted, split into
 * partition filters (they prune partitions) and the others (they prune files and rows).
 */
public class PaimonScan implements Scan, SupportsMetadata, SupportsReportStatistics {
  private final Scan delegate;
  private final List<Filter> partitionFilters = new ArrayList<>();
  private final List<Filter> dataFilters = new ArrayList<>();
  private final long sizeInBytes; // of the files the scan reads (as planned by the bridge), or -1

  PaimonScan(Scan delegate, Filter[] accepted, List<String> partitionKeys, long sizeInBytes) {
    this.delegate = delegate;
    this.sizeInBytes = sizeInBytes;
    for (Filter f : accepted) {
      (onPartitions(f, partitionKeys) ? partitionFilters : dataFilters).add(f);
    }
  }

  /** Whether {@code f} reads partition columns only (it prunes partitions). */
  static boolean onPartitions(Filter f, List<String> partitionKeys) {
    return f.references().length > 0 && Arrays.stream(f.references()).allMatch(partitionKeys::contains);
  }

  /** The Python scan's schema without the hidden input-file column (see {@link ColumnarPythonReaderFactory}). */
  @Override
  public StructType readSchema() {
    StructType s = delegate.readSchema();
    return ColumnarPythonReaderFactory.hasInputFile(s)
        ? new StructType(java.util.Arrays.copyOf(s.fields(), s.fields().length - 1))
        : s;
  }

  /**
   * The size of the files the scan reads, so Spark can broadcast a small table in a join (Spark
   * assumes a scan without statistics is huge). No row count: a merge by key makes the files'
   * row counts an upper bound only.
   */
  @Override
  public Statistics estimateStatistics() {
    return NativeParquetScan.statistics(sizeInBytes, -1);
  }

  @Override
  public String description() {
    return "(Python) PartitionFilters: " + partitionFilters + ", PushedFilters: " + dataFilters;
  }

  @Override
  public Batch toBatch() {
    return new ColumnarBatchOf(delegate.toBatch());
  }

  /** Spark's Python batch, read through {@link ColumnarPythonReaderFactory}. */
  private static final class ColumnarBatchOf implements Batch {
    private final Batch python;

    ColumnarBatchOf(Batch python) {
      this.python = python;
    }

    @Override
    public InputPartition[] planInputPartitions() {
      return python.planInputPartitions();
    }

    @Override
    public PartitionReaderFactory createReaderFactory() {
      PartitionReaderFactory f = python.createReaderFactory();
      return f instanceof PythonPartitionReaderFactory
          ? new ColumnarPythonReaderFactory((PythonPartitionReaderFactory) f)
          : f;
    }
  }

  @Override
  public CustomMetric[] supportedCustomMetrics() {
    return delegate.supportedCustomMetrics();
  }

  @Override
  public CustomTaskMetric[] reportDriverMetrics() {
    return delegate.reportDriverMetrics();
  }

  @Override
  public ColumnarSupportMode columnarSupportMode() {
    return ColumnarSupportMode.SUPPORTED; // see ColumnarPythonReaderFactory
  }

  @Override
  public scala.collection.immutable.Map<String, String> getMetaData() {
    Map<String, String> m = new HashMap<>();
    m.put("PartitionFilters", partitionFilters.toString());
    m.put("PushedFilters", dataFilters.toString());
    m.put("ReadSchema", readSchema().simpleString());
    return Errors.scalaMap(m);
  }
}
