package io.aryl.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.api.ArylJson;
import io.aryl.api.serve.ServeStatus;
import io.aryl.serve.LocalService;
import io.aryl.serve.Main;
import io.aryl.serve.loadgen.Arrivals;
import io.aryl.serve.loadgen.LoadSummary;
import io.aryl.serve.loadgen.RateCurve;
import io.aryl.serve.loadgen.RequestRecord;
import io.aryl.sim.trace.ServeGenTrace;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptReport;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ContainerReport;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.api.records.YarnApplicationState;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The inference service (aryl-serve) with real Python replicas ({@code serve.py}, Debian's PyTorch
 * on CPU) on the two inference-labelled NodeManagers, and its load generator playing a
 * ServeGen-format curve that rises from 2 to 10 requests a second: the AM scales from 1 replica to
 * 2 or more on the measured rate, every request is answered, and every replica ran on an inference
 * node. Then one replica is killed (SIGKILL through YARN) and the AM replaces it. The scaling rules
 * themselves are specified by aryl-serve's {@code ReplicaSetTest}.
 */
@DisplayName("Inference service: real replicas on the inference pool scale with a ServeGen curve")
class InferenceServeIT extends OneClusterPerClass {
  /**
   * 10-minute windows, 60x compressed (10 s each): 2 requests a second, then 10. With 4 a replica
   * the rise wants 3.
   */
  private static final String CURVE =
      """
      model,window_start_s,total_rate_rps,active_clients
      it,0,2,1
      it,600,10,1
      it,1200,10,1
      it,1800,10,1
      """;

  @TempDir Path dir;

  /** Two inference nodes and one training node of 8 GPUs. */
  @Override
  protected ArylMiniCluster startCluster(File dir) throws Exception {
    return ArylMiniCluster.start("serve", AmJobs.conf(dir), 2, 1);
  }

  @Test
  @DisplayName(
      "rises from 1 to 2+ replicas as a replayed curve rises; every request answered, every replica"
          + " on an inference node; a replica that dies is replaced")
  void scalesWithTheCurve() throws Exception {
    long submitted = System.nanoTime();
    LocalService.Running service =
        submit(
            cluster,
            dir,
            "--name",
            "it-serve",
            "--replicas-min",
            "1",
            "--replicas-max",
            "3",
            "--gpus",
            "1",
            "--target-rps-per-replica",
            "4");
    ApplicationId id = service.id();
    String statusUrl = service.statusUrl();

    AtomicReference<ServeStatus> status = new AtomicReference<>();
    cluster.awaitShowingStatus(
        "the first replica answers its health check",
        Duration.ofSeconds(90),
        () -> read(statusUrl, status) && status.get().running() == 1);
    double firstReadyS = (System.nanoTime() - submitted) / 1e9;
    System.out.printf("first replica serving %.1f s after submission%n", firstReadyS);

    RateCurve curve = curve(CURVE);
    double[] arrivals = Arrivals.times(curve, 42);
    Path requests = dir.resolve("requests.jsonl");
    long loadStart = System.nanoTime();
    CompletableFuture<List<RequestRecord>> run = generate(statusUrl, arrivals, requests);
    cluster.awaitShowingStatus(
        "the AM scales to 2 or more serving replicas on the rising rate",
        Duration.ofSeconds(60),
        () -> read(statusUrl, status) && status.get().running() >= 2);
    double scaledS = (System.nanoTime() - loadStart) / 1e9;
    ServeStatus scaled = status.get();
    List<RequestRecord> records = run.get(120, TimeUnit.SECONDS);
    LoadSummary summary = LoadSummary.of(records, 500, curve.durationS());
    read(statusUrl, status);
    ServeStatus last = status.get();

    System.out.printf(
        "load: %d steps of %.0f s at %s rps; 2 replicas serving %.1f s into it (the rise at 10 s)%n",
        curve.rps().length, curve.stepS(), java.util.Arrays.toString(curve.rps()), scaledS);
    System.out.println("summary: " + summary.line());
    System.out.println("status when 2 served: " + ArylJson.write(scaled));
    System.out.println("scaling events:");
    for (ServeStatus.ScaleEvent e : last.events()) {
      System.out.printf(
          "  %+7.1f s  %-10s %s%n",
          (e.timeMs() - last.events().get(0).timeMs()) / 1000.0, e.kind(), e.detail());
    }

    assertThat(records).hasSize(arrivals.length);
    assertThat(summary.failures()).as("requests not answered ok: %s", summary.line()).isZero();
    assertThat(records.stream().map(RequestRecord::replica).distinct().count())
        .as("replicas that answered requests")
        .isGreaterThanOrEqualTo(2);
    assertThat(last.events()).extracting(ServeStatus.ScaleEvent::kind).contains("scale-up");
    assertThat(last.target()).isBetween(2, 3);
    assertThat(Files.readAllLines(requests)).hasSize(arrivals.length);

    Set<NodeId> inference = Set.of(cluster.nodeId(0), cluster.nodeId(1));
    List<ContainerReport> replicas = new ArrayList<>();
    for (ApplicationAttemptReport a : cluster.client().getApplicationAttempts(id)) {
      for (ContainerReport c : cluster.client().getContainers(a.getApplicationAttemptId())) {
        if (!c.getContainerId().equals(a.getAMContainerId())) {
          replicas.add(c);
        }
      }
    }
    assertThat(replicas).as("replica containers").hasSizeGreaterThanOrEqualTo(2);
    for (ContainerReport c : replicas) {
      assertThat(c.getAssignedNode()).as("node of %s", c.getContainerId()).isIn(inference);
      assertThat(c.getAllocatedResource().getResourceValue("yarn.io/gpu")).isEqualTo(1);
    }
    assertThat(cluster.client().getApplicationReport(id).getYarnApplicationState())
        .isEqualTo(YarnApplicationState.RUNNING);

    // A replica that dies is replaced: SIGKILL to one serving replica's container.
    ServeStatus before = last;
    String killed =
        before.replicas().stream()
            .filter(r -> r.state().equals("RUNNING"))
            .findFirst()
            .orElseThrow()
            .container();
    long killedAt = System.nanoTime();
    cluster
        .client()
        .signalToContainer(
            org.apache.hadoop.yarn.api.records.ContainerId.fromString(killed),
            org.apache.hadoop.yarn.api.records.SignalContainerCommand.FORCEFUL_SHUTDOWN);
    cluster.awaitShowingStatus(
        "the killed replica is replaced and the service serves with its target again",
        Duration.ofSeconds(60),
        () ->
            read(statusUrl, status)
                && status.get().replicas().stream().noneMatch(r -> r.container().equals(killed))
                && status.get().running() == before.target());
    System.out.printf(
        "replica %s killed; %d serving again %.1f s later%n",
        killed, before.target(), (System.nanoTime() - killedAt) / 1e9);
    assertThat(status.get().events())
        .filteredOn(e -> e.kind().equals("lost"))
        .extracting(ServeStatus.ScaleEvent::detail)
        .anySatisfy(d -> assertThat(d).startsWith(killed));
    assertThat(status.get().endpoints()).hasSize(before.target());
  }

  @Test
  @DisplayName(
      "a service the ResourceManager refuses (a parent queue): exit 2, its reason in one line, no"
          + " stack trace, no staged files left")
  void refusedServiceIsToldInOneLine() throws Exception {
    YarnConfiguration conf = new YarnConfiguration(cluster.conf());
    Path staging = dir.resolve("refused-staging");
    conf.set("aryl.serve.staging-dir", staging.toUri().toString());
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int exit =
        Main.run(
            conf,
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8),
            "serve",
            "--name",
            "refused",
            "--queue",
            "root",
            "--node-label",
            "inference",
            "--target-rps-per-replica",
            "4",
            "--memory-mb",
            "256",
            "--am-memory-mb",
            "256");
    String printed = out.toString(StandardCharsets.UTF_8) + err.toString(StandardCharsets.UTF_8);
    assertThat(exit).as(printed).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8).strip())
        .as("one line naming the application and the ResourceManager's reason")
        .matches("serve: the ResourceManager refused application_\\d+_\\d+: .*root.*")
        .doesNotContain("\n")
        .doesNotContain("Exception");
    assertThat(printed)
        .as("no stack trace, no usage")
        .doesNotContain("\tat ")
        .doesNotContain("Usage:");
    try (Stream<Path> left = Files.exists(staging) ? Files.list(staging) : Stream.empty()) {
      assertThat(left).as("staged files of the refused service").isEmpty();
    }
  }

  /**
   * Submits an inference service to this cluster through {@link LocalService}, its replicas running
   * the bundled {@code serve.py} on Debian's PyTorch, with these options (name, bounds, GPUs, rate
   * per replica) and the test-sized ones (256 MB containers, a 3 s window, polled every 500 ms);
   * returns once its AM runs.
   */
  static LocalService.Running submit(ArylMiniCluster cluster, Path dir, String... options)
      throws Exception {
    YarnConfiguration conf = new YarnConfiguration(cluster.conf());
    conf.set("aryl.serve.staging-dir", dir.resolve("staging").toUri().toString());
    List<String> args = new ArrayList<>(List.of(options));
    args.addAll(
        List.of(
            "--memory-mb",
            "256",
            "--am-memory-mb",
            "256",
            "--window-ms",
            "3000",
            "--poll-ms",
            "500",
            "--python",
            Torch.python()));
    LocalService.Running service = LocalService.submit(conf, System.out, args);
    assertThat(service.statusUrl()).endsWith(ServeStatus.PATH);
    return service;
  }

  /** A ServeGen-format curve of one model {@code it}, 60x compressed, every window played. */
  static RateCurve curve(String csv) throws IOException {
    return RateCurve.of(
        ServeGenTrace.read(
            new java.io.ByteArrayInputStream(csv.getBytes(StandardCharsets.UTF_8)),
            "it-curve.csv",
            "it"),
        0,
        0,
        60,
        1);
  }

  /**
   * Plays these arrivals against the service's endpoints (POST {@code /predict}, 10 s timeout) on
   * another thread, recording every request in {@code requests}.
   */
  static CompletableFuture<List<RequestRecord>> generate(
      String statusUrl, double[] arrivals, Path requests) {
    return LocalService.play(statusUrl, arrivals, requests);
  }

  /** Reads the service's status into {@code into}; false while the AM does not answer. */
  static boolean read(String url, AtomicReference<ServeStatus> into) {
    Optional<ServeStatus> s = LocalService.status(url);
    s.ifPresent(into::set);
    return s.isPresent();
  }
}
