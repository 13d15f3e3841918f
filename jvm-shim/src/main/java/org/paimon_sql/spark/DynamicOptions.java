package org.paimon_sql.spark;

import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.internal.SQLConf;

/**
 * Paimon's dynamic options for Spark: session settings {@code spark.paimon.<key>} apply to every
 * table, {@code spark.paimon.<catalog>.<database>.<table>.<key>} (each name or {@code *}) to the
 * tables they match and win over the global ones; per-query options win over both. The engine
 * checks and applies them (a key a table keeps for life, such as {@code bucket}, is refused).
 * paimon_sql's own session keys ({@code spark.paimon.read.native}) are not Paimon options.
 */
final class DynamicOptions {
  static final String PREFIX = "spark.paimon.";

  private DynamicOptions() {}

  static Map<String, String> of(String catalog, Identifier ident) {
    Map<String, String> global = new HashMap<>();
    Map<String, String> table = new HashMap<>();
    if (ident.namespace().length != 1) {
      return global;
    }
    Pattern perTable = Pattern.compile(
        Pattern.quote(PREFIX) + "(" + Pattern.quote(catalog) + "|\\*)\\.(" + Pattern.quote(ident.namespace()[0])
            + "|\\*)\\.(" + Pattern.quote(tableName(ident)) + "|\\*)\\.(.+)");
    for (Map.Entry<String, String> e :
        scala.jdk.javaapi.CollectionConverters.asJava(SQLConf.get().getAllConfs()).entrySet()) {
      String key = e.getKey();
      if (!key.startsWith(PREFIX) || key.equals(PaimonScanBuilder.NATIVE_CONF)) {
        continue;
      }
      Matcher m = perTable.matcher(key);
      if (m.matches()) {
        table.put(m.group(4), e.getValue());
      } else {
        global.put(key.substring(PREFIX.length()), e.getValue());
      }
    }
    global.putAll(table);
    return global;
  }

  static final String LEGACY_TIMESTAMP_MAPPING_CONF = PREFIX + "legacy-timestamp-mapping.enabled";

  /**
   * Paimon's {@code spark.paimon.legacy-timestamp-mapping.enabled} (read from the session only, as
   * Paimon's OptionUtils does): Paimon TIMESTAMP columns are Spark TIMESTAMP instead of TIMESTAMP_NTZ.
   */
  static boolean legacyTimestampMapping() {
    String v = SQLConf.get().getConfString(LEGACY_TIMESTAMP_MAPPING_CONF, "false").trim().toLowerCase(java.util.Locale.ROOT);
    if (!v.equals("true") && !v.equals("false")) {
      throw new IllegalArgumentException(
          "Option " + LEGACY_TIMESTAMP_MAPPING_CONF + " must be true or false, got '" + v + "'");
    }
    return v.equals("true");
  }

  /** {@code t} of {@code t}, {@code t$branch_b} or {@code t$files}. */
  private static String tableName(Identifier ident) {
    String name = ident.name();
    int i = name.indexOf('$');
    return i < 0 ? name : name.substring(0, i);
  }
}
