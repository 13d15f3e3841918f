package org.paimon_sql.spark;

import com.fasterxml.jackson.core.JsonProcessingException;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.spark.sql.connector.expressions.Expression;
import org.apache.spark.sql.connector.expressions.Literal;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.SupportsDynamicOverwrite;
import org.apache.spark.sql.connector.write.SupportsOverwriteV2;
import org.apache.spark.sql.connector.write.Write;
import org.apache.spark.sql.connector.write.WriteBuilder;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * Writes: append, full overwrite (truncate), static partition overwrite (by an equality filter on
 * partition columns) and dynamic partition overwrite. The mode reaches the Python writer as the
 * options {@code paimon.overwrite} = none | full | static | dynamic and, for static,
 * {@code paimon.overwrite.partition} = a JSON object {column: value string or null}; value strings
 * are formatted as Paimon formats partition values (dates ISO, timestamps "yyyy-MM-dd HH:mm:ss[.f]").
 */
public class PaimonWriteBuilder implements SupportsOverwriteV2, SupportsDynamicOverwrite {
  public static final String OVERWRITE = "paimon.overwrite";
  public static final String OVERWRITE_PARTITION = "paimon.overwrite.partition";

  private final PaimonTable table;
  private final String dataSourceName;
  private final LogicalWriteInfo info;
  private String mode = "none";
  private Map<String, String> staticSpec = null;

  PaimonWriteBuilder(PaimonTable table, String dataSourceName, LogicalWriteInfo info) {
    this.table = table;
    this.dataSourceName = dataSourceName;
    this.info = info;
  }

  @Override
  public WriteBuilder truncate() {
    mode = "full";
    staticSpec = null;
    return this;
  }

  @Override
  public boolean canOverwrite(Predicate[] predicates) {
    try {
      partitionSpec(predicates);
      return true;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  @Override
  public WriteBuilder overwrite(Predicate[] predicates) {
    Map<String, String> spec = partitionSpec(predicates);
    if (spec.isEmpty()) {
      return truncate();
    }
    mode = "static";
    staticSpec = spec;
    return this;
  }

  @Override
  public WriteBuilder overwriteDynamicPartitions() {
    mode = "dynamic";
    staticSpec = null;
    return this;
  }

  /** An AND of {@code partition_column = literal} (or ALWAYS_TRUE) as a partition spec. */
  Map<String, String> partitionSpec(Predicate[] predicates) {
    Map<String, String> spec = new LinkedHashMap<>();
    for (Predicate p : predicates) {
      collect(p, spec);
    }
    return spec;
  }

  private void collect(Predicate p, Map<String, String> spec) {
    String n = p.name();
    if ("ALWAYS_TRUE".equals(n)) {
      return;
    }
    if ("AND".equals(n)) {
      for (Expression c : p.children()) {
        if (!(c instanceof Predicate)) {
          throw cannot(p);
        }
        collect((Predicate) c, spec);
      }
      return;
    }
    if ("IS_NULL".equals(n) && p.children().length == 1 && p.children()[0] instanceof NamedReference) {
      // PARTITION (dt = NULL): the partition of rows whose dt is null (Paimon's default partition)
      String[] names = ((NamedReference) p.children()[0]).fieldNames();
      if (names.length == 1 && table.partitionKeys().contains(names[0])) {
        spec.put(names[0], null);
        return;
      }
    }
    if (("=".equals(n) || "<=>".equals(n)) && p.children().length == 2) {
      Expression a = p.children()[0];
      Expression b = p.children()[1];
      if (b instanceof NamedReference && a instanceof Literal) {
        Expression t = a;
        a = b;
        b = t;
      }
      if (a instanceof NamedReference && b instanceof Literal) {
        String[] names = ((NamedReference) a).fieldNames();
        if (names.length == 1 && table.partitionKeys().contains(names[0])) {
          Literal<?> lit = (Literal<?>) b;
          if (lit.dataType() instanceof TimestampType && DynamicOptions.legacyTimestampMapping()
              && !java.time.ZoneId.systemDefault().normalized().equals(ZoneOffset.UTC)) {
            // a Paimon TIMESTAMP partition holds the JVM zone's wall clock, an LTZ one the instant
            throw new UnsupportedOperationException("INSERT OVERWRITE of table " + table.name()
                + " with a static TIMESTAMP value for partition column " + names[0] + " is not supported with "
                + DynamicOptions.LEGACY_TIMESTAMP_MAPPING_CONF + " = true unless the JVM's time zone is UTC");
          }
          spec.put(names[0], partitionValue(lit.value(), lit.dataType()));
          return;
        }
      }
    }
    throw cannot(p);
  }

  private IllegalArgumentException cannot(Predicate p) {
    return new IllegalArgumentException(
        "Cannot overwrite table " + table.name() + " where " + p
            + ": only equality on partition columns " + table.partitionKeys() + " is supported");
  }

  /** A literal as Paimon's (non-legacy) partition value string; null for NULL. */
  static String partitionValue(Object v, DataType t) {
    if (v == null) {
      return null;
    }
    if (t instanceof DateType && v instanceof Integer) {
      return LocalDate.ofEpochDay((Integer) v).toString();
    }
    if ((t instanceof TimestampType || t instanceof TimestampNTZType) && v instanceof Long) {
      long micros = (Long) v;
      LocalDateTime dt =
          LocalDateTime.ofEpochSecond(Math.floorDiv(micros, 1_000_000L),
              (int) Math.floorMod(micros, 1_000_000L) * 1000, ZoneOffset.UTC);
      String s = String.format("%04d-%02d-%02d %02d:%02d:%02d", dt.getYear(), dt.getMonthValue(),
          dt.getDayOfMonth(), dt.getHour(), dt.getMinute(), dt.getSecond());
      int us = dt.getNano() / 1000;
      if (us != 0) {
        s += ("." + String.format("%06d", us)).replaceAll("0+$", "");
      }
      return s;
    }
    if (v instanceof Decimal) {
      return ((Decimal) v).toJavaBigDecimal().toPlainString();
    }
    if (v instanceof BigDecimal) {
      return ((BigDecimal) v).toPlainString();
    }
    if (t instanceof BooleanType) {
      return Boolean.TRUE.equals(v) ? "true" : "false";
    }
    return v.toString();
  }

  @Override
  public Write build() {
    Map<String, String> extra = new HashMap<>();
    extra.put(OVERWRITE, mode);
    // Paimon TIMESTAMP values written from Spark TIMESTAMP (legacy-timestamp-mapping.enabled) are
    // the wall clock of the JVM's default zone, as Paimon's Spark writer stores them
    extra.put("paimon.read.time-zone", java.time.ZoneId.systemDefault().getId());
    if (staticSpec != null) {
      try {
        extra.put(OVERWRITE_PARTITION, PythonBridge.JSON.writeValueAsString(staticSpec));
      } catch (JsonProcessingException e) {
        throw new IllegalStateException(e);
      }
    }
    final CaseInsensitiveStringMap merged = table.mergedOptions(info.options(), extra);
    LogicalWriteInfo wrapped = withOptions(info, merged);
    return new PaimonWrite(table, dataSourceName, wrapped, "full".equals(mode));
  }

  /** {@code info} with other options (the rest as Spark gave it). */
  static LogicalWriteInfo withOptions(LogicalWriteInfo info, CaseInsensitiveStringMap options) {
    return withOptions(info, options, info.schema());
  }

  /** {@code info} with other options and the rows of {@code schema}. */
  static LogicalWriteInfo withOptions(LogicalWriteInfo info, CaseInsensitiveStringMap options, StructType schema) {
    return
        new LogicalWriteInfo() {
          @Override
          public CaseInsensitiveStringMap options() {
            return options;
          }

          @Override
          public String queryId() {
            return info.queryId();
          }

          @Override
          public StructType schema() {
            return schema;
          }

          @Override
          public Optional<StructType> rowIdSchema() {
            return info.rowIdSchema();
          }

          @Override
          public Optional<StructType> metadataSchema() {
            return info.metadataSchema();
          }
        };
  }
}
