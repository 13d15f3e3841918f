package org.paimon_sql.spark;

import org.apache.spark.QueryContext;
import org.apache.spark.sql.AnalysisException;

/**
 * An error of the Paimon engine (a missing snapshot, tag or system table, a commit conflict, ...)
 * as a Spark AnalysisException: Spark and PySpark show its message, which is the engine's message
 * unchanged.
 */
public class PaimonException extends AnalysisException {
  private static final long serialVersionUID = 1L;
  private final ErrorKind kind;

  public PaimonException(ErrorKind kind, String message, Throwable cause) {
    super(message, scala.Option.empty(), scala.Option.empty(), scala.Option.apply(cause),
        scala.Option.empty(), scala.collection.immutable.Map$.MODULE$.<String, String>empty(),
        new QueryContext[0]);
    this.kind = kind;
  }

  /** The SQL state of the error's kind ({@link ErrorKind#sqlState()}). */
  @Override
  public String getSqlState() {
    return kind.sqlState();
  }

  /** The engine's error kind (NotFound, CommitConflict, PaimonError, ...). */
  public ErrorKind kind() {
    return kind;
  }
}
