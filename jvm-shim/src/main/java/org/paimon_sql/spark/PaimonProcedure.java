package org.paimon_sql.spark;

import com.fasterxml.jackson.core.JsonProcessingException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.connector.catalog.CatalogManager;
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter;
import org.apache.spark.sql.connector.catalog.procedures.SimpleProcedure;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * A stored procedure declared in Python ({@code paimon_sql.procedures.PROCEDURES}): its
 * parameters, defaults and output columns come from the {@code describe_procedure} bridge call, its
 * body runs in Python through {@code call_procedure}, on the driver.
 */
public class PaimonProcedure implements SimpleProcedure {
  private final PaimonCatalog catalog;
  private final String name;
  private final String description;
  private final ProcedureParameter[] params;
  private final StructType output;

  @SuppressWarnings("unchecked")
  PaimonProcedure(PaimonCatalog catalog, Map<String, Object> desc) {
    this.catalog = catalog;
    this.name = (String) desc.get("name");
    this.description = (String) desc.getOrDefault("description", "procedure " + name);
    List<Map<String, Object>> ps = (List<Map<String, Object>>) desc.get("params");
    this.params = new ProcedureParameter[ps.size()];
    for (int i = 0; i < ps.size(); i++) {
      Map<String, Object> p = ps.get(i);
      ProcedureParameter.Builder b =
          ProcedureParameter.in((String) p.get("name"), DataType.fromDDL((String) p.get("type")));
      if (!Boolean.TRUE.equals(p.get("required"))) {
        Object d = p.get("default_sql");
        b = b.defaultValue(d == null ? "NULL" : (String) d);
      }
      if (p.get("description") != null) {
        b = b.comment((String) p.get("description"));
      }
      params[i] = b.build();
    }
    String ddl = (String) desc.get("output");
    this.output = ddl == null || ddl.isEmpty() ? new StructType() : StructType.fromDDL(ddl);
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public String description() {
    return description;
  }

  @Override
  public ProcedureParameter[] parameters() {
    return params;
  }

  @Override
  public boolean isDeterministic() {
    return false;
  }

  /**
   * The database a bare table name in an argument belongs to, as Paimon resolves it: the session's
   * current namespace when this catalog is the current one, else the catalog's default database.
   */
  private String currentDatabase() {
    try {
      CatalogManager manager = SparkSession.active().sessionState().catalogManager();
      String[] ns = manager.currentNamespace();
      if (manager.currentCatalog().name().equals(catalog.name()) && ns.length == 1) {
        return ns[0];
      }
    } catch (RuntimeException e) {
      // no active session: the catalog's default database
    }
    return catalog.defaultNamespace()[0];
  }

  @Override
  @SuppressWarnings("unchecked")
  public Iterator<Scan> call(InternalRow input) {
    Map<String, Object> args = new LinkedHashMap<>();
    for (int i = 0; i < params.length; i++) {
      args.put(params[i].name(), Values.arg(input, i, params[i].dataType()));
    }
    Map<String, Object> req = catalog.ctx();
    req.put("name", name);
    req.put("args", args);
    req.put("current_database", currentDatabase());
    req.put("jobs", true);
    Map<String, Object> res = catalog.request("call_procedure", req);
    if (res.get("job") instanceof Map<?, ?> job) {
      res = runJob((Map<String, Object>) job);
    }
    List<List<Object>> rows = (List<List<Object>>) res.get("rows");
    // the call's own schema: an opt-in argument (verbose => true) may add columns of our own
    String ddl = res.get("output") instanceof String s ? s : null;
    StructType schema = ddl == null || ddl.isEmpty() ? output : StructType.fromDDL(ddl);
    StructField[] fs = schema.fields();
    if (fs.length == 0) {
      // no output columns (the procedures behind ALTER TABLE ... TAG): no result set, so the
      // statement returns nothing, as a command does
      return Collections.emptyIterator();
    }
    InternalRow[] out = new InternalRow[rows.size()];
    for (int r = 0; r < out.length; r++) {
      List<Object> row = rows.get(r);
      Object[] vals = new Object[fs.length];
      for (int c = 0; c < fs.length; c++) {
        vals[c] = Values.toCatalyst(c < row.size() ? row.get(c) : null, fs[c].dataType());
      }
      out[r] = new GenericInternalRow(vals);
    }
    return Collections.<Scan>singletonList(new ProcedureResultScan(name, schema, out)).iterator();
  }

  /**
   * Runs a procedure's job (e.g. compaction, one task per bucket) as a Spark job ({@link JobTable}):
   * the Python data source reads with the {@code paimon.job.*} options, each input partition runs one task in an
   * executor's Python worker and yields its message; the messages go to {@code finish_procedure}
   * on the driver, which commits and returns the procedure's rows.
   */
  @SuppressWarnings("unchecked")
  private Map<String, Object> runJob(Map<String, Object> job) {
    List<String> tasks = (List<String>) job.get("tasks");
    String state = (String) job.get("state");
    Map<String, String> options = new LinkedHashMap<>();
    options.put("paimon.job.procedure", name);
    options.put("paimon.job.state", state);
    try {
      options.put("paimon.job.tasks", PythonBridge.JSON.writeValueAsString(tasks));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot encode the tasks of procedure " + name, e);
    }
    List<Row> collected = JobTable.run(name, catalog.dataSourceName(), options);
    List<String> messages = new ArrayList<>(collected.size());
    for (Row r : collected) {
      messages.add(r.getString(0));
    }
    Map<String, Object> req = catalog.ctx();
    req.put("name", name);
    req.put("state", state);
    req.put("messages", messages);
    return catalog.request("finish_procedure", req);
  }
}
