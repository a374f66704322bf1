package io.aryl.demo;

import io.aryl.core.loan.LoanPolicy;
import io.aryl.labels.ActiveRmWebApp;
import io.aryl.labels.LoanController;
import io.aryl.labels.LoanDecider;
import io.aryl.labels.SchedulerResource;
import io.aryl.labels.ServeDemand;
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
 * The loan side of a run: an embedded ZooKeeper, and one loan controller that takes its demand from
 * the inference service itself (node-labels' {@code serve} source: its measured rate and the
 * replicas it runs and asks for) and sets the loan target accordingly; the scheduler lends idle
 * inference nodes to training up to it, and takes back what is above it.
 */
final class Loans implements AutoCloseable {
  private final List<AutoCloseable> open = new ArrayList<>();
  private LoanController controller;

  /**
   * @param rpsPerReplica requests a second one replica of the service carries
   */
  static Loans start(Path zkDir, DemoCluster cluster, double rpsPerReplica, long durationMs)
      throws Exception {
    Loans l = new Loans();
    try {
      l.startAll(zkDir, cluster, rpsPerReplica, durationMs);
    } catch (Exception | Error e) {
      l.close();
      throw e;
    }
    return l;
  }

  private void startAll(Path zkDir, DemoCluster cluster, double rpsPerReplica, long durationMs)
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

    // The serve source gives the decision the servers the service needs (its measured rate with
    // this headroom, at least the replicas it runs and asks for) as a rate under this policy: the
    // capacity is one replica's, since a replica holds a whole inference node here.
    LoanPolicy policy = new LoanPolicy(rpsPerReplica, Inference.HEADROOM, 0);
    SchedulerResource scheduler =
        new SchedulerResource(
            ActiveRmWebApp.of(ActiveRmWebApp.parseCandidates("rm", cluster.webAddress())));
    ServeDemand demand =
        new ServeDemand(
            ActiveRmWebApp.of(ActiveRmWebApp.parseCandidates("rm", cluster.webAddress())), policy);
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
