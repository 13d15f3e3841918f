package org.paimon_sql.spark;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.FunctionIdentifier;
import org.apache.spark.sql.catalyst.analysis.UnresolvedRelation;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.ExpressionInfo;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import scala.Function1;
import scala.Tuple3;
import scala.runtime.AbstractFunction1;

/**
 * Paimon's table-valued functions (its {@code PaimonTableValuedFunctions}): each reads a table (or a
 * system table such as {@code `t$audit_log`}) with one incremental option, as a relation with that
 * per-query option (the engine plans the incremental read):
 *
 * <ul>
 *   <li>{@code paimon_incremental_query('t', start, end)}: {@code incremental-between = 'start,end'}
 *       (snapshot ids or tag names);
 *   <li>{@code paimon_incremental_between_timestamp('t', t1, t2)}: {@code incremental-between-timestamp};
 *   <li>{@code paimon_incremental_to_auto_tag('t', tag)}: {@code incremental-to-auto-tag}.
 * </ul>
 *
 * The table name is parsed as Spark parses identifiers ({@code t}, {@code db.t}, {@code catalog.db.t},
 * back-quoted parts) and resolved against the current catalog and database.
 */
final class PaimonTableValuedFunctions {
  static final String INCREMENTAL_QUERY = "paimon_incremental_query";
  static final String INCREMENTAL_BETWEEN_TIMESTAMP = "paimon_incremental_between_timestamp";
  static final String INCREMENTAL_TO_AUTO_TAG = "paimon_incremental_to_auto_tag";

  private PaimonTableValuedFunctions() {}

  /** The three functions, as {@code SparkSessionExtensions.injectTableFunction} takes them. */
  static List<Tuple3<FunctionIdentifier, ExpressionInfo, Function1<scala.collection.immutable.Seq<Expression>, LogicalPlan>>>
      all() {
    List<Tuple3<FunctionIdentifier, ExpressionInfo, Function1<scala.collection.immutable.Seq<Expression>, LogicalPlan>>> out =
        new ArrayList<>();
    out.add(describe(INCREMENTAL_QUERY, "incremental-between", 2,
        "startSnapshotId, and endSnapshotId"));
    out.add(describe(INCREMENTAL_BETWEEN_TIMESTAMP, "incremental-between-timestamp", 2,
        "startTimestamp, and endTimestamp"));
    out.add(describe(INCREMENTAL_TO_AUTO_TAG, "incremental-to-auto-tag", 1, "endTagName"));
    return out;
  }

  private static Tuple3<FunctionIdentifier, ExpressionInfo, Function1<scala.collection.immutable.Seq<Expression>, LogicalPlan>>
      describe(String name, String option, int arity, String params) {
    ExpressionInfo info = new ExpressionInfo(PaimonTableValuedFunctions.class.getName(), null, name,
        "_FUNC_(table, " + params + ") - reads the table with '" + option + "'", "", "", "", "", "", "",
        "built-in");
    Function1<scala.collection.immutable.Seq<Expression>, LogicalPlan> builder =
        new AbstractFunction1<scala.collection.immutable.Seq<Expression>, LogicalPlan>() {
          @Override
          public LogicalPlan apply(scala.collection.immutable.Seq<Expression> args) {
            return plan(name, option, arity, params, scala.jdk.javaapi.CollectionConverters.asJava(args));
          }
        };
    return new Tuple3<>(new FunctionIdentifier(name), info, builder);
  }

  private static LogicalPlan plan(String name, String option, int arity, String params, List<Expression> args) {
    if (args.size() != arity + 1) {
      throw new IllegalArgumentException(
          name + " needs " + (arity + 1) + " arguments: the table name, " + params + " (got " + args.size() + ")");
    }
    List<String> values = new ArrayList<>();
    for (int i = 0; i < args.size(); i++) {
      Expression e = args.get(i);
      if (!e.foldable()) {
        throw new IllegalArgumentException(name + ": argument " + (i + 1) + " must be a constant, got " + e.sql());
      }
      Object v = e.eval(null);
      if (v == null) {
        throw new IllegalArgumentException(name + ": argument " + (i + 1) + " must not be NULL");
      }
      values.add(v.toString());
    }
    Map<String, String> options = new HashMap<>();
    options.put(option, String.join(",", values.subList(1, values.size())));
    scala.collection.immutable.Seq<String> ident;
    try {
      ident = SparkSession.active().sessionState().sqlParser().parseMultipartIdentifier(values.get(0));
    } catch (Exception e) {
      throw new IllegalArgumentException(
          name + ": the table name '" + values.get(0) + "' is not a table identifier: " + e.getMessage(), e);
    }
    return new UnresolvedRelation(ident, new CaseInsensitiveStringMap(options), false);
  }
}
