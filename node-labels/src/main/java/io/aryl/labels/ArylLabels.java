package io.aryl.labels;

import io.aryl.api.conf.PoolConf;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.yarn.client.ClientRMProxy;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.api.ResourceManagerAdministrationProtocol;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code aryl-labels}: {@code init} bootstraps the two pools' labels, {@code run} runs the loan
 * controller.
 */
@Command(
    name = "aryl-labels",
    mixinStandardHelpOptions = true,
    version = "aryl-labels 0.1",
    description =
        "Node labels of Aryl's two GPU pools, and the loan controller that decides how many inference nodes"
            + " the scheduler may lend to training.",
    subcommands = {ArylLabels.Init.class, ArylLabels.Run.class, ArylLabels.Keys.class})
public final class ArylLabels {
  public static void main(String[] args) {
    System.exit(new CommandLine(new ArylLabels()).execute(args));
  }

  /** Options every subcommand shares: where the configuration comes from. */
  static class ConfOptions {
    @Option(
        names = "--conf",
        description = "Hadoop configuration file(s) to add (yarn-site.xml ...).")
    List<Path> files = new ArrayList<>();

    @Option(
        names = {"-D"},
        description = "key=value to set, e.g. -D aryl.labels.interval-ms=2000.")
    Map<String, String> props = Map.of();

    Configuration load() {
      YarnConfiguration conf = new YarnConfiguration();
      for (Path p : files) {
        conf.addResource(new org.apache.hadoop.fs.Path(p.toUri()));
      }
      props.forEach(conf::set);
      return conf;
    }
  }

  @Command(
      name = "init",
      mixinStandardHelpOptions = true,
      description =
          "Create the exclusive labels inference and training if missing and put nodes in their pools."
              + " Idempotent; refuses nodes the ResourceManager does not know, changing nothing.")
  static final class Init implements Callable<Integer> {
    @CommandLine.Mixin ConfOptions conf = new ConfOptions();

    @Option(
        names = "--hosts",
        description =
            "File of '<node> <pool>' lines (node host:port as YARN reports it,"
                + " pool inference or training; # comments).")
    Path hosts;

    @Option(
        names = "--inference",
        description = "Regular expression: matching nodes go to the inference pool.")
    String inferencePattern;

    @Option(
        names = "--training",
        description = "Regular expression: matching nodes go to the training pool.")
    String trainingPattern;

    @Override
    public Integer call() throws Exception {
      Configuration c = conf.load();
      LabelsSettings s = LabelsSettings.from(c);
      // With Kerberos on, the caller's own ticket (kinit as a YARN admin) is used.
      UserGroupInformation.setConfiguration(c);
      YarnClient client = YarnClient.createYarnClient();
      client.init(c);
      client.start();
      ResourceManagerAdministrationProtocol admin =
          ClientRMProxy.createRMProxy(c, ResourceManagerAdministrationProtocol.class);
      try {
        LabelBootstrap b = new LabelBootstrap(client, admin, s.inferenceLabel(), s.trainingLabel());
        Map<String, String> pools = new java.util.TreeMap<>();
        if (hosts != null) {
          pools.putAll(b.readHostsFile(hosts));
        }
        if (inferencePattern != null || trainingPattern != null) {
          for (Map.Entry<String, String> e :
              b.fromPatterns(inferencePattern, trainingPattern).entrySet()) {
            String before = pools.put(e.getKey(), e.getValue());
            if (before != null && !before.equals(e.getValue())) {
              throw new IllegalArgumentException(
                  "node "
                      + e.getKey()
                      + " is "
                      + before
                      + " in the hosts file but"
                      + " matches the "
                      + e.getValue()
                      + " pattern");
            }
          }
        }
        LabelBootstrap.Result r = b.init(pools);
        System.out.println("labels created: " + r.labelsCreated());
        System.out.println("nodes relabelled: " + r.relabelled());
        System.out.println("nodes already labelled: " + r.unchanged());
        return 0;
      } catch (IllegalArgumentException | IllegalStateException e) {
        System.err.println("aryl-labels init: " + e.getMessage());
        return 2;
      } finally {
        client.stop();
        org.apache.hadoop.ipc.RPC.stopProxy(admin);
      }
    }
  }

  @Command(
      name = "run",
      mixinStandardHelpOptions = true,
      description =
          "Run a loan controller instance (any number may run; one leads through ZooKeeper).")
  static final class Run implements Callable<Integer> {
    @CommandLine.Mixin ConfOptions conf = new ConfOptions();

    @Override
    public Integer call() throws Exception {
      Configuration c = conf.load();
      LabelsSettings s;
      ControllerSecurity security;
      try {
        s = LabelsSettings.from(c);
        security = ControllerSecurity.from(c);
      } catch (IllegalArgumentException e) {
        System.err.println("aryl-labels run: " + e.getMessage());
        return 2;
      }
      if (s.zkConnect().isEmpty()) {
        System.err.println(
            "aryl-labels run: set " + LabelsConf.ZK_CONNECT.key() + " (or hadoop.zk.address)");
        return 2;
      }
      UserGroupInformation login;
      try {
        login = security.login(c, true);
      } catch (IOException e) {
        System.err.println("aryl-labels run: " + e.getMessage());
        return 2;
      }
      ActiveRmWebApp web;
      try {
        web =
            ActiveRmWebApp.of(
                c, security.kerberos() ? new Spnego(login) : ActiveRmWebApp.Authorization.NONE);
      } catch (IllegalArgumentException e) {
        System.err.println("aryl-labels run: " + e.getMessage());
        return 2;
      }
      CuratorFramework zk =
          ControllerZk.client(s, new ExponentialBackoffRetry(500, 10, 10_000), security);
      zk.start();
      try {
        if (!zk.blockUntilConnected(s.zkConnectionTimeoutMs(), TimeUnit.MILLISECONDS)) {
          System.err.println(
              "aryl-labels run: no ZooKeeper connection to "
                  + s.zkConnect()
                  + " within "
                  + s.zkConnectionTimeoutMs()
                  + " ms ("
                  + LabelsConf.ZK_CONNECTION_TIMEOUT_MS.key()
                  + ")");
          zk.close();
          return 2;
        }
        ControllerZk.applyAcl(zk, s.zkRoot(), security.zkAcl());
      } catch (IllegalStateException e) {
        System.err.println("aryl-labels run: " + e.getMessage());
        zk.close();
        return 2;
      }
      // One view of which RM is active, shared by the target's sender and the yarn-queue and serve
      // demand sources.
      LoanController controller =
          new LoanController(
              zk,
              s.controllerConfig(),
              demandSources(s, web),
              new SchedulerResource(web),
              System::currentTimeMillis);
      StatusServer status =
          s.httpPort() < 0 ? null : new StatusServer(controller, s.httpHost(), s.httpPort());
      CountDownLatch stop = new CountDownLatch(1);
      Runtime.getRuntime()
          .addShutdownHook(
              new Thread(
                  () -> {
                    try {
                      if (status != null) {
                        status.close();
                      }
                      controller.close();
                    } catch (Exception e) {
                      System.err.println("aryl-labels run: closing: " + e);
                    } finally {
                      zk.close();
                      stop.countDown();
                    }
                  },
                  "aryl-labels-stop"));
      controller.start();
      if (status != null) {
        status.start();
      }
      System.out.println(
          "aryl-labels run: "
              + s.instanceId()
              + (security.kerberos()
                  ? " as " + login.getUserName() + ", znodes with ACL " + security.zkAclText()
                  : "")
              + (status == null
                  ? ""
                  : ", status on http://" + s.httpHost() + ":" + status.port() + "/status"));
      stop.await();
      return 0;
    }

    static List<DemandSource> demandSources(LabelsSettings s, ActiveRmWebApp web) throws Exception {
      List<DemandSource> out = new ArrayList<>();
      for (String name : s.demandSources()) {
        switch (name) {
          case "replay" ->
              out.add(
                  new ReplayDemand(
                      RateTrace.read(Path.of(s.replayFile()), s.replayModel()),
                      s.replayTimeScale(),
                      s.replayStartS(),
                      s.replayRateScale(),
                      System::currentTimeMillis));
          case "http" ->
              out.add(
                  new HttpDemand(
                      URI.create(s.httpUrl()),
                      s.httpPointer(),
                      Duration.ofMillis(s.httpTimeoutMs())));
          case "yarn-queue" ->
              out.add(
                  new YarnQueueDemand(
                      web, s.queuePath(), s.inferenceLabel(), s.gpusPerServer(), s.policy()));
          case "serve" -> out.add(new ServeDemand(web, s.policy()));
          default -> throw new IllegalArgumentException("unknown demand source " + name);
        }
      }
      return out;
    }
  }

  @Command(
      name = "keys",
      mixinStandardHelpOptions = true,
      description =
          "Print every configuration key with its" + " default and meaning, as a Markdown table.")
  static final class Keys implements Callable<Integer> {
    @Override
    public Integer call() {
      System.out.println("| key | default | meaning |");
      System.out.println("|---|---|---|");
      for (PoolConf k : PoolConf.values()) {
        System.out.println("| `" + k.key() + "` | `" + k.defaultValue() + "` | " + k.doc() + " |");
      }
      for (LabelsConf k : LabelsConf.values()) {
        System.out.println("| `" + k.key() + "` | `" + k.defaultValue() + "` | " + k.doc() + " |");
      }
      return 0;
    }
  }
}
