package org.paimon_sql.spark;

import java.util.List;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.If;
import org.apache.spark.sql.catalyst.expressions.IsNull;
import org.apache.spark.sql.catalyst.expressions.KnownNotNull;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.catalyst.expressions.RaiseError;
import org.apache.spark.sql.catalyst.expressions.objects.AssertNotNull;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.V2WriteCommand;
import org.apache.spark.sql.catalyst.rules.Rule;
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation;
import org.apache.spark.sql.types.DataTypes;
import scala.PartialFunction;
import scala.PartialFunction$;
import scala.jdk.javaapi.CollectionConverters;

/**
 * A NULL written into a NOT NULL column of a Paimon table (every primary-key column is NOT NULL)
 * fails with Spark's {@code AssertNotNull}, whose message ends with advice about Scala tuples and
 * Java beans. This rule (a post-hoc resolution rule of {@link PaimonSparkSessionExtensions})
 * replaces those checks in writes into Paimon tables by the same check with a message that keeps
 * Spark's first words ({@code NULL value appeared in non-nullable field}, which Paimon's tests
 * look for) and names the table and the column, and whether it is a primary-key column.
 */
final class NotNullColumnCheck extends Rule<LogicalPlan> {
  static final String PREFIX = "NULL value appeared in non-nullable field: ";

  @Override
  public LogicalPlan apply(LogicalPlan plan) {
    return plan.transformDown(total((LogicalPlan p) -> {
      if (p instanceof V2WriteCommand w && w.table() instanceof DataSourceV2Relation r
          && r.table() instanceof PaimonTable t) {
        LogicalPlan q = w.query();
        LogicalPlan checked = q.transformExpressions(total((Expression e) -> rewrite(e, t)));
        return checked == q ? p : (LogicalPlan) w.withNewQuery(checked);
      }
      return p;
    }));
  }

  private static Expression rewrite(Expression e, PaimonTable table) {
    return e.transformDown(total((Expression x) -> {
      if (!(x instanceof AssertNotNull a)) {
        return x;
      }
      Expression child = a.child();
      RaiseError error = new RaiseError(Literal.create(message(table, a), DataTypes.StringType));
      // the error's type is the column's, so the check has the column's type, NOT NULL
      Expression raise = new RaiseError(error.errorClass(), error.errorParms(), child.dataType());
      return new KnownNotNull(new If(new IsNull(child), raise, child));
    }));
  }

  static String message(PaimonTable table, AssertNotNull a) {
    List<String> path = CollectionConverters.asJava(a.walkedTypePath());
    String column = String.join(".", path);
    boolean key = path.size() == 1 && table.primaryKeys().contains(path.get(0));
    return PREFIX + column + " (table " + table.name() + ": "
        + (key ? "primary-key columns " + table.primaryKeys() + " are NOT NULL)"
            : "column " + column + " is NOT NULL)");
  }

  /** A Scala partial function defined everywhere (returning a node unchanged keeps the tree). */
  private static <A> PartialFunction<A, A> total(scala.Function1<A, A> f) {
    return PartialFunction$.MODULE$.fromFunction(f);
  }
}
