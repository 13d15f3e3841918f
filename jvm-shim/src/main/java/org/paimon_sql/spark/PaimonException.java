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
  private final String kind;

  public PaimonException(String kind, String message, Throwable cause) {
    super(message, scala.Option.empty(), scala.Option.empty(), scala.Option.apply(cause),
        scala.Option.empty(), scala.collection.immutable.Map$.MODULE$.<String, String>empty(),
        new QueryContext[0]);
    this.kind = kind;
  }

  /**
   * A SQL state by kind (spark-sql prints errors with one, and not internal, without a stack
   * trace).
   */
  @Override
  public String getSqlState() {
    switch (kind) {
      case "NotFound":
      case "NoSuchTable":
      case "NoSuchNamespace":
        return "42704"; // undefined object
      case "AlreadyExists":
        return "42710"; // duplicate object
      case "IllegalArgument":
        return "22023"; // invalid parameter value
      case "Unsupported":
        return "0A000"; // feature not supported
      case "NonEmptyNamespace":
        return "2BP01"; // dependent objects still exist
      case "CommitConflict":
        return "40001"; // serialization failure: retry
      case "BridgeDied":
      case "BridgeStart":
        return "58030"; // i/o error
      default:
        return "58000"; // system error
    }
  }

  /** The engine's error kind (NotFound, CommitConflict, PaimonError, ...). */
  public String kind() {
    return kind;
  }
}
