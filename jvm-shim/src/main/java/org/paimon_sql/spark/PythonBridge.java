package org.paimon_sql.spark;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * JVM to Python calls for metadata and procedures: one long-lived {@code python -m
 * paimon_sql.spark.bridge} child process per JVM, speaking JSON lines over its stdin/stdout.
 *
 * <p>Request: {@code {"id": n, "method": "...", "params": {...}}}; response: {@code {"id": n,
 * "result": {...}, "warnings": [...]}} or {@code {"id": n, "error": {"kind", "message",
 * "traceback"}}}. Calls are serialized (one at a time). When the process has died, the next call
 * starts a new one; a call that was in flight when it died fails, and calls that only read are
 * retried once on the new process.
 */
public final class PythonBridge {
  private static final Logger LOG = LoggerFactory.getLogger(PythonBridge.class);
  static final ObjectMapper JSON = new ObjectMapper();
  static final String MODULE = "paimon_sql.spark.bridge";

  /** Methods without side effects: safe to resend when the process died during the call. */
  private static final Set<String> READ_ONLY =
      Set.of(
          "ping",
          "list_namespaces",
          "namespace_exists",
          "load_namespace_metadata",
          "list_tables",
          "load_table",
          "list_procedures",
          "describe_procedure",
          "rewrite_statement",
          "plan_native_read",
          "count_rows");

  private static Process proc;
  private static BufferedWriter toPy;
  private static BufferedReader fromPy;
  private static long nextId = 1;
  private static volatile String python = null;
  private static boolean hookInstalled = false;

  private PythonBridge() {}

  /** Sets the Python executable used for the next start (the catalog option {@code python}). */
  public static synchronized void setPython(String executable) {
    if (executable != null && !executable.isEmpty()) {
      python = executable;
    }
  }

  /** The Python executable: catalog option, else Spark's Python settings, else python3. */
  static String pythonExecutable() {
    if (python != null) {
      return python;
    }
    try {
      org.apache.spark.SparkConf c =
          org.apache.spark.sql.SparkSession.active().sparkContext().conf();
      for (String k : new String[] {"spark.pyspark.python", "spark.pyspark.driver.python"}) {
        if (c.contains(k) && !c.get(k).isEmpty()) {
          return c.get(k);
        }
      }
    } catch (RuntimeException e) {
      // no active session: fall through to the environment
    }
    for (String k : new String[] {"PYSPARK_PYTHON", "PYSPARK_DRIVER_PYTHON"}) {
      String v = System.getenv(k);
      if (v != null && !v.isEmpty()) {
        return v;
      }
    }
    return "python3";
  }

  /** The process id of the running bridge process, or -1 when none runs (used by tests). */
  public static synchronized long pid() {
    return proc != null && proc.isAlive() ? proc.pid() : -1;
  }

  /** Stops the bridge process (a later call starts a new one). */
  public static synchronized void stop() {
    if (proc != null) {
      proc.destroy();
      proc = null;
    }
  }

  /** Calls {@code method} in Python; returns its result or throws {@link BridgeException}. */
  public static Map<String, Object> call(String method, Map<String, Object> params) {
    String paramsJson;
    try {
      paramsJson = JSON.writeValueAsString(params);
    } catch (IOException e) {
      throw new BridgeException("Internal", "cannot encode the parameters of " + method + ": " + e, null);
    }
    long t0 = System.nanoTime();
    String line = exchange(method, paramsJson);
    Map<String, Object> resp = parse(line, method);
    if (LOG.isDebugEnabled()) {
      LOG.debug(String.format("bridge %s took %.1f ms", method, (System.nanoTime() - t0) / 1e6));
    }
    Object warnings = resp.get("warnings");
    if (warnings instanceof List) {
      for (Object w : (List<?>) warnings) {
        LOG.warn(String.valueOf(w));
      }
    }
    Object err = resp.get("error");
    if (err instanceof Map) {
      Map<?, ?> e = (Map<?, ?>) err;
      throw new BridgeException(
          String.valueOf(e.get("kind")),
          String.valueOf(e.get("message")),
          e.get("traceback") == null ? null : String.valueOf(e.get("traceback")));
    }
    @SuppressWarnings("unchecked")
    Map<String, Object> result = (Map<String, Object>) resp.get("result");
    return result == null ? new LinkedHashMap<>() : result;
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> parse(String line, String method) {
    try {
      return JSON.readValue(line, Map.class);
    } catch (IOException e) {
      throw new BridgeException(
          "Internal", "the python bridge answered " + method + " with invalid JSON: " + line, null);
    }
  }

  private static synchronized String exchange(String method, String paramsJson) {
    boolean retried = false;
    while (true) {
      if (proc == null || !proc.isAlive()) {
        start();
      }
      long id = nextId++;
      Process p = proc;
      try {
        toPy.write(
            "{\"id\":" + id + ",\"method\":" + JSON.writeValueAsString(method) + ",\"params\":"
                + paramsJson + "}\n");
        toPy.flush();
        String line = fromPy.readLine();
        if (line != null) {
          return line;
        }
      } catch (IOException e) {
        LOG.warn("python bridge i/o failed during " + method + ": " + e);
      }
      // the process is gone: reap it, then retry read-only calls once on a new process
      Integer exit = null;
      try {
        p.destroy();
        if (p.waitFor(5, java.util.concurrent.TimeUnit.SECONDS)) {
          exit = p.exitValue();
        }
      } catch (InterruptedException ie) {
        Thread.currentThread().interrupt();
      }
      proc = null;
      if (!retried && READ_ONLY.contains(method)) {
        retried = true;
        LOG.warn("python bridge (pid " + p.pid() + ") exited during " + method + "; restarting it");
        continue;
      }
      throw new BridgeException(
          "BridgeDied",
          "the python bridge process (" + pythonExecutable() + " -m " + MODULE + ", pid " + p.pid()
              + ", exit code " + exit + ") exited while handling '" + method + "' (its error, if"
              + " any, is on stderr; is paimon_sql installed for that python?). It is restarted on"
              + " the next call. Nothing was committed unless the operation finished before the"
              + " exit.",
          null);
    }
  }

  private static void start() {
    String py = pythonExecutable();
    List<String> cmd = new ArrayList<>(List.of(py, "-u", "-m", MODULE));
    long t0 = System.nanoTime();
    ProcessBuilder pb = new ProcessBuilder(cmd);
    pb.redirectError(ProcessBuilder.Redirect.INHERIT);
    try {
      proc = pb.start();
    } catch (IOException e) {
      proc = null;
      throw new BridgeException(
          "BridgeStart",
          "cannot start the python bridge `" + String.join(" ", cmd) + "`: " + e.getMessage()
              + ". Set spark.pyspark.python (or the catalog option 'python') to the python of an"
              + " environment where paimon_sql is installed.",
          null);
    }
    toPy = new BufferedWriter(new OutputStreamWriter(proc.getOutputStream(), StandardCharsets.UTF_8));
    fromPy = new BufferedReader(new InputStreamReader(proc.getInputStream(), StandardCharsets.UTF_8));
    if (!hookInstalled) {
      hookInstalled = true;
      Runtime.getRuntime().addShutdownHook(new Thread(PythonBridge::stopQuietly, "paimon-bridge-stop"));
    }
    LOG.info(String.format("started python bridge %s -m %s (pid %d) in %.1f ms", py, MODULE,
        proc.pid(), (System.nanoTime() - t0) / 1e6));
  }

  private static void stopQuietly() {
    Process p = proc;
    if (p != null) {
      p.destroy();
    }
  }
}
