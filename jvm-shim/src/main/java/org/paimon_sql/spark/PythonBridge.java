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
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * JVM to Python calls for metadata and procedures: one long-lived {@code python -m
 * paimon_sql.spark.bridge} child process per Python executable ({@link #of}), speaking JSON lines
 * over its stdin/stdout. A catalog owns the bridge of its Python (the catalog option {@code
 * python}, else Spark's Python: {@link #forSession}); two catalogs with different Pythons have two
 * bridges. The session extension starts the session's bridge in the background ({@link
 * #startAsync}), so its imports overlap Spark's start-up instead of the first statement.
 *
 * <p>Request: {@code {"id": n, "method": "...", "params": {...}}}; response: {@code {"id": n,
 * "result": {...}, "warnings": [...]}} or {@code {"id": n, "error": {"kind", "message",
 * "traceback"}}}. Calls are serialized (one at a time). When the process has died, the next call
 * starts a new one; a call that was in flight when it died fails, and calls that only read are
 * retried once on the new process. Which calls only read is the Python side's to say: a new
 * process is first asked {@code bridge_info}, which lists the calls registered as read-only.
 * {@link #call(String, Map, ErrorMapper)} turns the Python side's errors into the exceptions Spark
 * expects (the one place that does).
 */
public final class PythonBridge {
  private static final Logger LOG = LoggerFactory.getLogger(PythonBridge.class);
  static final ObjectMapper JSON = new ObjectMapper();
  static final String MODULE = "paimon_sql.spark.bridge";

  /** Answer of {@code bridge_info}, the first call to every new bridge process. */
  record BridgeInfo(long pid, String version, Set<String> readOnly) {}

  static final String INFO_METHOD = "bridge_info";

  /** The bridges of this JVM, by Python executable. */
  private static final Map<String, PythonBridge> BRIDGES = new ConcurrentHashMap<>();
  private static boolean hookInstalled = false;

  private final String python;
  private Process proc;
  private BufferedWriter toPy;
  private BufferedReader fromPy;
  private long nextId = 1;
  /** What the running process said about itself; null until it answered {@code bridge_info}. */
  private BridgeInfo info;

  private PythonBridge(String python) {
    this.python = python;
  }

  /** The bridge of the Python executable {@code python} (started on its first call). */
  public static PythonBridge of(String python) {
    String py = python == null || python.isEmpty() ? sessionPython() : python;
    return BRIDGES.computeIfAbsent(py, PythonBridge::new);
  }

  /** The bridge of Spark's Python ({@link #sessionPython}): catalogs without option 'python'. */
  public static PythonBridge forSession() {
    return of(null);
  }

  /** Spark's Python settings, else the environment's, else python3. */
  static String sessionPython() {
    org.apache.spark.SparkConf c = null;
    try {
      c = org.apache.spark.sql.SparkSession.active().sparkContext().conf();
    } catch (Exception e) { // Spark's SparkException (checked, thrown from Scala)
      // no active session (yet: the session extension runs while the session is built)
      scala.Option<org.apache.spark.SparkContext> sc = org.apache.spark.SparkContext$.MODULE$.getActive();
      if (sc.isDefined()) {
        c = sc.get().conf();
      }
    }
    if (c != null) {
      for (String k : new String[] {"spark.pyspark.python", "spark.pyspark.driver.python"}) {
        if (c.contains(k) && !c.get(k).isEmpty()) {
          return c.get(k);
        }
      }
    }
    for (String k : new String[] {"PYSPARK_PYTHON", "PYSPARK_DRIVER_PYTHON"}) {
      String v = System.getenv(k);
      if (v != null && !v.isEmpty()) {
        return v;
      }
    }
    return "python3";
  }

  /** The Python executable this bridge runs. */
  public String python() {
    return python;
  }

  /** The process id of the session's bridge process, or -1 when none runs (used by tests). */
  public static long pid() {
    return forSession().processId();
  }

  /** The process id of this bridge's process, or -1 when none runs. */
  public synchronized long processId() {
    return proc != null && proc.isAlive() ? proc.pid() : -1;
  }

  /**
   * The calls the session's bridge process declared read-only (retried after a process death),
   * empty before it answered {@code bridge_info} (used by tests).
   */
  public static Set<String> readOnlyMethods() {
    return forSession().readOnly();
  }

  /** The calls this bridge's process declared read-only (empty before {@code bridge_info}). */
  public synchronized Set<String> readOnly() {
    return info == null ? Set.of() : info.readOnly();
  }

  /** Stops the bridge process (a later call starts a new one). */
  public synchronized void stop() {
    if (proc != null) {
      proc.destroy();
      proc = null;
      info = null;
    }
  }

  /**
   * Starts the process and asks {@code bridge_info} on a background thread, unless it runs: the
   * Python imports then overlap whatever the JVM does meanwhile; a call made before it finished
   * waits for it. A failure is only logged (the first call reports it).
   */
  public void startAsync() {
    Thread t = new Thread(() -> {
      try {
        synchronized (this) {
          if (proc == null || !proc.isAlive()) {
            start();
          }
          if (info == null) {
            info = handshake();
          }
        }
      } catch (Exception e) {
        LOG.debug("python bridge " + python + " did not start in the background: " + e);
      }
    }, "paimon-bridge-start");
    t.setDaemon(true);
    t.start();
  }

  /** Maps a Python error to the exception Spark expects, or returns null for the default. */
  @FunctionalInterface
  public interface ErrorMapper {
    Throwable map(BridgeException e);
  }

  /**
   * Calls {@code method}; a Python error is thrown as {@code mapper} maps it (Spark's
   * NoSuchTableException, ...), else as {@link BridgeException#toUserException()}.
   */
  public Map<String, Object> call(String method, Map<String, Object> params, ErrorMapper mapper) {
    try {
      return call(method, params);
    } catch (BridgeException e) {
      Throwable mapped = mapper == null ? null : mapper.map(e);
      throw mapped != null ? Errors.sneaky(mapped) : e.raise();
    }
  }

  /** Calls {@code method} in Python; returns its result or throws {@link BridgeException}. */
  public Map<String, Object> call(String method, Map<String, Object> params) {
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

  private synchronized String exchange(String method, String paramsJson) {
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
          "the python bridge process (" + python + " -m " + MODULE + ", pid " + p.pid()
              + ", exit code " + exit + ") exited while handling '" + method + "' (its error, if"
              + " any, is on stderr; is paimon_sql installed for that python?). It is restarted on"
              + " the next call. Nothing was committed unless the operation finished before the"
              + " exit.",
          null);
    }
  }

  /** Sends one request to the running process; its response line, or null when it exited. */
  private String send(String method, String paramsJson) throws IOException {
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
  private BridgeInfo handshake() throws IOException {
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

  private void start() {
    String py = python;
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
    installHook();
    LOG.info(String.format("started python bridge %s -m %s (pid %d) in %.1f ms", py, MODULE,
        proc.pid(), (System.nanoTime() - t0) / 1e6));
  }

  private static synchronized void installHook() {
    if (!hookInstalled) {
      hookInstalled = true;
      Runtime.getRuntime().addShutdownHook(new Thread(PythonBridge::stopAll, "paimon-bridge-stop"));
    }
  }

  private static void stopAll() {
    for (PythonBridge b : BRIDGES.values()) {
      Process p = b.proc;
      if (p != null) {
        p.destroy();
      }
    }
  }
}
