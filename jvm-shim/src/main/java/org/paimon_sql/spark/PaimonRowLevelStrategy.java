package org.paimon_sql.spark;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.ProjectingInternalRow;
import org.apache.spark.sql.catalyst.expressions.Alias;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.NamedExpression;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.Project;
import org.apache.spark.sql.catalyst.plans.logical.ReplaceData;
import org.apache.spark.sql.catalyst.plans.logical.WriteDelta;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.SparkStrategy;
import org.apache.spark.sql.execution.datasources.v2.AppendDataExec;
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import scala.jdk.javaapi.CollectionConverters;
import scala.runtime.AbstractFunction0;
import scala.runtime.BoxedUnit;

/**
 * Plans Spark's {@code ReplaceData} / {@code WriteDelta} of a Paimon append table (see
 * {@link PaimonAppendRowLevel}) as an append of the statement's rows into a Python write:
 * copy-on-write rows are the table's columns; delta rows are the operation code
 * ({@code __row_operation}: 1 delete, 2 update, 3 insert, 4 reinsert), the row id
 * ({@code __paimon_file_path}, {@code __paimon_row_index}) and the table's columns (null for
 * deletes). Spark's own nodes write row by row, which Python data sources cannot.
 */
final class PaimonRowLevelStrategy extends SparkStrategy {
  private final SparkSession session;

  PaimonRowLevelStrategy(SparkSession session) {
    this.session = session;
  }

  @Override
  public scala.collection.immutable.Seq<SparkPlan> apply(LogicalPlan plan) {
    List<SparkPlan> out = new ArrayList<>();
    if (plan instanceof ReplaceData rd && rd.write().isDefined()
        && rd.write().get() instanceof PaimonAppendRowLevel.PendingWrite pw) {
      List<Alias> cols = new ArrayList<>();
      project(cols, rd.query(), rd.projections().rowProjection(), null);
      out.add(append(rd.query(), cols, pw, rd.originalTable()));
    } else if (plan instanceof WriteDelta wd && wd.write().isDefined()
        && wd.write().get() instanceof PaimonAppendRowLevel.PendingWrite pw) {
      List<Alias> cols = new ArrayList<>();
      Attribute op = wd.query().output().apply(0);
      cols.add(alias(op, PaimonAppendRowLevel.OPERATION_COLUMN));
      project(cols, wd.query(), wd.projections().rowIdProjection(), null);
      if (wd.projections().rowProjection().isDefined()) {
        project(cols, wd.query(), wd.projections().rowProjection().get(), null);
      }
      out.add(append(wd.query(), cols, pw, wd.originalTable()));
    }
    return CollectionConverters.asScala(out).toList();
  }

  /** The query's columns that {@code projection} picks, named as its schema names them. */
  private static void project(List<Alias> cols, LogicalPlan query, ProjectingInternalRow projection,
      Object unused) {
    StructType schema = projection.schema();
    scala.collection.immutable.IndexedSeq<Object> ordinals = projection.colOrdinals();
    for (int i = 0; i < schema.size(); i++) {
      int ordinal = (Integer) ordinals.apply(i);
      cols.add(alias(query.output().apply(ordinal), schema.fields()[i].name()));
    }
  }

  @SuppressWarnings("unchecked")
  private static Alias alias(Attribute a, String name) {
    scala.collection.immutable.Seq<String> none =
        (scala.collection.immutable.Seq<String>) (Object) scala.collection.immutable.Nil$.MODULE$;
    return new Alias(a, name, NamedExpression.newExprId(), none, scala.Option.empty(), none);
  }

  private SparkPlan append(LogicalPlan query, List<Alias> cols, PaimonAppendRowLevel.PendingWrite pw,
      org.apache.spark.sql.catalyst.analysis.NamedRelation original) {
    if (!pw.op.table.primaryKeys().isEmpty()) {
      throw new UnsupportedOperationException("Table " + pw.op.table.name() + " does not support "
          + pw.op.command + " of a primary-key table yet (only DELETE with a condition that can be pushed down)");
    }
    List<NamedExpression> named = new ArrayList<>(cols);
    Project project = new Project(CollectionConverters.asScala(named).toList(), query);
    List<StructField> fields = new ArrayList<>();
    for (Alias e : cols) {
      fields.add(new StructField(e.name(), e.dataType(), e.nullable(), org.apache.spark.sql.types.Metadata.empty()));
    }
    StructType schema = new StructType(fields.toArray(new StructField[0]));
    AbstractFunction0<BoxedUnit> refresh = new AbstractFunction0<>() {
      @Override
      public BoxedUnit apply() {
        if (original instanceof DataSourceV2Relation r) {
          ((org.apache.spark.sql.classic.SparkSession) session).sharedState().cacheManager()
              .recacheByPlan((org.apache.spark.sql.classic.SparkSession) session, r);
        }
        return BoxedUnit.UNIT;
      }
    };
    return new AppendDataExec(planLater(project), refresh, pw.forRows(schema), pw.op.table.name(), scala.Option.empty());
  }
}
