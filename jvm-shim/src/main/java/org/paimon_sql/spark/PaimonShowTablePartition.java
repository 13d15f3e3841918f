package org.paimon_sql.spark;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.analysis.ResolvedPartitionSpec;
import org.apache.spark.sql.catalyst.analysis.ResolvedTable;
import org.apache.spark.sql.catalyst.catalog.ExternalCatalogUtils;
import org.apache.spark.sql.catalyst.expressions.Cast;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.ShowTablePartition;
import org.apache.spark.sql.catalyst.util.QuotingUtils;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.SupportsPartitionManagement;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.SparkStrategy;
import org.apache.spark.sql.execution.LocalTableScanExec;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;
import scala.jdk.javaapi.CollectionConverters;

/**
 * {@code SHOW TABLE EXTENDED [IN db] LIKE 't' PARTITION (...)} on a Paimon table, as Paimon's
 * {@code PaimonShowTablePartitionCommand} prints it: Spark's "Partition Values", then "Partition
 * Parameters" as {@code {key=value, ...}} (Paimon's partition statistics, unreported ones left
 * out) and "Partition Statistics: N rows, M bytes" (Spark prints the parameters as {@code {key:
 * value}} and no statistics).
 */
final class PaimonShowTablePartition {
  static final String RECORD_COUNT = "recordCount";
  static final String FILE_SIZE_IN_BYTES = "fileSizeInBytes";
  static final String FILE_COUNT = "fileCount";
  static final String LAST_FILE_CREATION_TIME = "lastFileCreationTime";
  static final String UNKNOWN = "UNKNOWN";

  private PaimonShowTablePartition() {}

  /**
   * The planner strategy: {@link ShowTablePartition} on a Paimon table becomes its one answer row
   * (namespace, tableName, isTemporary, information), read from the table when the statement is
   * planned (Spark plans a command right before running it).
   */
  static final class Strategy extends SparkStrategy {
    @Override
    public scala.collection.immutable.Seq<SparkPlan> apply(LogicalPlan plan) {
      List<SparkPlan> out = new ArrayList<>();
      if (plan instanceof ShowTablePartition s && s.table() instanceof ResolvedTable rt
          && rt.table() instanceof PaimonTable table
          && s.partitionSpec() instanceof ResolvedPartitionSpec spec) {
        Identifier ident = rt.identifier();
        InternalRow row = new GenericInternalRow(new Object[] {
            UTF8String.fromString(QuotingUtils.quoted(ident.namespace())),
            UTF8String.fromString(ident.name()),
            false,
            UTF8String.fromString(details(ident, table, spec) + "\n")});
        out.add(new LocalTableScanExec(s.output(), CollectionConverters.asScala(List.of(row)).toList(),
            scala.Option.empty(), false));
      }
      return CollectionConverters.asScala(out).toList();
    }
  }

  private static boolean isKnown(String value) {
    try {
      return Long.parseLong(value.trim()) >= 0;
    } catch (NumberFormatException e) {
      return false;
    }
  }

  /** A statistic's value, or UNKNOWN when it is absent, not a number or negative. */
  private static String render(Map<String, String> metadata, String field) {
    String v = metadata.get(field);
    return v != null && isKnown(v) ? String.valueOf(Long.parseLong(v.trim())) : UNKNOWN;
  }

  private static boolean isUnreported(String field, String value) {
    boolean statistic = RECORD_COUNT.equals(field) || FILE_SIZE_IN_BYTES.equals(field)
        || FILE_COUNT.equals(field) || LAST_FILE_CREATION_TIME.equals(field);
    if (!statistic) {
      return false;
    }
    try {
      return Long.parseLong(value.trim()) < 0;
    } catch (NumberFormatException e) {
      return false;
    }
  }

  private static String details(
      Identifier ident, SupportsPartitionManagement table, ResolvedPartitionSpec spec) {
    Map<String, String> results = new LinkedHashMap<>();
    StructType schema = table.partitionSchema();
    String[] names = CollectionConverters.asJava(spec.names()).toArray(new String[0]);
    InternalRow[] found = table.listPartitionIdentifiers(names, spec.ident());
    if (found.length == 0) {
      List<String> parts = new ArrayList<>();
      for (int i = 0; i < schema.size(); i++) {
        DataType t = schema.fields()[i].dataType();
        parts.add(schema.fields()[i].name() + " = " + spec.ident().get(i, t));
      }
      throw new RuntimeException("\n[PARTITIONS_NOT_FOUND] The partition(s) PARTITION ("
          + String.join(", ", parts) + ") cannot be found in table " + ident
          + ".\nVerify the partition specification and table name.\n");
    }
    InternalRow row = found[0];
    String timeZone = SQLConf.get().sessionLocalTimeZone();
    List<String> values = new ArrayList<>();
    for (int i = 0; i < schema.size(); i++) {
      DataType t = schema.fields()[i].dataType();
      Object text = new Cast(Literal.create(row.get(i, t), t), DataTypes.StringType,
          scala.Option.apply(timeZone)).eval(null);
      String shown = text == null ? "null" : text.toString();
      values.add(ExternalCatalogUtils.escapePathName(schema.fields()[i].name()) + "="
          + ExternalCatalogUtils.escapePathName(shown));
    }
    results.put("Partition Values", "[" + String.join(", ", values) + "]");

    Map<String, String> metadata = table.loadPartitionMetadata(row);
    if (!metadata.isEmpty()) {
      // Paimon filters the map through Scala's collections: keep their (hash) order
      scala.collection.mutable.Map<String, String> all = CollectionConverters.asScala(metadata);
      @SuppressWarnings("unchecked")
      scala.collection.mutable.Map<String, String> reported = (scala.collection.mutable.Map<String, String>)
          (Object) all.filterNot(kv -> isUnreported(kv._1(), kv._2()));
      if (reported.nonEmpty()) {
        List<String> kvs = new ArrayList<>();
        reported.foreach(kv -> kvs.add(kv._1() + "=" + kv._2()));
        results.put("Partition Parameters", "{" + String.join(", ", kvs) + "}");
      }
      results.put("Partition Statistics",
          render(metadata, RECORD_COUNT) + " rows, " + render(metadata, FILE_SIZE_IN_BYTES) + " bytes");
    }
    List<String> lines = new ArrayList<>();
    for (Map.Entry<String, String> e : results.entrySet()) {
      lines.add(e.getValue().isEmpty() ? e.getKey() : e.getKey() + ": " + e.getValue());
    }
    return String.join("\n", lines);
  }
}
