package io.aryl.demo;

import io.aryl.api.serve.ServeStatus;
import io.aryl.api.serve.ServeStatus.ScaleEvent;
import io.aryl.demo.InferenceSummary.ReplicaStart;
import io.aryl.serve.LocalService;
import io.aryl.serve.loadgen.Arrivals;
import io.aryl.serve.loadgen.RateCurve;
import io.aryl.serve.loadgen.RequestRecord;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;

/**
 * The inference side of a run: the inference service (aryl-serve, real {@code serve.py} replicas on
 * the inference nodes) and the load generator playing the run's compressed ServeGen day against it;
 * while the run goes, the service's scaling events, the node each replica got and the nodes on
 * loan, from which {@link #finish} tells the replicas that waited for a reclaim.
 */
final class Inference {
  /**
   * Requests a second one replica is meant to carry ({@code --target-rps-per-replica}): well below
   * what {@code serve.py} answers on one CPU thread (~800/s), so that the service scales with the
   * curve and not with a saturated replica.
   */
  static final double RPS_PER_REPLICA = 10;

  /**
   * Headroom of the inference pool over the day's peak: the curve is scaled so that its peak, with
   * this headroom, needs every inference node (as the replayed demand was sized before).
   */
  static final double HEADROOM = 0.2;

  /** The seed of the arrivals: the same requests in every run. */
  private static final long ARRIVALS_SEED = 42;

  /**
   * The inference service's settings in a run.
   *
   * @param python the Python that runs {@code serve.py} (one that imports torch)
   * @param sloMs the requests' latency objective
   * @param scaleDownAfterMs the service's scale-down hysteresis
   */
  record Settings(String python, double sloMs, long scaleDownAfterMs) {}

  private final DemoCluster cluster;
  private final LocalService.Running service;
  private final RateCurve curve;
  private final double sloMs;
  private final Set<ScaleEvent> events = new LinkedHashSet<>();
  private final Map<String, String> nodeOf = new HashMap<>();
  private final List<LentSample> lent = new ArrayList<>();
  private volatile ServeStatus last;
  private CompletableFuture<List<RequestRecord>> traffic;
  private long trafficStartMs = -1;

  private Inference(
      DemoCluster cluster, LocalService.Running service, RateCurve curve, double sloMs) {
    this.cluster = cluster;
    this.service = service;
    this.curve = curve;
    this.sloMs = sloMs;
  }

  /**
   * The run's curve: the day's rates, one per window of {@code windowS} trace seconds, compressed
   * {@code timeScale} times and scaled so that the peak with {@link #HEADROOM} needs {@code
   * inferenceNodes} replicas of {@link #RPS_PER_REPLICA}.
   */
  static RateCurve curve(double[] day, double windowS, double timeScale, int inferenceNodes) {
    double peak = 0;
    for (double r : day) {
      peak = Math.max(peak, r);
    }
    double scale = peak <= 0 ? 0 : inferenceNodes * RPS_PER_REPLICA / (1 + HEADROOM) / peak;
    double[] rps = new double[day.length];
    for (int i = 0; i < day.length; i++) {
      rps[i] = day[i] * scale;
    }
    return new RateCurve(windowS / timeScale, rps);
  }

  /**
   * Submits the inference service (one replica per inference node of {@code gpusPerNode} GPUs, 1 to
   * every inference node) and returns once its first replica answers, within 3 minutes.
   */
  static Inference start(
      DemoCluster cluster,
      RateCurve curve,
      int gpusPerNode,
      Settings settings,
      Path staging,
      PrintStream out)
      throws Exception {
    YarnConfiguration conf = new YarnConfiguration(cluster.conf());
    conf.set("aryl.serve.staging-dir", staging.toUri().toString());
    List<String> options =
        List.of(
            "--name",
            "aryl-demo-inference",
            "--queue",
            "inference",
            "--node-label",
            "inference",
            "--replicas-min",
            "1",
            "--replicas-max",
            Integer.toString(cluster.inferenceNodes()),
            "--gpus",
            Integer.toString(gpusPerNode),
            "--memory-mb",
            "256",
            "--am-memory-mb",
            "256",
            "--target-rps-per-replica",
            Double.toString(RPS_PER_REPLICA),
            "--window-ms",
            "3000",
            "--poll-ms",
            "500",
            "--scale-down-after-ms",
            Long.toString(settings.scaleDownAfterMs()),
            "--python",
            settings.python());
    PrintStream quiet = new PrintStream(OutputStream.nullOutputStream());
    LocalService.Running running = LocalService.submit(conf, quiet, options);
    Inference inf = new Inference(cluster, running, curve, settings.sloMs());
    long deadline = System.currentTimeMillis() + 180_000;
    while (true) {
      Optional<ServeStatus> s = LocalService.status(running.statusUrl());
      if (s.isPresent() && s.get().running() >= 1) {
        inf.last = s.get();
        inf.events.addAll(s.get().events());
        break;
      }
      if (s.isPresent() && "FAILED".equals(s.get().state())) {
        throw new IllegalStateException(
            "the inference service failed before it served: " + lastEvent(s.get()));
      }
      if (System.currentTimeMillis() > deadline) {
        throw new IllegalStateException(
            "the inference service had no replica serving 3 minutes after it was submitted ("
                + running.id()
                + (s.isPresent() ? ", " + lastEvent(s.get()) : ", its AM not answering")
                + "); is --python "
                + settings.python()
                + " a Python with torch?");
      }
      Thread.sleep(500);
    }
    out.printf(
        Locale.ROOT,
        "   inference service %s: its first replica serves; the load generator plays %.0f-%.0f "
            + "requests/s (%.0f a replica)%n",
        running.id(),
        Arrays.stream(curve.rps()).min().orElse(0),
        Arrays.stream(curve.rps()).max().orElse(0),
        RPS_PER_REPLICA);
    return inf;
  }

  private static String lastEvent(ServeStatus s) {
    return s.events().isEmpty() ? s.state() : s.events().get(s.events().size() - 1).toString();
  }

  /** Starts the traffic: the run's curve as seeded open-loop Poisson arrivals. */
  void startTraffic() {
    trafficStartMs = System.currentTimeMillis();
    traffic = LocalService.play(service.statusUrl(), Arrivals.times(curve, ARRIVALS_SEED), null);
  }

  /** Whether every request of the curve has been answered or given up on. */
  boolean trafficDone() {
    return traffic != null && traffic.isDone();
  }

  /**
   * Reads the service's status (its events kept, its replicas' nodes looked up) and notes the
   * inference nodes on loan now.
   */
  void sample(Set<String> lentNodes) {
    long now = System.currentTimeMillis();
    lent.add(new LentSample(now, Set.copyOf(lentNodes)));
    Optional<ServeStatus> s = LocalService.status(service.statusUrl());
    if (s.isEmpty()) {
      return;
    }
    last = s.get();
    events.addAll(s.get().events());
    for (ServeStatus.ReplicaStatus r : s.get().replicas()) {
      if (!nodeOf.containsKey(r.container())) {
        RMContainer c = cluster.scheduler().getRMContainer(ContainerId.fromString(r.container()));
        if (c != null && c.getAllocatedNode() != null) {
          nodeOf.put(r.container(), c.getAllocatedNode().toString());
        }
      }
    }
  }

  /** The service's measured rate and serving replicas, as last read. */
  String progress() {
    ServeStatus s = last;
    return s == null
        ? "inference -"
        : String.format(
            Locale.ROOT,
            "inference %.0f rps, %d/%d replicas serving",
            s.rateRps(),
            s.running(),
            s.target());
  }

  /**
   * Waits for the traffic's last answers (at most {@code waitMs}) and sums the run's inference up.
   */
  InferenceSummary finish(long waitMs) throws Exception {
    List<RequestRecord> records;
    try {
      records = traffic.get(waitMs, TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      throw new IllegalStateException(
          "the load generator had not ended " + waitMs + " ms after the run", e);
    }
    sample(lent.isEmpty() ? Set.of() : lent.get(lent.size() - 1).nodes());
    List<ReplicaStart> starts = starts(events, nodeOf, lent, trafficStartMs);
    return InferenceSummary.of(records, sloMs, curve.durationS(), starts);
  }

  /** The inference nodes (host:port) on loan at one moment. */
  record LentSample(long timeMs, Set<String> nodes) {}

  /**
   * The replicas that first served after {@code fromMs}, each with the ask it answered: the
   * earliest ask after the previous grant, or else the last ask before its own grant (the AM logs
   * one "ask" per batch of replicas asked for, and grants come in order). A replica waited for a
   * reclaim when its node was on loan at any sample from the last one before its ask to its grant.
   */
  static List<ReplicaStart> starts(
      Collection<ScaleEvent> events,
      Map<String, String> nodeOf,
      List<LentSample> lent,
      long fromMs) {
    List<ScaleEvent> sorted =
        events.stream().sorted(Comparator.comparingLong(ScaleEvent::timeMs)).toList();
    List<ReplicaStart> out = new ArrayList<>();
    long previousGrant = Long.MIN_VALUE;
    for (ScaleEvent e : sorted) {
      if (!e.kind().equals("allocated")) {
        continue;
      }
      long grant = e.timeMs();
      String container = e.detail().split(" ", 2)[0];
      long after = previousGrant;
      previousGrant = grant;
      Long ask =
          sorted.stream()
              .filter(a -> a.kind().equals("ask") && a.timeMs() > after && a.timeMs() <= grant)
              .map(ScaleEvent::timeMs)
              .findFirst()
              .orElseGet(
                  () ->
                      sorted.stream()
                          .filter(a -> a.kind().equals("ask") && a.timeMs() <= grant)
                          .map(ScaleEvent::timeMs)
                          .reduce((a, b) -> b)
                          .orElse(null));
      Long ready =
          sorted.stream()
              .filter(r -> r.kind().equals("ready") && r.detail().startsWith(container + " "))
              .map(ScaleEvent::timeMs)
              .findFirst()
              .orElse(null);
      if (ask == null || ready == null || ready < fromMs) {
        continue;
      }
      String node = nodeOf.get(container);
      out.add(
          new ReplicaStart(
              container, ask, ready, node != null && lentBetween(lent, node, ask, grant)));
    }
    return out;
  }

  private static boolean lentBetween(List<LentSample> lent, String node, long fromMs, long toMs) {
    long from = Long.MIN_VALUE;
    for (LentSample s : lent) {
      if (s.timeMs() <= fromMs) {
        from = s.timeMs();
      }
    }
    for (LentSample s : lent) {
      if (s.timeMs() >= from && s.timeMs() <= toMs && s.nodes().contains(node)) {
        return true;
      }
    }
    return false;
  }
}
