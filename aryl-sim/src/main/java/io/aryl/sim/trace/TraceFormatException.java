package io.aryl.sim.trace;

/**
 * A trace file line that cannot be read. The message is {@code FILE:LINE: what was wrong, was
 * 'VALUE'}, where {@code FILE} is the file name as the caller gave it and {@code LINE} counts from
 * 1 (the header is line 1), so that the line can be found and fixed from the message alone.
 */
public class TraceFormatException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  private final String source;
  private final int line;
  private final String problem;
  private final String value;

  /**
   * @param source the file name as given by the caller (a path, or a resource name)
   * @param line 1-based line number
   * @param problem what was wrong, e.g. {@code "num_gpu must be a whole number > 0"}
   * @param value the offending text, as found in the file
   */
  public TraceFormatException(String source, int line, String problem, String value) {
    super(source + ":" + line + ": " + problem + ", was '" + value + "'");
    this.source = source;
    this.line = line;
    this.problem = problem;
    this.value = value;
  }

  /** The file name as given by the caller. */
  public String source() {
    return source;
  }

  /** The 1-based line number. */
  public int line() {
    return line;
  }

  /** What was wrong, without file, line or value. */
  public String problem() {
    return problem;
  }

  /** The offending text. */
  public String value() {
    return value;
  }
}
