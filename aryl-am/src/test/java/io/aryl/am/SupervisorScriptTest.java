package io.aryl.am;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real {@code aryl-supervise.sh}, run as a NodeManager runs a container's main process (its own
 * session and process group, signals to the whole group), reporting to the real {@link
 * StatusServer}.
 */
class SupervisorScriptTest {
  private static final String TOKEN = "attempt-token";
  private static final String CONTAINER = "container_1_0001_01_000002";

  @TempDir Path dir;
  private final BlockingQueue<ExitReport> reports = new LinkedBlockingQueue<>();
  private StatusServer am;
  private Process supervisor;

  @BeforeEach
  void startAm() throws IOException {
    assumeTrue(
        new File("/proc/self/stat").isFile() && new File("/usr/bin/setsid").canExecute(),
        "needs Linux's /proc and setsid, as NodeManagers have");
    am =
        new StatusServer(
            Map::of,
            List::of,
            TOKEN,
            reports::add,
            new ProxyOnlyPages(
                List.of("localhost:8088"),
                "http://localhost:8088/proxy/app",
                InetAddress::getAllByName,
                System::currentTimeMillis));
    am.start();
  }

  @AfterEach
  void stop() throws Exception {
    if (supervisor != null) {
      signalGroup("KILL");
      supervisor.waitFor(5, TimeUnit.SECONDS);
    }
    if (am != null) {
      am.close();
    }
  }

  /**
   * Starts the supervisor on {@code worker} (a bash script), in a session of its own like a
   * container.
   */
  private void supervise(String worker, String token) throws IOException {
    Path script = dir.resolve(AmKeys.SUPERVISOR_FILE);
    Files.write(script, SupervisorScript.text());
    Files.writeString(dir.resolve("worker.sh"), worker);
    ProcessBuilder pb =
        new ProcessBuilder(
                "/usr/bin/setsid", "/bin/bash", script.toString(), "/bin/bash", "worker.sh")
            .directory(dir.toFile())
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("supervisor.log").toFile());
    pb.environment()
        .putAll(
            Map.of(
                "CONTAINER_ID",
                CONTAINER,
                "ARYL_GENERATION",
                "4",
                AmKeys.AM_URL,
                "http://127.0.0.1:" + am.port() + "/",
                AmKeys.REPORT_TOKEN,
                token));
    supervisor = pb.start();
  }

  /** What the NodeManager does to a container: a signal to its whole process group. */
  private void signalGroup(String signal) throws Exception {
    new ProcessBuilder("kill", "-" + signal, "--", "-" + supervisor.pid())
        .inheritIO()
        .start()
        .waitFor();
  }

  private String log() throws IOException {
    return Files.readString(dir.resolve("supervisor.log"));
  }

  private void awaitFile(String name) throws Exception {
    long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (!Files.exists(dir.resolve(name))) {
      assertThat(System.nanoTime()).as("%s appears; log: %s", name, log()).isLessThan(end);
      Thread.sleep(20);
    }
  }

  @Test
  @DisplayName(
      "after SIGTERM it waits for every process the worker left (a child still checkpointing), reports the"
          + " exit as stopped, and keeps the container")
  void stopWaitsForTheWholeWorkerThenStays() throws Exception {
    // The worker's shell dies at SIGTERM at once; its child takes 0.5 s to "checkpoint", as a
    // python would.
    supervise(
        "sh -c 'trap \"sleep 0.5; touch checkpointed; exit 0\" TERM; touch started;"
            + " while :; do sleep 0.05; done'\n",
        TOKEN);
    awaitFile("started");
    signalGroup("TERM");

    ExitReport r = reports.poll(10, TimeUnit.SECONDS);
    assertThat(r).as("report; log: %s", log()).isNotNull();
    assertThat(Files.exists(dir.resolve("checkpointed")))
        .as("the checkpoint was written before the report")
        .isTrue();
    assertThat(r.container()).isEqualTo(CONTAINER);
    assertThat(r.generation()).isEqualTo(4);
    assertThat(r.stopped()).isTrue();
    assertThat(supervisor.waitFor(1, TimeUnit.SECONDS))
        .as("the supervisor still runs: the container is kept")
        .isFalse();

    signalGroup("TERM");
    assertThat(supervisor.waitFor(500, TimeUnit.MILLISECONDS))
        .as("idle, it ignores SIGTERM (SIGKILL ends it)")
        .isFalse();
    assertThat(reports).as("one report per worker").isEmpty();
  }

  @Test
  @DisplayName(
      "a worker that exits 0 on its own ends the container with 0, unreported: training is done")
  void successEndsTheContainer() throws Exception {
    supervise("exit 0\n", TOKEN);
    assertThat(supervisor.waitFor(10, TimeUnit.SECONDS)).isTrue();
    assertThat(supervisor.exitValue()).isZero();
    assertThat(reports).isEmpty();
    assertThat(log()).contains("the worker exited 0: training is done");
  }

  @Test
  @DisplayName("a worker that fails on its own is reported, not stopped, and the container kept")
  void failureIsReportedAndTheContainerKept() throws Exception {
    supervise("exit 3\n", TOKEN);
    ExitReport r = reports.poll(10, TimeUnit.SECONDS);
    assertThat(r).as("report; log: %s", log()).isEqualTo(new ExitReport(CONTAINER, 4, 3, false));
    assertThat(supervisor.waitFor(1, TimeUnit.SECONDS)).isFalse();
  }

  @Test
  @DisplayName(
      "a failure the ApplicationMaster does not take (not its token) ends the container with the worker's"
          + " status, for YARN to report")
  void unreportedFailureEndsTheContainer() throws Exception {
    supervise("exit 3\n", "another attempt's token");
    assertThat(supervisor.waitFor(15, TimeUnit.SECONDS))
        .as("log: %s", supervisor.isAlive() ? log() : "")
        .isTrue();
    assertThat(supervisor.exitValue()).isEqualTo(3);
    assertThat(reports).isEmpty();
    assertThat(log()).contains("the container ends with the worker's status 3");
  }
}
