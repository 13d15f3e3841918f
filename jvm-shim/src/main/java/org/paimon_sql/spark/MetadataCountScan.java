package org.paimon_sql.spark;

import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.connector.read.LocalScan;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * {@code SELECT count(*) FROM t} answered from the table's manifests: the row counts of its data
 * files, when those are the table's rows (no key merge, no retraction row; deletion vectors
 * subtracted). Spark runs it as a local scan of one row; no data file is opened.
 */
final class MetadataCountScan implements LocalScan {
  private final long count;
  private final Object snapshot;

  MetadataCountScan(long count, Object snapshot) {
    this.count = count;
    this.snapshot = snapshot;
  }

  @Override
  public StructType readSchema() {
    return new StructType().add("count(*)", DataTypes.LongType, false);
  }

  @Override
  public InternalRow[] rows() {
    return new InternalRow[] {new GenericInternalRow(new Object[] {count})};
  }

  @Override
  public String description() {
    return "(row count from manifests, snapshot " + snapshot + ")";
  }
}
