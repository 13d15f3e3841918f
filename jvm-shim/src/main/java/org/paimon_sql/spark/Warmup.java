package org.paimon_sql.spark;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.apache.spark.SparkContext;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts Spark's Python workers of the Paimon data source once per JVM, in the background, so that
 * the first {@code INSERT} or merged read of a session does not wait for them.
 *
 * <p>Reads and writes are planned and committed in the bridge ({@link BridgeRead},
 * {@link BridgeBatchWrite}); their tasks run in Spark's Python daemon of task workers, started on
 * first use (importing pyspark, then each worker the engine): about a second before the first
 * {@code INSERT} of a fresh shell can start writing, and the bridge's first plan of a read or write
 * imports the engine's read and write paths. Right after the session exists, this writes one row
 * twice into a primary-key table in a temporary warehouse and reads it back (two overlapping
 * commits: a merged read, the Python path), through the same data source and Spark runners as a
 * user's statement, so the daemon it starts is the one Spark reuses (its workers keep the engine
 * imported). The warehouse is deleted
 * afterwards; the jobs carry the group {@value #JOB_GROUP}. A statement that comes while the warm-up
 * still starts the workers it needs waits for them ({@link #awaitWrites}, {@link #awaitReads})
 * rather than starting a second set beside them. A failure is only logged: the user's own statement
 * then starts what it needs, as without the warm-up, and reports what is wrong.
 *
 * <p>{@value #ENABLED} = false (a Spark setting given at start) turns it off.
 */
public final class Warmup {
  static final String ENABLED = "spark.paimon_sql.warmup.enabled";
  static final String JOB_GROUP = "paimon_sql-warmup";
  private static final Logger LOG = LoggerFactory.getLogger(Warmup.class);
  private static final AtomicBoolean STARTED = new AtomicBoolean();
  private static final CountDownLatch DONE = new CountDownLatch(1);
  private static final CountDownLatch WRITES_READY = new CountDownLatch(1);
  private static final long SESSION_WAIT_MS = 600_000;
  /** The longest a statement waits for the warm-up's step it would otherwise repeat. */
  private static final long STATEMENT_WAIT_MS = 60_000;
  private static volatile String outcome = "not started";
  private static volatile Thread thread;
  private static volatile boolean warming; // set once it has a session and is enabled

  private Warmup() {}

  /** Starts the warm-up thread once per JVM; it waits for the default session to exist. */
  static void startOnce() {
    if (!STARTED.compareAndSet(false, true)) {
      return;
    }
    Thread t = new Thread(Warmup::run, "paimon-sql-warmup");
    t.setDaemon(true);
    thread = t;
    t.start();
  }

  /**
   * Called before a write plans in Python: while the warm-up is starting the write's Python workers,
   * waits for it (at most a minute) instead of starting a second set of them beside it, which on a
   * small machine makes both slower. Returns at once once they run, or without a warm-up.
   */
  static void awaitWrites() {
    await(WRITES_READY);
  }

  /** Called before a read plans in Python: waits for the whole warm-up, as {@link #awaitWrites}. */
  static void awaitReads() {
    await(DONE);
  }

  private static void await(CountDownLatch latch) {
    if (!warming || Thread.currentThread() == thread || latch.getCount() == 0) {
      return;
    }
    try {
      if (!latch.await(STATEMENT_WAIT_MS, TimeUnit.MILLISECONDS)) {
        LOG.info("paimon_sql: the background start of the Python workers is still running; not waiting");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Waits up to {@code timeoutMs} for the warm-up to end; returns how it ended ("done in N ms",
   * "disabled", "failed: ...", or "not started" / "running" when it has not ended). For tests.
   */
  public static String await(long timeoutMs) throws InterruptedException {
    if (!STARTED.get()) {
      return outcome;
    }
    return DONE.await(timeoutMs, TimeUnit.MILLISECONDS) ? outcome : "running";
  }

  /** Why the session's {@value #ENABLED} is not a boolean, or null when it is one (or unset). */
  static String invalidSetting(SparkSession session) {
    scala.Option<String> v = session.sparkContext().getConf().getOption(ENABLED);
    if (v.isEmpty()) {
      return null;
    }
    String s = v.get().trim();
    return s.equalsIgnoreCase("true") || s.equalsIgnoreCase("false")
        ? null : ENABLED + " must be true or false, got '" + v.get() + "'";
  }

  private static void run() {
    try {
      outcome = "running";
      SparkSession session = awaitSession();
      String invalid = session == null ? null : invalidSetting(session);
      if (session == null) {
        outcome = "no session";
      } else if (invalid != null) {
        outcome = "off: " + invalid;
        LOG.warn("paimon_sql: {}; the Python workers are not started in the background", invalid);
      } else if (!session.sparkContext().getConf().getBoolean(ENABLED, true)) {
        outcome = "disabled";
      } else {
        long t0 = System.nanoTime();
        warming = true;
        warm(session);
        outcome = "done in " + (System.nanoTime() - t0) / 1_000_000 + " ms";
        LOG.info("paimon_sql: Python workers started in the background ({})", outcome);
      }
    } catch (Throwable e) {
      outcome = "failed: " + e;
      LOG.info("paimon_sql: the background start of the Python workers failed: {}", e.toString());
      LOG.debug("paimon_sql warm-up", e);
    } finally {
      WRITES_READY.countDown();
      DONE.countDown();
    }
  }

  private static SparkSession awaitSession() throws InterruptedException {
    long deadline = System.currentTimeMillis() + SESSION_WAIT_MS;
    while (System.currentTimeMillis() < deadline) {
      scala.Option<SparkSession> s = SparkSession.getDefaultSession();
      if (s.isDefined() && !s.get().sparkContext().isStopped()) {
        return s.get();
      }
      Thread.sleep(50);
    }
    return null;
  }

  private static void warm(SparkSession session) throws Exception {
    Path dir = Files.createTempDirectory("paimon-sql-warmup-");
    String warehouse = dir.toAbsolutePath().toString();
    SparkContext sc = session.sparkContext();
    SparkSession.setActiveSession(session);
    sc.setJobGroup(JOB_GROUP, "paimon_sql: starting the Python workers", true);
    try {
      PaimonCatalog catalog = new PaimonCatalog();
      Map<String, String> options = new LinkedHashMap<>();
      options.put("warehouse", warehouse);
      catalog.initialize(JOB_GROUP, new CaseInsensitiveStringMap(options));
      StructType schema = new StructType()
          .add("id", DataTypes.LongType, false)
          .add("v", DataTypes.StringType, true);
      catalog.createTable(Identifier.of(new String[] {PaimonCatalog.DEFAULT_DATABASE}, "t"), schema,
          new Transform[0], Map.of("primary-key", "id", "bucket", "1"));
      String path = dir.resolve(PaimonCatalog.DEFAULT_DATABASE + ".db").resolve("t").toString();
      for (int i = 0; i < 2; i++) {
        // two commits of the same key: the read below merges them in Python
        session.sql("SELECT CAST(1 AS BIGINT) AS id, 'a' AS v")
            .write().format(PaimonSource.NAME).mode("append").save(path);
        WRITES_READY.countDown();
      }
      session.read().format(PaimonSource.NAME).load(path).collectAsList();
    } finally {
      PaimonSource.forget(warehouse);
      sc.clearJobGroup();
      deleteTree(dir);
    }
  }

  private static void deleteTree(Path dir) {
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> {
        try {
          Files.deleteIfExists(p);
        } catch (IOException e) {
          LOG.debug("paimon_sql warm-up: cannot delete " + p + ": " + e);
        }
      });
    } catch (IOException e) {
      LOG.debug("paimon_sql warm-up: cannot delete " + dir + ": " + e);
    }
  }
}
