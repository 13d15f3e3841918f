package org.paimon_sql.spark;

import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.SparkSessionExtensions;
import org.apache.spark.sql.execution.SparkStrategy;
import scala.runtime.AbstractFunction1;
import scala.runtime.BoxedUnit;

/**
 * {@code spark.sql.extensions=org.paimon_sql.spark.PaimonSparkSessionExtensions}: installs
 * {@link PaimonSqlParser} (unquoted {@code t$files}, {@code CALL sys.x} without {@code USE}, tag
 * statements, {@code DROP PARTITION} with partial specs: {@link PaimonDropPartitions}), the
 * planner strategies of {@link PaimonShowTablePartition} and {@link PaimonDescribePartition}, and
 * {@link NotNullColumnCheck} (a NULL written into a NOT NULL column names the table and column),
 * {@link ReplaceTableSelfReference} (a self-referencing {@code REPLACE TABLE ... AS SELECT}),
 * {@link SaveAsTableOverwrite} ({@code saveAsTable} in overwrite mode keeps the table's definition),
 * {@link StoreAssignmentCasts} (Paimon's casts of written columns),
 * {@link MergeSchemaWrites} (Paimon's {@code write.merge-schema} for DataFrame writes by name),
 * and {@link HiveStyleDynamicPartition} (Paimon's {@code write.hive-style-dynamic-partition.enabled}),
 * and Paimon's table-valued functions ({@link PaimonTableValuedFunctions}: {@code paimon_incremental_query},
 * {@code paimon_incremental_between_timestamp}, {@code paimon_incremental_to_auto_tag}),
 * and {@link PaimonRowLevelStrategy} (UPDATE / MERGE INTO / DELETE of append tables), and
 * {@link SmallLocalWrites} ({@code INSERT ... VALUES} into a bucketed table without a shuffle), and
 * {@link InputFileScans} (Python scans send the data file of their rows only to queries that call
 * {@code input_file_name()}).
 *
 * <p>It also sets, once per session and only when the user has not, {@value #FILTER_PUSHDOWN} =
 * true (the Python reader then takes Spark's filters and prunes files by them), and starts the
 * Python bridge of Spark's Python in the background ({@link PythonBridge#startAsync}): the
 * engine's imports overlap Spark's start-up instead of delaying the first statement; once the
 * session exists, {@link Warmup} starts Spark's Python workers of the data source in the background
 * (once per JVM; {@value Warmup#ENABLED} = false turns it off).
 */
public class PaimonSparkSessionExtensions extends AbstractFunction1<SparkSessionExtensions, BoxedUnit> {
  static final String FILTER_PUSHDOWN = "spark.sql.python.filterPushdown.enabled";

  @Override
  public BoxedUnit apply(SparkSessionExtensions extensions) {
    try {
      PythonBridge.forSession().startAsync();
    } catch (Exception e) {
      // the first call starts it (and reports what is wrong)
    }
    Warmup.startOnce();
    extensions.injectParser(PaimonSqlParser::new);
    extensions.injectPlannerStrategy(new AbstractFunction1<SparkSession, SparkStrategy>() {
      @Override
      public SparkStrategy apply(SparkSession session) {
        return new PaimonShowTablePartition.Strategy();
      }
    });
    extensions.injectPlannerStrategy(new AbstractFunction1<SparkSession, SparkStrategy>() {
      @Override
      public SparkStrategy apply(SparkSession session) {
        return new PaimonDescribePartition.Strategy();
      }
    });
    extensions.injectPlannerStrategy(new AbstractFunction1<SparkSession, SparkStrategy>() {
      @Override
      public SparkStrategy apply(SparkSession session) {
        return new SaveAsTableOverwrite(session);
      }
    });
    extensions.injectPlannerStrategy(new AbstractFunction1<SparkSession, SparkStrategy>() {
      @Override
      public SparkStrategy apply(SparkSession session) {
        return new PaimonRowLevel.Strategy();
      }
    });
    extensions.injectPlannerStrategy(new AbstractFunction1<SparkSession, SparkStrategy>() {
      @Override
      public SparkStrategy apply(SparkSession session) {
        return new PaimonRowLevelStrategy(session);
      }
    });
    extensions.injectPlannerStrategy(new AbstractFunction1<SparkSession, SparkStrategy>() {
      @Override
      public SparkStrategy apply(SparkSession session) {
        return new SmallLocalWrites();
      }
    });
    extensions.injectResolutionRule(session -> {
      // the analyzer of a session is built once, before its first query is analysed
      org.apache.spark.sql.internal.SQLConf conf = session.sessionState().conf();
      if (!conf.contains(FILTER_PUSHDOWN)) {
        conf.setConfString(FILTER_PUSHDOWN, "true");
      }
      return new HiveStyleDynamicPartition();
    });
    extensions.injectResolutionRule(session -> new StoreAssignmentCasts());
    extensions.injectHintResolutionRule(session -> new MergeSchemaWrites(session));
    extensions.injectResolutionRule(session -> new MergeSchemaWrites(session));
    extensions.injectPostHocResolutionRule(session -> new NotNullColumnCheck());
    extensions.injectPostHocResolutionRule(session -> new ReplaceTableSelfReference());
    extensions.injectOptimizerRule(session -> new InputFileScans());
    PaimonTableValuedFunctions.all().forEach(extensions::injectTableFunction);
    return BoxedUnit.UNIT;
  }
}
