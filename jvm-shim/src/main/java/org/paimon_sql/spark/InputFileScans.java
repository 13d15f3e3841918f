package org.paimon_sql.spark;

import java.util.HashMap;
import java.util.Map;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.InputFileBlockLength;
import org.apache.spark.sql.catalyst.expressions.InputFileBlockStart;
import org.apache.spark.sql.catalyst.expressions.InputFileName;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.rules.Rule;
import org.apache.spark.sql.connector.write.RowLevelOperationTable;
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import scala.PartialFunction$;

/**
 * Tells each Python-path scan of a Paimon table whether its query asks for the data file of its rows
 * ({@code input_file_name()}, {@code input_file_block_start()}, {@code input_file_block_length()}):
 * only then does the Python reader send the hidden input-file column that
 * {@link ColumnarPythonReaderFactory} turns into Spark's {@code InputFileBlockHolder} (it is as much
 * as half the bytes of a narrow scan). An optimizer rule of {@link PaimonSparkSessionExtensions}.
 *
 * <p>It sets {@value PaimonScanBuilder#INPUT_FILE_OPTION} = {@code true} or {@code false} on every
 * relation of a {@link PaimonTable} (and on the reads of Paimon's primary-key UPDATE / MERGE INTO /
 * DELETE, {@link PaimonRowLevel}) in the plan: {@code true} when one of those expressions is anywhere
 * in the plan, so every scan that may feed one still sends the column. A relation without the option
 * (a session without the extension) sends it, as before. The plan of a subquery is decided on its
 * own: Spark optimizes it apart (its scans are built then), and its rows reach the outer query only
 * through a join or a value, which carry no input file.
 *
 * <p>It runs in the optimizer, not in the analyzer: a plan cached by {@code CACHE TABLE} or
 * {@code Dataset.cache()} is matched against the analyzed plan of later queries, which options set by
 * an analyzer rule would keep from matching (a cached table read with {@code input_file_name()}
 * gives empty names, as Spark's file sources do, instead of reading the files again). By then views
 * are inlined and a DataFrame's plan is whole; the rule runs before Spark builds the scans
 * ({@code V2ScanRelationPushDown}). Streaming scans are built before the optimizer runs and never
 * send the column ({@link PaimonScanBuilder#build}); the copy-on-write scans of append tables
 * ({@link PaimonAppendRowLevel}) always send it (their files are named by it).
 */
final class InputFileScans extends Rule<LogicalPlan> {

  @Override
  public LogicalPlan apply(LogicalPlan plan) {
    String need = String.valueOf(readsInputFile(plan));
    return plan.transformUp(PartialFunction$.MODULE$.fromFunction((LogicalPlan p) -> {
      if (p instanceof DataSourceV2Relation r && paimonScan(r) && !need.equals(r.options().get(PaimonScanBuilder.INPUT_FILE_OPTION))) {
        Map<String, String> o = new HashMap<>(r.options().asCaseSensitiveMap());
        o.put(PaimonScanBuilder.INPUT_FILE_OPTION, need);
        return r.copy(r.table(), r.output(), r.catalog(), r.identifier(), new CaseInsensitiveStringMap(o),
            r.timeTravelSpec());
      }
      return p;
    }));
  }

  /** A relation whose scan is a {@link PaimonScanBuilder}'s. */
  private static boolean paimonScan(DataSourceV2Relation r) {
    return r.table() instanceof PaimonTable
        || r.table() instanceof RowLevelOperationTable t && t.operation() instanceof PaimonRowLevel.DeltaOperation;
  }

  /** Whether an operator of {@code plan} (not of its subqueries) evaluates one of the input-file expressions. */
  static boolean readsInputFile(LogicalPlan plan) {
    return plan.exists(p -> p.expressions().exists(e -> e.exists(InputFileScans::inputFile)));
  }

  private static boolean inputFile(Expression e) {
    return e instanceof InputFileName || e instanceof InputFileBlockStart || e instanceof InputFileBlockLength;
  }
}
