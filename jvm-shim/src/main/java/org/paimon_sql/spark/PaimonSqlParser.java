package org.paimon_sql.spark;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.FunctionIdentifier;
import org.apache.spark.sql.catalyst.TableIdentifier;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.parser.ParameterContext;
import org.apache.spark.sql.catalyst.parser.ParseException;
import org.apache.spark.sql.catalyst.parser.ParserInterface;
import org.apache.spark.sql.catalyst.parser.SqlStatementSplitResult;
import org.apache.spark.sql.catalyst.parser.TemporalIdentifier;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.connector.catalog.CatalogPlugin;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Spark's parser, plus what Spark's grammar lacks: unquoted system tables ({@code db.t$files}),
 * {@code CALL sys.proc(...)} when the current catalog is not a Paimon catalog, and Paimon's tag
 * statements ({@code SHOW TAGS t}, {@code ALTER TABLE t CREATE TAG n ...}, {@code ... DELETE TAG},
 * {@code ... RENAME TAG}) on tables of a Paimon catalog; and {@code ALTER TABLE t DROP PARTITION}
 * on a table of a Paimon catalog becomes {@link PaimonDropPartitions} (partial specs, as Paimon's
 * extension). Only statements that may need it (they
 * contain '$', CALL sys., or look like a tag statement) are sent to the Python {@code
 * rewrite_statement} handler, which rewrites them with sqlglot's Spark tokenizer; everything else
 * goes to Spark's parser untouched.
 */
public class PaimonSqlParser implements ParserInterface {
  private static final Logger LOG = LoggerFactory.getLogger(PaimonSqlParser.class);
  private static final String LEADING_COMMENTS = "(?is)^(\\s|--[^\\n]*(\\n|$)|/\\*.*?\\*/)*";
  private static final Pattern CALL_SYS =
      Pattern.compile(LEADING_COMMENTS + "CALL\\s+`?sys`?\\s*\\..*");
  /** A cheap pre-check: statements that may be tag statements (Python parses them for real). */
  private static final Pattern TAG_STATEMENT =
      Pattern.compile(LEADING_COMMENTS
          + "(SHOW\\s+TAGS\\b|ALTER\\s+TABLE\\b.*\\b(CREATE|REPLACE|DELETE|RENAME)\\s+TAG\\b).*");
  private static final String CATALOG_CONF = "spark.sql.catalog.";
  static final String CATALOG_CLASS = PaimonCatalog.class.getName();

  private final SparkSession session;
  private final ParserInterface delegate;

  public PaimonSqlParser(SparkSession session, ParserInterface delegate) {
    this.session = session;
    this.delegate = delegate;
  }

  /** The Paimon catalog for {@code CALL sys.x}: null when the current catalog is one. */
  String procedureCatalog() {
    try {
      CatalogPlugin current = session.sessionState().catalogManager().currentCatalog();
      if (current instanceof PaimonCatalog) {
        return null;
      }
    } catch (RuntimeException e) {
      LOG.debug("no current catalog: " + e);
    }
    String found = null;
    Map<String, String> confs =
        scala.jdk.javaapi.CollectionConverters.asJava(session.sessionState().conf().getAllConfs());
    for (Map.Entry<String, String> e : confs.entrySet()) {
      String k = e.getKey();
      if (k.startsWith("spark.sql.catalog.") && k.indexOf('.', "spark.sql.catalog.".length()) < 0
          && CATALOG_CLASS.equals(e.getValue())) {
        String name = k.substring("spark.sql.catalog.".length());
        if ("paimon".equals(name)) {
          return name;
        }
        if (found == null || name.compareTo(found) < 0) {
          found = name;
        }
      }
    }
    return found;
  }

  /**
   * The session's catalogs, for the tag statements: the current catalog, and every registered
   * catalog name with whether it is a Paimon catalog (a table name's first part names its catalog
   * when it is one of them, as in Spark).
   */
  Map<String, Object> sessionCatalogs() {
    Map<String, Boolean> catalogs = new TreeMap<>();
    Map<String, String> confs =
        scala.jdk.javaapi.CollectionConverters.asJava(session.sessionState().conf().getAllConfs());
    for (Map.Entry<String, String> e : confs.entrySet()) {
      String k = e.getKey();
      if (k.startsWith(CATALOG_CONF) && k.indexOf('.', CATALOG_CONF.length()) < 0) {
        catalogs.put(k.substring(CATALOG_CONF.length()), CATALOG_CLASS.equals(e.getValue()));
      }
    }
    catalogs.putIfAbsent("spark_catalog", false);
    CatalogPlugin current = session.sessionState().catalogManager().currentCatalog();
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("current_catalog", current.name());
    out.put("current_is_ours", current instanceof PaimonCatalog);
    out.put("catalogs", catalogs);
    return out;
  }

  /** The statement as Spark should parse it. */
  String rewrite(String sql) {
    boolean dollar = sql.indexOf('$') >= 0;
    String catalog = null;
    if (CALL_SYS.matcher(sql).matches()) {
      catalog = procedureCatalog();
    }
    Map<String, Object> catalogs = null;
    if (TAG_STATEMENT.matcher(sql).matches()) {
      try {
        catalogs = sessionCatalogs();
      } catch (RuntimeException e) {
        LOG.debug("no current catalog for a tag statement: " + e);
      }
    }
    boolean tags = catalogs != null;
    if (!dollar && catalog == null && !tags) {
      return sql;
    }
    Map<String, Object> p = new LinkedHashMap<>();
    p.put("sql", sql);
    p.put("catalog", catalog);
    if (tags) {
      p.put("session", catalogs);
    }
    try {
      Object out = PythonBridge.forSession().call("rewrite_statement", p).get("sql");
      if (out instanceof String rewritten && !sql.equals(rewritten)) {
        LOG.debug("rewrote statement: " + sql + "  ==>  " + rewritten);
        return rewritten;
      }
    } catch (BridgeException e) {
      if (tags && e.is(ErrorKind.ILLEGAL_ARGUMENT)) {
        throw e.raise(); // a malformed tag statement on a Paimon table: say what is wrong
      }
      LOG.warn("statement rewrite failed (" + e.getMessage() + "); parsing the statement as is");
    }
    return sql;
  }

  @Override
  public LogicalPlan parsePlan(String sqlText) throws ParseException {
    return PaimonDropPartitions.rewrite(session, delegate.parsePlan(rewrite(sqlText)));
  }

  @Override
  public LogicalPlan parsePlanWithParameters(String sqlText, ParameterContext ctx) throws ParseException {
    return PaimonDropPartitions.rewrite(session, delegate.parsePlanWithParameters(rewrite(sqlText), ctx));
  }

  @Override
  public LogicalPlan parseQuery(String sqlText) throws ParseException {
    return delegate.parseQuery(rewrite(sqlText));
  }

  @Override
  public Expression parseExpression(String sqlText) throws ParseException {
    return delegate.parseExpression(sqlText);
  }

  @Override
  public TableIdentifier parseTableIdentifier(String sqlText) throws ParseException {
    try {
      return delegate.parseTableIdentifier(sqlText);
    } catch (ParseException e) {
      String r = sqlText.indexOf('$') >= 0 ? rewrite(sqlText) : sqlText;
      if (r.equals(sqlText)) {
        throw e;
      }
      return delegate.parseTableIdentifier(r);
    }
  }

  @Override
  public FunctionIdentifier parseFunctionIdentifier(String sqlText) throws ParseException {
    return delegate.parseFunctionIdentifier(sqlText);
  }

  /** {@code df.writeTo("db.t$files")} and friends. */
  @Override
  public scala.collection.immutable.Seq<String> parseMultipartIdentifier(String sqlText)
      throws ParseException {
    try {
      return delegate.parseMultipartIdentifier(sqlText);
    } catch (ParseException e) {
      String r = sqlText.indexOf('$') >= 0 ? rewrite(sqlText) : sqlText;
      if (r.equals(sqlText)) {
        throw e;
      }
      return delegate.parseMultipartIdentifier(r);
    }
  }

  /** {@code spark.table("db.t$files")} (DataFrameReader.table). */
  @Override
  public TemporalIdentifier parseTemporalTableIdentifier(String sqlText) throws ParseException {
    try {
      return delegate.parseTemporalTableIdentifier(sqlText);
    } catch (ParseException e) {
      String r = sqlText.indexOf('$') >= 0 ? rewrite(sqlText) : sqlText;
      if (r.equals(sqlText)) {
        throw e;
      }
      return delegate.parseTemporalTableIdentifier(r);
    }
  }

  @Override
  public StructType parseRoutineParam(String sqlText) throws ParseException {
    return delegate.parseRoutineParam(sqlText);
  }

  @Override
  public SqlStatementSplitResult splitStatements(String sqlText) {
    return delegate.splitStatements(sqlText);
  }

  @Override
  public StructType parseTableSchema(String sqlText) throws ParseException {
    return delegate.parseTableSchema(sqlText);
  }

  @Override
  public DataType parseDataType(String sqlText) throws ParseException {
    return delegate.parseDataType(sqlText);
  }
}
