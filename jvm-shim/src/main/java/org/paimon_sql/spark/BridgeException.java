package org.paimon_sql.spark;

/**
 * An error reported by the Python side. {@link #kind} classifies it (see {@link ErrorKind}); the
 * message is the engine's message, unchanged.
 */
public class BridgeException extends RuntimeException {
  private static final long serialVersionUID = 1L;
  public final ErrorKind kind;
  public final String pythonTraceback;

  public BridgeException(ErrorKind kind, String message, String pythonTraceback) {
    super(message);
    this.kind = kind;
    this.pythonTraceback = pythonTraceback;
  }

  public boolean is(ErrorKind k) {
    return kind == k;
  }

  /**
   * The exception a user should see: for engine errors an AnalysisException ({@link
   * PaimonException}) whose message is the engine's message unchanged (spark-sql prints it without
   * a stack trace), for unexpected Python errors an IllegalStateException with the traceback.
   */
  public Throwable toUserException() {
    return switch (kind) {
      case INTERNAL -> new IllegalStateException(
          getMessage() + (pythonTraceback == null ? "" : "\nPython traceback:\n" + pythonTraceback), this);
      // no cause: spark-sql prints an AnalysisException without a cause as its message alone
      default -> new PaimonException(kind, getMessage(), null);
    };
  }

  /** Throws {@link #toUserException()} (use as {@code throw e.raise();}). */
  public RuntimeException raise() {
    return Errors.sneaky(toUserException());
  }
}
