package io.aryl.am;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The c10d rendezvous store of a {@code --launcher torchrun} job, hosted by the ApplicationMaster:
 * no agent needs to run on the AM's host, and the AM's host is never reclaimed, so the store
 * outlives every change of the job's containers. It is a Python child process ({@code PYTHON -c
 * PROGRAM HOST}) holding a {@code torch.distributed.TCPStore(HOST, 0, is_master=True,
 * wait_for_workers=False)}: port 0 takes a free port, which the child prints on its first line. It
 * then lives until its standard input closes, which happens when the AM ends however it ends (the
 * AM holds the other end of the pipe), or until {@link #close}. If it dies meanwhile the AM logs it
 * and {@link #restartIfDead restarts} it, on a new port: the agents of the old one have lost their
 * rendezvous and are restarted ({@link AgentGroup#storeRestarted}).
 */
public final class RendezvousStore implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(RendezvousStore.class);

  /**
   * What the child runs: its argument is the host the agents reach it at (the server listens on
   * every address).
   */
  static final String PROGRAM =
      """
      import sys
      import torch.distributed as dist
      store = dist.TCPStore(sys.argv[1], 0, is_master=True, wait_for_workers=False)
      print(store.port, flush=True)
      sys.stdin.read()
      """;

  private final String python;
  private final String host;
  private final long startTimeoutMs;
  private Process process;
  private int port;
  private int starts;

  /**
   * @param python the interpreter with PyTorch ({@code --python})
   * @param host the AM's host, as the agents reach it
   * @param startTimeoutMs how long the child may take to print its port (importing torch takes
   *     seconds)
   */
  public RendezvousStore(String python, String host, long startTimeoutMs) {
    this.python = python;
    this.host = host;
    this.startTimeoutMs = startTimeoutMs;
  }

  /** The child's command line. */
  List<String> command() {
    return List.of(python, "-c", PROGRAM, host);
  }

  /**
   * Starts the store and waits for its port.
   *
   * @throws IOException saying why it did not start (its error output goes to the AM's stderr)
   */
  public synchronized void start() throws IOException {
    Process p =
        new ProcessBuilder(command()).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    CompletableFuture<String> firstLine =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return new BufferedReader(
                        new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))
                    .readLine();
              } catch (IOException e) {
                return null;
              }
            });
    String line;
    try {
      line = firstLine.get(startTimeoutMs, TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      p.destroyForcibly();
      throw new IOException(
          "the rendezvous store ("
              + python
              + " -c ...) printed no port within "
              + startTimeoutMs
              + " ms");
    } catch (InterruptedException e) {
      p.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while the rendezvous store started");
    } catch (ExecutionException e) {
      p.destroyForcibly();
      throw new IOException("the rendezvous store did not start: " + e.getCause(), e.getCause());
    }
    if (line == null || !line.strip().matches("\\d{1,5}")) {
      String status = "";
      try {
        if (p.waitFor(5, TimeUnit.SECONDS)) {
          status = " (exit status " + p.exitValue() + ")";
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      p.destroyForcibly();
      throw new IOException(
          "the rendezvous store ("
              + python
              + " -c ...) ended before printing its port"
              + status
              + (line == null ? "" : ", printing '" + line + "'")
              + "; does '"
              + python
              + "' import torch? (its error output is in AppMaster.stderr)");
    }
    process = p;
    port = Integer.parseInt(line.strip());
    starts++;
    LOG.info("rendezvous store (pid {}) listens at {}:{}", p.pid(), host, port);
  }

  /**
   * Restarts the store if its process ended.
   *
   * @return whether it did (the store is new: every agent of the old one lost its rendezvous)
   * @throws IOException when it cannot be started again
   */
  public synchronized boolean restartIfDead() throws IOException {
    if (process == null || process.isAlive()) {
      return false;
    }
    LOG.warn(
        "the rendezvous store at {}:{} (pid {}) ended with exit status {}; starting a new one",
        host,
        port,
        process.pid(),
        process.exitValue());
    start();
    return true;
  }

  public synchronized String host() {
    return host;
  }

  public synchronized int port() {
    return port;
  }

  /** host:port, as the agents' --rdzv_endpoint. */
  public synchronized String endpoint() {
    return host + ":" + port;
  }

  /** How many times it started (1, plus one per restart). */
  public synchronized int starts() {
    return starts;
  }

  @Override
  public synchronized void close() {
    if (process == null) {
      return;
    }
    process.destroy();
    try {
      if (!process.waitFor(5, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
    process = null;
  }

  /** For tests: the child's process. */
  synchronized Process process() {
    return process;
  }
}
