package io.aryl.it;

import io.aryl.api.status.LoanTargetStatus;
import io.aryl.api.status.SchedulerStatus;
import io.aryl.core.loan.LoanPolicy;
import io.aryl.labels.ActiveRmWebApp;
import io.aryl.labels.DemandSource;
import io.aryl.labels.LabelsSettings;
import io.aryl.labels.LoanController;
import io.aryl.labels.LoanDecider;
import io.aryl.labels.SchedulerLink;
import io.aryl.labels.SchedulerResource;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;

/**
 * What the loan-controller tests share: a MiniYARNCluster with inference nodes 0..n-1 and
 * training's own node n, an embedded ZooKeeper, a demand the test sets, and controllers with
 * test-sized timings (decisions every 200 ms, no hold, no margin, 100 rps per server, the rest back
 * within {@link #DEADLINE_MS} of lowering the target).
 */
final class LoanRig implements AutoCloseable {
  static final long DEADLINE_MS = 20_000;

  /** 100 rps a server, no headroom, no margin. */
  static final LoanPolicy POLICY = new LoanPolicy(100, 0, 0);

  final ArylMiniCluster cluster;
  final TestingServer zk;
  final int inference;
  final AtomicReference<Double> rate = new AtomicReference<>();
  private final List<AutoCloseable> open = new ArrayList<>();

  LoanRig(ArylMiniCluster cluster, int inference) throws Exception {
    this.cluster = cluster;
    this.inference = inference;
    this.zk = new TestingServer();
    rate.set(100.0 * inference);
  }

  CuratorFramework client() throws InterruptedException {
    CuratorFramework c =
        CuratorFrameworkFactory.newClient(
            zk.getConnectString(), 6_000, 3_000, new RetryOneTime(200));
    c.start();
    c.blockUntilConnected();
    open.add(c);
    return c;
  }

  /**
   * The paths the embedded ZooKeeper holds a watch on, from its {@code wchp} four-letter command
   * (the pom puts it on ZooKeeper's four-letter-word whitelist for these tests).
   */
  List<String> watchedPaths() throws IOException {
    String out;
    try (Socket s = new Socket("localhost", zk.getPort())) {
      s.setSoTimeout(
          5_000); // a ZooKeeper that does not answer fails this read, not the test's wait
      OutputStream o = s.getOutputStream();
      o.write("wchp".getBytes(StandardCharsets.US_ASCII));
      o.flush();
      InputStream in = s.getInputStream();
      out = new String(in.readAllBytes(), StandardCharsets.US_ASCII);
    }
    if (out.contains("not in the whitelist")) {
      throw new IllegalStateException(
          "ZooKeeper refused wchp: "
              + out.strip()
              + " (set -Dzookeeper.4lw.commands.whitelist=wchp,srvr for the test JVM)");
    }
    return out.lines().filter(l -> l.startsWith("/")).toList();
  }

  /**
   * The scheduler's REST resource, with every RM's web app as a candidate: it follows the active
   * one.
   */
  SchedulerResource scheduler() {
    return new SchedulerResource(web());
  }

  /** Every RM's web app as a candidate: calls go to the active one. */
  ActiveRmWebApp web() {
    return ActiveRmWebApp.of(
        ActiveRmWebApp.parseCandidates("rm", String.join(",", cluster.webAddresses())));
  }

  LoanController controller(String id, CuratorFramework c) throws Exception {
    return controller(id, c, scheduler());
  }

  LoanController controller(String id, CuratorFramework c, SchedulerLink scheduler)
      throws Exception {
    return controller(id, c, scheduler, List.of(() -> rate.get()));
  }

  /** A controller with these demand sources instead of the test's rate. */
  LoanController controller(
      String id, CuratorFramework c, SchedulerLink scheduler, List<DemandSource> demand)
      throws Exception {
    LoanController.Config cfg =
        new LoanController.Config(
            id,
            "/aryl/loan-controller",
            200,
            new LoanDecider.Settings(POLICY, 0, 0, 4, DEADLINE_MS));
    LoanController lc = new LoanController(c, cfg, demand, scheduler, System::currentTimeMillis);
    open.add(lc);
    lc.start();
    return lc;
  }

  /**
   * A controller with these demand sources and the decision of these settings (as {@code
   * aryl-labels run} reads its keys), its instance id and ZooKeeper root this rig's.
   */
  LoanController controller(
      String id,
      CuratorFramework c,
      SchedulerLink scheduler,
      List<DemandSource> demand,
      LabelsSettings settings)
      throws Exception {
    LoanController.Config cfg =
        new LoanController.Config(
            id, "/aryl/loan-controller", settings.intervalMs(), settings.deciderSettings());
    LoanController lc = new LoanController(c, cfg, demand, scheduler, System::currentTimeMillis);
    open.add(lc);
    lc.start();
    return lc;
  }

  /**
   * The target in force in the active scheduler; null before one, or while no scheduler answers.
   */
  LoanTargetStatus target() {
    SchedulerStatus s = ArylStatus.orNull(cluster);
    return s == null ? null : s.loanTarget();
  }

  /**
   * True when no reclaim is in flight: the labels turn inference a round before the reclaim that
   * relabelled them is recorded done.
   */
  boolean noReclaimInFlight() {
    SchedulerStatus s = ArylStatus.orNull(cluster);
    return s != null && s.reclaimsInFlight().isEmpty();
  }

  /**
   * True when the target in force allows {@code maxOnLoan} and was set by {@code lc} under its
   * epoch now.
   */
  boolean targetFrom(LoanController lc, int maxOnLoan) {
    LoanTargetStatus t = target();
    return t != null
        && t.maxOnLoan() == maxOnLoan
        && t.controller().equals(lc.instanceId())
        && t.epoch() == lc.epoch();
  }

  /** Inference nodes labelled {@code label} now. */
  int count(String label) {
    int n = 0;
    for (int i = 0; i < inference; i++) {
      if (label.equals(cluster.partitionOf(i))) {
        n++;
      }
    }
    return n;
  }

  int indexOf(String node) {
    for (int i = 0; i <= inference; i++) {
      if (cluster.nodeName(i).equals(node)) {
        return i;
      }
    }
    throw new IllegalArgumentException(node);
  }

  /**
   * Samples the inference nodes' partitions every few milliseconds: each must be in exactly one
   * pool at every moment (never neither), and never in the inference partition with a container on
   * it. Across a restart or failover, the moments without an active ResourceManager, or before a
   * node re-registered, show nothing and are skipped.
   */
  PoolWatch watch() {
    PoolWatch w = new PoolWatch();
    open.add(w);
    return w;
  }

  final class PoolWatch implements AutoCloseable {
    final List<String> violations = new CopyOnWriteArrayList<>();
    final Set<String> seenTraining = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final Thread thread;
    volatile long samples;

    PoolWatch() {
      thread =
          new Thread(
              () -> {
                while (running.get()) {
                  for (int i = 0; i < inference; i++) {
                    String p = cluster.partitionOf(i);
                    if (p == null && cluster.recovering()) {
                      continue; // no active ResourceManager, or the node not re-registered yet:
                      // nothing to see
                    }
                    if (!"inference".equals(p) && !"training".equals(p)) {
                      violations.add(cluster.nodeName(i) + " in neither pool: " + p);
                    } else if ("inference".equals(p) && cluster.containersOn(i) > 0) {
                      violations.add(
                          cluster.nodeName(i)
                              + " labelled inference with a training container on it");
                    } else if ("training".equals(p)) {
                      seenTraining.add(cluster.nodeName(i));
                    }
                  }
                  samples++;
                  try {
                    Thread.sleep(5);
                  } catch (InterruptedException e) {
                    return;
                  }
                }
              },
              "pool-watch");
      thread.setDaemon(true);
      thread.start();
    }

    @Override
    public void close() {
      running.set(false);
      try {
        thread.join(2000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  @Override
  public void close() throws IOException {
    for (int i = open.size() - 1; i >= 0; i--) {
      try {
        open.get(i).close();
      } catch (Exception | AssertionError e) {
        // already closed
      }
    }
    try {
      zk.close();
    } finally {
      cluster.close();
    }
  }
}
