package org.paimon_sql.spark;

import java.util.List;
import org.apache.spark.sql.catalyst.expressions.ApplyFunctionExpression;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.plans.logical.LocalRelation;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.RepartitionByExpression;
import org.apache.spark.sql.execution.CoalesceExec;
import org.apache.spark.sql.execution.PlanLater;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.SparkStrategy;
import scala.jdk.javaapi.CollectionConverters;

/**
 * The shuffle a write into a fixed-bucket table asks for ({@link PaimonWrite}: clustered by
 * {@code paimon_bucket} / {@code paimon_bucket_slot}), planned as one partition without a shuffle
 * when the written rows are a small local relation ({@code INSERT ... VALUES}, a small
 * {@code createDataFrame}): one task then writes every bucket of them. The clustering exists so
 * that no two tasks write records of one key (their sequence numbers would tie); one task holding
 * every row keeps that, and the statement runs as one stage instead of two.
 *
 * <p>Only a repartition whose expressions call the shim's bucket function (so: one that
 * {@link PaimonWrite} asked for) over a local relation of at most {@link #MAX_ROWS} rows is
 * planned so; anything larger keeps the shuffle (one task per bucket writes faster).
 */
final class SmallLocalWrites extends SparkStrategy {
  static final int MAX_ROWS = 10_000;

  @Override
  public scala.collection.immutable.Seq<SparkPlan> apply(LogicalPlan plan) {
    if (plan instanceof RepartitionByExpression r && r.child() instanceof LocalRelation local
        && !local.isStreaming() && local.data().size() <= MAX_ROWS
        && r.partitionExpressions().exists(SmallLocalWrites::callsBucketFunction)) {
      SparkPlan one = new CoalesceExec(1, new PlanLater(local));
      return CollectionConverters.asScala(List.of(one)).toList();
    }
    return CollectionConverters.asScala(List.<SparkPlan>of()).toList();
  }

  private static boolean callsBucketFunction(Expression e) {
    return e.exists(x -> x instanceof ApplyFunctionExpression f && f.function() instanceof PaimonBucketFunction.Bound);
  }
}
