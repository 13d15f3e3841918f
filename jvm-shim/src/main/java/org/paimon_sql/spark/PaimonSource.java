package org.paimon_sql.spark;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.analysis.NoSuchTableException;
import org.apache.spark.sql.connector.catalog.CatalogPlugin;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableProvider;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.sources.DataSourceRegister;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import scala.jdk.javaapi.CollectionConverters;

/**
 * The {@code paimon} data source of the DataFrame API, as Paimon's {@code SparkSource}: a table
 * by its folder, {@code spark.read.format("paimon").load("/wh/db.db/t")} (or {@code
 * .option("path", ...)}), and {@code df.write.format("paimon").mode("append" | "overwrite")
 * .save(path)}, and streaming writes {@code df.writeStream.format("paimon").option("checkpointLocation",
 * ...).start(path)} (see {@link PaimonWrite#toStreaming()}). Time travel as options ({@code scan.snapshot-id}, {@code scan.tag-name}, {@code
 * scan.timestamp-millis}, {@code scan.version}). The table behaves exactly as the same table of a
 * catalog: it is loaded through a Paimon catalog of the session on that warehouse when there is
 * one, else through a catalog of its own on the warehouse (which creates nothing there).
 * Registered as {@code META-INF/services/org.apache.spark.sql.sources.DataSourceRegister}.
 */
public class PaimonSource implements TableProvider, DataSourceRegister {
  public static final String NAME = "paimon";
  private static final String CATALOG_CONF = "spark.sql.catalog.";
  /** Catalogs of their own, by warehouse (path reads where the session has no catalog on it). */
  private static final Map<String, PaimonCatalog> PATH_CATALOGS = new ConcurrentHashMap<>();

  @Override
  public String shortName() {
    return NAME;
  }

  @Override
  @SuppressWarnings("deprecation")
  public StructType inferSchema(CaseInsensitiveStringMap options) {
    return load(options).schema();
  }

  @Override
  public Table getTable(StructType schema, Transform[] partitioning, Map<String, String> properties) {
    return load(new CaseInsensitiveStringMap(properties));
  }

  @SuppressWarnings("unchecked")
  private static PaimonTable load(CaseInsensitiveStringMap options) {
    String path = options.get("path");
    if (path == null || path.isEmpty()) {
      throw Errors.sneaky(new PaimonException(ErrorKind.ILLEGAL_ARGUMENT,
          "The paimon data source needs the table's folder: load(path) or save(path) (or the option "
              + "'path'), <warehouse>/<db>.db/<table>; tables of a catalog are read with "
              + "spark.table(\"paimon.db.t\")", null));
    }
    Map<String, Object> p = new HashMap<>();
    p.put("path", path);
    Map<String, Object> r = PaimonCatalog.call("table_of_path", p);
    String warehouse = PaimonCatalog.absoluteWarehouse((String) r.get("warehouse"));
    Identifier ident = Identifier.of(new String[] {(String) r.get("namespace")}, (String) r.get("table"));
    PaimonCatalog catalog = catalogOf(warehouse);
    try {
      PaimonTable t = ((PaimonTable) loadAt(catalog, ident, options)).loadedByPath();
      // read.changelog: Paimon's SparkSource reads the table's audit log (a first rowkind column)
      return "true".equalsIgnoreCase(options.getOrDefault("read.changelog", "false").trim())
          ? t.withRowKindColumn()
          : t;
    } catch (NoSuchTableException e) {
      throw Errors.sneaky(e);
    }
  }

  /**
   * The table at the snapshot its time-travel options name; the table as it is when that
   * snapshot does not exist (yet): a stream starts at a snapshot to come ({@code scan.snapshot-id})
   * or at a time before the first one ({@code scan.timestamp-millis}), and a batch read of such a
   * snapshot fails in the Python reader with the same error.
   */
  private static Table loadAt(PaimonCatalog catalog, Identifier ident, CaseInsensitiveStringMap options)
      throws NoSuchTableException {
    if (!options.containsKey("scan.snapshot-id") && !options.containsKey("scan.tag-name")
        && !options.containsKey("scan.version") && !options.containsKey("scan.timestamp-millis")) {
      return catalog.loadTable(ident);
    }
    try {
      return loadTravelled(catalog, ident, options);
    } catch (NumberFormatException e) {
      throw Errors.sneaky(new PaimonException(ErrorKind.ILLEGAL_ARGUMENT,
          "Option 'scan.timestamp-millis' must be an integer, got '" + options.get("scan.timestamp-millis")
              + "'", null));
    } catch (NoSuchTableException e) {
      throw e;
    } catch (Exception e) { // the bridge's error for a snapshot or tag that does not exist
      return catalog.loadTable(ident);
    }
  }

  private static Table loadTravelled(PaimonCatalog catalog, Identifier ident, CaseInsensitiveStringMap options)
      throws NoSuchTableException {
    if (options.containsKey("scan.snapshot-id")) {
      return catalog.loadTable(ident, options.get("scan.snapshot-id"));
    } else if (options.containsKey("scan.tag-name")) {
      return catalog.loadTable(ident, options.get("scan.tag-name"));
    } else if (options.containsKey("scan.version")) {
      return catalog.loadTable(ident, options.get("scan.version"));
    }
    return catalog.loadTable(ident, Long.parseLong(options.get("scan.timestamp-millis").trim()) * 1000L);
  }

  /** Drops the catalog of its own kept for {@code warehouse} (a warehouse that is gone). */
  static void forget(String warehouse) {
    PATH_CATALOGS.remove(warehouse);
  }

  /** A Paimon catalog of the active session on {@code warehouse}, else one of its own. */
  private static PaimonCatalog catalogOf(String warehouse) {
    SparkSession session = SparkSession.active();
    Map<String, String> conf = CollectionConverters.asJava(session.conf().getAll());
    for (Map.Entry<String, String> e : conf.entrySet()) {
      String key = e.getKey();
      if (!key.startsWith(CATALOG_CONF) || !PaimonCatalog.class.getName().equals(e.getValue())) {
        continue;
      }
      String name = key.substring(CATALOG_CONF.length());
      if (name.contains(".")) {
        continue;
      }
      String wh = conf.getOrDefault(key + ".warehouse", "warehouse");
      if (PaimonCatalog.absoluteWarehouse(wh).equals(warehouse)) {
        CatalogPlugin c = session.sessionState().catalogManager().catalog(name);
        if (c instanceof PaimonCatalog pc) {
          return pc;
        }
      }
    }
    return PATH_CATALOGS.computeIfAbsent(warehouse, PaimonCatalog::ofPath);
  }
}
