package io.aryl.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * Real PyTorch for the training tests: the Python that imports {@code torch} (Debian's {@code python3-torch}), the
 * examples' scripts, and the JSON event lines they log. Without PyTorch a developer's run skips these tests with a
 * message; CI sets {@value #REQUIRED} so that a missing PyTorch fails them instead.
 */
final class Torch {
  /** Environment variable that makes a missing PyTorch a failure (set by .ci/run). */
  static final String REQUIRED = "ARYL_REQUIRE_TORCH";
  /** Environment variable naming the Python to use; else the first of {@link #CANDIDATES} that imports torch. */
  static final String PYTHON = "ARYL_PYTHON";
  private static final List<String> CANDIDATES = List.of("/usr/bin/python3", "python3");
  private static final ObjectMapper JSON = new ObjectMapper();

  private Torch() {}

  /** The Python with torch; skips the test (or fails it under CI) when there is none. */
  static String python() {
    Optional<String> found = find();
    if (found.isEmpty()) {
      String why = "PyTorch is not installed (apt-get install python3-torch, or set " + PYTHON + ")";
      if (System.getenv(REQUIRED) != null) {
        throw new AssertionError(why + "; " + REQUIRED + " is set, so this test must run");
      }
      Assumptions.abort(why + ": skipping");
    }
    return found.get();
  }

  private static Optional<String> find() {
    List<String> candidates = new ArrayList<>();
    String named = System.getenv(PYTHON);
    if (named != null && !named.isBlank()) {
      candidates.add(named);
    }
    candidates.addAll(CANDIDATES);
    for (String python : candidates) {
      try {
        Process p = new ProcessBuilder(python, "-c", "import torch, torch.distributed")
            .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        if (p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0) {
          return Optional.of(python);
        }
        p.destroyForcibly();
      } catch (IOException e) {
        // not there: try the next
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return Optional.empty();
      }
    }
    return Optional.empty();
  }

  /** A script of the repository's examples directory, e.g. {@code pytorch-ddp/train.py}. */
  static File example(String path) {
    File f = new File(System.getProperty("aryl.it.examples", "../examples"), path);
    if (!f.isFile()) {
      throw new IllegalStateException("the example " + f.getAbsolutePath() + " is missing");
    }
    return f.getAbsoluteFile();
  }

  /** The JSON event lines a script logged with {@code --log-file}, in order; lines cut short are skipped. */
  static List<JsonNode> events(Path logFile) {
    List<JsonNode> out = new ArrayList<>();
    for (String line : AmJobs.lines(logFile)) {
      try {
        out.add(JSON.readTree(line));
      } catch (IOException e) {
        // a line being written: it is read whole next time
      }
    }
    return out;
  }

  /** The events of one kind. */
  static List<JsonNode> events(Path logFile, String kind) {
    return events(logFile).stream().filter(e -> e.path("event").asText().equals(kind)).toList();
  }
}
