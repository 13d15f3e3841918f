package org.paimon_sql.spark;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.analysis.NoSuchTableException;
import org.apache.spark.sql.catalyst.analysis.ResolvedIdentifier;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.OverwriteByExpression;
import org.apache.spark.sql.catalyst.plans.logical.OverwritePartitionsDynamic;
import org.apache.spark.sql.catalyst.plans.logical.ReplaceTableAsSelect;
import org.apache.spark.sql.connector.catalog.CatalogPlugin;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.execution.CommandExecutionMode;
import org.apache.spark.sql.execution.QueryExecution;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.SparkStrategy;
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation;
import org.apache.spark.sql.internal.SQLConf;
import scala.jdk.javaapi.CollectionConverters;

/**
 * {@code df.write.mode("overwrite").saveAsTable("t")} of an existing Paimon table, as Paimon's
 * {@code PaimonReplaceTableAsSelectStrategy}: Spark plans it as a {@code REPLACE TABLE ... AS
 * SELECT} (which would redefine the table: its primary key, options and partitioning), Paimon
 * overwrites the rows instead and keeps the table's definition: {@code INSERT OVERWRITE} by name,
 * of the partitions written when {@code spark.sql.sources.partitionOverwriteMode} is dynamic and
 * the table is partitioned. A planner strategy of {@link PaimonSparkSessionExtensions}.
 */
final class SaveAsTableOverwrite extends SparkStrategy {
  private final SparkSession session;

  SaveAsTableOverwrite(SparkSession session) {
    this.session = session;
  }

  /** Whether the statement comes from the V1 {@code DataFrameWriter.saveAsTable} (Paimon's test). */
  static boolean isV1SaveAsTable() {
    for (StackTraceElement e : Thread.currentThread().getStackTrace()) {
      String cls = e.getClassName();
      if (cls.contains("DataFrameWriter") && !cls.contains("DataFrameWriterV2")) {
        return true;
      }
    }
    return false;
  }

  @Override
  public scala.collection.immutable.Seq<SparkPlan> apply(LogicalPlan plan) {
    List<SparkPlan> out = new ArrayList<>();
    if (plan instanceof ReplaceTableAsSelect rtas && rtas.isAnalyzed()
        && rtas.name() instanceof ResolvedIdentifier ri
        && ri.catalog() instanceof PaimonCatalog catalog && isV1SaveAsTable()) {
      Identifier ident = ri.identifier();
      Table existing;
      try {
        existing = catalog.loadTable(ident);
      } catch (NoSuchTableException e) {
        return CollectionConverters.asScala(out).toList();
      }
      DataSourceV2Relation relation = DataSourceV2Relation.create(
          existing, scala.Option.apply((CatalogPlugin) catalog), scala.Option.apply(ident));
      boolean dynamic = existing.partitioning().length > 0
          && session.sessionState().conf().partitionOverwriteMode()
              == SQLConf.PartitionOverwriteMode$.MODULE$.DYNAMIC();
      LogicalPlan overwrite = dynamic
          ? OverwritePartitionsDynamic.byName(relation, rtas.query(), rtas.writeOptions(), false)
          : OverwriteByExpression.byName(relation, rtas.query(), Literal.TrueLiteral(),
              rtas.writeOptions(), false);
      QueryExecution qe = session.sessionState().executePlan(overwrite, CommandExecutionMode.ALL());
      out.add(qe.sparkPlan());
    }
    return CollectionConverters.asScala(out).toList();
  }
}
