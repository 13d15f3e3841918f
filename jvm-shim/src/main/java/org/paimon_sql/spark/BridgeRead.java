package org.paimon_sql.spark;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.connector.metric.CustomMetric;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.execution.datasources.v2.python.PythonDataSourceV2;
import org.apache.spark.sql.execution.datasources.v2.python.PythonInputPartition;
import org.apache.spark.sql.execution.datasources.v2.python.PythonPartitionReaderFactory;
import org.apache.spark.sql.execution.datasources.v2.python.PythonScanBuilder;
import org.apache.spark.sql.execution.datasources.v2.python.UserDefinedPythonDataSourceFilterPushdownRunner;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.sources.Filter;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * A batch read of the Python data source planned in the bridge process ({@code plan_read}): the
 * reader, its pushed filters, the read function and the input partitions are made there (see
 * {@code paimon_sql/spark/planning.py}), instead of in Spark's planner daemons
 * ({@code create_data_source}, {@code data_source_pushdown_filters}, {@code plan_data_source_read})
 * after Spark's lookup of every Python data source ({@code lookup_data_sources}): one bridge call
 * instead of two or three Python round trips per query, and no Python process to start for a
 * first query. The tasks are Spark's own ({@link PythonPartitionReaderFactory}, read columnar by
 * {@link ColumnarPythonReaderFactory}).
 *
 * <p>The filters go to Python exactly as Spark serializes them for a Python data source (Spark's
 * own serializer writes them; Python reads them with pyspark's): the same filters reach the
 * reader's {@code pushFilters} as on Spark's path, and those Spark cannot serialize (OR, ...) stay
 * with Spark.
 */
final class BridgeRead {
  private BridgeRead() {}

  /** A planned scan and the filters its reader accepted (Spark evaluates the others). */
  record Planned(Scan scan, Filter[] accepted) {}

  /**
   * The scan of {@code schema}'s columns with data source options {@code options}, pushing
   * {@code filters} when Python filter pushdown is on; {@code dataSourceName}: the catalog's Python
   * data source (another than the engine's own is planned by Spark).
   */
  static Planned plan(String dataSourceName, StructType schema, CaseInsensitiveStringMap options, Filter[] filters) {
    if (!PaimonCatalog.DATA_SOURCE.equals(dataSourceName)) {
      PythonDataSourceV2 ds = new PythonDataSourceV2();
      ds.setShortName(dataSourceName);
      PythonScanBuilder python = new PythonScanBuilder(ds, dataSourceName, schema, options);
      Filter[] accepted = new Filter[0];
      if (filters.length > 0) {
        python.pushFilters(filters);
        accepted = python.pushedFilters();
      }
      return new Planned(python.build(), accepted);
    }
    SQLConf conf = SQLConf.get();
    Map<String, Object> p = new HashMap<>();
    p.put("options", options.asCaseSensitiveMap());
    p.put("schema", schema.json());
    p.put("max_arrow_batch_size", conf.arrowMaxRecordsPerBatch());
    List<Integer> filterIndex = new ArrayList<>(); // serialized filter -> its index in filters
    if (filters.length > 0 && conf.pythonFilterPushDown()) {
      String json = serializedFilters(schema, filters);
      if (json != null) {
        try {
          for (JsonNode f : PythonBridge.JSON.readTree(json)) {
            filterIndex.add(f.get("index").asInt());
          }
        } catch (IOException e) {
          throw new IllegalStateException("Spark's serialized filters are not JSON: " + json, e);
        }
        p.put("filters", json);
      }
    }
    Map<String, Object> r = PaimonCatalog.call("plan_read", p);
    Base64.Decoder b64 = Base64.getDecoder();
    byte[] func = b64.decode((String) r.get("func"));
    List<?> parts = (List<?>) r.get("partitions");
    InputPartition[] partitions = new InputPartition[parts.size()];
    for (int i = 0; i < partitions.length; i++) {
      partitions[i] = new PythonInputPartition(i, b64.decode((String) parts.get(i)));
    }
    List<Filter> accepted = new ArrayList<>();
    for (Object pos : (List<?>) r.get("accepted")) {
      accepted.add(filters[filterIndex.get(((Number) pos).intValue())]);
    }
    return new Planned(new PlannedScan(schema, func, partitions), accepted.toArray(new Filter[0]));
  }

  /**
   * {@code filters} as Spark sends them to a Python data source's {@code pushFilters} (a JSON
   * list; each entry's {@code index} is the filter's position in {@code filters}), or null when
   * Spark can serialize none of them. Spark's own serializer writes them, into a buffer.
   */
  private static String serializedFilters(StructType schema, Filter[] filters) {
    UserDefinedPythonDataSourceFilterPushdownRunner runner = new UserDefinedPythonDataSourceFilterPushdownRunner(
        EngineDataSource.source().dataSourceCls(), schema,
        scala.jdk.javaapi.CollectionConverters.asScala(java.util.Arrays.asList(filters)).toSeq());
    if (!runner.isAnyFilterSupported()) {
      return null;
    }
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    try {
      runner.writeToPython(new DataOutputStream(buf), null);
      // the data source (length, bytes), the schema (length, UTF-8), the filters (length, UTF-8), ...
      DataInputStream in = new DataInputStream(new ByteArrayInputStream(buf.toByteArray()));
      in.skipNBytes(in.readInt());
      in.skipNBytes(in.readInt());
      byte[] json = new byte[in.readInt()];
      in.readFully(json);
      return new String(json, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalStateException("cannot serialize the filters " + java.util.Arrays.toString(filters), e);
    }
  }

  /** The planned scan: Spark's Python partition reader over the bridge's plan. */
  private static final class PlannedScan implements Scan, Batch {
    private final StructType schema;
    private final byte[] func;
    private final InputPartition[] partitions;

    PlannedScan(StructType schema, byte[] func, InputPartition[] partitions) {
      this.schema = schema;
      this.func = func;
      this.partitions = partitions;
    }

    @Override
    public StructType readSchema() {
      return schema;
    }

    @Override
    public Batch toBatch() {
      return this;
    }

    @Override
    public InputPartition[] planInputPartitions() {
      return partitions;
    }

    @Override
    public PartitionReaderFactory createReaderFactory() {
      return new PythonPartitionReaderFactory(EngineDataSource.source(), func, schema,
          EngineDataSource.jobArtifactUUID(), EngineDataSource.sessionUUID());
    }

    @Override
    public CustomMetric[] supportedCustomMetrics() {
      return EngineDataSource.metrics();
    }

    @Override
    public CustomTaskMetric[] reportDriverMetrics() {
      return new CustomTaskMetric[0];
    }

    @Override
    public String description() {
      return "Python data source scan (planned in the bridge)";
    }
  }
}
