package org.paimon_sql.spark;

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

  /** The data source's class, {@code paimon_sql.spark.datasource.PaimonDataSource}. */
  static final String MODULE = "paimon_sql.spark.datasource";
  static final String CLASS = "PaimonDataSource";

  /**
   * The Python data source as Spark's reader and writer factories need it: its pickled class, with the Python
   * settings of Spark's own lookup ({@code PythonUtils.createPythonFunction}: executable, paths,
   * environment). Built once per JVM, as Spark's lookup result is.
   */
  static synchronized UserDefinedPythonDataSource source() {
    if (source == null) {
      source = new UserDefinedPythonDataSource(PythonUtils$.MODULE$.createPythonFunction(pickledClass()));
    }
    return source;
  }

  /**
   * The class pickled by reference, as Spark's lookup pickles it (pickle protocol 5: a frame of
   * the module and class names, STACK_GLOBAL; what {@code pickle.dumps(cls, 5)} gives for an
   * importable class; tests check that Python reads it back as the class).
   */
  public static byte[] pickledClass() {
    byte[] module = MODULE.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    byte[] name = CLASS.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    java.io.ByteArrayOutputStream body = new java.io.ByteArrayOutputStream();
    body.write(0x8c); // SHORT_BINUNICODE
    body.write(module.length);
    body.writeBytes(module);
    body.write(0x94); // MEMOIZE
    body.write(0x8c);
    body.write(name.length);
    body.writeBytes(name);
    body.write(0x94);
    body.write(0x93); // STACK_GLOBAL
    body.write(0x94);
    body.write(0x2e); // STOP
    java.nio.ByteBuffer out = java.nio.ByteBuffer.allocate(11 + body.size()).order(java.nio.ByteOrder.LITTLE_ENDIAN);
    out.put((byte) 0x80).put((byte) 5); // PROTO 5
    out.put((byte) 0x95).putLong(body.size()); // FRAME
    out.put(body.toByteArray());
    return out.array();
  }

  /**
   * Registers the data source under its name in {@code session}'s data source manager, as
   * {@code spark.dataSource.register} does, but without Spark's lookup of every installed Python
   * data source (a Python process importing each, which Spark's registration runs first): Spark's
   * own streaming reads and writes and the procedures' jobs then find it at once. Does nothing when
   * a data source of that name is registered already.
   */
  public static void register(org.apache.spark.sql.SparkSession session) {
    try {
      Object manager = ((org.apache.spark.sql.classic.SparkSession) session).sessionState().dataSourceManager();
      java.lang.reflect.Field f = manager.getClass().getDeclaredField("runtimeDataSourceBuilders");
      f.setAccessible(true);
      @SuppressWarnings("unchecked")
      java.util.concurrent.ConcurrentHashMap<String, UserDefinedPythonDataSource> runtime =
          (java.util.concurrent.ConcurrentHashMap<String, UserDefinedPythonDataSource>) f.get(manager);
      runtime.putIfAbsent(PaimonCatalog.DATA_SOURCE.toLowerCase(java.util.Locale.ROOT), source());
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("Spark's DataSourceManager has no runtime data source map (Spark "
          + org.apache.spark.package$.MODULE$.SPARK_VERSION() + "): " + e, e);
    }
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
