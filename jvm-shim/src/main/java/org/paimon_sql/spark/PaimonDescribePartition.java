package org.paimon_sql.spark;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.analysis.ResolvedPartitionSpec;
import org.apache.spark.sql.catalyst.analysis.ResolvedTable;
import org.apache.spark.sql.catalyst.catalog.CatalogStatistics;
import org.apache.spark.sql.catalyst.catalog.CatalogStorageFormat;
import org.apache.spark.sql.catalyst.catalog.CatalogTablePartition;
import org.apache.spark.sql.catalyst.expressions.Cast;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.catalyst.plans.logical.DescribeTablePartition;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.execution.LocalTableScanExec;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.SparkStrategy;
import org.apache.spark.sql.execution.datasources.v2.DescribeTableExec;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;
import scala.jdk.javaapi.CollectionConverters;

/**
 * {@code DESCRIBE [EXTENDED|FORMATTED] t PARTITION (...)} on a Paimon table, as Paimon's {@code
 * PaimonDescribeTableExec} answers it: the table's description (Spark's {@code
 * DescribeTableExec}), then, when extended, "# Detailed Partition Information" (Database, Table and
 * the partition as Spark's {@code CatalogTablePartition} prints it: Partition Values, one
 * "Partition Parameters" row {@code {fileCount=..., fileSizeInBytes=...,
 * lastFileCreationTime=..., recordCount=...}}, Created Time (the newest file's), Last Access,
 * Partition Statistics) and "# Column Not Null". Spark's own answer prints each statistic as a row
 * of its own.
 */
final class PaimonDescribePartition {
  private PaimonDescribePartition() {}

  /** The planner strategy: {@link DescribeTablePartition} on a Paimon table. */
  static final class Strategy extends SparkStrategy {
    @Override
    public scala.collection.immutable.Seq<SparkPlan> apply(LogicalPlan plan) {
      List<SparkPlan> out = new ArrayList<>();
      if (plan instanceof DescribeTablePartition d && d.table() instanceof ResolvedTable rt
          && rt.table() instanceof PaimonTable table
          && d.partitionSpec() instanceof ResolvedPartitionSpec spec) {
        List<InternalRow> rows = new ArrayList<>();
        for (InternalRow r : new DescribeTableExec(d.output(), rt.catalog().name(), rt.identifier(),
            table, d.isExtended()).executeCollect()) {
          rows.add(r.copy());
        }
        if (d.isExtended()) {
          partitionRows(rows, rt, table, spec);
          notNullRows(rows, table.schema());
        }
        out.add(new LocalTableScanExec(d.output(), CollectionConverters.asScala(rows).toList(),
            scala.Option.empty(), false));
      }
      return CollectionConverters.asScala(out).toList();
    }
  }

  private static InternalRow row(String a, String b, String c) {
    return new GenericInternalRow(new Object[] {
        UTF8String.fromString(a), UTF8String.fromString(b), UTF8String.fromString(c)});
  }

  private static long known(Map<String, String> metadata, String field) {
    try {
      return Long.parseLong(metadata.getOrDefault(field, "-1").trim());
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  private static void partitionRows(
      List<InternalRow> rows, ResolvedTable rt, PaimonTable table, ResolvedPartitionSpec spec) {
    StructType schema = table.partitionSchema();
    String[] names = CollectionConverters.asJava(spec.names()).toArray(new String[0]);
    InternalRow[] found = table.listPartitionIdentifiers(names, spec.ident());
    rows.add(row("", "", ""));
    rows.add(row("# Detailed Partition Information", "", ""));
    rows.add(row("Database", rt.identifier().namespace()[0], ""));
    rows.add(row("Table", rt.identifier().name(), ""));
    if (found.length != 1) {
      throw new IllegalArgumentException("Found " + found.length + " matching partitions. "
          + "Expected exactly one partition to match the partition spec.");
    }
    InternalRow partition = found[0];
    String timeZone = SQLConf.get().sessionLocalTimeZone();
    Map<String, String> values = new LinkedHashMap<>();
    for (int i = 0; i < schema.size(); i++) {
      DataType t = schema.fields()[i].dataType();
      Object text = new Cast(Literal.create(partition.get(i, t), t), DataTypes.StringType,
          scala.Option.apply(timeZone)).eval(null);
      values.put(schema.fields()[i].name(), text == null ? "null" : text.toString());
    }
    Map<String, String> metadata = table.loadPartitionMetadata(partition);
    long fileCount = known(metadata, PaimonShowTablePartition.FILE_COUNT);
    long fileSize = known(metadata, PaimonShowTablePartition.FILE_SIZE_IN_BYTES);
    long created = known(metadata, PaimonShowTablePartition.LAST_FILE_CREATION_TIME);
    long records = known(metadata, PaimonShowTablePartition.RECORD_COUNT);
    Map<String, String> parameters = new LinkedHashMap<>();
    if (fileCount >= 0) {
      parameters.put(PaimonShowTablePartition.FILE_COUNT, String.valueOf(fileCount));
    }
    if (fileSize >= 0) {
      parameters.put(PaimonShowTablePartition.FILE_SIZE_IN_BYTES, String.valueOf(fileSize));
    }
    if (created >= 0) {
      parameters.put(PaimonShowTablePartition.LAST_FILE_CREATION_TIME, String.valueOf(created));
    }
    if (records >= 0) {
      parameters.put(PaimonShowTablePartition.RECORD_COUNT, String.valueOf(records));
    }
    scala.Option<CatalogStatistics> stats = fileSize >= 0
        ? scala.Option.apply(new CatalogStatistics(scala.math.BigInt.apply(fileSize),
            records >= 0 ? scala.Option.apply(scala.math.BigInt.apply(records)) : scala.Option.empty(),
            immutable(Collections.emptyMap())))
        : scala.Option.empty();
    CatalogStorageFormat storage = new CatalogStorageFormat(scala.Option.empty(), scala.Option.empty(),
        scala.Option.empty(), scala.Option.empty(), false, immutable(Collections.emptyMap()),
        scala.Option.empty());
    CatalogTablePartition details = new CatalogTablePartition(immutable(values), storage,
        immutable(parameters), created, -1L, stats);
    scala.collection.mutable.LinkedHashMap<String, String> shown = details.toLinkedHashMap();
    if (created < 0) {
      shown.put("Created Time", PaimonShowTablePartition.UNKNOWN);
    }
    shown.foreach(kv -> rows.add(row(kv._1(), kv._2(), "")));
    rows.add(row("", "", ""));
  }

  private static <V> scala.collection.immutable.Map<String, V> immutable(Map<String, V> m) {
    return scala.collection.immutable.Map$.MODULE$.from(CollectionConverters.asScala(m));
  }

  private static void notNullRows(List<InternalRow> rows, StructType schema) {
    List<StructField> notNull = new ArrayList<>();
    for (StructField f : schema.fields()) {
      if (!f.nullable()) {
        notNull.add(f);
      }
    }
    if (!notNull.isEmpty()) {
      rows.add(row("# Column Not Null", "", ""));
      for (StructField f : notNull) {
        rows.add(row(f.name(), f.dataType().simpleString(), "NOT NULL"));
      }
    }
  }
}
