package org.paimon_sql.spark;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.AnalysisException;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.analysis.PartitionSpec;
import org.apache.spark.sql.catalyst.analysis.ResolvePartitionSpec$;
import org.apache.spark.sql.catalyst.analysis.ResolvedPartitionSpec;
import org.apache.spark.sql.catalyst.analysis.UnresolvedPartitionSpec;
import org.apache.spark.sql.catalyst.analysis.UnresolvedTable;
import org.apache.spark.sql.catalyst.plans.logical.DropPartitions;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.SubqueryAlias;
import org.apache.spark.sql.connector.catalog.CatalogManager;
import org.apache.spark.sql.connector.catalog.CatalogPlugin;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.catalyst.util.QuotingUtils;
import org.apache.spark.sql.types.StructType;

/**
 * {@code ALTER TABLE t DROP [IF EXISTS] PARTITION (...)[, PARTITION (...)]} on a table of a Paimon
 * catalog, as Paimon's Spark extension runs it. Spark's {@link DropPartitions} requires every
 * partition column in each spec; Paimon's lets Spark resolve partial specs too. Here {@link
 * #rewrite} (after parsing) resolves the partial specs of a Paimon table with Spark's own spec
 * resolution (partial allowed) and refuses a spec whose columns are not the first partition
 * columns, with Paimon's message ({@link #validate}); then Spark's {@code
 * DropPartitionExec} runs it: a full spec must name an existing partition (unless IF EXISTS), a
 * prefix spec drops every partition under it ({@link PaimonTable#partitionExists}), all in one
 * commit; PURGE is refused ("Partition purge is not supported"), as in Paimon.
 */
final class PaimonDropPartitions {
  private PaimonDropPartitions() {}

  /**
   * {@code plan} with the partial specs of a {@link DropPartitions} on a table of a Paimon catalog
   * resolved (Paimon's {@code RewriteSparkDDLCommands} runs at the same point).
   */
  static LogicalPlan rewrite(SparkSession session, LogicalPlan plan) {
    if (!(plan instanceof DropPartitions d)) {
      return plan;
    }
    LogicalPlan target = d.table();
    while (target instanceof SubqueryAlias a) {
      target = a.child();
    }
    if (!(target instanceof UnresolvedTable t)) {
      return plan;
    }
    List<String> parts = scala.jdk.javaapi.CollectionConverters.asJava(t.multipartIdentifier());
    CatalogManager manager = session.sessionState().catalogManager();
    CatalogPlugin catalog = null;
    List<String> rest = parts;
    if (parts.size() > 1) {
      try {
        if (manager.isCatalogRegistered(parts.get(0))
            || "spark_catalog".equalsIgnoreCase(parts.get(0))) {
          catalog = manager.catalog(parts.get(0));
          rest = parts.subList(1, parts.size());
        }
      } catch (RuntimeException e) {
        catalog = null;
      }
    }
    if (catalog == null) {
      catalog = manager.currentCatalog();
    }
    if (!(catalog instanceof PaimonCatalog paimon) || rest.isEmpty()) {
      return plan;
    }
    String[] namespace = rest.size() == 1
        ? manager.currentNamespace()
        : rest.subList(0, rest.size() - 1).toArray(new String[0]);
    Identifier ident = Identifier.of(namespace, rest.get(rest.size() - 1));
    Table table;
    try {
      table = paimon.loadTable(ident);
    } catch (Exception e) {
      return plan; // Spark reports a missing table as it does
    }
    if (!(table instanceof PaimonTable pt)) {
      return plan;
    }
    StructType schema = pt.partitionSchema();
    List<String> shown = new ArrayList<>();
    shown.add(QuotingUtils.quoteIfNeeded(paimon.name()));
    for (String n : namespace) {
      shown.add(QuotingUtils.quoteIfNeeded(n));
    }
    shown.add(QuotingUtils.quoteIfNeeded(ident.name()));
    String name = String.join(".", shown);
    List<PartitionSpec> specs = new ArrayList<>();
    boolean changed = false;
    for (PartitionSpec spec : scala.jdk.javaapi.CollectionConverters.asJava(d.parts())) {
      if (spec instanceof UnresolvedPartitionSpec u && u.spec().size() != schema.size()) {
        specs.add(ResolvePartitionSpec$.MODULE$
            .org$apache$spark$sql$catalyst$analysis$ResolvePartitionSpec$$resolvePartitionSpec(
                name, u, schema, true));
        changed = true;
      } else {
        specs.add(spec);
      }
    }
    if (!changed) {
      return plan;
    }
    validate(pt, specs);
    return new DropPartitions(d.table(),
        scala.jdk.javaapi.CollectionConverters.asScala(specs).toList(), d.ifExists(), d.purge());
  }

  /**
   * Every spec must name the first partition columns (all of them, or a prefix), as Paimon's
   * {@code PaimonDropPartitions.validate}: {@code (pt1 = 'v1', pt2 = 'v2')} is valid, {@code (pt2 =
   * 'v2')} is not (an AnalysisException with Paimon's text, the spec's values as resolved).
   */
  private static void validate(PaimonTable table, List<PartitionSpec> parts) {
    StructType schema = table.partitionSchema();
    List<String> columns = Arrays.asList(schema.fieldNames());
    for (PartitionSpec part : parts) {
      if (!(part instanceof ResolvedPartitionSpec spec)) {
        continue;
      }
      List<String> names = scala.jdk.javaapi.CollectionConverters.asJava(spec.names());
      if (names.size() <= columns.size() && columns.subList(0, names.size()).equals(names)) {
        continue;
      }
      List<String> shown = new ArrayList<>();
      for (int i = 0; i < names.size(); i++) {
        Object v = spec.ident().get(i, schema.apply(names.get(i)).dataType());
        shown.add(names.get(i) + " = '" + v + "'");
      }
      Map<String, String> params = new LinkedHashMap<>();
      params.put("specKeys", String.join(",", shown));
      params.put("partitionColumnNames", String.join(", ", columns));
      params.put("tableName", table.paimonName());
      throw Errors.sneaky(new AnalysisException("_LEGACY_ERROR_TEMP_1232", Errors.scalaMap(params)));
    }
  }
}
