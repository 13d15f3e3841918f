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
import org.apache.spark.sql.catalyst.plans.logical.Except;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.connector.catalog.CatalogManager;
import org.apache.spark.sql.connector.catalog.CatalogPlugin;
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
 * back-quoted parts) and resolved against the current catalog and database. As in Paimon, a diff
 * (two tags, or an automatic tag) across a bucket-count change is read as the end snapshot's rows
 * EXCEPT the start snapshot's.
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
    if (!name.equals(INCREMENTAL_BETWEEN_TIMESTAMP)) {
      LogicalPlan except = exceptFallback(ident, option, options);
      if (except != null) {
        return except;
      }
    }
    return new UnresolvedRelation(ident, new CaseInsensitiveStringMap(options), false);
  }

  /**
   * Paimon's fallback for a diff across a bucket-count change ({@code usingSparkIncrementQuery}):
   * the rows of the end snapshot EXCEPT those of the start snapshot, as two reads with
   * {@code scan.version}; null when the table is not a Paimon one or the diff needs no fallback
   * (any error is left to the read itself to report).
   */
  private static LogicalPlan exceptFallback(
      scala.collection.immutable.Seq<String> ident, String option, Map<String, String> options) {
    List<String> parts = scala.jdk.javaapi.CollectionConverters.asJava(ident);
    Map<String, Object> r;
    try {
      CatalogManager manager = SparkSession.active().sessionState().catalogManager();
      CatalogPlugin catalog = parts.size() == 3 ? manager.catalog(parts.get(0)) : manager.currentCatalog();
      if (!(catalog instanceof PaimonCatalog paimon)) {
        return null;
      }
      String db;
      if (parts.size() >= 2) {
        db = parts.get(parts.size() - 2);
      } else {
        String[] ns = manager.currentNamespace();
        if (ns.length != 1) {
          return null;
        }
        db = ns[0];
      }
      Map<String, Object> p = paimon.ctx();
      p.put("namespace", db);
      p.put("table", parts.get(parts.size() - 1));
      p.put("options", options);
      r = paimon.request("incremental_diff_fallback", p);
    } catch (Exception e) {
      // (the bridge's errors reach here as AnalysisExceptions): the read reports it with its context
      return null;
    }
    if (!(r.get("start") instanceof Number start) || !(r.get("end") instanceof Number end)) {
      return null;
    }
    Map<String, String> rest = new HashMap<>(options);
    rest.remove(option);
    return new Except(version(ident, rest, end.longValue()), version(ident, rest, start.longValue()), false);
  }

  private static LogicalPlan version(scala.collection.immutable.Seq<String> ident, Map<String, String> options,
      long snapshotId) {
    Map<String, String> o = new HashMap<>(options);
    o.put("scan.version", Long.toString(snapshotId));
    return new UnresolvedRelation(ident, new CaseInsensitiveStringMap(o), false);
  }
}
