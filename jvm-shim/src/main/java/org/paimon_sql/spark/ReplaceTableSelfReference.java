package org.paimon_sql.spark;

import org.apache.spark.sql.catalyst.analysis.NoSuchTableException;
import org.apache.spark.sql.catalyst.analysis.ResolvedIdentifier;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.ReplaceTableAsSelect;
import org.apache.spark.sql.catalyst.rules.Rule;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation;
import scala.PartialFunction$;
import scala.jdk.javaapi.CollectionConverters;

/**
 * A {@code REPLACE TABLE t ... AS SELECT ... FROM t} (or {@code CREATE OR REPLACE}, or
 * {@code df.writeTo(t).replace()}) whose query reads the table it replaces, as Paimon's
 * {@code PaimonReplaceTableAsSelectStrategy}: the query reads the snapshot the table has before
 * the replace truncates it (a read with its own {@code VERSION AS OF} keeps it); when the replace
 * changes the partitioning (a drop and create, see {@link ReplaceTables}) it is refused with
 * Paimon's message, and the table is left as it is. A post-hoc resolution rule of {@link
 * PaimonSparkSessionExtensions}.
 */
final class ReplaceTableSelfReference extends Rule<LogicalPlan> {

  @Override
  public LogicalPlan apply(LogicalPlan plan) {
    if (!(plan instanceof ReplaceTableAsSelect rtas)
        || !(rtas.name() instanceof ResolvedIdentifier ri)
        || !(ri.catalog() instanceof PaimonCatalog catalog)
        || !rtas.query().resolved() || SaveAsTableOverwrite.isV1SaveAsTable()) {
      return plan; // saveAsTable in overwrite mode is an INSERT OVERWRITE (SaveAsTableOverwrite)
    }
    Identifier ident = ri.identifier();
    LogicalPlan query = rtas.query();
    if (!query.exists(p -> isTarget(p, catalog, ident))) {
      return plan;
    }
    Table existing;
    try {
      existing = catalog.loadTable(ident);
    } catch (NoSuchTableException e) {
      return plan;
    }
    Transform[] parts = CollectionConverters.asJava(rtas.partitioning()).toArray(new Transform[0]);
    if (!ReplaceTables.samePartitioning(existing.partitioning(), parts)) {
      throw Errors.sneaky(new PaimonException(ErrorKind.UNSUPPORTED, "Cannot replace table "
          + ident + " because the replacement query reads from the same table and the requested "
          + "table definition requires a non-atomic drop-and-create. Write the query result to a "
          + "temporary table first, or keep the existing provider, table type, and partitioning.",
          null));
    }
    Long snapshot = ReplaceTables.latestSnapshot(catalog, ident);
    if (snapshot == null) {
      return plan; // no snapshot: the table reads empty before and after the truncation
    }
    LogicalPlan pinned = query.transformDown(PartialFunction$.MODULE$.fromFunction((LogicalPlan p) -> {
      if (isTarget(p, catalog, ident) && p instanceof DataSourceV2Relation r
          && r.table() instanceof PaimonTable t && !t.isReadOnly()) {
        PaimonTable at;
        try {
          at = (PaimonTable) catalog.loadTable(ident, String.valueOf(snapshot));
        } catch (NoSuchTableException e) {
          throw Errors.sneaky(e);
        }
        if (!at.schema().equals(t.schema())) {
          throw Errors.sneaky(new PaimonException(ErrorKind.UNSUPPORTED, "Cannot replace table "
              + t.name() + " reading itself: its schema changed after its latest snapshot "
              + snapshot + "; read it with VERSION AS OF " + snapshot + " or write the query "
              + "result to a temporary table first", null));
        }
        return r.copy(at, r.output(), r.catalog(), r.identifier(), r.options(), r.timeTravelSpec());
      }
      return p;
    }));
    return rtas.withNameAndQuery(rtas.name(), pinned);
  }

  private static boolean isTarget(LogicalPlan p, PaimonCatalog catalog, Identifier ident) {
    return p instanceof DataSourceV2Relation r
        && r.catalog().isDefined() && r.catalog().get() == catalog
        && r.identifier().isDefined() && r.identifier().get().equals(ident);
  }
}
