package org.paimon_sql.spark;

import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.TimeStampMicroVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;
import org.apache.spark.sql.vectorized.ArrowColumnVector;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarArray;
import org.apache.spark.sql.vectorized.ColumnarMap;
import org.apache.spark.unsafe.Platform;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * A flat Arrow vector of one batch, read straight from its buffers' memory, as Spark's own
 * off-heap column vectors are read.
 *
 * <p>Spark's {@link ArrowColumnVector} reads every value through Arrow's checked accessors: each
 * {@code isNullAt} and each value reads the validity bit through a bounds check and a reference
 * count check, twice for a value (Arrow's {@code get} checks for null again). On a Python-path scan
 * those checks were about half of the JVM's time (profile in docs/benchmarks.md). This vector reads
 * the same buffers with the layout Arrow's format fixes (validity bits LSB first, fixed-width values,
 * 32-bit offsets), and answers {@code isNullAt} without reading memory when the batch has no nulls.
 *
 * <p>Only the flat types whose Arrow vector has that layout are read so ({@link #of}); any other
 * vector stays Spark's. Row ids must be below the batch's row count (the contract of
 * {@link ColumnVector}, which Spark's generated code keeps); the buffers are the batch's and are
 * valid until the reader loads the next batch, as with Spark's vector.
 */
final class ArrowDirectVector extends ColumnVector {
  private enum Kind { BOOLEAN, BYTE, SHORT, INT, LONG, FLOAT, DOUBLE, UTF8, BINARY }

  private final ArrowColumnVector arrow; // for close() and the types this class does not read
  private final Kind kind;
  private final int nulls;
  private final long validity;
  private final long data;
  private final long offsets;

  private ArrowDirectVector(ArrowColumnVector arrow, Kind kind, ValueVector v) {
    super(arrow.dataType());
    this.arrow = arrow;
    this.kind = kind;
    this.nulls = v.getNullCount();
    if (v instanceof BaseVariableWidthVector) {
      BaseVariableWidthVector w = (BaseVariableWidthVector) v;
      this.validity = w.getValidityBufferAddress();
      this.data = w.getDataBufferAddress();
      this.offsets = w.getOffsetBufferAddress();
    } else {
      BaseFixedWidthVector w = (BaseFixedWidthVector) v;
      this.validity = w.getValidityBufferAddress();
      this.data = w.getDataBufferAddress();
      this.offsets = 0;
    }
  }

  /** {@code vector} read directly when its type and Arrow vector are one of the flat layouts, else itself. */
  static ColumnVector of(ColumnVector vector) {
    if (!(vector instanceof ArrowColumnVector)) {
      return vector;
    }
    ArrowColumnVector arrow = (ArrowColumnVector) vector;
    ValueVector v = arrow.getValueVector();
    Kind kind = kindOf(arrow.dataType(), v);
    if (kind == null || v.getValueCount() == 0) {
      return vector; // an empty vector may have no buffers at all
    }
    return new ArrowDirectVector(arrow, kind, v);
  }

  private static Kind kindOf(DataType t, ValueVector v) {
    if (t instanceof BooleanType && v instanceof BitVector) return Kind.BOOLEAN;
    if (t instanceof ByteType && v instanceof TinyIntVector) return Kind.BYTE;
    if (t instanceof ShortType && v instanceof SmallIntVector) return Kind.SHORT;
    if (t instanceof IntegerType && v instanceof IntVector) return Kind.INT;
    if (t instanceof DateType && v instanceof DateDayVector) return Kind.INT;
    if (t instanceof LongType && v instanceof BigIntVector) return Kind.LONG;
    if (t instanceof TimestampType && v instanceof TimeStampMicroTZVector) return Kind.LONG;
    if (t instanceof TimestampNTZType && v instanceof TimeStampMicroVector) return Kind.LONG;
    if (t instanceof FloatType && v instanceof Float4Vector) return Kind.FLOAT;
    if (t instanceof DoubleType && v instanceof Float8Vector) return Kind.DOUBLE;
    if (t instanceof StringType && v instanceof VarCharVector) return Kind.UTF8;
    if (t instanceof BinaryType && v instanceof VarBinaryVector) return Kind.BINARY;
    return null;
  }

  @Override
  public void close() {
    arrow.close();
  }

  @Override
  public boolean hasNull() {
    return nulls > 0;
  }

  @Override
  public int numNulls() {
    return nulls;
  }

  @Override
  public boolean isNullAt(int rowId) {
    return nulls > 0 && ((Platform.getByte(null, validity + (rowId >> 3)) >> (rowId & 7)) & 1) == 0;
  }

  @Override
  public boolean getBoolean(int rowId) {
    if (kind != Kind.BOOLEAN) return arrow.getBoolean(rowId);
    return ((Platform.getByte(null, data + (rowId >> 3)) >> (rowId & 7)) & 1) != 0;
  }

  @Override
  public byte getByte(int rowId) {
    return kind == Kind.BYTE ? Platform.getByte(null, data + rowId) : arrow.getByte(rowId);
  }

  @Override
  public short getShort(int rowId) {
    return kind == Kind.SHORT ? Platform.getShort(null, data + 2L * rowId) : arrow.getShort(rowId);
  }

  @Override
  public int getInt(int rowId) {
    return kind == Kind.INT ? Platform.getInt(null, data + 4L * rowId) : arrow.getInt(rowId);
  }

  @Override
  public long getLong(int rowId) {
    return kind == Kind.LONG ? Platform.getLong(null, data + 8L * rowId) : arrow.getLong(rowId);
  }

  @Override
  public float getFloat(int rowId) {
    return kind == Kind.FLOAT ? Platform.getFloat(null, data + 4L * rowId) : arrow.getFloat(rowId);
  }

  @Override
  public double getDouble(int rowId) {
    return kind == Kind.DOUBLE ? Platform.getDouble(null, data + 8L * rowId) : arrow.getDouble(rowId);
  }

  @Override
  public UTF8String getUTF8String(int rowId) {
    if (kind != Kind.UTF8) return arrow.getUTF8String(rowId);
    if (isNullAt(rowId)) return null;
    int start = Platform.getInt(null, offsets + 4L * rowId);
    int end = Platform.getInt(null, offsets + 4L * rowId + 4);
    return UTF8String.fromAddress(null, data + start, end - start);
  }

  @Override
  public byte[] getBinary(int rowId) {
    if (kind != Kind.BINARY) return arrow.getBinary(rowId);
    if (isNullAt(rowId)) return null;
    int start = Platform.getInt(null, offsets + 4L * rowId);
    int end = Platform.getInt(null, offsets + 4L * rowId + 4);
    byte[] out = new byte[end - start];
    Platform.copyMemory(null, data + start, out, Platform.BYTE_ARRAY_OFFSET, out.length);
    return out;
  }

  @Override
  public Decimal getDecimal(int rowId, int precision, int scale) {
    return arrow.getDecimal(rowId, precision, scale);
  }

  @Override
  public ColumnarArray getArray(int rowId) {
    return arrow.getArray(rowId);
  }

  @Override
  public ColumnarMap getMap(int rowId) {
    return arrow.getMap(rowId);
  }

  @Override
  public ColumnVector getChild(int ordinal) {
    return arrow.getChild(ordinal);
  }
}
