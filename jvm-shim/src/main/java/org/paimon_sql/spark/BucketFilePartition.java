package org.paimon_sql.spark;

import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.connector.read.HasPartitionKey;
import org.apache.spark.sql.execution.datasources.FilePartition;
import org.apache.spark.sql.execution.datasources.PartitionedFile;

/**
 * The files of one fixed bucket, read by Spark's parquet reader as one task: the input partition
 * of a {@link NativeParquetScan} that reports its bucket layout ({@code KeyGroupedPartitioning}
 * over {@code bucket(n, key)}); its partition key is the bucket number.
 */
final class BucketFilePartition extends FilePartition implements HasPartitionKey {
  private static final long serialVersionUID = 1L;
  private final int bucket;

  BucketFilePartition(int index, PartitionedFile[] files, int bucket) {
    super(index, files);
    this.bucket = bucket;
  }

  int bucket() {
    return bucket;
  }

  @Override
  public InternalRow partitionKey() {
    return new GenericInternalRow(new Object[] {bucket});
  }
}
