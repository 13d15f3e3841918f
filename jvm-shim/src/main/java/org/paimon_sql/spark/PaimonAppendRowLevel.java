package org.paimon_sql.spark;

import com.fasterxml.jackson.core.JsonProcessingException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.connector.expressions.Expression;
import org.apache.spark.sql.connector.expressions.Literal;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.read.SupportsPushDownRequiredColumns;
import org.apache.spark.sql.connector.read.SupportsPushDownFilters;
import org.apache.spark.sql.connector.read.SupportsRuntimeV2Filtering;
import org.apache.spark.sql.connector.write.BatchWrite;
import org.apache.spark.sql.connector.write.DataWriterFactory;
import org.apache.spark.sql.connector.write.DeltaWrite;
import org.apache.spark.sql.connector.write.DeltaWriteBuilder;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.PhysicalWriteInfo;
import org.apache.spark.sql.connector.write.RowLevelOperation;
import org.apache.spark.sql.connector.write.RowLevelOperationBuilder;
import org.apache.spark.sql.connector.write.RowLevelOperationInfo;
import org.apache.spark.sql.connector.write.SupportsDelta;
import org.apache.spark.sql.connector.write.Write;
import org.apache.spark.sql.connector.write.WriteBuilder;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
import org.apache.spark.sql.sources.Filter;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * UPDATE, MERGE INTO and DELETE (the ones that cannot be pushed down) on append tables, through
 * Spark's row-level operation API.
 *
 * <p>Without deletion vectors: copy-on-write ({@link CopyOnWrite}, Spark's {@code ReplaceData}).
 * The scan reads the latest snapshot (pinned when the scan is built) and only the files Spark's
 * runtime group filter names ({@code __paimon_file_path IN (files with a matching row)}); the
 * write replaces exactly those files by the rows Spark computed for them (and inserted rows), in
 * one commit.
 *
 * <p>With {@code deletion-vectors.enabled}: a delta operation ({@link Delta}, Spark's
 * {@code WriteDelta}) whose row id is ({@code __paimon_file_path}, {@code __paimon_row_index}):
 * deleted and updated rows are marked in their files' deletion vectors, new rows are appended.
 *
 * <p>Spark's physical nodes for both call per-row writer methods that Python data sources do not
 * have; {@link PaimonRowLevelStrategy} plans them as an append of the operation's rows (with the
 * row ids and Spark's operation code as columns) into a Python write that knows what to do (the
 * options {@code paimon.row-level.*}, see {@code paimon_sql/spark/row_level.py}).
 */
final class PaimonAppendRowLevel {
  /** Python write options: the mode (cow | delta), the snapshot the scan read, the files it read. */
  static final String MODE_OPTION = "paimon.row-level.mode";
  static final String SNAPSHOT_OPTION = "paimon.row-level.snapshot-id";
  static final String FILES_OPTION = "paimon.row-level.files";
  static final String COMMAND_OPTION = "paimon.row-level.command";
  /** Python scan option: read only these data files (a JSON list of their paths). */
  static final String READ_FILES_OPTION = "paimon.read.files";
  /** The column of Spark's operation code in the rows of a delta write. */
  static final String OPERATION_COLUMN = "__row_operation";

  private PaimonAppendRowLevel() {}

  static RowLevelOperationBuilder builder(PaimonTable table, RowLevelOperationInfo info) {
    return () -> table.deletionVectorsEnabled()
        ? new Delta(table, info.command())
        : new CopyOnWrite(table, info.command());
  }

  /** What the scan and the write of one statement share. */
  abstract static class Operation implements RowLevelOperation {
    final PaimonTable table;
    final Command command;
    private boolean pinned = false;
    private Long snapshot; // the snapshot the scan reads; null: the table has none
    private Set<String> files; // the data files the scan reads; null: every file of the snapshot

    Operation(PaimonTable table, Command command) {
      this.table = table;
      this.command = command;
    }

    @Override
    public Command command() {
      return command;
    }

    abstract String mode();

    @Override
    public String description() {
      return "Paimon " + mode() + " " + command + " of " + table.name();
    }

    /** The latest snapshot of the table, asked once. */
    synchronized Long snapshot() {
      if (!pinned) {
        Map<String, Object> r = table.catalog().request("row_level_snapshot", table.bridgeRequest());
        snapshot = r.get("snapshot") instanceof Number n ? n.longValue() : null;
        pinned = true;
      }
      return snapshot;
    }

    synchronized void restrictFiles(Set<String> names) {
      files = names;
    }

    synchronized Set<String> files() {
      return files;
    }

    @Override
    public ScanBuilder newScanBuilder(CaseInsensitiveStringMap options) {
      return new GroupScanBuilder(this, options);
    }

    /** Copy-on-write scans read the file path (Spark's runtime group filter is on it). */
    @Override
    public NamedReference[] requiredMetadataAttributes() {
      return new NamedReference[] {PaimonWrite.column(PaimonMetadataColumns.FILE_PATH).references()[0]};
    }

    /** The Python scan's options: the pinned snapshot, the files to read, no row filter. */
    CaseInsensitiveStringMap scanOptions(CaseInsensitiveStringMap perQuery) {
      Map<String, String> extra = new HashMap<>();
      extra.put("paimon.read.time-zone", java.time.ZoneId.systemDefault().getId());
      extra.put(PaimonScanBuilder.INPUT_FILE_OPTION, "true");
      Long snap = snapshot();
      Set<String> names = files();
      if (snap == null) {
        names = Set.of(); // an empty table: nothing to read
      } else {
        extra.put(PaimonScanBuilder.LATEST_SNAPSHOT_OPTION, String.valueOf(snap));
      }
      if (names != null) {
        extra.put(READ_FILES_OPTION, json(new ArrayList<>(names)));
      }
      try {
        extra.put("paimon.read.parallelism",
            String.valueOf(SparkSession.active().sparkContext().defaultParallelism()));
      } catch (RuntimeException e) {
        // no active session: the Python reader plans by split size only
      }
      return table.mergedOptions(perQuery, extra);
    }

    /** The Python write's options (read when Spark starts writing, after the scan was planned). */
    CaseInsensitiveStringMap writeOptions(CaseInsensitiveStringMap perQuery) {
      Map<String, String> extra = new HashMap<>();
      extra.put(PaimonWriteBuilder.OVERWRITE, "none");
      extra.put("paimon.read.time-zone", java.time.ZoneId.systemDefault().getId());
      extra.put(MODE_OPTION, mode());
      extra.put(COMMAND_OPTION, command.name());
      Long snap = snapshot();
      if (snap != null) {
        extra.put(SNAPSHOT_OPTION, String.valueOf(snap));
      }
      Set<String> names = files();
      if (names != null) {
        extra.put(FILES_OPTION, json(new ArrayList<>(names)));
      }
      return table.mergedOptions(perQuery, extra);
    }

    /** The write Spark's optimizer builds; {@link PaimonRowLevelStrategy} plans the real one. */
    PendingWrite pendingWrite(LogicalWriteInfo info) {
      return new PendingWrite(this, info);
    }
  }

  /** Copy-on-write: Spark's ReplaceData. */
  static final class CopyOnWrite extends Operation {
    CopyOnWrite(PaimonTable table, Command command) {
      super(table, command);
    }

    @Override
    String mode() {
      return "cow";
    }

    @Override
    public WriteBuilder newWriteBuilder(LogicalWriteInfo info) {
      return new WriteBuilder() {
        @Override
        public Write build() {
          return pendingWrite(info);
        }
      };
    }
  }

  /** Deletion vectors: Spark's WriteDelta with (file path, row index) as the row id. */
  static final class Delta extends Operation implements SupportsDelta {
    Delta(PaimonTable table, Command command) {
      super(table, command);
    }

    @Override
    String mode() {
      return "delta";
    }

    @Override
    public NamedReference[] rowId() {
      return new NamedReference[] {
        PaimonWrite.column(PaimonMetadataColumns.FILE_PATH).references()[0],
        PaimonWrite.column(PaimonMetadataColumns.ROW_INDEX).references()[0],
      };
    }

    @Override
    public boolean representUpdateAsDeleteAndInsert() {
      return true;
    }

    @Override
    public DeltaWriteBuilder newWriteBuilder(LogicalWriteInfo info) {
      return new DeltaWriteBuilder() {
        @Override
        public DeltaWrite build() {
          return pendingWrite(info);
        }
      };
    }
  }

  static String json(Object o) {
    try {
      return PythonBridge.JSON.writeValueAsString(o);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * The scan of a row-level operation: column pruning; and, for deletion vectors (a delta keyed by
   * file path and row index, counted before any row is filtered), Spark's filters pushed to the
   * Python scan to skip partitions, files and rows. A copy-on-write scan pushes none: it reads
   * whole files (the unchanged rows of a rewritten file are written back). Spark evaluates every
   * filter after the scan either way.
   */
  static final class GroupScanBuilder
      implements ScanBuilder, SupportsPushDownRequiredColumns, SupportsPushDownFilters {
    private final Operation op;
    private final CaseInsensitiveStringMap options;
    private StructType required;
    private Filter[] filters = new Filter[0];

    GroupScanBuilder(Operation op, CaseInsensitiveStringMap options) {
      this.op = op;
      this.options = options;
      @SuppressWarnings("deprecation")
      StructType s = op.table.schema();
      this.required = s;
    }

    @Override
    public Filter[] pushFilters(Filter[] fs) {
      if (op instanceof Delta) {
        this.filters = fs;
      }
      return fs;
    }

    @Override
    public Filter[] pushedFilters() {
      return filters;
    }

    @Override
    public void pruneColumns(StructType requiredSchema) {
      this.required = requiredSchema;
    }

    @Override
    public Scan build() {
      return new GroupScan(op, options, required, filters);
    }
  }

  /**
   * Whole files of the pinned snapshot (a group scan never filters rows: the unchanged rows of a
   * rewritten file are written back); Spark's runtime filter on {@code __paimon_file_path} names
   * the files to read.
   */
  static final class GroupScan implements Scan, SupportsRuntimeV2Filtering {
    private final Operation op;
    private final CaseInsensitiveStringMap options;
    private final StructType required;
    private final Filter[] filters; // pushed to the Python scan (deletion vectors only)

    GroupScan(Operation op, CaseInsensitiveStringMap options, StructType required, Filter[] filters) {
      this.op = op;
      this.options = options;
      this.required = required;
      this.filters = filters;
    }

    @Override
    public StructType readSchema() {
      return required;
    }

    @Override
    public String description() {
      Set<String> files = op.files();
      return op.description() + " (snapshot " + op.snapshot() + ", "
          + (files == null ? "every file" : files.size() + " files") + ")"
          + (filters.length == 0 ? "" : " PushedFilters: " + java.util.Arrays.toString(filters));
    }

    @Override
    public NamedReference[] filterAttributes() {
      if (op instanceof Delta) {
        // the pushed filters already prune what a runtime filter would (with one more scan)
        return new NamedReference[0];
      }
      return new NamedReference[] {PaimonWrite.column(PaimonMetadataColumns.FILE_PATH).references()[0]};
    }

    /** {@code __paimon_file_path IN (...)} / {@code = ...}: only the named files are read. */
    @Override
    public void filter(Predicate[] predicates) {
      Set<String> names = null;
      for (Predicate p : predicates) {
        Set<String> these = fileNames(p);
        if (these == null) {
          continue; // not understood: it prunes nothing
        }
        if (names == null) {
          names = these;
        } else {
          names.retainAll(these);
        }
      }
      if (names != null) {
        op.restrictFiles(names);
      }
    }

    private static Set<String> fileNames(Predicate p) {
      if (!("IN".equals(p.name()) || "=".equals(p.name())) || p.children().length < 1
          || !(p.children()[0] instanceof NamedReference ref)
          || !PaimonMetadataColumns.FILE_PATH.equals(String.join(".", ref.fieldNames()))) {
        return null;
      }
      Set<String> names = new LinkedHashSet<>();
      for (int i = 1; i < p.children().length; i++) {
        Expression e = p.children()[i];
        if (!(e instanceof Literal<?> lit)) {
          return null;
        }
        Object v = lit.value();
        if (v instanceof UTF8String || v instanceof String) {
          names.add(v.toString());
        }
      }
      return names;
    }

    @Override
    public Batch toBatch() {
      StructType schema = PaimonScanBuilder.withInputFile(required);
      BridgeRead.Planned planned = BridgeRead.plan(op.table.dataSourceName(), schema, op.scanOptions(options), filters);
      return new PaimonScan(planned.scan(), planned.accepted(), op.table.partitionKeys(), -1).toBatch();
    }
  }

  /**
   * The write Spark's optimizer builds for ReplaceData / WriteDelta. Spark's own physical nodes
   * would write it row by row, which a Python data source cannot: {@link PaimonRowLevelStrategy}
   * plans an append of the projected rows into {@link #forRows} instead.
   */
  static final class PendingWrite implements DeltaWrite {
    final Operation op;
    final LogicalWriteInfo info;

    PendingWrite(Operation op, LogicalWriteInfo info) {
      this.op = op;
      this.info = info;
    }

    @Override
    public String description() {
      return op.description();
    }

    @Override
    public org.apache.spark.sql.connector.write.DeltaBatchWrite toBatch() {
      throw new UnsupportedOperationException(op.description()
          + " must be planned by the Paimon session extensions (spark.sql.extensions="
          + PaimonSparkSessionExtensions.class.getName() + ")");
    }

    /** The write of rows of {@code schema} (data columns, and for delta the operation code and
     *  row id columns), configured when Spark starts writing. */
    Write forRows(StructType schema) {
      return new LazyWrite(this, schema);
    }
  }

  /** A Python write whose options are computed when Spark starts writing (after the scan). */
  static final class LazyWrite implements Write {
    private final PendingWrite pending;
    private final StructType schema;

    LazyWrite(PendingWrite pending, StructType schema) {
      this.pending = pending;
      this.schema = schema;
    }

    @Override
    public String description() {
      return pending.description();
    }

    @Override
    public BatchWrite toBatch() {
      return new BatchWrite() {
        private BatchWrite python;

        private synchronized BatchWrite python() {
          if (python == null) {
            LogicalWriteInfo info = pending.info;
            CaseInsensitiveStringMap options = pending.op.writeOptions(info.options());
            LogicalWriteInfo mine = new LogicalWriteInfo() {
              @Override
              public CaseInsensitiveStringMap options() {
                return options;
              }

              @Override
              public String queryId() {
                return info.queryId();
              }

              @Override
              public StructType schema() {
                return schema;
              }

              @Override
              public Optional<StructType> rowIdSchema() {
                return Optional.empty();
              }

              @Override
              public Optional<StructType> metadataSchema() {
                return Optional.empty();
              }
            };
            python = BridgeBatchWrite.of(pending.op.table.dataSourceName(), mine, false);
          }
          return python;
        }

        @Override
        public DataWriterFactory createBatchWriterFactory(PhysicalWriteInfo info) {
          return python().createBatchWriterFactory(info);
        }

        @Override
        public boolean useCommitCoordinator() {
          return true;
        }

        @Override
        public void commit(WriterCommitMessage[] messages) {
          python().commit(messages);
        }

        @Override
        public void abort(WriterCommitMessage[] messages) {
          python().abort(messages);
        }
      };
    }
  }

  /** The names of the columns of {@code schema} (for messages). */
  static List<String> names(StructType schema) {
    return List.of(schema.fieldNames());
  }
}
