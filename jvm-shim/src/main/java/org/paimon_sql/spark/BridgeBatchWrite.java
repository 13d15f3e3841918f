package org.paimon_sql.spark;

import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.connector.write.BatchWrite;
import org.apache.spark.sql.connector.write.DataWriterFactory;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.PhysicalWriteInfo;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
import org.apache.spark.sql.execution.datasources.v2.python.PythonBatchWriterFactory;
import org.apache.spark.sql.execution.datasources.v2.python.PythonDataSourceV2;
import org.apache.spark.sql.execution.datasources.v2.python.PythonWrite;
import org.apache.spark.sql.execution.datasources.v2.python.PythonWriterCommitMessage;
import org.apache.spark.sql.execution.datasources.v2.python.UserDefinedPythonDataSource;

/**
 * A batch write of the Python data source whose driver side runs in the bridge process: the
 * writer is created and pickled there ({@code plan_write}) and the tasks' messages are committed or
 * aborted there ({@code commit_write}), instead of in Spark's planner daemons
 * ({@code write_into_data_source}, {@code commit_data_source_write}) and after Spark's lookup of
 * every Python data source ({@code lookup_data_sources}). Each of those is a Python process of its
 * own, started when first needed, one after the other: the first INSERT of a {@code paimon-sql -f}
 * script paid about three seconds for them (issue 22), every later write two round trips.
 *
 * <p>The tasks are Spark's own: {@link PythonBatchWriterFactory} runs the pickled write function in
 * Spark's Python workers, as for any Python data source write; the function and the writer are
 * built as {@code pyspark/sql/worker/write_into_data_source.py} builds them (see
 * {@code paimon_sql/spark/planning.py}). pyspark is pinned to 4.3.x and the Spark tests cover
 * this path.
 */
final class BridgeBatchWrite implements BatchWrite {
  private final LogicalWriteInfo info;
  private final boolean overwrite;
  private byte[] writer; // pickled, set by createBatchWriterFactory

  private BridgeBatchWrite(LogicalWriteInfo info, boolean overwrite) {
    this.info = info;
    this.overwrite = overwrite;
  }

  /**
   * The batch write of {@code info} into the catalog's Python data source {@code dataSourceName}:
   * planned in the bridge for the engine's own, by Spark for another (the catalog option
   * {@code data-source}).
   */
  static BatchWrite of(String dataSourceName, LogicalWriteInfo info, boolean overwrite) {
    if (!PaimonCatalog.DATA_SOURCE.equals(dataSourceName)) {
      PythonDataSourceV2 ds = new PythonDataSourceV2();
      ds.setShortName(dataSourceName);
      return new PythonWrite(ds, dataSourceName, info, overwrite).toBatch();
    }
    return new BridgeBatchWrite(info, overwrite);
  }

  @Override
  public DataWriterFactory createBatchWriterFactory(PhysicalWriteInfo physical) {
    UserDefinedPythonDataSource src = EngineDataSource.source();
    Map<String, Object> p = new HashMap<>();
    p.put("options", info.options().asCaseSensitiveMap());
    p.put("schema", info.schema().json());
    p.put("return_type", UserDefinedPythonDataSource.writeOutputSchema().json());
    p.put("overwrite", overwrite);
    Map<String, Object> r = PaimonCatalog.call("plan_write", p);
    Base64.Decoder b64 = Base64.getDecoder();
    writer = b64.decode((String) r.get("writer"));
    byte[] func = b64.decode((String) r.get("func"));
    return new PythonBatchWriterFactory(src, func, info.schema(), EngineDataSource.jobArtifactUUID(), EngineDataSource.sessionUUID());
  }

  @Override
  public void commit(WriterCommitMessage[] messages) {
    finish(messages, false);
  }

  @Override
  public void abort(WriterCommitMessage[] messages) {
    finish(messages, true);
  }

  private void finish(WriterCommitMessage[] messages, boolean abort) {
    if (writer == null) {
      return; // aborted before it was planned: nothing was written
    }
    Base64.Encoder b64 = Base64.getEncoder();
    List<String> pickled = new ArrayList<>();
    for (WriterCommitMessage m : messages == null ? new WriterCommitMessage[0] : messages) {
      // a failed task's message is null (abort only)
      pickled.add(m instanceof PythonWriterCommitMessage pm ? b64.encodeToString(pm.pickledMessage()) : null);
    }
    Map<String, Object> p = new HashMap<>();
    p.put("writer", b64.encodeToString(writer));
    p.put("messages", pickled);
    p.put("abort", abort);
    PaimonCatalog.call("commit_write", p);
  }
}
