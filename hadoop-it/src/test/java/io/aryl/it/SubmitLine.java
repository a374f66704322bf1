package io.aryl.it;

import java.util.ArrayList;
import java.util.List;

/**
 * The command line of aryl-am's {@code submit}, as the tests write it: the job's name and shape by
 * name, the options a test adds, then the workers' command. What the client does with each option
 * is aryl-am's (its {@code SubmitCommand}); this only spells them once.
 */
final class SubmitLine {
  private final List<String> args = new ArrayList<>();

  private SubmitLine(String name) {
    args.add("submit");
    with("--name", name);
  }

  /** A job of this name. */
  static SubmitLine job(String name) {
    return new SubmitLine(name);
  }

  /** At least {@code min} workers, at most {@code max}. */
  SubmitLine workers(int min, int max) {
    return with("--min-workers", Integer.toString(min))
        .with("--max-workers", Integer.toString(max));
  }

  /** At least {@code min} workers, at most the client's default maximum. */
  SubmitLine minWorkers(int min) {
    return with("--min-workers", Integer.toString(min));
  }

  /** GPUs per worker. */
  SubmitLine gpus(int gpus) {
    return with("--gpus", Integer.toString(gpus));
  }

  /** Memory per worker. */
  SubmitLine memoryMb(int mb) {
    return with("--memory-mb", Integer.toString(mb));
  }

  /** The ApplicationMaster's memory. */
  SubmitLine amMemoryMb(int mb) {
    return with("--am-memory-mb", Integer.toString(mb));
  }

  /** What the job's runtime is predicted to be. */
  SubmitLine predictedRuntimeS(long s) {
    return with("--predicted-runtime-s", Long.toString(s));
  }

  /** How long a worker told to go has before it is killed. */
  SubmitLine graceMs(long ms) {
    return with("--grace-ms", Long.toString(ms));
  }

  /** Any other option and its value. */
  SubmitLine with(String option, String value) {
    args.add(option);
    args.add(value);
    return this;
  }

  /** Any other option that takes no value (e.g. {@code --wait}). */
  SubmitLine flag(String option) {
    args.add(option);
    return this;
  }

  /** The options so far, without the workers' command: for a test that adds its own after. */
  List<String> options() {
    return new ArrayList<>(args);
  }

  /** The whole command line: the options, then {@code --} and the workers' command. */
  String[] command(String... command) {
    List<String> line = options();
    line.add("--");
    line.addAll(List.of(command));
    return line.toArray(String[]::new);
  }
}
