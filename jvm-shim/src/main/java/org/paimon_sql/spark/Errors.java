package org.paimon_sql.spark;

import java.util.Map;

/** Helpers to raise Spark's own (checked, Scala-declared) analysis exceptions from Java. */
final class Errors {
  private Errors() {}

  /** Throws {@code e} without declaring it (Spark's Scala callers handle AnalysisExceptions). */
  @SuppressWarnings("unchecked")
  static <E extends Throwable> RuntimeException sneaky(Throwable e) throws E {
    throw (E) e;
  }

  static scala.collection.immutable.Map<String, String> scalaMap(Map<String, String> m) {
    return scala.collection.immutable.Map.from(scala.jdk.javaapi.CollectionConverters.asScala(m));
  }
}
