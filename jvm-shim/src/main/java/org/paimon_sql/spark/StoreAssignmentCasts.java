package org.paimon_sql.spark;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.catalyst.expressions.Alias;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.Cast;
import org.apache.spark.sql.catalyst.expressions.EvalMode$;
import org.apache.spark.sql.catalyst.expressions.NamedExpression;
import org.apache.spark.sql.catalyst.plans.logical.InsertIntoStatement;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.Project;
import org.apache.spark.sql.catalyst.plans.logical.V2WriteCommand;
import org.apache.spark.sql.catalyst.rules.Rule;
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.types.AtomicType;
import org.apache.spark.sql.types.DataType;
import scala.PartialFunction$;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Paimon's writes cast a query column to the table column's type whatever Spark's store
 * assignment policy allows ({@code PaimonOutputResolver} adds a {@code Cast} with the session's
 * ANSI mode): {@code INSERT INTO t VALUES ('1')} into an INT column writes 1 (and {@code 'x'} fails
 * the ANSI cast), where Spark's ANSI policy refuses the statement ({@code CANNOT_SAFELY_CAST}).
 * This resolution rule of {@link PaimonSparkSessionExtensions} adds those casts to writes into
 * Paimon tables (by position, and by name: {@code INSERT INTO t BY NAME}, {@code df.writeTo(t)},
 * where a query column meets the table column of its name), for the top-level atomic columns
 * Spark's policy refuses and Spark can cast; Spark's own output resolution then checks the rest as
 * usual.
 */
final class StoreAssignmentCasts extends Rule<LogicalPlan> {

  @Override
  public LogicalPlan apply(LogicalPlan plan) {
    return plan.transformDown(PartialFunction$.MODULE$.fromFunction((LogicalPlan p) -> {
      if (p instanceof InsertIntoStatement i && i.partitionSpec().isEmpty()
          && i.userSpecifiedCols().isEmpty() && i.table() instanceof DataSourceV2Relation r
          && r.table() instanceof PaimonTable && i.query().resolved()) {
        LogicalPlan q = withCasts(i.query(), r.output(), i.byName());
        return q == i.query() ? p : i.withNewChildren(CollectionConverters.asScala(List.of(q)).toSeq());
      }
      if (p instanceof V2WriteCommand w && w.table() instanceof DataSourceV2Relation r
          && r.table() instanceof PaimonTable && w.query().resolved() && !w.outputResolved()) {
        LogicalPlan q = withCasts(w.query(), r.output(), w.isByName());
        return q == w.query() ? p : (LogicalPlan) w.withNewQuery(q);
      }
      return p;
    }));
  }

  private static LogicalPlan withCasts(
      LogicalPlan query, scala.collection.Seq<? extends Attribute> target, boolean byName) {
    List<Attribute> in = CollectionConverters.asJava(query.output());
    List<? extends Attribute> out = CollectionConverters.asJava(target);
    if (!byName && in.size() != out.size()) {
      return query;
    }
    List<NamedExpression> projection = new ArrayList<>();
    boolean cast = false;
    String tz = SQLConf.get().sessionLocalTimeZone();
    for (int k = 0; k < in.size(); k++) {
      Attribute a = in.get(k);
      DataType from = a.dataType();
      Attribute column = byName ? named(out, a.name()) : out.get(k);
      DataType to = column == null ? from : column.dataType();
      if (from instanceof AtomicType && to instanceof AtomicType && !from.sameType(to)
          && !Cast.canANSIStoreAssign(from, to) && Cast.canCast(from, to)) {
        projection.add(new Alias(new Cast(a, to, scala.Option.apply(tz),
            EvalMode$.MODULE$.fromSQLConf(SQLConf.get())), a.name(),
            org.apache.spark.sql.catalyst.expressions.NamedExpression$.MODULE$.newExprId(),
            CollectionConverters.asScala(List.<String>of()).toSeq(), scala.Option.empty(),
            CollectionConverters.asScala(List.<String>of()).toSeq()));
        cast = true;
      } else {
        projection.add(a);
      }
    }
    return cast ? new Project(CollectionConverters.asScala(projection).toSeq(), query) : query;
  }

  /** The table column a by-name write puts {@code name} into (the session's case sensitivity). */
  private static Attribute named(List<? extends Attribute> columns, String name) {
    boolean caseSensitive = SQLConf.get().caseSensitiveAnalysis();
    for (Attribute c : columns) {
      if (caseSensitive ? c.name().equals(name) : c.name().equalsIgnoreCase(name)) {
        return c;
      }
    }
    return null;
  }
}
