package io.aryl.sim.cli;

import java.io.Console;
import java.io.PrintStream;
import java.util.List;

/**
 * A one-line progress bar on stderr, redrawn at most a few times a second; silent when stderr is
 * not a console.
 */
final class ProgressBar {
  private final PrintStream err;
  private final List<String> names;
  private final boolean enabled;
  private long lastDrawNs;

  ProgressBar(PrintStream err, List<String> names, boolean enabled) {
    this.err = err;
    this.names = names;
    this.enabled = enabled;
  }

  /**
   * Whether the JVM runs on a terminal. Up to JDK 21 it has a console only then; from JDK 22 on it
   * has one also when its streams are redirected, and the console's {@code isTerminal()} (not in
   * Java 17's API, so looked up) tells.
   */
  // The null check is for JDK 21 and before; isTerminal() answers from JDK 22 on.
  @SuppressWarnings("SystemConsoleNull")
  static boolean onATerminal() {
    Console console = System.console();
    if (console == null) {
      return false;
    }
    try {
      return (Boolean) Console.class.getMethod("isTerminal").invoke(console);
    } catch (NoSuchMethodException e) {
      return true; // up to JDK 21: a console is a terminal
    } catch (ReflectiveOperationException e) {
      return false;
    }
  }

  synchronized void update(double[] fractions) {
    if (!enabled) {
      return;
    }
    long now = System.nanoTime();
    if (now - lastDrawNs < 200_000_000L) {
      return;
    }
    lastDrawNs = now;
    double sum = 0;
    for (double f : fractions) {
      sum += f;
    }
    double all = fractions.length == 0 ? 1 : sum / fractions.length;
    int width = 30;
    int filled = (int) Math.round(all * width);
    StringBuilder line = new StringBuilder("\r[");
    line.append("=".repeat(filled)).append(" ".repeat(width - filled)).append("] ");
    line.append(String.format("%3d%% ", Math.round(all * 100)));
    for (int i = 0; i < fractions.length; i++) {
      line.append(' ')
          .append(names.get(i))
          .append(String.format(" %d%%", Math.round(fractions[i] * 100)));
    }
    err.print(line);
    err.flush();
  }

  void done() {
    if (enabled) {
      err.print("\r" + " ".repeat(120) + "\r");
      err.flush();
    }
  }
}
