package io.aryl.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.api.serve.ServeStatus;
import io.aryl.api.status.LoanTargetStatus;
import io.aryl.api.status.NodeStatus;
import io.aryl.api.status.ReclaimStatus;
import io.aryl.api.status.SchedulerStatus;
import io.aryl.labels.LoanController;
import io.aryl.labels.ServeDemand;
import io.aryl.serve.LocalService;
import io.aryl.serve.loadgen.Arrivals;
import io.aryl.serve.loadgen.LoadSummary;
import io.aryl.serve.loadgen.RateCurve;
import io.aryl.serve.loadgen.RequestRecord;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The loan controller taking its demand from the inference service itself (its {@code serve}
 * source, {@link ServeDemand}), on a MiniYARNCluster with ArylScheduler: two inference nodes and
 * training's own node, 8 GPUs each. The service's replicas hold 8 GPUs, so an inference server runs
 * one replica. At 1 request a second the service runs one replica and the controller lends the
 * other node, which a training job fills; the load generator then raises the rate to 8 a second (5
 * a replica): the service asks for a second replica that no unlent node can hold, the controller
 * lowers its target, the scheduler takes the node back from training, and the replica runs on it.
 * Every request is answered meanwhile by the first replica.
 */
@DisplayName("The loan controller's demand from the inference service: a replica behind a reclaim")
class ServeDemandIT {
  /**
   * 10-minute windows, 60x compressed (10 s each): 1 request a second for 10 s, then 8 for 50. At 5
   * a replica the first wants 1 replica with room to spare (the generator's first requests may
   * bunch while its JVM warms up: the 3 s window must not read them as 5 a second), the rise 2.
   */
  private static final String CURVE =
      """
      model,window_start_s,total_rate_rps,active_clients
      it,0,1,1
      it,600,8,1
      it,1200,8,1
      it,1800,8,1
      it,2400,8,1
      it,3000,8,1
      """;

  @TempDir Path dir;

  @Test
  @DisplayName(
      "one replica: the idle inference node is lent; the rate rises: the service asks for a second,"
          + " the node comes back from training and the replica serves on it, every request answered")
  void aReplicaBehindAReclaim() throws Exception {
    long t0 = System.currentTimeMillis();
    try (LoanRig rig =
        new LoanRig(ArylMiniCluster.start("servedemand", AmJobs.conf(dir.toFile()), 2, 1), 2)) {
      ArylMiniCluster cluster = rig.cluster;
      step(t0, "cluster up: 2 inference nodes, 1 training node, 8 GPUs each");

      LocalService.Running service =
          InferenceServeIT.submit(
              cluster,
              dir,
              "--name",
              "it-serve-demand",
              "--replicas-min",
              "1",
              "--replicas-max",
              "2",
              "--gpus",
              "8",
              "--target-rps-per-replica",
              "5");
      AtomicReference<ServeStatus> status = new AtomicReference<>();
      cluster.awaitShowingStatus(
          "the service's first replica answers its health check",
          Duration.ofSeconds(90),
          () -> InferenceServeIT.read(service.statusUrl(), status) && status.get().running() == 1);
      String first = status.get().replicas().get(0).container();
      String firstNode = nodeOf(cluster, first);
      step(t0, "service " + service.id() + ": replica 1 serving on " + firstNode);

      LoanController lc =
          rig.controller(
              "a",
              rig.client(),
              rig.scheduler(),
              List.of(new ServeDemand(rig.web(), LoanRig.POLICY)));
      cluster.awaitShowingStatus(
          "the service needs 1 server of 2: target 1 in force and the idle inference node lent",
          () -> rig.targetFrom(lc, 1) && rig.count("training") == 1);
      String lentNode = lentNode(cluster.status());
      assertThat(lentNode)
          .as("the node lent is the one without the replica")
          .isNotEqualTo(firstNode);
      step(t0, "controller: demand " + demand(lc) + "; target 1, " + lentNode + " lent");

      try (TestJob job =
          TestJob.submit(cluster, "t", "training", TestJob.shape(1, 16, 1, 3600), 1, false)) {
        job.askWorkersAtOnce(16);
        cluster.awaitShowingStatus(
            "training fills its node and the lent one", () -> job.workers() == 16);
        assertThat(job.workersByNode()).containsKey(lentNode);
        step(t0, "training: 16 workers, " + job.workersByNode());

        RateCurve curve = InferenceServeIT.curve(CURVE);
        double[] arrivals = Arrivals.times(curve, 7);
        long loadStartMs = System.currentTimeMillis();
        CompletableFuture<List<RequestRecord>> run =
            InferenceServeIT.generate(service.statusUrl(), arrivals, dir.resolve("requests.jsonl"));
        long riseMs = loadStartMs + (long) (curve.stepS() * 1000);
        step(t0, "load: 1 rps for 10 s, then 8 rps (the service wants 2 replicas at 5 each)");

        cluster.awaitShowingStatus(
            "the service asks for a second replica and the controller lowers its target to 0",
            Duration.ofSeconds(40),
            () -> rig.targetFrom(lc, 0));
        long loweredSeenMs = System.currentTimeMillis();
        LoanTargetStatus lowered = rig.target();
        step(
            t0,
            "controller: demand "
                + demand(lc)
                + "; target 0 decided "
                + (lowered.decidedMs() - riseMs)
                + " ms after the rise, back by +"
                + (lowered.returnByMs() - lowered.decidedMs())
                + " ms ("
                + lowered.reason()
                + ")");

        cluster.awaitShowingStatus(
            "the lent node back and the second replica serving on it",
            Duration.ofSeconds(60),
            () ->
                InferenceServeIT.read(service.statusUrl(), status)
                    && status.get().running() == 2
                    && rig.count("inference") == 2);
        long servingSeenMs = System.currentTimeMillis();
        ServeStatus two = status.get();
        String second =
            two.replicas().stream()
                .filter(r -> !r.container().equals(first) && r.state().equals("RUNNING"))
                .findFirst()
                .orElseThrow()
                .container();
        assertThat(nodeOf(cluster, second))
            .as("the second replica runs on the node training gave back")
            .isEqualTo(lentNode);

        SchedulerStatus s = cluster.status();
        assertThat(s.reclaimsDone()).as("one reclaim, of the lent node").hasSize(1);
        ReclaimStatus done = s.reclaimsDone().get(0);
        assertThat(done.nodes()).containsExactly(lentNode);
        assertThat(done.late()).isFalse();
        assertThat(done.deadlineMs()).isEqualTo(lowered.returnByMs());

        long allocatedMs = eventOf(two, "allocated", second);
        long askMs = lastBefore(two, "ask", allocatedMs);
        assertThat(askMs)
            .as("the second replica asked for after the load started")
            .isGreaterThan(loadStartMs);
        long readyMs = eventOf(two, "ready", second);
        step(t0, "replica 2 asked at rise +" + (askMs - riseMs) + " ms (AM clock)");
        step(
            t0,
            "reclaim of "
                + lentNode
                + ": took "
                + done.tookMs()
                + " ms, "
                + done.containersPreempted()
                + " preempted, "
                + done.containersShrunk()
                + " shrunk, finished at rise +"
                + (done.finishedMs() - riseMs)
                + " ms");
        step(t0, "replica 2 allocated at rise +" + (allocatedMs - riseMs) + " ms on " + lentNode);
        step(t0, "replica 2 ready at rise +" + (readyMs - riseMs) + " ms");
        System.out.printf(
            "ServeDemandIT: ask -> replica answers %d ms with the reclaim in the way (ask ->"
                + " allocated %d ms, allocated -> ready %d ms); target lowered %d ms after the"
                + " ask%n",
            readyMs - askMs,
            allocatedMs - askMs,
            readyMs - allocatedMs,
            lowered.decidedMs() - askMs);

        // The controller measures each replica's start-up from the same events, read through the
        // RM's proxy at its decisions: the first replica's (in the window when it first read the
        // service) and the second's, started on the node the reclaim brought home.
        long firstStartupMs = eventOf(two, "ready", first) - eventOf(two, "allocated", first);
        cluster.awaitShowingStatus(
            "the controller measured the second replica's start-up, from its grant to its answer",
            () -> Long.valueOf(readyMs - allocatedMs).equals(startup(lc).get("lastMs")));
        assertThat(startup(lc).get("measured")).as("start-ups measured, each once").isEqualTo(2);
        assertThat(readyMs - allocatedMs).as("a real replica's start-up").isPositive();
        cluster.awaitShowingStatus(
            "a target carrying the start-up part of its time to serve",
            () -> {
              LoanTargetStatus t = rig.target();
              return t != null && t.demand() != null && t.demand().startupMs() != null;
            });
        assertThat(rig.target().demand().startupMs())
            .as("the p90 (nearest rank) of the two start-ups: the larger")
            .isEqualTo(Math.max(firstStartupMs, readyMs - allocatedMs));
        step(
            t0,
            "controller: start-ups measured "
                + firstStartupMs
                + " and "
                + (readyMs - allocatedMs)
                + " ms; the target's time to serve "
                + rig.target().demand().timeToServeMs()
                + " ms, "
                + rig.target().demand().reclaimMs()
                + " reclaim + "
                + rig.target().demand().startupMs()
                + " start-up");

        List<RequestRecord> records = run.get(120, TimeUnit.SECONDS);
        LoadSummary summary = LoadSummary.of(records, 500, curve.durationS());
        step(t0, "load done: " + summary.line());
        assertThat(records).hasSize(arrivals.length);
        assertThat(summary.failures()).as("requests not answered ok: %s", summary.line()).isZero();
        assertThat(allocatedMs)
            .as("the replica granted by the reclaim's deadline (plus a heartbeat)")
            .isLessThanOrEqualTo(lowered.returnByMs() + 2_000);
        assertThat(servingSeenMs - loweredSeenMs).isLessThan(LoanRig.DEADLINE_MS + 30_000);
        assertThat(job.workersByNode())
            .as("training keeps its own node")
            .doesNotContainKey(lentNode);
      }
      step(t0, "done");
    }
  }

  private static void step(long t0, String what) {
    System.out.printf(
        "ServeDemandIT %6.1f s  %s%n", (System.currentTimeMillis() - t0) / 1000.0, what);
  }

  @SuppressWarnings("unchecked")
  private static Object demand(LoanController lc) {
    return ((Map<String, Object>) lc.status().get("demand")).get("sources");
  }

  /** The controller's {@code /status} {@code decision.timeToServe.startup}. */
  private static Map<?, ?> startup(LoanController lc) {
    Map<?, ?> decision = (Map<?, ?>) lc.status().get("decision");
    return decision == null
        ? Map.of("measured", 0)
        : (Map<?, ?>) ((Map<?, ?>) decision.get("timeToServe")).get("startup");
  }

  /** The node (host:port) a container was given. */
  private static String nodeOf(ArylMiniCluster cluster, String container) throws Exception {
    return cluster
        .client()
        .getContainerReport(ContainerId.fromString(container))
        .getAssignedNode()
        .toString();
  }

  private static String lentNode(SchedulerStatus s) {
    List<String> lent = new ArrayList<>();
    for (NodeStatus n : s.nodes()) {
      if (n.place() == NodeStatus.Place.LENT) {
        lent.add(n.node());
      }
    }
    assertThat(lent).as("nodes lent").hasSize(1);
    return lent.get(0);
  }

  /** When the AM last logged an event of this kind before (or at) {@code beforeMs}. */
  static long lastBefore(ServeStatus s, String kind, long beforeMs) {
    return s.events().stream()
        .filter(e -> e.kind().equals(kind) && e.timeMs() <= beforeMs)
        .mapToLong(ServeStatus.ScaleEvent::timeMs)
        .max()
        .orElseThrow(
            () -> new AssertionError("no " + kind + " event before " + beforeMs + ": " + s));
  }

  /** When the AM logged an event of this kind naming this replica's container. */
  private static long eventOf(ServeStatus s, String kind, String container) {
    return s.events().stream()
        .filter(e -> e.kind().equals(kind) && e.detail().contains(container))
        .mapToLong(ServeStatus.ScaleEvent::timeMs)
        .findFirst()
        .orElseThrow(() -> new AssertionError("no " + kind + " event of " + container + ": " + s));
  }
}
