package org.paimon_sql.spark;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.util.ArrayBasedMapData;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.catalyst.util.MapData;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Catalyst values to JSON-able Java values and back, for procedure arguments and results.
 * Dates travel as ISO strings (to Python) or epoch days / ISO strings (from Python), timestamps
 * as microseconds since the epoch, decimals as strings, binary as base64... (not needed yet).
 */
final class Values {
  private Values() {}

  static Object toJava(Object v, DataType t) {
    if (v == null) {
      return null;
    }
    if (v instanceof UTF8String) {
      return v.toString();
    }
    if (t instanceof DateType) {
      return LocalDate.ofEpochDay(((Number) v).longValue()).toString();
    }
    if (v instanceof Decimal) {
      return ((Decimal) v).toJavaBigDecimal().toPlainString();
    }
    if (t instanceof ArrayType) {
      ArrayData a = (ArrayData) v;
      DataType et = ((ArrayType) t).elementType();
      List<Object> out = new ArrayList<>();
      for (int i = 0; i < a.numElements(); i++) {
        out.add(a.isNullAt(i) ? null : toJava(a.get(i, et), et));
      }
      return out;
    }
    if (t instanceof MapType) {
      MapData m = (MapData) v;
      MapType mt = (MapType) t;
      Map<String, Object> out = new LinkedHashMap<>();
      ArrayData ks = m.keyArray();
      ArrayData vs = m.valueArray();
      for (int i = 0; i < m.numElements(); i++) {
        out.put(String.valueOf(toJava(ks.get(i, mt.keyType()), mt.keyType())),
            vs.isNullAt(i) ? null : toJava(vs.get(i, mt.valueType()), mt.valueType()));
      }
      return out;
    }
    if (v instanceof byte[]) {
      return java.util.Base64.getEncoder().encodeToString((byte[]) v);
    }
    return v;
  }

  static Object arg(InternalRow row, int i, DataType t) {
    return row.isNullAt(i) ? null : toJava(row.get(i, t), t);
  }

  static Object toCatalyst(Object v, DataType t) {
    if (v == null) {
      return null;
    }
    if (t instanceof StringType) {
      return UTF8String.fromString(v instanceof String ? (String) v : String.valueOf(v));
    }
    if (t instanceof LongType) {
      return ((Number) v).longValue();
    }
    if (t instanceof IntegerType) {
      return ((Number) v).intValue();
    }
    if (t instanceof ShortType) {
      return ((Number) v).shortValue();
    }
    if (t instanceof ByteType) {
      return ((Number) v).byteValue();
    }
    if (t instanceof DoubleType) {
      return ((Number) v).doubleValue();
    }
    if (t instanceof FloatType) {
      return ((Number) v).floatValue();
    }
    if (t instanceof BooleanType) {
      return v instanceof Boolean ? v : Boolean.parseBoolean(String.valueOf(v));
    }
    if (t instanceof DecimalType) {
      DecimalType dt = (DecimalType) t;
      Decimal d = Decimal.apply(new BigDecimal(String.valueOf(v)));
      d.changePrecision(dt.precision(), dt.scale());
      return d;
    }
    if (t instanceof DateType) {
      if (v instanceof Number) {
        return ((Number) v).intValue();
      }
      return (int) LocalDate.parse(String.valueOf(v)).toEpochDay();
    }
    if (t instanceof TimestampType || t instanceof TimestampNTZType) {
      return ((Number) v).longValue();
    }
    if (t instanceof BinaryType) {
      return java.util.Base64.getDecoder().decode(String.valueOf(v));
    }
    if (t instanceof ArrayType) {
      DataType et = ((ArrayType) t).elementType();
      List<?> l = (List<?>) v;
      Object[] out = new Object[l.size()];
      for (int i = 0; i < out.length; i++) {
        out[i] = toCatalyst(l.get(i), et);
      }
      return new GenericArrayData(out);
    }
    if (t instanceof MapType) {
      MapType mt = (MapType) t;
      Map<?, ?> m = (Map<?, ?>) v;
      Object[] ks = new Object[m.size()];
      Object[] vs = new Object[m.size()];
      int i = 0;
      for (Map.Entry<?, ?> e : m.entrySet()) {
        ks[i] = toCatalyst(e.getKey(), mt.keyType());
        vs[i] = toCatalyst(e.getValue(), mt.valueType());
        i++;
      }
      return new ArrayBasedMapData(new GenericArrayData(ks), new GenericArrayData(vs));
    }
    throw new IllegalArgumentException("procedure result type " + t.simpleString() + " is not supported");
  }
}
