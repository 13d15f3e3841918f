package org.paimon_sql.spark;

import java.math.BigDecimal;
import java.time.LocalDate;
import org.apache.spark.sql.connector.expressions.Expression;
import org.apache.spark.sql.connector.expressions.Literal;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.TimestampNTZType;

/**
 * Spark's V2 predicates (what {@code DELETE FROM t WHERE ...} hands the table) as Spark SQL text,
 * which the Python engine parses with sqlglot into its own predicate. Only what that text can say
 * exactly: comparisons, IN, IS [NOT] NULL, STARTS_WITH, AND/OR/NOT, over top-level columns and
 * literals of boolean, integer, floating, decimal, string, date and TIMESTAMP_NTZ types. Anything
 * else returns null, and Spark then refuses the DELETE with its own error.
 */
final class PredicateSql {
  private PredicateSql() {}

  /** The AND of {@code predicates} as SQL, or null when one of them has no exact SQL form here. */
  static String of(Predicate[] predicates) {
    StringBuilder sb = new StringBuilder();
    for (Predicate p : predicates) {
      String s = predicate(p);
      if (s == null) {
        return null;
      }
      if (sb.length() > 0) {
        sb.append(" AND ");
      }
      sb.append('(').append(s).append(')');
    }
    return sb.length() == 0 ? "TRUE" : sb.toString();
  }

  /** One predicate as SQL, or null when it has no exact SQL form here. */
  static String ofOne(Predicate p) {
    return predicate(p);
  }

  private static String predicate(Predicate p) {
    Expression[] c = p.children();
    switch (p.name()) {
      case "ALWAYS_TRUE":
        return "TRUE";
      case "ALWAYS_FALSE":
        return "FALSE";
      case "AND":
      case "OR":
        if (c.length != 2 || !(c[0] instanceof Predicate) || !(c[1] instanceof Predicate)) {
          return null;
        }
        String l = predicate((Predicate) c[0]);
        String r = predicate((Predicate) c[1]);
        return l == null || r == null ? null : "(" + l + ") " + p.name() + " (" + r + ")";
      case "NOT":
        if (c.length != 1 || !(c[0] instanceof Predicate)) {
          return null;
        }
        String inner = predicate((Predicate) c[0]);
        return inner == null ? null : "NOT (" + inner + ")";
      case "IS_NULL":
      case "IS_NOT_NULL":
        String col = c.length == 1 ? operand(c[0]) : null;
        return col == null ? null : col + (p.name().equals("IS_NULL") ? " IS NULL" : " IS NOT NULL");
      case "=":
      case "<>":
      case "<=>":
      case "<":
      case "<=":
      case ">":
      case ">=":
        if (c.length != 2) {
          return null;
        }
        String a = operand(c[0]);
        String b = operand(c[1]);
        return a == null || b == null ? null : a + " " + p.name() + " " + b;
      case "IN":
        if (c.length < 2) {
          return null;
        }
        StringBuilder sb = new StringBuilder();
        for (int i = 1; i < c.length; i++) {
          String v = operand(c[i]);
          if (v == null) {
            return null;
          }
          sb.append(i > 1 ? ", " : "").append(v);
        }
        String x = operand(c[0]);
        return x == null ? null : x + " IN (" + sb + ")";
      case "STARTS_WITH":
        if (c.length != 2 || !(c[1] instanceof Literal) || !(((Literal<?>) c[1]).dataType() instanceof StringType)) {
          return null;
        }
        String prefix = String.valueOf(((Literal<?>) c[1]).value());
        String target = operand(c[0]);
        if (target == null || prefix.contains("%") || prefix.contains("_")) {
          return null;
        }
        return target + " LIKE " + quote(prefix + "%");
      default:
        return null;
    }
  }

  private static String operand(Expression e) {
    if (e instanceof NamedReference) {
      String[] names = ((NamedReference) e).fieldNames();
      return names.length == 1 ? "`" + names[0].replace("`", "``") + "`" : null;
    }
    if (e instanceof Literal) {
      return literal(((Literal<?>) e).value(), ((Literal<?>) e).dataType());
    }
    return null;
  }

  private static String literal(Object v, DataType t) {
    if (v == null) {
      return "NULL";
    }
    if (t instanceof StringType) {
      return quote(v.toString());
    }
    if (t instanceof BooleanType) {
      return Boolean.TRUE.equals(v) ? "TRUE" : "FALSE";
    }
    if (t instanceof ByteType || t instanceof ShortType || t instanceof IntegerType || t instanceof LongType) {
      return v.toString();
    }
    if (t instanceof FloatType || t instanceof DoubleType) {
      double d = ((Number) v).doubleValue();
      return Double.isFinite(d) ? new BigDecimal(v.toString()).toPlainString() : null;
    }
    if (t instanceof DecimalType && v instanceof Decimal) {
      return ((Decimal) v).toJavaBigDecimal().toPlainString();
    }
    if (t instanceof DateType && v instanceof Integer) {
      return "DATE '" + LocalDate.ofEpochDay((Integer) v) + "'";
    }
    if (t instanceof TimestampNTZType && v instanceof Long) {
      return "TIMESTAMP '" + PaimonWriteBuilder.partitionValue(v, t) + "'";
    }
    return null; // TIMESTAMP with time zone, binary, intervals...: no exact text here
  }

  /** A Spark SQL string literal (backslash escapes; two adjacent literals would concatenate). */
  private static String quote(String s) {
    return "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'";
  }
}
