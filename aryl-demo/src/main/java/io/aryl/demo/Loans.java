package io.aryl.demo;

import io.aryl.core.loan.LoanPolicy;
import io.aryl.labels.ActiveRmWebApp;
import io.aryl.labels.LoanController;
import io.aryl.labels.LoanDecider;
import io.aryl.labels.RateTrace;
import io.aryl.labels.ReplayDemand;
import io.aryl.labels.SchedulerResource;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.server.embedded.ExitHandler;
import org.apache.zookeeper.server.embedded.ZooKeeperServerEmbedded;

/**
 * The loan side of a run: an embedded ZooKeeper, and one loan controller that replays a day of the
 * inference curve compressed to the run's length and sets the loan target accordingly; the
 * scheduler lends idle inference nodes to training up to it, and takes back what is above it.
 */
final class Loans implements AutoCloseable {
  private final List<AutoCloseable> open = new ArrayList<>();
  private ReplayDemand demand;
  private LoanController controller;
  private LoanPolicy policy;

  /**
   * @param day one day of request rates, one per window of {@code windowS} seconds
   * @param timeScale trace seconds per wall-clock second
   */
  static Loans start(
      Path zkDir,
      DemoCluster cluster,
      double[] day,
      double windowS,
      double timeScale,
      long durationMs)
      throws Exception {
    Loans l = new Loans();
    try {
      l.startAll(zkDir, cluster, day, windowS, timeScale, durationMs);
    } catch (Exception | Error e) {
      l.close();
      throw e;
    }
    return l;
  }

  private void startAll(
      Path zkDir,
      DemoCluster cluster,
      double[] day,
      double windowS,
      double timeScale,
      long durationMs)
      throws Exception {
    Properties p = new Properties();
    p.setProperty("clientPort", Integer.toString(freePort()));
    p.setProperty("tickTime", "500");
    p.setProperty("initLimit", "10");
    p.setProperty("syncLimit", "5");
    p.setProperty("admin.enableServer", "false");
    java.nio.file.Files.createDirectories(zkDir);
    ZooKeeperServerEmbedded zk =
        ZooKeeperServerEmbedded.builder()
            .baseDir(zkDir)
            .configuration(p)
            .exitHandler(ExitHandler.LOG_ONLY)
            .build();
    open.add(zk);
    zk.start(30_000);

    CuratorFramework client =
        CuratorFrameworkFactory.newClient(
            zk.getConnectionString(), 30_000, 15_000, new ExponentialBackoffRetry(200, 5));
    open.add(client);
    client.start();
    if (!client.blockUntilConnected(30, TimeUnit.SECONDS)) {
      throw new IOException(
          "no connection to the embedded ZooKeeper at " + zk.getConnectionString());
    }

    List<double[]> rows = new ArrayList<>();
    double peak = 0;
    for (int i = 0; i < day.length; i++) {
      rows.add(new double[] {i * windowS, day[i]});
      peak = Math.max(peak, day[i]);
    }
    // The inference pool is provisioned for the day's peak with 20% headroom: at the peak it needs
    // every node.
    double headroom = 0.2;
    policy =
        new LoanPolicy(
            Math.max(1e-6, peak * (1 + headroom) / cluster.inferenceNodes()), headroom, 0);
    demand = new ReplayDemand(RateTrace.of(rows), timeScale, 0, 1, System::currentTimeMillis);
    SchedulerResource scheduler =
        new SchedulerResource(
            ActiveRmWebApp.of(ActiveRmWebApp.parseCandidates("rm", cluster.webAddress())));
    // Test-sized timings: a decision a second, a higher target after 2 s of low demand, none within
    // 5% of the run after
    // lowering it, the nodes above a lowered target due in 1/12 of the run (at least 10 s).
    long cooldownMs = Math.max(3_000, durationMs / 20);
    long deadlineMs = Math.max(10_000, durationMs / 12);
    LoanController.Config config =
        new LoanController.Config(
            "demo",
            "/aryl/loan-controller",
            1_000,
            new LoanDecider.Settings(policy, 2_000, cooldownMs, 4, deadlineMs));
    controller =
        new LoanController(client, config, List.of(demand), scheduler, System::currentTimeMillis);
    open.add(controller);
    controller.start();
  }

  /** The replayed request rate now, requests per second. */
  double rate() {
    return demand == null ? 0 : demand.rate();
  }

  /** Inference servers the rate needs now. */
  int serversNeeded() {
    return policy == null ? 0 : policy.serversNeeded(rate());
  }

  /** How many inference nodes the controller's last decision allows on loan; -1 before one. */
  int target() {
    return controller == null ? -1 : controller.lastTarget();
  }

  static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      s.setReuseAddress(true);
      return s.getLocalPort();
    }
  }

  @Override
  public void close() {
    for (int i = open.size() - 1; i >= 0; i--) {
      try {
        open.get(i).close();
      } catch (Exception e) {
        // shutting down: the next resource still closes
      }
    }
    open.clear();
  }
}
