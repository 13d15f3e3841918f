package org.paimon_sql.spark;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.metric.CustomMetric;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.Statistics;
import org.apache.spark.sql.connector.read.SupportsReportStatistics;
import org.apache.spark.sql.execution.datasources.FilePartition;
import org.apache.spark.sql.internal.connector.SupportsMetadata;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * A scan of one snapshot in two parts: the buckets whose files need nothing from Paimon are read
 * by Spark's parquet reader ({@link NativeParquetScan}), every other bucket by the engine's
 * reader in Python workers ({@link PaimonScan}, told to leave the native buckets out and to read
 * the same snapshot). Each bucket is read by exactly one part.
 */
final class MixedScan implements Scan, Batch, SupportsMetadata, SupportsReportStatistics {
  private final PaimonScan python;
  private final NativeParquetScan parquet;
  private final int pythonBuckets;
  private final long sizeInBytes;
  private Batch pythonBatch;

  MixedScan(PaimonScan python, NativeParquetScan parquet, int pythonBuckets, long sizeInBytes) {
    this.python = python;
    this.parquet = parquet;
    this.pythonBuckets = pythonBuckets;
    this.sizeInBytes = sizeInBytes;
  }

  /** The size of all files of both parts; no row count (the Python part merges by key). */
  @Override
  public Statistics estimateStatistics() {
    return NativeParquetScan.statistics(sizeInBytes, -1);
  }

  @Override
  public StructType readSchema() {
    return parquet.readSchema();
  }

  @Override
  public String description() {
    return parquet.description().replaceFirst("^\\(native parquet, ",
        "(Python for " + pythonBuckets + " buckets + native parquet, ");
  }

  @Override
  public Batch toBatch() {
    return this;
  }

  private synchronized Batch pythonBatch() {
    if (pythonBatch == null) {
      pythonBatch = python.toBatch();
    }
    return pythonBatch;
  }

  @Override
  public InputPartition[] planInputPartitions() {
    InputPartition[] py = pythonBatch().planInputPartitions();
    InputPartition[] pq = parquet.planInputPartitions();
    InputPartition[] all = Arrays.copyOf(py, py.length + pq.length);
    System.arraycopy(pq, 0, all, py.length, pq.length);
    return all;
  }

  @Override
  public PartitionReaderFactory createReaderFactory() {
    return new Factory(pythonBatch().createReaderFactory(), parquet.createReaderFactory());
  }

  @Override
  public CustomMetric[] supportedCustomMetrics() {
    return python.supportedCustomMetrics();
  }

  @Override
  public CustomTaskMetric[] reportDriverMetrics() {
    return python.reportDriverMetrics();
  }

  @Override
  public scala.collection.immutable.Map<String, String> getMetaData() {
    Map<String, String> m = new HashMap<>(scala.jdk.javaapi.CollectionConverters.asJava(parquet.getMetaData()));
    m.put("Format", "parquet (native) and Python, " + pythonBuckets + " buckets");
    return Errors.scalaMap(m);
  }

  /** Parquet file partitions to Spark's parquet reader, the others to the Python reader. */
  private static final class Factory implements PartitionReaderFactory {
    private static final long serialVersionUID = 1L;
    private final PartitionReaderFactory python;
    private final PartitionReaderFactory parquet;
    private final boolean columnar;

    Factory(PartitionReaderFactory python, PartitionReaderFactory parquet) {
      this.python = python;
      this.parquet = parquet;
      // the parquet reader decides by the read schema alone (vectorised reader on, flat types,
      // few enough fields); the Python reader does rows and batches, so it follows
      this.columnar = parquet.supportColumnarReads(FilePartition.apply(0, new org.apache.spark.sql.execution.datasources.PartitionedFile[0]));
    }

    private PartitionReaderFactory of(InputPartition p) {
      return p instanceof FilePartition ? parquet : python;
    }

    @Override
    public boolean supportColumnarReads(InputPartition partition) {
      return columnar;
    }

    @Override
    public PartitionReader<InternalRow> createReader(InputPartition partition) {
      return of(partition).createReader(partition);
    }

    @Override
    public PartitionReader<ColumnarBatch> createColumnarReader(InputPartition partition) {
      return of(partition).createColumnarReader(partition);
    }
  }
}
