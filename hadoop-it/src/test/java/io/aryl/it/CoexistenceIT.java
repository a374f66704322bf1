package io.aryl.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.conf.TemplateConf;
import io.aryl.yarn.ArylScheduler;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.examples.QuasiMonteCarlo;
import org.apache.hadoop.mapred.ShuffleHandler;
import org.apache.hadoop.mapreduce.MRConfig;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.service.Service;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ApplicationReport;
import org.apache.hadoop.yarn.api.records.ContainerExitStatus;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.FinalApplicationStatus;
import org.apache.hadoop.yarn.api.records.YarnApplicationState;
import org.apache.hadoop.yarn.applications.distributedshell.Client;
import org.apache.hadoop.yarn.client.cli.QueueCLI;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainerState;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.AbstractYarnScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerApplication;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerApplicationAttempt;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Aryl added to a cluster that already runs: a ResourceManager configured from the templates with
 * the existing-cluster capacity-scheduler.xml (root.default kept beside root.inference and
 * root.training), merged over Hadoop's stock capacity-scheduler.xml (the one on the test class
 * path, root.default at 100), as an operator merges it. With an elastic Aryl job holding its
 * workers in root.training, two stock YARN applications run at the same time, and give the same
 * outcomes as under the stock CapacityScheduler with the same queues:
 *
 * <ul>
 *   <li>MapReduce's {@code pi} (hadoop-mapreduce-examples, run as {@code yarn jar} runs it)
 *       submitted without a queue lands in root.default, runs on the unlabelled node only, succeeds
 *       and prints the estimate the same program computes on MapReduce's local runner;
 *   <li>Hadoop's DistributedShell asks for GPU containers in the training queue on the training
 *       label, with no Aryl tags; it gets them while the elastic job holds its workers on the same
 *       node, and every one of its containers exits 0 (none is preempted, shrunk or killed by a
 *       round);
 *   <li>the elastic job keeps all its workers throughout, with no preemption notice.
 * </ul>
 *
 * One cluster per scheduler: NM 0 labelled inference, NM 1 training (8 GPUs each), NM 2 unlabelled
 * (the existing cluster's node). Real daemons, real container processes (the MapReduce
 * ApplicationMaster and tasks, the DistributedShell ApplicationMaster and shell commands); the
 * elastic job is a {@link TestJob}.
 */
@DisplayName("Coexistence: stock YARN applications beside Aryl on the existing-cluster templates")
class CoexistenceIT {
  private static final int INFERENCE_NODE = 0;
  private static final int TRAINING_NODE = 1;
  private static final int DEFAULT_NODE = 2;

  /**
   * The elastic job: 1 to 4 workers of 1 GPU, all four asked for. Half the training node's 8 GPUs.
   */
  private static final int ELASTIC_WORKERS = 4;

  private static final int PI_MAPS = 2;
  private static final long PI_SAMPLES = 1000;
  private static final Pattern PI_ESTIMATE =
      Pattern.compile("(?m)^Estimated value of Pi is (\\S+)$");

  /**
   * DistributedShell: 2 containers of 2 GPUs (the other half of the training node), each running
   * for 10 s: 40 of Aryl's rounds (250 ms here) see them beside the elastic job, and pi, which runs
   * meanwhile, takes longer anyway.
   */
  private static final int DS_CONTAINERS = 2;

  private static final int DS_GPUS = 2;
  private static final int DS_SECONDS = 10;
  private static final String DS_NAME = "coexistence-distributedshell";

  /**
   * For the short-lived JVMs (clients, MapReduce's ApplicationMaster and tasks): quick to start,
   * one GC thread.
   */
  private static final String QUICK_JVM = AmJobs.QUICK_JVM;

  /** Longest a stock client may take before the test gives up on it. */
  private static final Duration CLIENT_TIMEOUT = Duration.ofSeconds(150);

  @TempDir static Path dir;

  /**
   * What pi prints for PI_MAPS x PI_SAMPLES: the same program on MapReduce's local runner, in this
   * JVM.
   */
  private static BigDecimal expectedPi;

  @BeforeAll
  static void piOnTheLocalRunner() throws Exception {
    Configuration conf = new Configuration();
    conf.set(MRConfig.FRAMEWORK_NAME, MRConfig.LOCAL_FRAMEWORK_NAME);
    conf.set("hadoop.tmp.dir", dir.resolve("local-runner").toString());
    long t0 = System.nanoTime();
    expectedPi =
        QuasiMonteCarlo.estimatePi(
            PI_MAPS,
            PI_SAMPLES,
            new org.apache.hadoop.fs.Path(dir.resolve("local-runner-pi").toUri()),
            conf);
    System.out.printf(
        "CoexistenceIT: pi %d %d on the local runner: %s (%d ms)%n",
        PI_MAPS, PI_SAMPLES, expectedPi, (System.nanoTime() - t0) / 1_000_000);
  }

  @Nested
  @DisplayName("with Aryl: io.aryl.yarn.ArylScheduler")
  class WithAryl extends Scenarios {
    @Override
    String mode() {
      return "aryl";
    }

    @Override
    void scheduler(YarnConfiguration conf) {
      // the templates' yarn-site.xml as it is: ArylScheduler and ArylWebServices
    }

    @Override
    void checkScheduler() {
      assertThat(cluster.scheduler()).isExactlyInstanceOf(ArylScheduler.class);
      assertThat(cluster.aryl().running()).isTrue();
    }
  }

  @Nested
  @DisplayName("with the stock CapacityScheduler and the same capacity-scheduler.xml")
  class WithStockCapacityScheduler extends Scenarios {
    @Override
    String mode() {
      return "stock";
    }

    /**
     * Rolled back as deploying.md says: the stock scheduler class and web services, queues and
     * labels unchanged.
     */
    @Override
    void scheduler(YarnConfiguration conf) {
      conf.set(YarnConfiguration.RM_SCHEDULER, CapacityScheduler.class.getName());
      conf.unset(YarnConfiguration.YARN_WEBAPP_CUSTOM_WEBSERVICE_CLASS);
    }

    @Override
    void checkScheduler() {
      assertThat(cluster.scheduler()).isExactlyInstanceOf(CapacityScheduler.class);
    }
  }

  /**
   * The scenarios, run once per scheduler on a cluster of its own: with the elastic job holding its
   * workers, pi and DistributedShell are started together (an existing cluster's workloads do not
   * take turns) and run to their end; each test then checks one side of what happened.
   */
  @TestInstance(TestInstance.Lifecycle.PER_CLASS)
  abstract static class Scenarios {
    ArylMiniCluster cluster;
    private Path work;

    /**
     * The clients' $HADOOP_CONF_DIR: yarn-site.xml and mapred-site.xml written from the running
     * cluster's config.
     */
    private Path confDir;

    private ContainerLog containers;
    private TestJob elastic;

    /** Where each DistributedShell container notes its start and end, in a file named after it. */
    private Path marks;

    private long startedMs;
    private long roundsBefore;
    private long roundsAfter;

    /** Workers the elastic job held at each of its heartbeats while the stock applications ran. */
    private List<Integer> elasticCounts;

    private Outcome pi;
    private Outcome ds;

    /** Names the cluster and its work directory. */
    abstract String mode();

    /** Sets the ResourceManager's scheduler on top of the templates. */
    abstract void scheduler(YarnConfiguration conf);

    /** Checks that the ResourceManager runs the scheduler this mode is about. */
    abstract void checkScheduler();

    @BeforeAll
    void runStockApplicationsBesideAnElasticJob() throws Exception {
      work = dir.resolve(mode());
      YarnConfiguration conf =
          ArylMiniCluster.testConf(
              work.toFile(),
              ArylMiniCluster.templateConf(TemplateConf.EXISTING_CLUSTER_CAPACITY_SCHEDULER));
      mapReduceOnYarn(conf, work);
      scheduler(conf);
      cluster = ArylMiniCluster.start("coexistence-" + mode(), conf, 1, 1);
      confDir = work.resolve("client-conf");
      Files.createDirectories(confDir);
      for (String file : List.of("yarn-site.xml", "mapred-site.xml")) {
        try (OutputStream out = Files.newOutputStream(confDir.resolve(file))) {
          cluster.conf().writeXml(out);
        }
      }
      containers = new ContainerLog(cluster);
      elastic =
          TestJob.submit(
              cluster, "elastic", "training", TestJob.shape(1, ELASTIC_WORKERS, 1, 600), 1, true);
      elastic.askWorkers(ELASTIC_WORKERS);
      cluster.awaitShowingStatus(
          "the elastic job holds its " + ELASTIC_WORKERS + " workers",
          () -> elastic.workers() == ELASTIC_WORKERS);

      int countsBefore = elastic.observedCounts().size();
      roundsBefore = rounds();
      long arylCpuBefore = arylThreadsCpuMs();
      startedMs = System.currentTimeMillis();
      Path piJar = jarOf(QuasiMonteCarlo.class);
      Process piProcess =
          startJar(
              "pi", piJar, List.of(), "pi", Integer.toString(PI_MAPS), Long.toString(PI_SAMPLES));
      marks = Files.createDirectories(work.resolve("distributedshell-marks"));
      // Each container notes its start and, if its sleep was not cut short, its end; the last
      // command's output goes
      // to the container's stdout log (DistributedShell appends the redirection to it).
      String command =
          "echo started >> "
              + marks
              + "/$CONTAINER_ID; sleep "
              + DS_SECONDS
              + " && echo finished >> "
              + marks
              + "/$CONTAINER_ID && cat "
              + marks
              + "/$CONTAINER_ID";
      Path dsJar = jarOf(Client.class);
      Path home = Files.createDirectories(work.resolve("distributedshell-home"));
      Process dsProcess =
          startJar(
              "distributedshell",
              dsJar,
              List.of("-Duser.home=" + home),
              "-jar",
              dsJar.toString(),
              "-appname",
              DS_NAME,
              "-queue",
              "training",
              "-node_label_expression",
              "training",
              "-num_containers",
              Integer.toString(DS_CONTAINERS),
              "-container_resources",
              "memory-mb=128,vcores=1,yarn.io/gpu=" + DS_GPUS,
              "-master_memory",
              "256",
              "-master_vcores",
              "1",
              "-shell_command",
              command,
              "-timeout",
              Long.toString(CLIENT_TIMEOUT.toMillis()));
      pi = outcome("pi", piProcess, "MAPREDUCE", null);
      ds = outcome("distributedshell", dsProcess, "YARN", DS_NAME);
      roundsAfter = rounds();
      System.out.printf(
          "CoexistenceIT[%s]: %d Aryl rounds in %d ms, Aryl's threads used %d ms of CPU%n",
          mode(),
          roundsAfter - roundsBefore,
          System.currentTimeMillis() - startedMs,
          arylThreadsCpuMs() - arylCpuBefore);
      List<Integer> counts = elastic.observedCounts();
      elasticCounts = counts.subList(countsBefore, counts.size());
      System.out.printf(
          "CoexistenceIT[%s]: pi %d %d printed, in %d ms:%n%s%n",
          mode(), PI_MAPS, PI_SAMPLES, pi.run().millis(), pi.run().output());
      System.out.printf(
          "CoexistenceIT[%s]: DistributedShell ended with %d after %d ms%n",
          mode(), ds.run().exit(), ds.run().millis());
      for (Outcome o : List.of(pi, ds)) {
        System.out.printf(
            "CoexistenceIT[%s]: %s %s: %s %s, containers:%n%s",
            mode(),
            o.name(),
            o.app() == null ? "(no application)" : o.app().getApplicationId(),
            o.app() == null ? "" : o.app().getYarnApplicationState(),
            o.app() == null ? "" : o.app().getFinalApplicationStatus(),
            describe(o.containers(), o.app()));
      }
    }

    @AfterAll
    void stopCluster() throws Exception {
      if (elastic != null) {
        elastic.close();
      }
      if (containers != null) {
        containers.close();
      }
      if (cluster != null) {
        cluster.close();
      }
    }

    @Test
    @DisplayName(
        "the ResourceManager runs the existing-cluster queues: root.default RUNNING without labels, the pools")
    void queues() throws Exception {
      checkScheduler();
      // The check deploying.md gives an operator, through Hadoop's own CLI: `yarn queue -status
      // default`.
      assertThat(yarnQueueStatus("default"))
          .contains(
              "Queue Path : root.default",
              "\tState : RUNNING",
              "\tCapacity : 90.00%",
              "\tMaximum Capacity : 100.00%",
              "\tDefault Node Label expression : <DEFAULT_PARTITION>",
              "\tAccessible Node Labels : \n");
      assertThat(yarnQueueStatus("training"))
          .contains(
              "Queue Path : root.training",
              "\tState : RUNNING",
              "\tCapacity : 5.00%",
              "\tMaximum Capacity : 5.00%",
              "\tDefault Node Label expression : training",
              "\tAccessible Node Labels : training\n");
      assertThat(yarnQueueStatus("inference"))
          .contains(
              "Queue Path : root.inference",
              "\tDefault Node Label expression : inference",
              "\tAccessible Node Labels : inference\n");
      // The scheduler's own view: root.default did not inherit root's "*", the pools are their
      // queues' alone.
      CapacityScheduler scheduler = (CapacityScheduler) cluster.scheduler();
      assertThat(scheduler.getQueue("root.default").getAccessibleNodeLabels()).isEmpty();
      assertThat(
              scheduler
                  .getQueue("root.training")
                  .getQueueCapacities()
                  .getAbsoluteCapacity("training"))
          .isEqualTo(1f);
      assertThat(
              scheduler
                  .getQueue("root.inference")
                  .getQueueCapacities()
                  .getAbsoluteCapacity("inference"))
          .isEqualTo(1f);
      assertThat(cluster.partitionOf(INFERENCE_NODE)).isEqualTo("inference");
      assertThat(cluster.partitionOf(TRAINING_NODE)).isEqualTo("training");
      assertThat(cluster.partitionOf(DEFAULT_NODE)).isEmpty();
    }

    /**
     * What {@code yarn queue -status QUEUE} prints (Hadoop's QueueCLI, the class that command
     * runs).
     */
    private String yarnQueueStatus(String queue) throws Exception {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      QueueCLI cli = new QueueCLI();
      cli.setConf(new YarnConfiguration(cluster.conf()));
      cli.setSysOutPrintStream(new PrintStream(out, true, StandardCharsets.UTF_8));
      cli.setSysErrPrintStream(new PrintStream(out, true, StandardCharsets.UTF_8));
      try {
        assertThat(cli.run(new String[] {"-status", queue}))
            .as("yarn queue -status %s: %s", queue, out)
            .isZero();
      } finally {
        cli.stop();
      }
      return out.toString(StandardCharsets.UTF_8);
    }

    @Test
    @DisplayName(
        "MapReduce pi, submitted with no queue, runs in root.default on the unlabelled node and prints the"
            + " right estimate")
    void mapReducePi() {
      String output = pi.run().output();
      assertThat(pi.run().exit()).as("exit status of pi; output:%n%s", tail(output)).isZero();
      Matcher estimate = PI_ESTIMATE.matcher(output);
      assertThat(estimate.find()).as("pi's estimate in its output:%n%s", tail(output)).isTrue();
      assertThat(new BigDecimal(estimate.group(1))).as("printed estimate").isEqualTo(expectedPi);
      assertThat(estimate.group(1)).startsWith("3.14");

      ApplicationReport app = pi.onlyApp();
      assertThat(app.getQueue())
          .as("queue of %s", app.getApplicationId())
          .isIn("default", "root.default");
      assertThat(app.getYarnApplicationState()).isEqualTo(YarnApplicationState.FINISHED);
      assertThat(app.getFinalApplicationStatus()).isEqualTo(FinalApplicationStatus.SUCCEEDED);
      // the ApplicationMaster, PI_MAPS maps and one reduce at least (a task retried would add more)
      assertThat(pi.containers())
          .hasSizeGreaterThanOrEqualTo(PI_MAPS + 2)
          .allSatisfy(
              c -> {
                assertThat(c.getAllocatedNode())
                    .as("node of %s", c.getContainerId())
                    .isEqualTo(cluster.nodeId(DEFAULT_NODE));
                assertThat(c.getAllocatedResource().getResourceValue("yarn.io/gpu")).isZero();
              });
    }

    @Test
    @DisplayName(
        "DistributedShell without Aryl's tags gets its GPU containers in training, on the elastic job's node,"
            + " and every one exits 0")
    void distributedShell() throws Exception {
      ApplicationReport app = ds.onlyApp();
      String seen = describe(ds.containers(), app);
      assertThat(ds.run().exit())
          .as(
              "exit status of the DistributedShell client; containers:%n%s%noutput:%n%s",
              seen, tail(ds.run().output()))
          .isZero();
      assertThat(app.getQueue()).isIn("training", "root.training");
      assertThat(app.getYarnApplicationState()).isEqualTo(YarnApplicationState.FINISHED);
      assertThat(app.getFinalApplicationStatus()).isEqualTo(FinalApplicationStatus.SUCCEEDED);

      List<RMContainer> shells = ds.containers().stream().filter(c -> !c.isAMContainer()).toList();
      assertThat(ds.containers())
          .as(
              "the ApplicationMaster and %d shell containers, none replaced:%n%s",
              DS_CONTAINERS, seen)
          .hasSize(DS_CONTAINERS + 1);
      assertThat(shells)
          .hasSize(DS_CONTAINERS)
          .allSatisfy(
              c -> {
                assertThat(c.getAllocatedNode())
                    .as("node of %s", c.getContainerId())
                    .isEqualTo(cluster.nodeId(TRAINING_NODE));
                assertThat(c.getAllocatedResource().getResourceValue("yarn.io/gpu"))
                    .isEqualTo(DS_GPUS);
              });
      assertThat(ds.containers())
          .allSatisfy(
              c -> {
                assertThat(c.getState())
                    .as("state of %s", c.getContainerId())
                    .isEqualTo(RMContainerState.COMPLETED);
                assertThat(c.getContainerExitStatus())
                    .as("exit status of %s: %s", c.getContainerId(), c.getDiagnosticsInfo())
                    .isEqualTo(ContainerExitStatus.SUCCESS);
              });
      Map<String, List<String>> noted = new TreeMap<>();
      try (var files = Files.list(marks)) {
        files.forEach(f -> noted.put(f.getFileName().toString(), AmJobs.lines(f)));
      }
      Map<String, List<String>> expected = new TreeMap<>();
      shells.forEach(
          c -> expected.put(c.getContainerId().toString(), List.of("started", "finished")));
      assertThat(noted).as("what each container that ran the command noted").isEqualTo(expected);
    }

    @Test
    @DisplayName(
        "the elastic job kept all its workers while both ran, and nothing was shrunk or preempted")
    void elasticJobKeptItsWorkers() throws Exception {
      assertThat(elasticCounts)
          .as("workers the elastic job held at each heartbeat")
          .isNotEmpty()
          .allSatisfy(n -> assertThat(n).isEqualTo(ELASTIC_WORKERS));
      assertThat(elastic.preemptionNotices()).as("preemption notices to the elastic job").isEmpty();
      // Containers beyond its ask that an allocation race gave it, it handed back at once: not its
      // workers.
      assertThat(elastic.received()).as("workers the elastic job kept").hasSize(ELASTIC_WORKERS);
      Set<ContainerId> workers = new java.util.HashSet<>();
      elastic.received().forEach(c -> workers.add(c.getId()));
      assertThat(elastic.completed())
          .as("workers of the elastic job that ended")
          .filteredOn(st -> workers.contains(st.getContainerId()))
          .isEmpty();
      assertThat(AmJobs.state(cluster, elastic.id())).isEqualTo(YarnApplicationState.RUNNING);
      if (cluster.scheduler() instanceof ArylScheduler aryl) {
        // Aryl's rounds ran all along (every 250 ms here: at least half of those due while
        // DistributedShell's
        // containers ran) and none shrank or preempted anything.
        assertThat(roundsAfter - roundsBefore)
            .as("Aryl rounds while the stock applications ran")
            .isGreaterThan(2 * DS_SECONDS);
        assertThat(aryl.aryl().metrics().containersShrunk()).isZero();
        assertThat(aryl.aryl().metrics().containersPreempted()).isZero();
      }
    }

    /** Aryl's round counter (GET /ws/v1/cluster/aryl); 0 under the stock scheduler. */
    private long rounds() throws IOException {
      return cluster.scheduler() instanceof ArylScheduler ? cluster.status().round() : 0;
    }

    /**
     * Starts a stock client as {@code yarn jar JAR ARGS} runs it: a JVM running RunJar on the jar,
     * with the client configuration directory first on the class path (yarn.is.minicluster then
     * makes the client give its class path to the ApplicationMaster, which is how the MapReduce and
     * DistributedShell ApplicationMasters find their classes and this configuration). Output to
     * work/NAME.out.
     */
    private Process startJar(String name, Path jar, List<String> jvmArgs, String... args)
        throws IOException {
      List<String> cmd =
          new ArrayList<>(List.of(System.getProperty("java.home") + "/bin/java", "-Xmx256m"));
      cmd.addAll(List.of(QUICK_JVM.split(" ")));
      cmd.addAll(jvmArgs);
      cmd.addAll(
          List.of(
              "-cp",
              confDir + File.pathSeparator + System.getProperty("java.class.path"),
              "org.apache.hadoop.util.RunJar",
              jar.toString()));
      cmd.addAll(List.of(args));
      return new ProcessBuilder(cmd)
          .directory(work.toFile())
          .redirectErrorStream(true)
          .redirectOutput(work.resolve(name + ".out").toFile())
          .start();
    }

    /**
     * Waits for the client to end, then gathers what it ran: its application(s) since the start,
     * and containers.
     */
    private Outcome outcome(String name, Process p, String type, String appName) throws Exception {
      long deadline = startedMs + CLIENT_TIMEOUT.toMillis();
      boolean ended =
          p.waitFor(Math.max(1, deadline - System.currentTimeMillis()), TimeUnit.MILLISECONDS);
      if (!ended) {
        p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
      Run run =
          new Run(
              ended ? p.exitValue() : -1,
              Files.readString(work.resolve(name + ".out")),
              System.currentTimeMillis() - startedMs);
      List<ApplicationReport> apps =
          cluster.client().getApplications(Set.of(type)).stream()
              .filter(a -> a.getStartTime() >= startedMs)
              .filter(a -> appName == null || a.getName().equals(appName))
              .toList();
      List<RMContainer> mine =
          apps.size() == 1
              ? containers.awaitAllFinished(apps.get(0).getApplicationId())
              : List.of();
      // The report again: the final status may have been set after the client saw the end.
      ApplicationReport app =
          apps.size() == 1
              ? cluster.client().getApplicationReport(apps.get(0).getApplicationId())
              : null;
      return new Outcome(name, run, apps, app, mine, ended);
    }
  }

  /**
   * What MiniMRYarnCluster sets for MapReduce on YARN, set on our cluster's configuration before it
   * starts.
   */
  static void mapReduceOnYarn(YarnConfiguration conf, Path work) {
    conf.setStrings(YarnConfiguration.NM_AUX_SERVICES, ShuffleHandler.MAPREDUCE_SHUFFLE_SERVICEID);
    conf.setClass(
        String.format(
            YarnConfiguration.NM_AUX_SERVICE_FMT, ShuffleHandler.MAPREDUCE_SHUFFLE_SERVICEID),
        ShuffleHandler.class,
        Service.class);
    conf.setInt(ShuffleHandler.SHUFFLE_PORT_CONFIG_KEY, 0);
    // Task JVMs on a shared test machine: no memory monitoring kills.
    conf.setBoolean(YarnConfiguration.NM_PMEM_CHECK_ENABLED, false);
    conf.setBoolean(YarnConfiguration.NM_VMEM_CHECK_ENABLED, false);
    conf.set(MRConfig.FRAMEWORK_NAME, MRConfig.YARN_FRAMEWORK_NAME);
    conf.set(MRJobConfig.MR_AM_STAGING_DIR, work.resolve("mapreduce-staging").toString());
    // Small JVMs that start fast on a 2-core machine: the ApplicationMaster in 512 MB, tasks in 256
    // MB.
    conf.setInt(MRJobConfig.MR_AM_VMEM_MB, 512);
    conf.set(MRJobConfig.MR_AM_COMMAND_OPTS, "-Xmx384m " + QUICK_JVM);
    conf.setInt(MRJobConfig.MAP_MEMORY_MB, 256);
    conf.setInt(MRJobConfig.REDUCE_MEMORY_MB, 256);
    conf.set(MRJobConfig.MAP_JAVA_OPTS, "-Xmx192m " + QUICK_JVM);
    conf.set(MRJobConfig.REDUCE_JAVA_OPTS, "-Xmx192m " + QUICK_JVM);
  }

  /** CPU time of the threads Aryl's scheduler runs (their names start with "aryl"), in ms. */
  static long arylThreadsCpuMs() {
    java.lang.management.ThreadMXBean threads =
        java.lang.management.ManagementFactory.getThreadMXBean();
    long ns = 0;
    for (java.lang.management.ThreadInfo t : threads.getThreadInfo(threads.getAllThreadIds())) {
      if (t != null && t.getThreadName().startsWith("aryl")) {
        ns += Math.max(0, threads.getThreadCpuTime(t.getThreadId()));
      }
    }
    return ns / 1_000_000;
  }

  static Path jarOf(Class<?> type) throws URISyntaxException {
    Path jar = Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
    assertThat(jar).as("jar of %s", type.getName()).isRegularFile();
    return jar;
  }

  static String tail(String text) {
    String[] lines = text.split("\n");
    return String.join("\n", List.of(lines).subList(Math.max(0, lines.length - 60), lines.length));
  }

  /**
   * One line per container: node, size, final state and exit status, allocated and finished ms
   * after submission.
   */
  static String describe(List<RMContainer> containers, ApplicationReport app) {
    long t0 = app == null ? 0 : app.getStartTime();
    StringBuilder out = new StringBuilder();
    for (RMContainer c : containers) {
      out.append(
          String.format(
              "  %s%s on %s %s: %s exit %d, allocated +%d ms, finished +%d ms %s%n",
              c.getContainerId(),
              c.isAMContainer() ? " (AM)" : "",
              c.getAllocatedNode(),
              c.getAllocatedResource(),
              c.getState(),
              c.getContainerExitStatus(),
              c.getCreationTime() - t0,
              c.getFinishTime() == 0 ? -1 : c.getFinishTime() - t0,
              c.getDiagnosticsInfo() == null ? "" : c.getDiagnosticsInfo().strip()));
    }
    return out.toString();
  }

  /**
   * A client's exit status (-1: it did not end in time), output (stdout and stderr) and run time.
   */
  record Run(int exit, String output, long millis) {}

  /**
   * What one stock client ran: its run, the applications of its type it submitted, the one's
   * containers.
   */
  record Outcome(
      String name,
      Run run,
      List<ApplicationReport> apps,
      ApplicationReport app,
      List<RMContainer> containers,
      boolean ended) {
    /** The application, when the client submitted exactly one. */
    ApplicationReport onlyApp() {
      assertThat(ended)
          .as("%s ended within %s; output:%n%s", name, CLIENT_TIMEOUT, tail(run.output()))
          .isTrue();
      assertThat(apps)
          .as("applications %s submitted; output:%n%s", name, tail(run.output()))
          .hasSize(1);
      return app;
    }
  }

  /**
   * Every container the scheduler showed live, polled every 100 ms, as the ResourceManager's own
   * records: an {@link RMContainer} keeps its final state, exit status and diagnostics once it
   * completed.
   */
  static final class ContainerLog implements AutoCloseable {
    private final ArylMiniCluster cluster;
    private final Map<ContainerId, RMContainer> seen = new ConcurrentHashMap<>();
    private final Thread poller;
    private volatile boolean running = true;

    ContainerLog(ArylMiniCluster cluster) {
      this.cluster = cluster;
      poller = new Thread(this::poll, "container-log");
      poller.setDaemon(true);
      poller.start();
    }

    private void poll() {
      while (running) {
        try {
          AbstractYarnScheduler<?, ?> scheduler = (AbstractYarnScheduler<?, ?>) cluster.scheduler();
          for (SchedulerApplication<?> app : scheduler.getSchedulerApplications().values()) {
            SchedulerApplicationAttempt attempt = app.getCurrentAppAttempt();
            if (attempt != null) {
              attempt.getLiveContainers().forEach(c -> seen.putIfAbsent(c.getContainerId(), c));
            }
          }
          Thread.sleep(100);
        } catch (InterruptedException e) {
          return;
        } catch (RuntimeException e) {
          // an application removed while we looked: look again
        }
      }
    }

    List<RMContainer> all() {
      return seen.values().stream()
          .sorted((a, b) -> a.getContainerId().compareTo(b.getContainerId()))
          .toList();
    }

    List<RMContainer> of(ApplicationId app) {
      return all().stream()
          .filter(c -> c.getContainerId().getApplicationAttemptId().getApplicationId().equals(app))
          .toList();
    }

    /**
     * The application's containers, once each is in a final state (the last ones are reported a
     * moment after the application ends), or as they are after 30 s: the tests check their states.
     */
    List<RMContainer> awaitAllFinished(ApplicationId app) throws InterruptedException {
      Set<RMContainerState> done =
          Set.of(
              RMContainerState.COMPLETED,
              RMContainerState.KILLED,
              RMContainerState.RELEASED,
              RMContainerState.EXPIRED);
      long end = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (System.nanoTime() < end
          && (of(app).isEmpty() || !of(app).stream().allMatch(c -> done.contains(c.getState())))) {
        Thread.sleep(100);
      }
      return of(app);
    }

    @Override
    public void close() {
      running = false;
      poller.interrupt();
      try {
        poller.join(5000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
