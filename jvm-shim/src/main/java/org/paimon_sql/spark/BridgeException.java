package org.paimon_sql.spark;

/**
 * An error reported by the Python side. {@link #kind} classifies it (NoSuchTable, NoSuchNamespace,
 * AlreadyExists, NonEmptyNamespace, IllegalArgument, Unsupported, NotFound, PaimonError,
 * BridgeDied, Internal, ...); the message is the engine's message, unchanged.
 */
public class BridgeException extends RuntimeException {
  private static final long serialVersionUID = 1L;
  public final String kind;
  public final String pythonTraceback;

  public BridgeException(String kind, String message, String pythonTraceback) {
    super(message);
    this.kind = kind;
    this.pythonTraceback = pythonTraceback;
  }

  public boolean is(String k) {
    return k.equals(kind);
  }

  /**
   * The exception a user should see: for engine errors an AnalysisException ({@link
   * PaimonException}) whose message is the engine's message unchanged (spark-sql prints it without
   * a stack trace), for unexpected Python errors an IllegalStateException with the traceback.
   */
  public Throwable toUserException() {
    if ("Internal".equals(kind)) {
      return new IllegalStateException(
          getMessage() + (pythonTraceback == null ? "" : "\nPython traceback:\n" + pythonTraceback), this);
    }
    // no cause: spark-sql prints an AnalysisException without a cause as its message alone
    return new PaimonException(kind, getMessage(), null);
  }

  /** Throws {@link #toUserException()} (use as {@code throw e.raise();}). */
  public RuntimeException raise() {
    return Errors.sneaky(toUserException());
  }
}
