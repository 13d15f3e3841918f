package org.paimon_sql.spark;

import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.read.LocalScan;
import org.apache.spark.sql.types.StructType;

/** The result set of a procedure call (Spark's CALL takes an iterator of scans). */
public class ProcedureResultScan implements LocalScan {
  private final StructType schema;
  private final InternalRow[] rows;
  private final String procedure;

  ProcedureResultScan(String procedure, StructType schema, InternalRow[] rows) {
    this.procedure = procedure;
    this.schema = schema;
    this.rows = rows;
  }

  @Override
  public StructType readSchema() {
    return schema;
  }

  @Override
  public InternalRow[] rows() {
    return rows;
  }

  @Override
  public String description() {
    return "result of procedure " + procedure;
  }
}
