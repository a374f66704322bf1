package io.aryl.sim.cli;

import io.aryl.sim.engine.PolicySpec;
import io.aryl.sim.trace.BundledTraces;
import io.aryl.sim.trace.InferenceCurve;
import io.aryl.sim.trace.ItpTrace;
import io.aryl.sim.trace.PhillyTrace;
import io.aryl.sim.trace.ServeGenTrace;
import io.aryl.sim.trace.TraceJob;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * Parses the {@code --trace} and {@code --inference} specs of the command line into loaded inputs.
 */
final class InputSpecs {
  static final String BUNDLED = "bundled";

  private InputSpecs() {}

  /**
   * {@code itp:FILE}, {@code itp:DIR} (every cluster*.csv in it, merged: the whole ITP trace),
   * {@code philly:FILE[:cluster=ID]}, or {@code bundled} (the ITP cluster04 slice).
   */
  static List<TraceJob> trainingJobs(String spec) {
    if (spec.equals(BUNDLED)) {
      return BundledTraces.itpSlice();
    }
    int colon = spec.indexOf(':');
    String kind = colon < 0 ? spec : spec.substring(0, colon);
    String rest = colon < 0 ? "" : spec.substring(colon + 1);
    switch (kind) {
      case "itp" -> {
        if (Files.isDirectory(Path.of(rest))) {
          return mergedItp(spec, Path.of(rest));
        }
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
      default ->
          throw new IllegalArgumentException(
              "--trace must be itp:FILE, philly:FILE[:cluster=ID] or "
                  + BUNDLED
                  + ", was '"
                  + spec
                  + "'");
    }
  }

  /**
   * {@code servegen:FILE:MODEL}, {@code bundled} (ServeGen m-small) or {@code none}. Gaps in the
   * data are bridged ({@link InferenceCurve#bridgeGaps()}).
   */
  static InferenceCurve inferenceCurve(String spec) {
    if (spec.equals(BUNDLED)) {
      return BundledTraces.servegenMSmall().bridgeGaps();
    }
    if (spec.equals("none")) {
      return null;
    }
    String[] parts = spec.split(":", -1);
    if (parts.length != 3
        || !parts[0].equals("servegen")
        || parts[1].isBlank()
        || parts[2].isBlank()) {
      throw new IllegalArgumentException(
          "--inference must be servegen:FILE:MODEL, " + BUNDLED + " or none, was '" + spec + "'");
    }
    requireFile("--inference", spec, parts[1]);
    return ServeGenTrace.read(Path.of(parts[1]), parts[2]).bridgeGaps();
  }

  /** The named policies, in order; an unknown name is refused naming {@code option}. */
  static List<PolicySpec> policies(String option, List<String> names) {
    List<PolicySpec> out = new ArrayList<>();
    for (String name : names) {
      try {
        out.add(PolicySpec.named(name.trim()));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(option + ": " + e.getMessage(), e);
      }
    }
    return out;
  }

  private static List<TraceJob> mergedItp(String spec, Path dir) {
    List<Path> files;
    try (Stream<Path> list = Files.list(dir)) {
      files =
          list.filter(p -> p.getFileName().toString().matches("cluster\\d+\\.csv"))
              .sorted()
              .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    if (files.isEmpty()) {
      throw new IllegalArgumentException("--trace '" + spec + "': no cluster*.csv in " + dir);
    }
    List<TraceJob> all = new ArrayList<>();
    for (Path f : files) {
      all.addAll(ItpTrace.read(f));
    }
    all.sort(Comparator.comparingDouble(TraceJob::submitS).thenComparing(TraceJob::id));
    return all;
  }

  private static void requireFile(String option, String spec, String file) {
    if (file.isBlank() || !Files.isRegularFile(Path.of(file))) {
      throw new IllegalArgumentException(
          option + " names no readable file: '" + file + "' (in '" + spec + "')");
    }
  }
}
