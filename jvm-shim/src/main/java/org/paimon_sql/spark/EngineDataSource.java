package org.paimon_sql.spark;

import java.util.Base64;
import java.util.HashMap;
import java.util.Map;
import org.apache.spark.JobArtifactSet$;
import org.apache.spark.api.python.PythonUtils$;
import org.apache.spark.sql.connector.metric.CustomMetric;
import org.apache.spark.sql.execution.datasources.v2.python.UserDefinedPythonDataSource;

/**
 * The engine's Python data source ({@code paimon_sql.spark.datasource.PaimonDataSource}) for the
 * reads and writes planned in the bridge ({@link BridgeRead}, {@link BridgeBatchWrite}), without
 * Spark's lookup of Python data sources.
 */
final class EngineDataSource {
  private static UserDefinedPythonDataSource source;

  private EngineDataSource() {}

  /**
   * The Python data source as Spark's reader and writer factories need it: its pickled class, with the Python
   * settings of Spark's own lookup ({@code PythonUtils.createPythonFunction}: executable, paths,
   * environment). Built once per JVM, as Spark's lookup result is.
   */
  static synchronized UserDefinedPythonDataSource source() {
    if (source == null) {
      Map<String, Object> r = PaimonCatalog.call("data_source_class", new HashMap<>());
      byte[] cls = Base64.getDecoder().decode((String) r.get("pickled"));
      source = new UserDefinedPythonDataSource(PythonUtils$.MODULE$.createPythonFunction(cls));
    }
    return source;
  }

  /** The metrics Spark's Python writer tasks report. */
  static CustomMetric[] metrics() {
    return source().createPythonMetrics();
  }

  /** As Spark's Python scans and writes: the job's artifact set (Spark Connect sessions). */
  static scala.Option<String> jobArtifactUUID() {
    scala.Option<org.apache.spark.JobArtifactState> s = JobArtifactSet$.MODULE$.getCurrentJobArtifactState();
    return s.isDefined() ? scala.Option.apply(s.get().uuid()) : scala.Option.empty();
  }

  /** As Spark's Python scans and writes: the session's id when Python worker logging is enabled. */
  static scala.Option<String> sessionUUID() {
    scala.Option<org.apache.spark.sql.classic.SparkSession> s =
        org.apache.spark.sql.classic.SparkSession$.MODULE$.getActiveSession();
    if (s.isDefined() && s.get().sessionState().conf().pythonWorkerLoggingEnabled()) {
      return scala.Option.apply(s.get().sessionUUID());
    }
    return scala.Option.empty();
  }
}
