package org.paimon_sql.spark;

import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.read.SupportsPushDownFilters;
import org.apache.spark.sql.connector.read.SupportsPushDownRequiredColumns;
import org.apache.spark.sql.execution.datasources.v2.python.PythonDataSourceV2;
import org.apache.spark.sql.execution.datasources.v2.python.PythonScanBuilder;
import org.apache.spark.sql.sources.Filter;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * Column pruning on top of Spark's PythonScanBuilder (which only pushes filters). Spark calls
 * pushFilters, then pruneColumns, then build: every filter stays a post-scan filter (Spark
 * re-evaluates it, so its columns stay in the required schema) and is offered to Python at build
 * time, for a Python data source created for the pruned schema. Python uses the filters it accepts
 * to skip partitions, files and rows; EXPLAIN shows them as the scan's pushed filters.
 */
public class PaimonScanBuilder
    implements ScanBuilder, SupportsPushDownFilters, SupportsPushDownRequiredColumns {
  private final String dataSourceName;
  private final StructType fullSchema;
  private final CaseInsensitiveStringMap options;
  private final java.util.List<String> partitionKeys;
  private StructType required;
  private Filter[] filters = new Filter[0];

  PaimonScanBuilder(String dataSourceName, StructType fullSchema, CaseInsensitiveStringMap options,
      java.util.List<String> partitionKeys) {
    this.dataSourceName = dataSourceName;
    this.partitionKeys = partitionKeys;
    this.fullSchema = fullSchema;
    this.required = fullSchema;
    this.options = options;
  }

  @Override
  public Filter[] pushFilters(Filter[] fs) {
    this.filters = fs;
    return fs;
  }

  @Override
  public Filter[] pushedFilters() {
    return filters;
  }

  @Override
  public void pruneColumns(StructType requiredSchema) {
    // count(*) asks for no column, but a zero-column Arrow batch has no row count: keep one
    this.required =
        requiredSchema.fields().length == 0 ? new StructType(new StructField[] {cheapestColumn()}) : requiredSchema;
  }

  private StructField cheapestColumn() {
    for (StructField f : fullSchema.fields()) {
      DataType t = f.dataType();
      if (t instanceof BooleanType || t instanceof ByteType || t instanceof ShortType
          || t instanceof IntegerType || t instanceof DateType) {
        return f;
      }
    }
    for (StructField f : fullSchema.fields()) {
      if (f.dataType() instanceof LongType) {
        return f;
      }
    }
    return fullSchema.fields()[0];
  }

  StructType requiredSchema() {
    return required;
  }

  @Override
  public Scan build() {
    PythonDataSourceV2 ds = new PythonDataSourceV2();
    ds.setShortName(dataSourceName);
    PythonScanBuilder delegate = new PythonScanBuilder(ds, dataSourceName, required, options);
    Filter[] accepted = new Filter[0];
    if (filters.length > 0) {
      delegate.pushFilters(filters);
      accepted = delegate.pushedFilters();
    }
    return new PaimonScan(delegate.build(), accepted, partitionKeys);
  }
}
