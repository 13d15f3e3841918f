package org.paimon_sql.spark;

import java.io.File;
import java.lang.reflect.Constructor;
import java.util.HashMap;
import java.util.Map;
import org.apache.spark.PartitionEvaluator;
import org.apache.hadoop.fs.Path;
import org.apache.spark.TaskContext;
import org.apache.spark.paths.SparkPath;
import org.apache.spark.rdd.InputFileBlockHolder;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.execution.datasources.v2.python.PythonCustomMetric$;
import org.apache.spark.sql.execution.datasources.v2.python.PythonInputPartition;
import org.apache.spark.sql.execution.datasources.v2.python.PythonPartitionReaderFactory;
import org.apache.spark.sql.execution.datasources.v2.python.UserDefinedPythonDataSource;
import org.apache.spark.sql.execution.metric.SQLMetric;
import org.apache.spark.sql.execution.python.ArrowPythonRunner;
import org.apache.spark.sql.execution.python.MapInBatchEvaluatorFactory;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ArrowColumnVector;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * Columnar reads of the Python data source: the Arrow batches the Python reader yields reach Spark
 * as {@link ColumnarBatch}es of Arrow vectors, instead of being turned into one row object per row
 * (what Spark's own {@code PythonPartitionReaderFactory} does, at a few hundred nanoseconds a row
 * plus a metrics update every 100 rows). Spark's generated code then reads the vectors directly.
 *
 * <p>It runs the same Python read function over the same pickled partition, through the same Arrow
 * runner that Spark's row reader uses ({@code MapInBatchEvaluator}'s runner: pyspark is pinned to
 * 4.3.x, and the Spark tests cover this path); only the last step, flattening the struct column of
 * each batch into rows, is replaced by flattening it into a batch of its child vectors. The row
 * reader stays available ({@link #createReader}).
 *
 * <p>When the scan asked Python for the trailing {@link #INPUT_FILE_COLUMN} (see
 * {@link PaimonScanBuilder}), its first row names the data file of the batch: the reader drops the
 * column and sets Spark's {@code input_file_name()} to that file (in the form Spark's own file
 * sources give), or unsets it for a batch that merges several files, as Paimon's reader does.
 */
final class ColumnarPythonReaderFactory implements PartitionReaderFactory {
  private static final long serialVersionUID = 1L;
  private static final String RUNNER_CLASS =
      "org.apache.spark.sql.execution.python.MapInBatchEvaluatorFactory$MapInBatchEvaluator$$anon$1";

  /** The hidden column (also in {@code paimon_sql/spark/reader.py}). */
  static final String INPUT_FILE_COLUMN = "__paimon_input_file";
  private static final java.util.regex.Pattern URI_SCHEME =
      java.util.regex.Pattern.compile("^[A-Za-z][A-Za-z0-9+.-]*://.*");

  private final PythonPartitionReaderFactory inner;

  ColumnarPythonReaderFactory(PythonPartitionReaderFactory inner) {
    this.inner = inner;
  }

  /** Whether the last field of {@code schema} is {@link #INPUT_FILE_COLUMN}. */
  static boolean hasInputFile(StructType schema) {
    String[] names = schema.fieldNames();
    return names.length > 0 && names[names.length - 1].equals(INPUT_FILE_COLUMN);
  }

  /** {@code input_file_name()} of a data file at {@code path} (as Python wrote it), as Spark's file sources give it. */
  static String sparkFileName(String path) {
    return URI_SCHEME.matcher(path).matches()
        ? SparkPath.fromPathString(path).urlEncoded()
        : SparkPath.fromPath(new Path(new File(path).toURI())).urlEncoded();
  }

  /** Points {@code input_file_name()} at {@code path}, or unsets it when null. */
  static void setInputFile(String path) {
    if (path == null) {
      InputFileBlockHolder.unset();
    } else {
      InputFileBlockHolder.set(sparkFileName(path), 0, -1);
    }
  }

  /**
   * Spark's row reader (only used if Spark does not read columnar). Its rows keep the hidden
   * trailing column, which Spark does not read: the scan's schema ends before it.
   */
  @Override
  public PartitionReader<InternalRow> createReader(InputPartition partition) {
    PartitionReader<InternalRow> rows = inner.createReader(partition);
    StructType schema =
        inner.org$apache$spark$sql$execution$datasources$v2$python$PythonPartitionReaderFactory$$outputSchema;
    if (!hasInputFile(schema)) {
      return rows;
    }
    int last = schema.fields().length - 1;
    return new PartitionReader<>() {
      private String file;

      @Override
      public boolean next() throws java.io.IOException {
        if (!rows.next()) {
          return false;
        }
        InternalRow row = rows.get();
        if (!row.isNullAt(last)) {
          String f = row.getUTF8String(last).toString();
          if (!f.equals(file)) {
            file = f;
            setInputFile(f);
          }
        }
        return true;
      }

      @Override
      public InternalRow get() {
        return rows.get();
      }

      @Override
      public void close() throws java.io.IOException {
        InputFileBlockHolder.unset();
        rows.close();
      }
    };
  }

  @Override
  public boolean supportColumnarReads(InputPartition partition) {
    return partition instanceof PythonInputPartition;
  }

  @Override
  public PartitionReader<ColumnarBatch> createColumnarReader(InputPartition partition) {
    return new Reader(inner, (PythonInputPartition) partition);
  }

  private static final class Reader implements PartitionReader<ColumnarBatch> {
    private final UserDefinedPythonDataSource source;
    private final StructType outputSchema;
    private final scala.collection.immutable.Map<String, SQLMetric> metrics;
    private final scala.collection.Iterator<ColumnarBatch> batches;
    private final boolean inputFile; // the last column is INPUT_FILE_COLUMN
    private ColumnarBatch current;

    Reader(PythonPartitionReaderFactory f, PythonInputPartition partition) {
      this.source = f.org$apache$spark$sql$execution$datasources$v2$python$PythonPartitionReaderFactory$$source;
      this.outputSchema =
          f.org$apache$spark$sql$execution$datasources$v2$python$PythonPartitionReaderFactory$$outputSchema;
      this.metrics = PythonCustomMetric$.MODULE$.pythonMetrics();
      this.inputFile = hasInputFile(outputSchema);
      MapInBatchEvaluatorFactory evaluators = source.createMapInBatchEvaluatorFactory(
          f.org$apache$spark$sql$execution$datasources$v2$python$PythonPartitionReaderFactory$$pickledReadFunc,
          "read_from_data_source",
          UserDefinedPythonDataSource.readInputSchema(),
          outputSchema,
          metrics,
          f.org$apache$spark$sql$execution$datasources$v2$python$PythonPartitionReaderFactory$$jobArtifactUUID,
          f.org$apache$spark$sql$execution$datasources$v2$python$PythonPartitionReaderFactory$$sessionUUID);
      PartitionEvaluator<InternalRow, InternalRow> evaluator = evaluators.createEvaluator();
      ArrowPythonRunner runner = newRunner(evaluator);
      // the runner's input: one row holding the pickled partition, packed in a struct column
      InternalRow partitionRow = new GenericInternalRow(new Object[] {partition.pickedPartition()});
      InternalRow packed = new GenericInternalRow(new Object[] {partitionRow});
      scala.collection.Iterator<scala.collection.Iterator<InternalRow>> input =
          scala.collection.Iterator.single(scala.collection.Iterator.single(packed));
      TaskContext context = TaskContext.get();
      this.batches = runner.compute(input, context.partitionId(), context);
    }

    private static ArrowPythonRunner newRunner(PartitionEvaluator<InternalRow, InternalRow> evaluator) {
      try {
        Class<?> cls = Class.forName(RUNNER_CLASS, true, evaluator.getClass().getClassLoader());
        Constructor<?> ctor = cls.getDeclaredConstructor(evaluator.getClass(), int[][].class);
        ctor.setAccessible(true);
        return (ArrowPythonRunner) ctor.newInstance(evaluator, new int[][] {{0}});
      } catch (ReflectiveOperationException | ClassCastException e) {
        throw new IllegalStateException(
            "paimon_sql's columnar reader does not fit this Spark version (it needs pyspark 4.3.x): " + e, e);
      }
    }

    @Override
    public boolean next() {
      if (!batches.hasNext()) {
        return false;
      }
      ColumnarBatch batch = batches.next();
      ColumnVector packed = batch.column(0);
      DataType got = packed.dataType();
      if (!(packed instanceof ArrowColumnVector) || !(got instanceof StructType)
          || ((StructType) got).fields().length != outputSchema.fields().length) {
        throw new IllegalStateException(
            "The Python reader returned " + got.simpleString() + ", expected " + outputSchema.simpleString());
      }
      ArrowColumnVector struct = (ArrowColumnVector) packed;
      ColumnVector[] children = new ColumnVector[outputSchema.fields().length - (inputFile ? 1 : 0)];
      for (int i = 0; i < children.length; i++) {
        children[i] = ArrowDirectVector.of(struct.getChild(i));
      }
      if (inputFile) {
        ColumnVector file = struct.getChild(children.length);
        setInputFile(batch.numRows() > 0 && !file.isNullAt(0) ? file.getUTF8String(0).toString() : null);
      }
      current = new ColumnarBatch(children, batch.numRows());
      return true;
    }

    @Override
    public ColumnarBatch get() {
      return current;
    }

    @Override
    public void close() {
      // the runner releases its Arrow buffers and Python worker in a task-completion listener
      if (inputFile) {
        InputFileBlockHolder.unset();
      }
    }

    @Override
    public CustomTaskMetric[] currentMetricsValues() {
      Map<String, Object> values = new HashMap<>();
      scala.jdk.javaapi.CollectionConverters.asJava(metrics).forEach((k, m) -> values.put(k, m.value()));
      return source.createPythonTaskMetrics(
          scala.collection.immutable.Map.from(scala.jdk.javaapi.CollectionConverters.asScala(values)));
    }
  }
}
