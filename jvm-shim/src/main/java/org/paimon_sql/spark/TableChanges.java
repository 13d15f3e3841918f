package org.paimon_sql.spark;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.connector.catalog.TableChange;

/** Spark's ALTER TABLE changes as JSON-able maps for the Python {@code alter_table} handler. */
final class TableChanges {
  private TableChanges() {}

  static List<Map<String, Object>> toJson(TableChange[] changes) {
    List<Map<String, Object>> out = new ArrayList<>();
    for (TableChange c : changes) {
      out.add(toJson(c));
    }
    return out;
  }

  private static String position(TableChange.ColumnPosition pos) {
    if (pos == null) {
      return null;
    }
    if (pos instanceof TableChange.First) {
      return "first";
    }
    if (pos instanceof TableChange.After) {
      return "after:" + ((TableChange.After) pos).column();
    }
    return pos.toString();
  }

  static Map<String, Object> toJson(TableChange c) {
    Map<String, Object> m = new LinkedHashMap<>();
    if (c instanceof TableChange.SetProperty) {
      TableChange.SetProperty s = (TableChange.SetProperty) c;
      m.put("op", "set_property");
      m.put("key", s.property());
      m.put("value", s.value());
    } else if (c instanceof TableChange.RemoveProperty) {
      m.put("op", "remove_property");
      m.put("key", ((TableChange.RemoveProperty) c).property());
    } else if (c instanceof TableChange.AddColumn) {
      TableChange.AddColumn a = (TableChange.AddColumn) c;
      m.put("op", "add_column");
      m.put("name", Arrays.asList(a.fieldNames()));
      m.put("type", a.dataType().json());
      m.put("nullable", a.isNullable());
      m.put("comment", a.comment());
      m.put("position", position(a.position()));
      m.put("has_default", a.defaultValue() != null);
      m.put("default", a.defaultValue() != null ? a.defaultValue().getSql() : null);
    } else if (c instanceof TableChange.DeleteColumn) {
      TableChange.DeleteColumn d = (TableChange.DeleteColumn) c;
      m.put("op", "drop_column");
      m.put("name", Arrays.asList(d.fieldNames()));
      m.put("if_exists", Boolean.TRUE.equals(d.ifExists()));
    } else if (c instanceof TableChange.RenameColumn) {
      TableChange.RenameColumn r = (TableChange.RenameColumn) c;
      m.put("op", "rename_column");
      m.put("name", Arrays.asList(r.fieldNames()));
      m.put("new_name", r.newName());
    } else if (c instanceof TableChange.UpdateColumnType) {
      TableChange.UpdateColumnType u = (TableChange.UpdateColumnType) c;
      m.put("op", "update_column_type");
      m.put("name", Arrays.asList(u.fieldNames()));
      m.put("type", u.newDataType().json());
    } else if (c instanceof TableChange.UpdateColumnNullability) {
      TableChange.UpdateColumnNullability u = (TableChange.UpdateColumnNullability) c;
      m.put("op", "update_column_nullability");
      m.put("name", Arrays.asList(u.fieldNames()));
      m.put("nullable", u.nullable());
    } else if (c instanceof TableChange.UpdateColumnComment) {
      TableChange.UpdateColumnComment u = (TableChange.UpdateColumnComment) c;
      m.put("op", "update_column_comment");
      m.put("name", Arrays.asList(u.fieldNames()));
      m.put("comment", u.newComment());
    } else if (c instanceof TableChange.UpdateColumnPosition) {
      TableChange.UpdateColumnPosition u = (TableChange.UpdateColumnPosition) c;
      m.put("op", "update_column_position");
      m.put("name", Arrays.asList(u.fieldNames()));
      m.put("position", position(u.position()));
    } else if (c instanceof TableChange.UpdateColumnDefaultValue u) {
      // ALTER COLUMN c SET DEFAULT <sql> / DROP DEFAULT (an empty text)
      m.put("op", "update_column_default");
      m.put("name", Arrays.asList(u.fieldNames()));
      m.put("default", u.newCurrentDefault() == null ? null : u.newCurrentDefault().getSql());
    } else {
      m.put("op", "unsupported");
      m.put("description", c.toString());
    }
    return m;
  }
}
