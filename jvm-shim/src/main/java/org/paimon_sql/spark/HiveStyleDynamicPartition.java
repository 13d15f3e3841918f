package org.paimon_sql.spark;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.catalyst.expressions.Alias;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.NamedExpression;
import org.apache.spark.sql.catalyst.expressions.NamedExpression$;
import org.apache.spark.sql.catalyst.plans.logical.InsertIntoStatement;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.Project;
import org.apache.spark.sql.catalyst.rules.Rule;
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation;
import org.apache.spark.sql.internal.SQLConf;
import scala.Option;
import scala.PartialFunction;
import scala.PartialFunction$;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Paimon's Spark connector option {@code write.hive-style-dynamic-partition.enabled} (session
 * setting {@code spark.paimon.write.hive-style-dynamic-partition.enabled}, default false): a
 * positional {@code INSERT INTO / INSERT OVERWRITE t PARTITION (...)} with dynamic partition
 * columns into a table of our catalog takes the query's columns in Hive's order (the other columns
 * in the table's order, then the dynamic partition columns in the table's partition-key order),
 * as Paimon's analysis does. A dynamic-mode {@code INSERT OVERWRITE} without dynamic columns in its
 * PARTITION clause is read in that order only when the query's column names are exactly Hive's
 * order over all partition keys. Queries whose column names are the table's, and tables whose
 * Hive order is the table's order, are written positionally as without the option.
 *
 * <p>A resolution rule of {@link PaimonSparkSessionExtensions}: it runs on the {@code
 * InsertIntoStatement} once its table is resolved and before Spark turns it into a write command
 * (adding the static partition values and mapping the columns by position). It puts a Project over
 * the query that reorders the query's columns into the table's order (without the static
 * partition columns, which Spark adds back at their places), named as the table's columns.
 */
final class HiveStyleDynamicPartition extends Rule<LogicalPlan> {
  static final String KEY = "write.hive-style-dynamic-partition.enabled";
  static final String CONF = "spark.paimon." + KEY;

  @Override
  public LogicalPlan apply(LogicalPlan plan) {
    if (SQLConf.get().getConfString(CONF, "false").trim().equalsIgnoreCase("false")) {
      return plan;
    }
    return plan.resolveOperatorsDown(total((LogicalPlan p) -> {
      if (p instanceof InsertIntoStatement i && i.table() instanceof DataSourceV2Relation r
          && r.table() instanceof PaimonTable t && i.query().resolved() && !i.byName()
          && i.userSpecifiedCols().isEmpty() && i.replaceCriteriaOpt().isEmpty() && enabled()) {
        LogicalPlan q = rewrite(i, r, t);
        return q == null ? p : i.withNewChildren(CollectionConverters.asScala(List.of(q)).toSeq());
      }
      return p;
    }));
  }

  static boolean enabled() {
    String v = SQLConf.get().getConfString(CONF, "false").trim();
    if (v.equalsIgnoreCase("true")) {
      return true;
    }
    if (v.equalsIgnoreCase("false")) {
      return false;
    }
    throw new IllegalArgumentException(
        "Option '" + KEY + "' (" + CONF + ") must be true or false, got '" + v + "'");
  }

  /** The reordered query, or null when the statement is written as without the option. */
  private static LogicalPlan rewrite(InsertIntoStatement i, DataSourceV2Relation r, PaimonTable t) {
    List<Attribute> table = new ArrayList<>(CollectionConverters.asJava(r.output()));
    List<Attribute> query = CollectionConverters.asJava(i.query().output());
    Map<String, Option<String>> spec = CollectionConverters.asJava(i.partitionSpec());
    List<String> dynamic = new ArrayList<>();
    List<String> statics = new ArrayList<>();
    for (Map.Entry<String, Option<String>> e : spec.entrySet()) {
      (e.getValue().isEmpty() ? dynamic : statics).add(e.getKey());
    }
    // the query's columns as Spark lines them up: the static partition values at their places
    List<String> lined = new ArrayList<>();
    List<Integer> source = new ArrayList<>(); // index into query, -1 for a static value
    int k = 0;
    for (Attribute c : table) {
      if (contains(statics, c.name())) {
        lined.add(c.name());
        source.add(-1);
      } else {
        if (k >= query.size()) {
          return null; // Spark reports the wrong number of columns
        }
        lined.add(query.get(k).name());
        source.add(k++);
      }
    }
    if (k != query.size()) {
      return null;
    }
    List<Attribute> hive;
    if (!dynamic.isEmpty()) {
      hive = hiveOrder(table, t.partitionKeys(), dynamic);
    } else if (i.overwrite() && "DYNAMIC".equals(SQLConf.get().partitionOverwriteMode().toString())) {
      hive = hiveOrder(table, t.partitionKeys(), t.partitionKeys());
      if (hive != null && !sameNames(lined, names(hive))) {
        hive = null;
      }
    } else {
      hive = null;
    }
    if (hive == null || sameNames(lined, names(table)) || sameNames(names(hive), names(table))) {
      return null;
    }
    // position j of the lined-up query goes to the column hive[j]; by name into the table
    List<NamedExpression> out = new ArrayList<>();
    for (int c = 0; c < table.size(); c++) {
      Attribute col = table.get(c);
      int j = indexOf(hive, col.name());
      if (contains(statics, col.name())) {
        if (source.get(j) != -1) {
          throw Errors.sneaky(new PaimonException(ErrorKind.UNSUPPORTED,
              "Option '" + KEY + "' (table " + t.name() + "): the static partition column "
                  + col.name() + " comes after a dynamic partition column " + dynamic
                  + " in the table's columns; give the partition values in the query instead", null));
        }
        continue;
      }
      if (source.get(j) == -1) {
        throw Errors.sneaky(new PaimonException(ErrorKind.UNSUPPORTED,
            "Option '" + KEY + "' (table " + t.name() + "): column " + col.name()
                + " would take the value of a static partition column; give the partition"
                + " values in the query instead", null));
      }
      Attribute a = query.get(source.get(j));
      out.add(alias(a, col.name()));
    }
    return new Project(CollectionConverters.asScala(out).toSeq(), i.query());
  }

  /** Paimon's Hive order: the table's columns but the dynamic ones, then the dynamic ones. */
  private static List<Attribute> hiveOrder(
      List<Attribute> table, List<String> partitionKeys, List<String> dynamic) {
    if (partitionKeys.isEmpty() || dynamic.isEmpty()) {
      return null;
    }
    List<Attribute> dynamicAttrs = new ArrayList<>();
    for (String key : partitionKeys) {
      if (contains(dynamic, key)) {
        int j = indexOf(table, key);
        if (j >= 0) {
          dynamicAttrs.add(table.get(j));
        }
      }
    }
    if (dynamicAttrs.size() != dynamic.size()) {
      return null;
    }
    List<Attribute> out = new ArrayList<>();
    for (Attribute a : table) {
      if (!contains(dynamic, a.name())) {
        out.add(a);
      }
    }
    out.addAll(dynamicAttrs);
    return out;
  }

  private static NamedExpression alias(Expression child, String name) {
    return new Alias(child, name, NamedExpression$.MODULE$.newExprId(),
        CollectionConverters.asScala(List.<String>of()).toSeq(), Option.empty(),
        CollectionConverters.asScala(List.<String>of()).toSeq());
  }

  private static boolean eq(String a, String b) {
    return SQLConf.get().caseSensitiveAnalysis() ? a.equals(b) : a.equalsIgnoreCase(b);
  }

  private static boolean contains(List<String> names, String name) {
    for (String n : names) {
      if (eq(n, name)) {
        return true;
      }
    }
    return false;
  }

  private static int indexOf(List<Attribute> attrs, String name) {
    for (int j = 0; j < attrs.size(); j++) {
      if (eq(attrs.get(j).name(), name)) {
        return j;
      }
    }
    return -1;
  }

  private static List<String> names(List<Attribute> attrs) {
    List<String> out = new ArrayList<>();
    for (Attribute a : attrs) {
      out.add(a.name());
    }
    return out;
  }

  private static boolean sameNames(List<String> a, List<String> b) {
    if (a.size() != b.size()) {
      return false;
    }
    for (int j = 0; j < a.size(); j++) {
      if (!eq(a.get(j), b.get(j))) {
        return false;
      }
    }
    return true;
  }

  private static <A> PartialFunction<A, A> total(scala.Function1<A, A> f) {
    return PartialFunction$.MODULE$.fromFunction(f);
  }
}
