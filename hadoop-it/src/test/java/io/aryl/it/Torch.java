package io.aryl.it;

import static org.assertj.core.api.Assertions.assertThat;

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
 * Real PyTorch for the training tests: the Python that imports {@code torch} (Debian's {@code
 * python3-torch}), the examples' scripts, and the JSON event lines they log, read as the DDP
 * example's generations, steps and checkpoints. Without PyTorch a developer's run skips these tests
 * with a message; CI sets {@value #REQUIRED} so that a missing PyTorch fails them instead.
 */
final class Torch {
  /** Environment variable that makes a missing PyTorch a failure (set by .ci/run). */
  static final String REQUIRED = "ARYL_REQUIRE_TORCH";

  /**
   * Environment variable naming the Python to use; else the first of {@link #CANDIDATES} that
   * imports torch.
   */
  static final String PYTHON = "ARYL_PYTHON";

  private static final List<String> CANDIDATES = List.of("/usr/bin/python3", "python3");
  private static final ObjectMapper JSON = new ObjectMapper();

  private Torch() {}

  /** The Python with torch; skips the test (or fails it under CI) when there is none. */
  static String python() {
    Optional<String> found = find();
    if (found.isEmpty()) {
      String why =
          "PyTorch is not installed (apt-get install python3-torch, or set " + PYTHON + ")";
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
        Process p =
            new ProcessBuilder(python, "-c", "import torch, torch.distributed")
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start();
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

  /**
   * The JSON event lines a script logged with {@code --log-file}, in order; lines cut short are
   * skipped.
   */
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

  /**
   * A rank-0 start of a generation, from the example's log ({@code examples/pytorch-ddp/train.py}).
   */
  record Start(int generation, int worldSize, int resumedFrom, double time, String master) {}

  /** Every generation's start, as its rank 0 logged it, in order. */
  static List<Start> starts(Path log) {
    List<Start> out = new ArrayList<>();
    for (JsonNode e : events(log, "start")) {
      if (e.path("rank").asInt() == 0) {
        out.add(
            new Start(
                e.path("generation").asInt(),
                e.path("world_size").asInt(),
                e.path("resumed_from").asInt(),
                e.path("time").asDouble(),
                e.path("master").asText()));
      }
    }
    return out;
  }

  /** Steps rank 0 has done in the latest generation (since its start). */
  static int stepsInLatest(Path log) {
    List<Start> s = starts(log);
    if (s.isEmpty()) {
      return 0;
    }
    Start last = s.get(s.size() - 1);
    return (int)
        events(log, "step").stream().filter(e -> e.path("time").asDouble() >= last.time()).count();
  }

  /**
   * Whether rank 0 of a generation of this size started after {@code after} and has trained a few
   * steps in it.
   */
  static boolean training(Path log, int worldSize, int after) {
    List<Start> s = starts(log);
    return s.size() > after
        && s.get(s.size() - 1).worldSize() == worldSize
        && stepsInLatest(log) >= 3;
  }

  /** The step the example logged last. */
  static int lastStep(Path log) {
    List<JsonNode> steps = events(log, "step");
    return steps.get(steps.size() - 1).path("step").asInt();
  }

  /**
   * Each generation resumed from the checkpoint written last before it started, and that checkpoint
   * lost at most the steps since the one before ({@code checkpointEvery}): the step count
   * continues. Prints the generations as a table.
   */
  static void assertResumedFromCheckpoints(Path log, int checkpointEvery) {
    List<Start> starts = starts(log);
    List<JsonNode> checkpoints = events(log, "checkpoint");
    List<JsonNode> steps = events(log, "step");
    System.out.println("generation | world | resumed from | redone | master");
    System.out.printf(
        "%10d | %5d | %12d | %6s | %s%n",
        starts.get(0).generation(),
        starts.get(0).worldSize(),
        starts.get(0).resumedFrom(),
        "-",
        starts.get(0).master());
    for (int i = 1; i < starts.size(); i++) {
      Start s = starts.get(i);
      Start previous = starts.get(i - 1);
      int lastCheckpoint =
          checkpoints.stream()
              .filter(c -> c.path("time").asDouble() < s.time())
              .mapToInt(c -> c.path("step").asInt())
              .max()
              .orElse(0);
      int lastStep =
          steps.stream()
              .filter(
                  e ->
                      e.path("time").asDouble() >= previous.time()
                          && e.path("time").asDouble() < s.time())
              .mapToInt(e -> e.path("step").asInt())
              .max()
              .orElse(0);
      System.out.printf(
          "%10d | %5d | %12d | %6d | %s%n",
          s.generation(), s.worldSize(), s.resumedFrom(), lastStep - s.resumedFrom(), s.master());
      assertThat(s.resumedFrom())
          .as(
              "generation %d (world %d) resumed from the last checkpoint",
              s.generation(), s.worldSize())
          .isEqualTo(lastCheckpoint);
      assertThat(lastStep - s.resumedFrom())
          .as(
              "steps of generation %d redone by generation %d",
              previous.generation(), s.generation())
          .isBetween(0, checkpointEvery);
    }
  }
}
