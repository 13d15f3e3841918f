package org.paimon_sql.spark;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.catalog.functions.BoundFunction;
import org.apache.spark.sql.connector.catalog.functions.ScalarFunction;
import org.apache.spark.sql.connector.catalog.functions.UnboundFunction;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.CharType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.TimeType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;
import org.apache.spark.sql.types.VarcharType;

/**
 * {@code paimon_bucket(numBuckets INT, key1, key2, ...)}: the fixed bucket Paimon (and the
 * paimon_sql engine's writer) puts a row with these bucket-key values in, i.e.
 * {@code abs(murmur3(BinaryRow(keys)) % numBuckets)} with Paimon's MurmurHash (seed 42) over the
 * bytes of the keys' {@code BinaryRow}. The Spark types map to the Paimon types the engine writes
 * them as: BOOLEAN, TINYINT, SMALLINT, INT, BIGINT, FLOAT, DOUBLE, DATE, TIME (millis of the day),
 * STRING / CHAR / VARCHAR, BINARY, DECIMAL(p, s) (compact up to precision 18), and TIMESTAMP /
 * TIMESTAMP_NTZ as a Paimon timestamp of precision 4 to 9 (epoch millis in the variable part,
 * nano-of-milli in the slot). A Paimon TIMESTAMP(p &lt;= 3) column stores epoch millis like a
 * BIGINT: give {@code paimon_timestamp_millis(ts)} for it. Nulls hash as Paimon's null fields.
 *
 * <p>Binding another type (or no key, or a non-INT bucket count) throws
 * {@link UnsupportedOperationException}, which Spark's write planning treats as "no such
 * function"; {@link PaimonWrite} checks {@link #canBind} first and otherwise falls back.
 */
public class PaimonBucketFunction implements UnboundFunction {
  public static final String NAME = "paimon_bucket";
  /**
   * {@code paimon_bucket_slot(n, keys...)}: a value whose Spark hash partition among n shuffle
   * partitions is the key's bucket, so that a write clustered by it with n partitions sends each
   * bucket to a task of its own (clustering by the bucket number itself puts several buckets into
   * one task: Spark hashes 0..3 into 2 partitions as 3 + 1).
   */
  public static final String SLOT_NAME = "paimon_bucket_slot";
  static final PaimonBucketFunction INSTANCE = new PaimonBucketFunction(false);
  static final PaimonBucketFunction SLOTS = new PaimonBucketFunction(true);
  /** Above this many buckets the slot table is not built and the slot is the bucket itself. */
  static final int MAX_SLOT_BUCKETS = 1 << 16;

  private final boolean slot;

  private PaimonBucketFunction(boolean slot) {
    this.slot = slot;
  }

  private static final long serialVersionUID = 1L;

  // how a key column is written into a BinaryRow
  private static final int BOOLEAN = 0;
  private static final int BYTE = 1;
  private static final int SHORT = 2;
  private static final int INT = 3; // INT, DATE
  private static final int LONG = 4; // BIGINT, compact timestamp millis
  private static final int FLOAT = 5;
  private static final int DOUBLE = 6;
  private static final int DECIMAL_COMPACT = 7;
  private static final int DECIMAL = 8;
  private static final int TIMESTAMP = 9; // non-compact, from Spark's microseconds
  private static final int STRING = 10;
  private static final int BINARY = 11;
  private static final int TIME = 12; // Spark: nanos of the day; Paimon: int millis of the day

  private static final int MAX_COMPACT_PRECISION = 18;
  private static final int SEED = 42;
  private static final int SPARK_HASH_SEED = 42; // Spark's Murmur3Hash of HashPartitioning

  @Override
  public String name() {
    return slot ? SLOT_NAME : NAME;
  }

  @Override
  public String description() {
    if (slot) {
      return SLOT_NAME + "(numBuckets INT, key1, ...): an INT whose Spark hash partition among"
          + " numBuckets partitions is " + NAME + "(numBuckets, key1, ...)";
    }
    return NAME + "(numBuckets INT, key1, key2, ...): the Paimon fixed bucket of the bucket-key"
        + " values (abs(murmur3(BinaryRow(keys)) % numBuckets))";
  }

  /** Whether {@link #bind} accepts these argument types. */
  static boolean canBind(DataType... types) {
    try {
      INSTANCE.bind(struct(types));
      return true;
    } catch (UnsupportedOperationException e) {
      return false;
    }
  }

  static StructType struct(DataType... types) {
    StructField[] fields = new StructField[types.length];
    for (int i = 0; i < types.length; i++) {
      fields[i] = DataTypes.createStructField("_" + i, types[i], true);
    }
    return new StructType(fields);
  }

  @Override
  public BoundFunction bind(StructType inputType) {
    StructField[] fields = inputType.fields();
    if (fields.length < 2) {
      throw new UnsupportedOperationException(
          NAME + " needs the number of buckets and at least one key column, got " + fields.length
              + " argument(s)");
    }
    if (!(fields[0].dataType() instanceof IntegerType)) {
      throw new UnsupportedOperationException(
          NAME + ": the number of buckets must be an INT, got " + fields[0].dataType().sql());
    }
    int[] kinds = new int[fields.length - 1];
    int[] precisions = new int[kinds.length];
    int[] scales = new int[kinds.length];
    for (int i = 0; i < kinds.length; i++) {
      DataType t = fields[i + 1].dataType();
      kinds[i] = kind(t);
      if (t instanceof DecimalType) {
        DecimalType d = (DecimalType) t;
        precisions[i] = d.precision();
        scales[i] = d.scale();
        kinds[i] = d.precision() <= MAX_COMPACT_PRECISION ? DECIMAL_COMPACT : DECIMAL;
      }
    }
    DataType[] inputTypes = new DataType[fields.length];
    for (int i = 0; i < fields.length; i++) {
      inputTypes[i] = fields[i].dataType();
    }
    return new Bound(inputTypes, kinds, precisions, scales, slot);
  }

  private static int kind(DataType t) {
    if (t instanceof BooleanType) {
      return BOOLEAN;
    }
    if (t instanceof ByteType) {
      return BYTE;
    }
    if (t instanceof ShortType) {
      return SHORT;
    }
    if (t instanceof IntegerType || t instanceof DateType) {
      return INT;
    }
    if (t instanceof LongType) {
      return LONG;
    }
    if (t instanceof FloatType) {
      return FLOAT;
    }
    if (t instanceof DoubleType) {
      return DOUBLE;
    }
    if (t instanceof DecimalType) {
      return DECIMAL;
    }
    if (t instanceof TimestampType || t instanceof TimestampNTZType) {
      return TIMESTAMP;
    }
    if (t instanceof StringType || t instanceof CharType || t instanceof VarcharType) {
      return STRING;
    }
    if (t instanceof BinaryType) {
      return BINARY;
    }
    if (t instanceof TimeType) {
      return TIME;
    }
    throw new UnsupportedOperationException(
        NAME + " does not support bucket-key columns of type " + t.sql());
  }

  /** {@code Math.abs(hash % numBuckets)}, Paimon's default bucket function. */
  static int bucket(int hash, int numBuckets) {
    return Math.abs(hash % numBuckets);
  }

  /** Paimon's {@code MurmurHashUtils.hashBytes} of {@code len} bytes (a multiple of 4 here). */
  static int murmur(ByteBuffer le, int len) {
    int h = SEED;
    for (int i = 0; i + 4 <= len; i += 4) {
      h = mix(h, le.getInt(i));
    }
    for (int i = len - len % 4; i < len; i++) { // never for rows (multiples of 8); as Paimon does
      h = mix(h, le.get(i));
    }
    return fmix(h, len);
  }

  /** One 4-byte block of {@link #murmur}. */
  private static int mix(int h, int k) {
    k *= 0xcc9e2d51;
    k = Integer.rotateLeft(k, 15);
    k *= 0x1b873593;
    h ^= k;
    h = Integer.rotateLeft(h, 13);
    return h * 5 + 0xe6546b64;
  }

  /** The final avalanche of {@link #murmur} over {@code len} bytes. */
  private static int fmix(int h, int len) {
    h ^= len;
    h ^= h >>> 16;
    h *= 0x85ebca6b;
    h ^= h >>> 13;
    h *= 0xc2b2ae35;
    h ^= h >>> 16;
    return h;
  }

  /**
   * {@link #murmur} of the 16-byte BinaryRow of one non-null 8-byte slot: the header and null bits
   * (8 zero bytes), then {@code lo}, {@code hi} (little-endian halves of the slot). No allocation:
   * the common single-column BIGINT/INT key of a write's shuffle.
   */
  static int hashSingleSlot(int lo, int hi) {
    return fmix(mix(mix(mix(mix(SEED, 0), 0), lo), hi), 16);
  }

  /**
   * For each bucket b of n, the smallest int v >= 0 that Spark's hash partitioning of an INT
   * column sends to partition b of n: {@code pmod(Murmur3Hash(v, seed 42), n) == b}. About
   * n * ln(n) hashes (every partition is hit by some small v).
   */
  static int[] slotTable(int n) {
    int[] table = new int[n];
    java.util.Arrays.fill(table, -1);
    int missing = n;
    for (int v = 0; missing > 0; v++) {
      int p = Math.floorMod(org.apache.spark.unsafe.hash.Murmur3_x86_32.hashInt(v, SPARK_HASH_SEED), n);
      if (table[p] < 0) {
        table[p] = v;
        missing--;
      }
    }
    return table;
  }

  private static int round8(int n) {
    return (n + 7) & ~7;
  }

  /** The bound function: one instance per argument types. */
  static final class Bound implements ScalarFunction<Integer> {
    private static final long serialVersionUID = 1L;
    private final DataType[] inputTypes;
    private final int[] kinds;
    private final int[] precisions;
    private final int[] scales;
    private final int nullBitsSize;
    private final int fixedSize;

    private final boolean slot;
    private transient int[] slots; // slots[b]: the slot value of bucket b (for slotsOf buckets)
    private transient int slotsOf;

    Bound(DataType[] inputTypes, int[] kinds, int[] precisions, int[] scales, boolean slot) {
      this.slot = slot;
      this.inputTypes = inputTypes;
      this.kinds = kinds;
      this.precisions = precisions;
      this.scales = scales;
      this.nullBitsSize = ((kinds.length + 63 + 8) / 64) * 8;
      this.fixedSize = nullBitsSize + 8 * kinds.length;
    }

    @Override
    public DataType[] inputTypes() {
      return inputTypes.clone();
    }

    @Override
    public DataType resultType() {
      return DataTypes.IntegerType;
    }

    @Override
    public boolean isResultNullable() {
      return false;
    }

    @Override
    public String name() {
      return slot ? SLOT_NAME : NAME;
    }

    @Override
    public String canonicalName() {
      StringBuilder sb = new StringBuilder("paimon_sql." + name() + "(int");
      for (int i = 1; i < inputTypes.length; i++) {
        sb.append(", ").append(inputTypes[i].catalogString());
      }
      return sb.append(')').toString();
    }

    /** What EXPLAIN shows: {@code applyfunctionexpression(paimon_bucket, 4, id#1L)}. */
    @Override
    public String toString() {
      return name();
    }

    @Override
    public Integer produceResult(InternalRow input) {
      if (input.isNullAt(0)) {
        throw new IllegalArgumentException(NAME + ": the number of buckets is null");
      }
      int n = input.getInt(0);
      if (n <= 0) {
        throw new IllegalArgumentException(NAME + ": the number of buckets must be positive, got " + n);
      }
      int b = bucket(hash(input), n);
      return slot ? slotOf(b, n) : b;
    }

    private int slotOf(int bucket, int n) {
      if (n > MAX_SLOT_BUCKETS) {
        return bucket;
      }
      if (slots == null || slotsOf != n) {
        slots = slotTable(n);
        slotsOf = n;
      }
      return slots[bucket];
    }

    /** {@code BinaryRow.hashCode()} of the row of arguments 1..n. */
    int hash(InternalRow input) {
      int arity = kinds.length;
      if (arity == 1 && !input.isNullAt(1)) {
        if (kinds[0] == LONG) {
          long v = input.getLong(1);
          return hashSingleSlot((int) v, (int) (v >>> 32));
        }
        if (kinds[0] == INT) {
          return hashSingleSlot(input.getInt(1), 0);
        }
      }
      byte[][] bytes = new byte[arity][];
      int varSize = 0;
      for (int i = 0; i < arity; i++) {
        int pos = i + 1;
        boolean isNull = input.isNullAt(pos);
        switch (kinds[i]) {
          case STRING:
          case BINARY:
            if (!isNull) {
              byte[] b = kinds[i] == STRING ? input.getUTF8String(pos).getBytes() : input.getBinary(pos);
              bytes[i] = b;
              if (b.length > 7) {
                varSize += round8(b.length);
              }
            }
            break;
          case DECIMAL:
            if (!isNull) {
              BigDecimal d = input.getDecimal(pos, precisions[i], scales[i]).toJavaBigDecimal();
              bytes[i] = d.setScale(scales[i], RoundingMode.UNNECESSARY).unscaledValue().toByteArray();
            }
            varSize += 16; // reserved also for a null value
            break;
          case TIMESTAMP:
            varSize += 8; // reserved also for a null value
            break;
          default:
            break;
        }
      }
      int size = fixedSize + varSize;
      ByteBuffer buf = ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
      int cursor = fixedSize;
      for (int i = 0; i < arity; i++) {
        int pos = i + 1;
        int slot = nullBitsSize + 8 * i;
        boolean isNull = input.isNullAt(pos);
        if (isNull) {
          int bit = i + 8;
          buf.put(bit >> 3, (byte) (buf.get(bit >> 3) | (1 << (bit & 7))));
        }
        switch (kinds[i]) {
          case DECIMAL:
            // 16 bytes reserved; slot = offset << 32 | length (0 for null)
            int len = isNull ? 0 : bytes[i].length;
            if (!isNull) {
              buf.put(cursor, bytes[i]);
            }
            buf.putLong(slot, ((long) cursor << 32) | len);
            cursor += 16;
            continue;
          case TIMESTAMP:
            // 8 bytes reserved (epoch millis); slot = offset << 32 | nano of milli (0 for null)
            long nanoOfMilli = 0;
            if (!isNull) {
              long micros = input.getLong(pos);
              buf.putLong(cursor, Math.floorDiv(micros, 1000L));
              nanoOfMilli = Math.floorMod(micros, 1000L) * 1000L;
            }
            buf.putLong(slot, ((long) cursor << 32) | nanoOfMilli);
            cursor += 8;
            continue;
          default:
            break;
        }
        if (isNull) {
          continue; // slot stays 0
        }
        switch (kinds[i]) {
          case BOOLEAN:
            buf.put(slot, (byte) (input.getBoolean(pos) ? 1 : 0));
            break;
          case BYTE:
            buf.put(slot, input.getByte(pos));
            break;
          case SHORT:
            buf.putShort(slot, input.getShort(pos));
            break;
          case INT:
            buf.putInt(slot, input.getInt(pos));
            break;
          case TIME:
            buf.putInt(slot, (int) (input.getLong(pos) / 1_000_000L));
            break;
          case LONG:
            buf.putLong(slot, input.getLong(pos));
            break;
          case FLOAT:
            buf.putInt(slot, Float.floatToRawIntBits(input.getFloat(pos)));
            break;
          case DOUBLE:
            buf.putLong(slot, Double.doubleToRawLongBits(input.getDouble(pos)));
            break;
          case DECIMAL_COMPACT:
            buf.putLong(slot, input.getDecimal(pos, precisions[i], scales[i]).toUnscaledLong());
            break;
          case STRING:
          case BINARY:
            byte[] b = bytes[i];
            if (b.length <= 7) {
              // inlined: the bytes in the slot's low 7 bytes, 0x80 | length in the highest
              buf.put(slot, b);
              buf.put(slot + 7, (byte) (0x80 | b.length));
            } else {
              buf.put(cursor, b);
              buf.putLong(slot, ((long) cursor << 32) | b.length);
              cursor += round8(b.length);
            }
            break;
          default:
            throw new IllegalStateException("unknown kind " + kinds[i]);
        }
      }
      return murmur(buf, size);
    }
  }

  /**
   * {@code paimon_timestamp_millis(ts)}: the epoch milliseconds a Paimon TIMESTAMP(p &lt;= 3) (or
   * TIMESTAMP_LTZ) column holds for a Spark timestamp, as the engine's Spark writer stores it
   * (microseconds truncated toward zero, as Arrow's unsafe cast does). Its BIGINT result hashes in
   * {@code paimon_bucket} exactly like such a compact timestamp.
   */
  public static class TimestampMillis implements UnboundFunction {
    public static final String NAME = "paimon_timestamp_millis";
    static final TimestampMillis INSTANCE = new TimestampMillis();
    private static final long serialVersionUID = 1L;

    @Override
    public String name() {
      return NAME;
    }

    @Override
    public String description() {
      return NAME + "(ts TIMESTAMP | TIMESTAMP_NTZ): epoch milliseconds as a Paimon TIMESTAMP(p <= 3)"
          + " column stores them (microseconds truncated toward zero)";
    }

    @Override
    public BoundFunction bind(StructType inputType) {
      StructField[] fields = inputType.fields();
      if (fields.length != 1
          || !(fields[0].dataType() instanceof TimestampType
              || fields[0].dataType() instanceof TimestampNTZType)) {
        throw new UnsupportedOperationException(NAME + " takes one TIMESTAMP or TIMESTAMP_NTZ argument");
      }
      DataType in = fields[0].dataType();
      return new ScalarFunction<Long>() {
        private static final long serialVersionUID = 1L;

        @Override
        public DataType[] inputTypes() {
          return new DataType[] {in};
        }

        @Override
        public DataType resultType() {
          return DataTypes.LongType;
        }

        @Override
        public String name() {
          return NAME;
        }

        @Override
        public String canonicalName() {
          return "paimon_sql." + NAME + "(" + in.catalogString() + ")";
        }

        @Override
        public String toString() {
          return NAME;
        }

        @Override
        public Long produceResult(InternalRow input) {
          return input.isNullAt(0) ? null : input.getLong(0) / 1000L;
        }
      };
    }
  }
}
