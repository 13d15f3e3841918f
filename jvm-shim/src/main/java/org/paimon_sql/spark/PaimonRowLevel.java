package org.paimon_sql.spark;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.spark.sql.catalyst.expressions.Alias;
import org.apache.spark.sql.catalyst.expressions.And;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.AttributeReference;
import org.apache.spark.sql.catalyst.expressions.EqualNullSafe;
import org.apache.spark.sql.catalyst.expressions.EqualTo;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.catalyst.expressions.NamedExpression;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.Project;
import org.apache.spark.sql.catalyst.plans.logical.WriteDelta;
import org.apache.spark.sql.catalyst.ProjectingInternalRow;
import org.apache.spark.sql.connector.distributions.Distribution;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.expressions.SortOrder;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.write.DeltaBatchWrite;
import org.apache.spark.sql.connector.write.DeltaWrite;
import org.apache.spark.sql.connector.write.DeltaWriteBuilder;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.RequiresDistributionAndOrdering;
import org.apache.spark.sql.connector.write.RowLevelOperation;
import org.apache.spark.sql.connector.write.RowLevelOperationInfo;
import org.apache.spark.sql.connector.write.SupportsDelta;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.SparkStrategy;
import org.apache.spark.sql.execution.datasources.v2.AppendDataExec;
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import scala.jdk.javaapi.CollectionConverters;
import scala.runtime.AbstractFunction0;
import scala.runtime.BoxedUnit;

/**
 * UPDATE, MERGE INTO and DELETE (any condition) of primary-key tables as delta writes, Paimon's
 * semantics for primary-key tables: every changed row is written once with its row kind (+U for
 * an update, +I for an insert, -D for a delete), keyed by the primary key; no file is rewritten.
 *
 * <p>Spark's own rewrite rules ({@code RewriteUpdateTable}, {@code RewriteMergeIntoTable},
 * {@code RewriteDeleteFromTable}) turn the statement into a {@code WriteDelta} plan (all of the
 * SQL: clause order, NOT MATCHED BY SOURCE, the cardinality check of MERGE, assignment alignment,
 * subqueries). Spark would run it with a per-row {@code DeltaWriter}, which the Python data source
 * cannot take (its writer only takes whole partitions); {@link Strategy} (installed by the session
 * extension) plans it instead as an append of (operation, row) to the table's Python writer, which
 * writes the row kinds and commits one snapshot.
 */
final class PaimonRowLevel {
  /** The option telling the Python writer that its first column is Spark's row operation. */
  static final String ROW_LEVEL = "paimon.row-level";
  static final String COMMAND = "paimon.row-level.command";
  static final String OPERATION_COLUMN = "__paimon_row_operation";
  private static final String ORIGINAL_ROW_ID = "__original_row_id_";

  private PaimonRowLevel() {}

  /** The row-level operation of a primary-key table. */
  static RowLevelOperation deltaOperation(PaimonTable table, RowLevelOperationInfo info) {
    checkMergeEngine(table, info.command());
    return new DeltaOperation(table, info);
  }

  /** Paimon's RowLevelOp: UPDATE and MERGE INTO need a deduplicate or partial-update table. */
  private static void checkMergeEngine(PaimonTable table, RowLevelOperation.Command command) {
    if (command == RowLevelOperation.Command.DELETE) {
      return;
    }
    String engine = table.properties().getOrDefault("merge-engine", "deduplicate").trim().toLowerCase(Locale.ROOT);
    if (!engine.equals("deduplicate") && !engine.equals("partial-update")) {
      String name = command == RowLevelOperation.Command.MERGE ? "MergeInto" : "Update";
      throw new UnsupportedOperationException("merge engine " + engine + " can not support " + name
          + ", currently only deduplicate, partial-update can support " + name + ".");
    }
  }

  static final class DeltaOperation implements SupportsDelta {
    private final PaimonTable table;
    private final RowLevelOperationInfo info;

    DeltaOperation(PaimonTable table, RowLevelOperationInfo info) {
      this.table = table;
      this.info = info;
    }

    @Override
    public Command command() {
      return info.command();
    }

    @Override
    public String description() {
      return "Paimon " + command() + " of " + table.name() + " (delta write by primary key)";
    }

    @Override
    public ScanBuilder newScanBuilder(CaseInsensitiveStringMap options) {
      return table.newScanBuilder(options);
    }

    @Override
    public NamedReference[] rowId() {
      return table.primaryKeys().stream()
          .map(k -> (NamedReference) PaimonWrite.column(k))
          .toArray(NamedReference[]::new);
    }

    @Override
    public boolean representUpdateAsDeleteAndInsert() {
      return false;
    }

    @Override
    public DeltaWriteBuilder newWriteBuilder(LogicalWriteInfo writeInfo) {
      return new DeltaWriteBuilder() {
        @Override
        public DeltaWrite build() {
          return new PaimonDeltaWrite(table, command(), writeInfo);
        }
      };
    }
  }

  /**
   * The write of a {@code WriteDelta}: Spark clusters its rows as the table's writes are clustered
   * (each bucket, or each key, by one task); {@link Strategy} runs it through the Python writer.
   */
  static final class PaimonDeltaWrite implements DeltaWrite, RequiresDistributionAndOrdering {
    final PaimonTable table;
    final RowLevelOperation.Command command;
    final LogicalWriteInfo info;

    PaimonDeltaWrite(PaimonTable table, RowLevelOperation.Command command, LogicalWriteInfo info) {
      this.table = table;
      this.command = command;
      this.info = info;
    }

    @Override
    public Distribution requiredDistribution() {
      return PaimonWrite.distributionOf(table);
    }

    @Override
    public int requiredNumPartitions() {
      return PaimonWrite.numPartitionsOf(table);
    }

    @Override
    public SortOrder[] requiredOrdering() {
      return new SortOrder[0];
    }

    @Override
    public String description() {
      return "Paimon " + command + " of " + table.name();
    }

    @Override
    public DeltaBatchWrite toBatch() {
      throw new UnsupportedOperationException(command + " of Paimon table " + table.name()
          + " needs the Paimon SQL extensions: start Spark with spark.sql.extensions="
          + PaimonSparkSessionExtensions.class.getName());
    }

    /** The Python write of the rows {@code schema} describes (the operation column first). */
    PaimonWrite pythonWrite(StructType schema) {
      Map<String, String> extra = new HashMap<>();
      extra.put(ROW_LEVEL, "delta");
      extra.put(COMMAND, command.name());
      extra.put(PaimonWriteBuilder.OVERWRITE, "none");
      extra.put("paimon.read.time-zone", java.time.ZoneId.systemDefault().getId());
      CaseInsensitiveStringMap merged = table.mergedOptions(info.options(), extra);
      LogicalWriteInfo wrapped = PaimonWriteBuilder.withOptions(info, merged, schema);
      return new PaimonWrite(table, table.dataSourceName(), wrapped, false);
    }
  }

  /** Plans a {@code WriteDelta} into a Paimon table as an append into its Python writer. */
  static final class Strategy extends SparkStrategy {
    @Override
    public scala.collection.immutable.Seq<SparkPlan> apply(LogicalPlan plan) {
      List<SparkPlan> out = new ArrayList<>();
      if (plan instanceof WriteDelta wd && wd.write().isDefined()
          && wd.write().get() instanceof PaimonDeltaWrite write) {
        checkKeyUpdates(wd, write);
        LogicalPlan projected = project(wd, write);
        PaimonWrite python = write.pythonWrite(projected.schema());
        AbstractFunction0<BoxedUnit> refresh = new AbstractFunction0<>() {
          @Override
          public BoxedUnit apply() {
            refreshCache(wd);
            return BoxedUnit.UNIT;
          }
        };
        out.add(new AppendDataExec(planLater(projected), refresh, python, write.table.name(), scala.Option.empty()));
      }
      return CollectionConverters.asScala(out).toList();
    }

    private static void refreshCache(WriteDelta wd) {
      if (wd.originalTable() instanceof DataSourceV2Relation r) {
        org.apache.spark.sql.classic.SparkSession session =
            (org.apache.spark.sql.classic.SparkSession) org.apache.spark.sql.SparkSession.active();
        session.sharedState().cacheManager().recacheByPlan(session, r);
      }
    }

    /**
     * (operation, every column of the table): the row of an update or insert, and for a delete its
     * key (Spark keeps only the row id of a deleted row; the Python writer looks the rest up).
     */
    private static LogicalPlan project(WriteDelta wd, PaimonDeltaWrite write) {
      List<Attribute> in = CollectionConverters.asJava(wd.query().output());
      StructType tableSchema = write.table.schema();
      ProjectingInternalRow rowIds = wd.projections().rowIdProjection();
      List<NamedExpression> exprs = new ArrayList<>();
      exprs.add(alias(in.get(0), OPERATION_COLUMN));
      List<Object> rowOrdinals = wd.projections().rowProjection().isDefined()
          ? CollectionConverters.asJava(wd.projections().rowProjection().get().colOrdinals())
          : null;
      List<Object> idOrdinals = CollectionConverters.asJava(rowIds.colOrdinals());
      List<String> idNames = List.of(rowIds.schema().fieldNames());
      StructField[] fields = tableSchema.fields();
      for (int i = 0; i < fields.length; i++) {
        Expression e;
        int id = indexOfIgnoreCase(idNames, fields[i].name());
        if (rowOrdinals != null) {
          e = in.get((Integer) rowOrdinals.get(i));
        } else if (id >= 0) {
          e = in.get((Integer) idOrdinals.get(id));
        } else {
          e = new Literal(null, fields[i].dataType());
        }
        exprs.add(alias(e, fields[i].name()));
      }
      return new Project(CollectionConverters.asScala(exprs).toList(), wd.query());
    }

    private static int indexOfIgnoreCase(List<String> names, String name) {
      for (int i = 0; i < names.size(); i++) {
        String n = names.get(i);
        if (n.equalsIgnoreCase(name) || n.equalsIgnoreCase(ORIGINAL_ROW_ID + name)) {
          return i;
        }
      }
      return -1;
    }

    private static NamedExpression alias(Expression e, String name) {
      return new Alias(e, name, org.apache.spark.sql.catalyst.expressions.NamedExpression.newExprId(),
          CollectionConverters.asScala(List.<String>of()).toList(), scala.Option.empty(),
          CollectionConverters.asScala(List.<String>of()).toList());
    }

    /**
     * Paimon refuses an UPDATE that assigns a primary-key column, and a MERGE INTO whose update
     * clauses assign one unless its ON condition equates every key of the target. Spark carries
     * the original value of an assigned row-id column in a {@code __original_row_id_<col>} column.
     */
    private static void checkKeyUpdates(WriteDelta wd, PaimonDeltaWrite write) {
      boolean keyAssigned = false;
      for (Attribute a : CollectionConverters.asJava(wd.query().output())) {
        if (a.name().startsWith(ORIGINAL_ROW_ID)) {
          keyAssigned = true;
        }
      }
      if (!keyAssigned) {
        return;
      }
      if (write.command == RowLevelOperation.Command.UPDATE) {
        throw new UnsupportedOperationException("Can't update the primary key column.");
      }
      if (write.command == RowLevelOperation.Command.MERGE) {
        List<String> equated = new ArrayList<>();
        collectEquatedColumns(wd.condition(), equated);
        for (String key : write.table.primaryKeys()) {
          if (equated.stream().noneMatch(key::equalsIgnoreCase)) {
            throw new UnsupportedOperationException("Can't update the primary key column in update clause.");
          }
        }
      }
    }

    private static void collectEquatedColumns(Expression e, List<String> out) {
      if (e instanceof And and) {
        collectEquatedColumns(and.left(), out);
        collectEquatedColumns(and.right(), out);
      } else if ((e instanceof EqualTo || e instanceof EqualNullSafe)
          && e.children().size() == 2
          && e.children().apply(0) instanceof AttributeReference l
          && e.children().apply(1) instanceof AttributeReference r) {
        out.add(l.name());
        out.add(r.name());
      }
    }
  }
}
