package org.paimon_sql.spark;

import java.util.Arrays;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The kinds of error the Python bridge reports (each {@code PaimonError} class of {@code
 * paimon_sql.errors} declares its {@code bridge_kind}), plus the shim's own bridge failures, and
 * the SQL state Spark shows for each. The Python side lists its kinds in {@code bridge_info}; a
 * kind this enum does not know is treated as {@link #PAIMON_ERROR}.
 */
public enum ErrorKind {
  NOT_FOUND("NotFound"),
  NO_SUCH_TABLE("NoSuchTable"),
  NO_SUCH_NAMESPACE("NoSuchNamespace"),
  ALREADY_EXISTS("AlreadyExists"),
  ILLEGAL_ARGUMENT("IllegalArgument"),
  NON_EMPTY_NAMESPACE("NonEmptyNamespace"),
  UNSUPPORTED("Unsupported"),
  COMMIT_CONFLICT("CommitConflict"),
  PAIMON_ERROR("PaimonError"),
  /** An unexpected Python exception (a bug; it carries the traceback) or a broken exchange. */
  INTERNAL("Internal"),
  /** The bridge process exited during a call. */
  BRIDGE_DIED("BridgeDied"),
  /** The bridge process could not be started. */
  BRIDGE_START("BridgeStart");

  private static final Map<String, ErrorKind> BY_WIRE =
      Arrays.stream(values()).collect(Collectors.toUnmodifiableMap(k -> k.wire, Function.identity()));

  private final String wire;

  ErrorKind(String wire) {
    this.wire = wire;
  }

  /** The kind's name in the bridge protocol (the Python class attribute {@code bridge_kind}). */
  public String wire() {
    return wire;
  }

  /** The kind named {@code wire}; {@link #PAIMON_ERROR} for a name this shim does not know. */
  public static ErrorKind of(String wire) {
    return wire == null ? PAIMON_ERROR : BY_WIRE.getOrDefault(wire, PAIMON_ERROR);
  }

  /** Whether {@code wire} names a kind of this enum (used to check the Python side's kinds). */
  public static boolean known(String wire) {
    return BY_WIRE.containsKey(wire);
  }

  /**
   * The SQL state of an error of this kind (spark-sql prints errors with one, and not internal,
   * without a stack trace).
   */
  public String sqlState() {
    return switch (this) {
      case NOT_FOUND, NO_SUCH_TABLE, NO_SUCH_NAMESPACE -> "42704"; // undefined object
      case ALREADY_EXISTS -> "42710"; // duplicate object
      case ILLEGAL_ARGUMENT -> "22023"; // invalid parameter value
      case UNSUPPORTED -> "0A000"; // feature not supported
      case NON_EMPTY_NAMESPACE -> "2BP01"; // dependent objects still exist
      case COMMIT_CONFLICT -> "40001"; // serialization failure: retry
      case BRIDGE_DIED, BRIDGE_START -> "58030"; // i/o error
      case PAIMON_ERROR, INTERNAL -> "58000"; // system error
    };
  }
}
