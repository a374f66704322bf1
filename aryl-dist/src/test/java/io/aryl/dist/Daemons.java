package io.aryl.dist;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Hadoop daemons, ZooKeeper and Aryl's tools as processes of their own: each a {@code java -cp
 * <class path> <main class>} with its output in a log file of its own, as Hadoop's {@code yarn}
 * script starts them. Everything started is killed (with its process tree) on {@link #close()} and,
 * should the test JVM be stopped first, by a shutdown hook: a build leaves no daemon behind.
 */
final class Daemons implements AutoCloseable {

  private final Path logDir;
  private final List<Daemon> started = new CopyOnWriteArrayList<>();
  private final AtomicInteger starts = new AtomicInteger();
  private final Thread killer = new Thread(this::killAll, "kill-daemons");

  Daemons(Path logDir) throws IOException {
    this.logDir = Files.createDirectories(logDir);
    Runtime.getRuntime().addShutdownHook(killer);
  }

  /** A started process, its log file, and how to kill it. */
  static final class Daemon {
    private final String name;
    private final Process process;
    private final Path log;

    private Daemon(String name, Process process, Path log) {
      this.name = name;
      this.process = process;
      this.log = log;
    }

    String name() {
      return name;
    }

    long pid() {
      return process.pid();
    }

    Path log() {
      return log;
    }

    boolean isAlive() {
      return process.isAlive();
    }

    /**
     * {@code kill -9} of the process and of every process it started, as a crash would: no shutdown
     * hook of the daemon runs. Returns once the process is gone.
     */
    void kill9() {
      List<ProcessHandle> tree = new ArrayList<>(process.descendants().toList());
      process.destroyForcibly();
      tree.forEach(ProcessHandle::destroyForcibly);
      try {
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
          throw new IllegalStateException(name + " (pid " + pid() + ") survived kill -9 for 30 s");
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while killing " + name, e);
      }
    }

    /** The last {@code lines} lines of the log, for a failure's message. */
    String logTail(int lines) {
      try {
        List<String> all = Files.readAllLines(log, StandardCharsets.UTF_8);
        return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
      } catch (IOException e) {
        return "(cannot read " + log + ": " + e + ")";
      }
    }

    /** The whole log. */
    String logText() {
      try {
        return Files.readString(log, StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    /** Whether the log holds {@code text}. */
    boolean logged(String text) {
      try {
        return Files.readString(log, StandardCharsets.UTF_8).contains(text);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    @Override
    public String toString() {
      return name + " (pid " + pid() + ", log " + log + ")";
    }
  }

  /**
   * Starts {@code java <jvmOptions> -cp <classPath> <mainClass> <args>} with {@code env} added to
   * this JVM's environment; its output goes to {@code <name>-<n>.log}, n counting starts.
   */
  Daemon start(
      String name,
      List<String> classPath,
      List<String> jvmOptions,
      String mainClass,
      List<String> args,
      Map<String, String> env)
      throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmOptions);
    command.add("-cp");
    command.add(String.join(":", classPath));
    command.add(mainClass);
    command.addAll(args);
    return run(name, command, env);
  }

  /** Starts {@code command} as it is (a script, say), with its output in a log of its own. */
  Daemon run(String name, List<String> command, Map<String, String> env) throws IOException {
    return run(name, command, env, null);
  }

  /** As {@link #run(String, List, Map)}, in the working directory {@code dir} (null: this one). */
  Daemon run(String name, List<String> command, Map<String, String> env, Path dir)
      throws IOException {
    Path log = logDir.resolve(name + "-" + starts.incrementAndGet() + ".log");
    ProcessBuilder builder =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
    if (dir != null) {
      builder.directory(dir.toFile());
    }
    builder.environment().putAll(env);
    Daemon daemon = new Daemon(name, builder.start(), log);
    started.add(daemon);
    return daemon;
  }

  /** Waits up to {@code timeout} for a process to exit by itself; returns its exit code. */
  static int awaitExit(Daemon daemon, Duration timeout) throws InterruptedException {
    if (!daemon.process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      throw new IllegalStateException(
          daemon + " did not exit within " + timeout + ":\n" + daemon.logTail(40));
    }
    return daemon.process.exitValue();
  }

  /** Every process started here, running or not. */
  List<Daemon> started() {
    return List.copyOf(started);
  }

  /** Kills every process started here and what they started. */
  void killAll() {
    for (Daemon daemon : started) {
      if (daemon.isAlive() || daemon.process.descendants().findAny().isPresent()) {
        daemon.kill9();
      }
    }
  }

  @Override
  public void close() {
    killAll();
    try {
      Runtime.getRuntime().removeShutdownHook(killer);
    } catch (IllegalStateException shuttingDown) {
      // the hook is running or about to: it kills what is left
    }
  }
}
