package org.paimon_sql.spark;

import java.util.List;
import org.apache.spark.sql.connector.catalog.MetadataColumn;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * Paimon's metadata columns of a data table ({@code SELECT __paimon_file_path, ... FROM t}): the
 * data file a row is stored in, its position in that file, its partition (a struct of the
 * partition columns) and its bucket. The Python reader fills them (see
 * {@code paimon_sql/scan/metadata_columns.py}); scans that ask for one are read by Python.
 */
final class PaimonMetadataColumns {
  static final String FILE_PATH = "__paimon_file_path";
  static final String ROW_INDEX = "__paimon_row_index";
  static final String PARTITION = "__paimon_partition";
  static final String BUCKET = "__paimon_bucket";
  static final List<String> NAMES = List.of(FILE_PATH, ROW_INDEX, PARTITION, BUCKET);

  private PaimonMetadataColumns() {}

  /** One metadata column. */
  record Column(String name, DataType dataType, boolean isNullable) implements MetadataColumn {}

  /**
   * The metadata columns of {@code table}, in Paimon's order. File path and row index are not
   * nullable when they form the row id of a delta operation (append tables with deletion
   * vectors: Spark refuses nullable row ids), nullable otherwise, as Paimon's.
   */
  static MetadataColumn[] of(PaimonTable table) {
    boolean rowId = table.primaryKeys().isEmpty() && table.deletionVectorsEnabled();
    return new MetadataColumn[] {
      new Column(FILE_PATH, DataTypes.StringType, !rowId),
      new Column(ROW_INDEX, DataTypes.LongType, !rowId),
      new Column(PARTITION, table.partitionSchema(), true),
      new Column(BUCKET, DataTypes.IntegerType, true),
    };
  }

  /** Whether {@code schema} has a metadata column. */
  static boolean any(StructType schema) {
    for (StructField f : schema.fields()) {
      if (NAMES.contains(f.name())) {
        return true;
      }
    }
    return false;
  }
}
