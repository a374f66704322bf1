package io.aryl.sim.cli;

import io.aryl.sim.trace.BundledTraces;
import io.aryl.sim.trace.InferenceCurve;
import io.aryl.sim.trace.ItpTrace;
import io.aryl.sim.trace.PhillyTrace;
import io.aryl.sim.trace.ServeGenTrace;
import io.aryl.sim.trace.TraceJob;
import java.nio.file.Path;
import java.util.List;

/** Parses the {@code --trace} and {@code --inference} specs of the command line into loaded inputs. */
final class InputSpecs {
  static final String BUNDLED = "bundled";

  private InputSpecs() {}

  /** {@code itp:FILE}, {@code philly:FILE[:cluster=ID]}, or {@code bundled} (the ITP cluster04 slice). */
  static List<TraceJob> trainingJobs(String spec) {
    if (spec.equals(BUNDLED)) {
      return BundledTraces.itpSlice();
    }
    int colon = spec.indexOf(':');
    String kind = colon < 0 ? spec : spec.substring(0, colon);
    String rest = colon < 0 ? "" : spec.substring(colon + 1);
    switch (kind) {
      case "itp" -> {
        requireFile("--trace", spec, rest);
        return ItpTrace.read(Path.of(rest));
      }
      case "philly" -> {
        String cluster = null;
        int at = rest.lastIndexOf(":cluster=");
        if (at >= 0) {
          cluster = rest.substring(at + ":cluster=".length());
          rest = rest.substring(0, at);
        }
        requireFile("--trace", spec, rest);
        return PhillyTrace.read(Path.of(rest), cluster);
      }
      default -> throw new IllegalArgumentException("--trace must be itp:FILE, philly:FILE[:cluster=ID] or "
          + BUNDLED + ", was '" + spec + "'");
    }
  }

  /**
   * {@code servegen:FILE:MODEL}, {@code bundled} (ServeGen m-small) or {@code none}. Gaps in the data are bridged
   * ({@link InferenceCurve#bridgeGaps()}).
   */
  static InferenceCurve inferenceCurve(String spec) {
    if (spec.equals(BUNDLED)) {
      return BundledTraces.servegenMSmall().bridgeGaps();
    }
    if (spec.equals("none")) {
      return null;
    }
    String[] parts = spec.split(":");
    if (parts.length != 3 || !parts[0].equals("servegen") || parts[1].isBlank() || parts[2].isBlank()) {
      throw new IllegalArgumentException(
          "--inference must be servegen:FILE:MODEL, " + BUNDLED + " or none, was '" + spec + "'");
    }
    requireFile("--inference", spec, parts[1]);
    return ServeGenTrace.read(Path.of(parts[1]), parts[2]).bridgeGaps();
  }

  private static void requireFile(String option, String spec, String file) {
    if (file.isBlank() || !java.nio.file.Files.isRegularFile(Path.of(file))) {
      throw new IllegalArgumentException(option + " names no readable file: '" + file + "' (in '" + spec + "')");
    }
  }
}
