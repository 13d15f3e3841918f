package org.paimon_sql.spark;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.Map;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.analysis.UnresolvedRelation;
import org.apache.spark.sql.catalyst.expressions.Alias;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.Cast;
import org.apache.spark.sql.catalyst.expressions.CreateNamedStruct;
import org.apache.spark.sql.catalyst.expressions.EvalMode$;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.GetStructField;
import org.apache.spark.sql.catalyst.expressions.If;
import org.apache.spark.sql.catalyst.expressions.ArrayTransform;
import org.apache.spark.sql.catalyst.expressions.LambdaFunction;
import org.apache.spark.sql.catalyst.expressions.NamedLambdaVariable;
import org.apache.spark.sql.catalyst.expressions.TransformValues;
import org.apache.spark.sql.catalyst.expressions.IsNull;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.catalyst.expressions.NamedExpression;
import org.apache.spark.sql.catalyst.expressions.NamedExpression$;
import org.apache.spark.sql.catalyst.plans.logical.AppendData;
import org.apache.spark.sql.catalyst.plans.logical.InsertIntoStatement;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.MergeIntoTable;
import org.apache.spark.sql.catalyst.plans.logical.OverwriteByExpression;
import org.apache.spark.sql.catalyst.plans.logical.OverwritePartitionsDynamic;
import org.apache.spark.sql.catalyst.plans.logical.Project;
import org.apache.spark.sql.catalyst.plans.logical.V2WriteCommand;
import org.apache.spark.sql.catalyst.rules.Rule;
import org.apache.spark.sql.catalyst.trees.TreeNodeTag;
import org.apache.spark.sql.connector.catalog.CatalogManager;
import org.apache.spark.sql.connector.catalog.CatalogPlugin;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import scala.Option;
import scala.PartialFunction$;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Paimon's {@code write.merge-schema} for DataFrame writes by name ({@code df.writeTo(t).append()},
 * {@code df.write.mode("append").saveAsTable(t)}, their overwrite forms, a path write
 * {@code df.write.format("paimon").save(path)}): the write option, or the session setting
 * {@code spark.paimon.write.merge-schema} (with {@code write.merge-schema.type-widening} and
 * {@code write.merge-schema.explicit-cast} likewise). Spark checks a write's columns against the
 * table ({@code ResolveOutputRelation}) in the same analyzer pass that resolves the table, so this
 * is a hint resolution rule of {@link PaimonSparkSessionExtensions}: it runs before that pass, when
 * a DataFrame's query is already analysed. It merges the query's schema into the table's by
 * Paimon's rules (the bridge call {@code merge_write_schema}: new columns added, one schema version,
 * a refused type change fails the statement before anything is written), then aligns the query to
 * the evolved table by name: the table's columns in its order, a column the query lacks as null,
 * a column of another type cast to the table's type with the session's ANSI mode (as Paimon's
 * writes cast); Spark's output resolution then finds nothing left to do. The schema change is only
 * planned here; it is committed when the write runs ({@link PaimonWrite#toBatch}), before its data
 * is written, as Paimon's write command commits it before writing: an {@code EXPLAIN} of the write,
 * or a statement that fails before it runs, leaves the schema as it was. Writes by position keep Spark's checks (Paimon merges schemas by name only).
 * Also a resolution rule, for SQL {@code INSERT INTO t BY NAME} with the session setting (its query
 * is resolved in that batch; the rule meets the statement before Spark turns it into a write).
 */
final class MergeSchemaWrites extends Rule<LogicalPlan> {
  static final String MERGE_SCHEMA = "write.merge-schema";
  static final String TYPE_WIDENING = "write.merge-schema.type-widening";
  static final String EXPLICIT_CAST = "write.merge-schema.explicit-cast";
  private static final TreeNodeTag<Boolean> DONE = new TreeNodeTag<>("paimon_sql.merge-schema");

  private final SparkSession session;

  MergeSchemaWrites(SparkSession session) {
    this.session = session;
  }

  @Override
  public LogicalPlan apply(LogicalPlan plan) {
    return plan.transformDown(PartialFunction$.MODULE$.fromFunction((LogicalPlan p) -> {
      if (p instanceof MergeIntoTable m && !m.withSchemaEvolution() && flag(Map.of(), MERGE_SCHEMA)) {
        // MERGE INTO with the session setting: Spark's automatic schema evolution (as MERGE WITH
        // SCHEMA EVOLUTION) adds the source's new columns before UPDATE SET * / INSERT * expand
        return m.copy(m.targetTable(), m.sourceTable(), m.mergeCondition(), m.matchedActions(),
            m.notMatchedActions(), m.notMatchedBySourceActions(), true);
      }
      if (p instanceof V2WriteCommand w && w.isByName() && w.query().getTagValue(DONE).isEmpty()) {
        Map<String, String> options = writeOptions(w);
        if (options != null && flag(options, MERGE_SCHEMA)) {
          if (!w.query().resolved()) {
            // a DataFrame's query not analysed yet (e.g. map(k, named_struct(...))): Spark would
            // resolve it and check the output against the table in the same pass, before a
            // resolution rule could align it, so it is analysed here, on its own (a DataFrame
            // write's query refers to nothing outside itself)
            if (target((LogicalPlan) w.table()) == null) {
              return p;
            }
            LogicalPlan analysed = session.sessionState().analyzer().execute(w.query());
            if (!analysed.resolved()) {
              return p;
            }
            w = w.withNewQuery(analysed);
          }
          return merge(w, options);
        }
      }
      if (p instanceof InsertIntoStatement i && i.byName() && i.partitionSpec().isEmpty()
          && i.userSpecifiedCols().isEmpty() && i.query().resolved() && i.query().getTagValue(DONE).isEmpty()
          && i.table() instanceof DataSourceV2Relation r && r.table() instanceof PaimonTable pt) {
        Map<String, String> options = new HashMap<>(r.options().asCaseSensitiveMap());
        if (flag(options, MERGE_SCHEMA)) {
          PaimonTable evolved = evolve(new Target(pt.catalog(), pt.identifier()), i.query(), options);
          LogicalPlan query = aligned(i.query(), evolved);
          query.setTagValue(DONE, Boolean.TRUE);
          return i.copy(relation(r, evolved), i.partitionSpec(), i.userSpecifiedCols(), query, i.overwrite(),
              i.ifPartitionNotExists(), i.byName(), i.replaceCriteriaOpt(), i.withSchemaEvolution());
        }
      }
      return p;
    }));
  }

  private LogicalPlan merge(V2WriteCommand w, Map<String, String> options) {
    Target t = target((LogicalPlan) w.table());
    if (t == null) {
      return (LogicalPlan) w;
    }
    PaimonTable evolved = evolve(t, w.query(), options);
    LogicalPlan query = aligned(w.query(), evolved);
    query.setTagValue(DONE, Boolean.TRUE);
    V2WriteCommand out = w.withNewQuery(query);
    if (w.table() instanceof DataSourceV2Relation r) {
      out = out.withNewTable(relation(r, evolved));
    } else if (w.table() instanceof UnresolvedRelation u) {
      // resolved here with the planned table: loading it would give the schema before the merge,
      // which is committed only when the write runs
      out = out.withNewTable(DataSourceV2Relation.create(
          evolved, Option.apply(t.catalog), Option.apply(t.ident), CaseInsensitiveStringMap.empty(),
          Option.empty())); // the options stay the write's (Spark's V2Writes takes them from one side)
    }
    return (LogicalPlan) out;
  }

  /** Merges the query's schema into the table's (the bridge); the table after the merge. */
  private PaimonTable evolve(Target t, LogicalPlan query, Map<String, String> options) {
    Map<String, Object> p = t.catalog.ctx();
    p.put("namespace", String.join(".", t.ident.namespace()));
    p.put("table", t.ident.name());
    p.put("schema", query.schema().json());
    p.put("type_widening", flag(options, TYPE_WIDENING));
    p.put("explicit_cast", flag(options, EXPLICIT_CAST));
    p.put("case_sensitive", SQLConf.get().caseSensitiveAnalysis());
    p.put("dynamic_options", DynamicOptions.of(t.catalog.name(), t.ident));
    p.put("commit", false); // planned now, committed when the write runs (PaimonWrite.toBatch)
    Map<String, Object> r =
        t.catalog.bridge().call("merge_write_schema", p, e -> PaimonCatalog.notFound(t.ident, e));
    PaimonTable evolved = PaimonTable.fromDescription(t.catalog, t.ident, r);
    return Boolean.TRUE.equals(r.get("schema_merge_pending")) ? evolved.withPendingSchemaMerge(p) : evolved;
  }

  /** {@code r} with the evolved table. */
  private static DataSourceV2Relation relation(DataSourceV2Relation r, PaimonTable evolved) {
    if (r.table() instanceof PaimonTable old && old.isLoadedByPath()) {
      evolved.loadedByPath();
    }
    return DataSourceV2Relation.create(evolved, r.catalog(), r.identifier(), r.options(), Option.empty());
  }

  /** The query's columns by name in the table's order; missing ones null, others cast. */
  private static LogicalPlan aligned(LogicalPlan query, PaimonTable table) {
    List<Attribute> in = CollectionConverters.asJava(query.output());
    boolean caseSensitive = SQLConf.get().caseSensitiveAnalysis();
    String tz = SQLConf.get().sessionLocalTimeZone();
    List<NamedExpression> projection = new ArrayList<>();
    boolean same = in.size() == table.schema().fields().length;
    int k = 0;
    for (StructField f : table.schema().fields()) {
      Attribute a = null;
      for (Attribute c : in) {
        if (caseSensitive ? c.name().equals(f.name()) : c.name().equalsIgnoreCase(f.name())) {
          a = c;
          break;
        }
      }
      DataType to = f.dataType();
      if (a == null) {
        projection.add(alias(new Literal(null, to), f.name()));
        same = false;
      } else if (!a.dataType().sameType(to) && convertible(a.dataType(), to, caseSensitive)) {
        projection.add(alias(convert(a, a.dataType(), to, caseSensitive, tz), f.name()));
        same = false;
      } else {
        projection.add(a);
        same = same && in.get(k) == a;
      }
      k++;
    }
    return same ? query : new Project(CollectionConverters.asScala(projection).toSeq(), query);
  }

  /** Whether {@link #convert} can turn a value of type {@code from} into {@code to}. */
  private static boolean convertible(DataType from, DataType to, boolean caseSensitive) {
    if (from instanceof StructType fs && to instanceof StructType ts) {
      for (StructField t : ts.fields()) {
        StructField f = field(fs, t.name(), caseSensitive);
        if (f != null && !f.dataType().sameType(t.dataType()) && !convertible(f.dataType(), t.dataType(), caseSensitive)) {
          return false;
        }
      }
      return true;
    }
    if (from instanceof ArrayType fa && to instanceof ArrayType ta) {
      return fa.elementType().sameType(ta.elementType()) || convertible(fa.elementType(), ta.elementType(), caseSensitive);
    }
    if (from instanceof MapType fm && to instanceof MapType tm && fm.keyType().sameType(tm.keyType())) {
      return fm.valueType().sameType(tm.valueType()) || convertible(fm.valueType(), tm.valueType(), caseSensitive);
    }
    return Cast.canCast(from, to);
  }

  /**
   * {@code e} (of type {@code from}) as a value of the table's type {@code to}: a ROW field by field by
   * name (fields the data lacks are null, as Paimon's writes fill them; a null ROW stays null), other
   * types cast with the session's ANSI mode.
   */
  private static Expression convert(Expression e, DataType from, DataType to, boolean caseSensitive, String tz) {
    if (from.sameType(to)) {
      return e;
    }
    if (from instanceof StructType fs && to instanceof StructType ts) {
      List<Expression> children = new ArrayList<>();
      for (StructField t : ts.fields()) {
        children.add(Literal.create(t.name(), DataTypes.StringType));
        StructField f = field(fs, t.name(), caseSensitive);
        if (f == null) {
          children.add(new Literal(null, t.dataType()));
        } else {
          Expression child = new GetStructField(e, fs.fieldIndex(f.name()), Option.apply(f.name()));
          children.add(convert(child, f.dataType(), t.dataType(), caseSensitive, tz));
        }
      }
      Expression struct = new CreateNamedStruct(CollectionConverters.asScala(children).toList());
      return new If(new IsNull(e), new Literal(null, to), struct);
    }
    if (from instanceof ArrayType fa && to instanceof ArrayType ta && !(isAtomic(fa.elementType()) && isAtomic(ta.elementType()))) {
      // each element aligned as above (ROW fields by name inside ARRAY<ROW<...>>)
      NamedLambdaVariable x = lambdaVariable("x", fa.elementType(), fa.containsNull());
      return new ArrayTransform(e, lambda(convert(x, fa.elementType(), ta.elementType(), caseSensitive, tz), x));
    }
    if (from instanceof MapType fm && to instanceof MapType tm && fm.keyType().sameType(tm.keyType())
        && !(isAtomic(fm.valueType()) && isAtomic(tm.valueType()))) {
      // each value aligned (MAP<K, ROW<...>>); keys stay
      NamedLambdaVariable k = lambdaVariable("k", fm.keyType(), false);
      NamedLambdaVariable v = lambdaVariable("v", fm.valueType(), fm.valueContainsNull());
      return new TransformValues(e, lambda(convert(v, fm.valueType(), tm.valueType(), caseSensitive, tz), k, v));
    }
    return new Cast(e, to, Option.apply(tz), EvalMode$.MODULE$.fromSQLConf(SQLConf.get()));
  }

  private static boolean isAtomic(DataType t) {
    return !(t instanceof StructType || t instanceof ArrayType || t instanceof MapType);
  }

  private static NamedLambdaVariable lambdaVariable(String name, DataType type, boolean nullable) {
    return new NamedLambdaVariable(name, type, nullable, NamedExpression$.MODULE$.newExprId(), new AtomicReference<>());
  }

  private static LambdaFunction lambda(Expression body, NamedLambdaVariable... args) {
    List<NamedExpression> vars = new ArrayList<>(List.of(args));
    return new LambdaFunction(body, CollectionConverters.asScala(vars).toList(), false);
  }

  private static StructField field(StructType s, String name, boolean caseSensitive) {
    for (StructField f : s.fields()) {
      if (caseSensitive ? f.name().equals(name) : f.name().equalsIgnoreCase(name)) {
        return f;
      }
    }
    return null;
  }

  private static NamedExpression alias(Expression e, String name) {
    return new Alias(e, name, NamedExpression$.MODULE$.newExprId(),
        CollectionConverters.asScala(List.<String>of()).toSeq(), Option.empty(),
        CollectionConverters.asScala(List.<String>of()).toSeq());
  }

  /** The write's options (null for a write this rule does not handle). */
  private static Map<String, String> writeOptions(V2WriteCommand w) {
    scala.collection.Map<String, String> o;
    if (w instanceof AppendData a) {
      o = a.writeOptions();
    } else if (w instanceof OverwriteByExpression ob) {
      o = ob.writeOptions();
    } else if (w instanceof OverwritePartitionsDynamic od) {
      o = od.writeOptions();
    } else {
      return null;
    }
    Map<String, String> m = new HashMap<>(CollectionConverters.asJava(o));
    if (w.table() instanceof DataSourceV2Relation r) {
      m.putAll(r.options().asCaseSensitiveMap());
    } else if (w.table() instanceof UnresolvedRelation u) {
      m.putAll(u.options().asCaseSensitiveMap());
    }
    return m;
  }

  /** A write option (case-insensitive), else the session setting {@code spark.paimon.<key>}. */
  private boolean flag(Map<String, String> options, String key) {
    for (Map.Entry<String, String> e : options.entrySet()) {
      if (e.getKey().equalsIgnoreCase(key)) {
        return Boolean.parseBoolean(e.getValue().trim());
      }
    }
    return Boolean.parseBoolean(session.conf().get("spark.paimon." + key, "false").trim());
  }

  private record Target(PaimonCatalog catalog, Identifier ident) {}

  /** The Paimon table a write goes into (resolved, or named by an unresolved relation), or null. */
  private Target target(LogicalPlan table) {
    if (table instanceof DataSourceV2Relation r && r.table() instanceof PaimonTable pt) {
      return new Target(pt.catalog(), pt.identifier());
    }
    if (table instanceof UnresolvedRelation u) {
      List<String> parts = CollectionConverters.asJava(u.multipartIdentifier());
      CatalogManager manager = session.sessionState().catalogManager();
      CatalogPlugin catalog;
      List<String> rest;
      if (parts.size() > 1 && manager.isCatalogRegistered(parts.get(0))) {
        catalog = manager.catalog(parts.get(0));
        rest = parts.subList(1, parts.size());
      } else {
        catalog = manager.currentCatalog();
        rest = parts;
      }
      if (!(catalog instanceof PaimonCatalog pc) || rest.isEmpty()) {
        return null;
      }
      String[] ns = rest.size() == 1 ? manager.currentNamespace()
          : rest.subList(0, rest.size() - 1).toArray(new String[0]);
      return new Target(pc, Identifier.of(Arrays.copyOf(ns, ns.length), rest.get(rest.size() - 1)));
    }
    return null;
  }
}
