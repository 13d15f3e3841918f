package org.paimon_sql.spark;

import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.StagedTable;
import org.apache.spark.sql.connector.catalog.SupportsWrite;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.WriteBuilder;
import org.apache.spark.sql.types.StructType;

/**
 * The table of a {@code CREATE TABLE ... AS SELECT} (or {@code CREATE OR REPLACE} of a table that
 * does not exist): created when staged, written by the query, dropped again if the query fails;
 * or of a {@code REPLACE TABLE} done in place ({@link ReplaceTables}): replaced when staged, put
 * back as it was if the query fails.
 */
final class StagedPaimonTable implements StagedTable, SupportsWrite {
  private final PaimonCatalog catalog;
  private final Identifier ident;
  private final PaimonTable table;
  /** A replace in place: what the Python side needs to undo it (null: a created table). */
  private final Map<String, Object> undo;

  StagedPaimonTable(PaimonCatalog catalog, Identifier ident, PaimonTable table) {
    this(catalog, ident, table, null);
  }

  StagedPaimonTable(PaimonCatalog catalog, Identifier ident, PaimonTable table, Map<String, Object> undo) {
    this.catalog = catalog;
    this.ident = ident;
    this.table = table;
    this.undo = undo;
  }

  @Override
  public void commitStagedChanges() {
    // the table exists since it was staged; the query's write committed its own snapshot
  }

  @Override
  public void abortStagedChanges() {
    if (undo != null) {
      ReplaceTables.undo(catalog, ident, undo);
      return;
    }
    catalog.dropTable(ident);
  }

  @Override
  public WriteBuilder newWriteBuilder(LogicalWriteInfo info) {
    return table.newWriteBuilder(info);
  }

  @Override
  public String name() {
    return table.name();
  }

  @Override
  @SuppressWarnings("deprecation")
  public StructType schema() {
    return table.schema();
  }

  @Override
  public Transform[] partitioning() {
    return table.partitioning();
  }

  @Override
  public Map<String, String> properties() {
    return table.properties();
  }

  @Override
  public Set<TableCapability> capabilities() {
    return table.capabilities();
  }
}
