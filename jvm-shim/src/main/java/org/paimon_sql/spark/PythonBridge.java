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
import java.util.stream.Collectors;
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
 * retried once on the new process. Which calls only read is the Python side's to say: a new
 * process is first asked {@code bridge_info}, which lists the calls registered as read-only.
 */
public final class PythonBridge {
  private static final Logger LOG = LoggerFactory.getLogger(PythonBridge.class);
  static final ObjectMapper JSON = new ObjectMapper();
  static final String MODULE = "paimon_sql.spark.bridge";

  /** Answer of {@code bridge_info}, the first call to every new bridge process. */
  record BridgeInfo(long pid, String version, Set<String> readOnly) {}

  static final String INFO_METHOD = "bridge_info";

  private static Process proc;
  private static BufferedWriter toPy;
  private static BufferedReader fromPy;
  private static long nextId = 1;
  /** What the running process said about itself; null until it answered {@code bridge_info}. */
  private static BridgeInfo info;
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

  /**
   * The calls the running bridge process declared read-only (retried after a process death),
   * empty before it answered {@code bridge_info} (used by tests).
   */
  public static synchronized Set<String> readOnlyMethods() {
    return info == null ? Set.of() : info.readOnly();
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
      throw new BridgeException(
          ErrorKind.INTERNAL, "cannot encode the parameters of " + method + ": " + e, null);
    }
    long t0 = System.nanoTime();
    String line = exchange(method, paramsJson);
    Map<String, Object> resp = parse(line, method);
    if (LOG.isDebugEnabled()) {
      LOG.debug(String.format("bridge %s took %.1f ms", method, (System.nanoTime() - t0) / 1e6));
    }
    if (resp.get("warnings") instanceof List<?> warnings) {
      for (Object w : warnings) {
        LOG.warn(String.valueOf(w));
      }
    }
    throwIfError(resp);
    @SuppressWarnings("unchecked")
    Map<String, Object> result = (Map<String, Object>) resp.get("result");
    return result == null ? new LinkedHashMap<>() : result;
  }

  /** Throws the error of a response, if it carries one. */
  private static void throwIfError(Map<String, Object> resp) {
    if (resp.get("error") instanceof Map<?, ?> e) {
      throw new BridgeException(
          ErrorKind.of(e.get("kind") == null ? null : String.valueOf(e.get("kind"))),
          String.valueOf(e.get("message")),
          e.get("traceback") == null ? null : String.valueOf(e.get("traceback")));
    }
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> parse(String line, String method) {
    try {
      return JSON.readValue(line, Map.class);
    } catch (IOException e) {
      throw new BridgeException(
          ErrorKind.INTERNAL, "the python bridge answered " + method + " with invalid JSON: " + line, null);
    }
  }

  private static synchronized String exchange(String method, String paramsJson) {
    boolean retried = false;
    while (true) {
      if (proc == null || !proc.isAlive()) {
        start();
      }
      Process p = proc;
      boolean sent = false;
      try {
        if (info == null) {
          info = handshake();
        }
        sent = true;
        String line = send(method, paramsJson);
        if (line != null) {
          return line;
        }
      } catch (IOException e) {
        LOG.warn("python bridge i/o failed during " + method + ": " + e);
      }
      // the process is gone: reap it, then retry once a call it had not received yet (it died on
      // bridge_info) or one it declared read-only
      Integer exit = null;
      try {
        p.destroy();
        if (p.waitFor(5, java.util.concurrent.TimeUnit.SECONDS)) {
          exit = p.exitValue();
        }
      } catch (InterruptedException ie) {
        Thread.currentThread().interrupt();
      }
      boolean readOnly = info != null && info.readOnly().contains(method);
      proc = null;
      info = null;
      if (!retried && (!sent || readOnly)) {
        retried = true;
        LOG.warn("python bridge (pid " + p.pid() + ") exited during " + method + "; restarting it");
        continue;
      }
      throw new BridgeException(
          ErrorKind.BRIDGE_DIED,
          "the python bridge process (" + pythonExecutable() + " -m " + MODULE + ", pid " + p.pid()
              + ", exit code " + exit + ") exited while handling '" + method + "' (its error, if"
              + " any, is on stderr; is paimon_sql installed for that python?). It is restarted on"
              + " the next call. Nothing was committed unless the operation finished before the"
              + " exit.",
          null);
    }
  }

  /** Sends one request to the running process; its response line, or null when it exited. */
  private static String send(String method, String paramsJson) throws IOException {
    long id = nextId++;
    toPy.write(
        "{\"id\":" + id + ",\"method\":" + JSON.writeValueAsString(method) + ",\"params\":"
            + paramsJson + "}\n");
    toPy.flush();
    return fromPy.readLine();
  }

  /**
   * Asks a new process {@code bridge_info}: which calls are read-only, and whether it may report
   * error kinds this shim does not know (then it runs another paimon_sql version than the shim's).
   */
  private static BridgeInfo handshake() throws IOException {
    String line = send(INFO_METHOD, "{}");
    if (line == null) {
      throw new IOException("the process exited before answering " + INFO_METHOD);
    }
    Map<String, Object> resp = parse(line, INFO_METHOD);
    throwIfError(resp);
    if (!(resp.get("result") instanceof Map<?, ?> r && r.get("read_only") instanceof List<?> ro)) {
      throw new BridgeException(ErrorKind.INTERNAL,
          "the python bridge answered " + INFO_METHOD + " without its read-only calls: " + line, null);
    }
    if (r.get("error_kinds") instanceof List<?> kinds) {
      for (Object k : kinds) {
        if (!ErrorKind.known(String.valueOf(k))) {
          LOG.warn("the python bridge reports errors of kind " + k + ", which this shim does not"
              + " know (it shows them as PaimonError): paimon_sql and its shim differ in version");
        }
      }
    }
    Set<String> readOnly = ro.stream().map(String::valueOf).collect(Collectors.toUnmodifiableSet());
    long pid = r.get("pid") instanceof Number n ? n.longValue() : -1;
    BridgeInfo answer = new BridgeInfo(pid, String.valueOf(r.get("version")), readOnly);
    LOG.debug("python bridge {}", answer);
    return answer;
  }

  private static void start() {
    String py = pythonExecutable();
    List<String> cmd = new ArrayList<>(List.of(py, "-u", "-m", MODULE));
    long t0 = System.nanoTime();
    ProcessBuilder pb = new ProcessBuilder(cmd);
    pb.redirectError(ProcessBuilder.Redirect.INHERIT);
    info = null;
    try {
      proc = pb.start();
    } catch (IOException e) {
      proc = null;
      throw new BridgeException(
          ErrorKind.BRIDGE_START,
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
