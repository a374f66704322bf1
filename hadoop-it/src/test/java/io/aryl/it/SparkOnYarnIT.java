package io.aryl.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.api.status.PlainDemand;
import io.aryl.api.status.SchedulerStatus;
import java.io.File;
import java.io.OutputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ApplicationReport;
import org.apache.hadoop.yarn.api.records.ContainerExitStatus;
import org.apache.hadoop.yarn.api.records.FinalApplicationStatus;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.api.records.YarnApplicationState;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.AbstractYarnScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerApplication;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerApplicationAttempt;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Spark on YARN asking for GPU executors in {@code root.training} (a plain application: no Aryl
 * tags) while an elastic Aryl job holds the whole training pool above its minimum, and its workers
 * take {@value #WORKER_EXIT_S} s to exit after their notice. A real run showed every planning round
 * failing meanwhile (a NullPointerException on the plain application's starting gang), so the
 * shrink grace was never enforced and Spark waited for the elastic job's own ApplicationMaster to
 * let go.
 *
 * <p>The cluster: one training node of 8 GPUs (NM 0) and the unlabelled node for ApplicationMasters
 * (NM 1), Aryl from the templates with test timings (250 ms rounds, 2 s shrink grace). The elastic
 * job is a real aryl-am job of 2 to 8 one-GPU workers whose worker traps SIGTERM (the
 * ApplicationMaster's GRACEFUL_SHUTDOWN of the generation, on a PreemptionMessage) and sleeps
 * {@value #WORKER_EXIT_S} s before it exits; the AM's own grace is 30 s, so only the scheduler's
 * kill at its grace frees the GPUs sooner. Spark 4.0.1 runs from its own Maven artifacts in its own
 * JVMs (src/test/spark-job): {@code SparkSubmit} in yarn cluster mode with {@code HADOOP_CONF_DIR}
 * holding the cluster's configuration, {@value #EXECUTORS} executors of {@value #EXECUTOR_GPUS}
 * GPUs found by a discovery script, and {@code GpuPi} (SparkPi whose tasks take one GPU each and
 * report it).
 *
 * <p>The scenario runs once; each test checks one side of it. Every step is printed with its
 * evidence and timings.
 */
@DisplayName(
    "Spark on YARN: GPU executors in root.training beside an elastic job whose workers are slow to exit")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SparkOnYarnIT {
  private static final String GPU = "yarn.io/gpu";
  private static final int TRAINING_NODE = 0;
  private static final int ELASTIC_MIN = 2;
  private static final int ELASTIC_MAX = 8;

  /**
   * Seconds an elastic worker takes to exit after SIGTERM: far beyond a round plus the scheduler's
   * shrink grace.
   */
  private static final int WORKER_EXIT_S = 8;

  private static final int EXECUTORS = 2;
  private static final int EXECUTOR_GPUS = 2;

  /** Spark tasks: each takes one GPU, so two run at once on each executor. */
  private static final int SLICES = 4;

  private static final String SPARK_NAME = "spark-gpu-pi";

  /**
   * Beyond a round and the grace: the elastic ApplicationMaster's heartbeat that takes the notice,
   * the node heartbeats that free the killed containers and place the executors, on a 2-core
   * machine that runs Spark's JVMs meanwhile.
   */
  private static final long HEARTBEAT_SLACK_MS = 2000;

  private static final Duration SPARK_TIMEOUT = Duration.ofSeconds(120);

  /**
   * Longest the elastic job may take to hold its maximum again once Spark's application has ended.
   */
  private static final Duration GROW_BACK_TIMEOUT = Duration.ofSeconds(40);

  /**
   * For the spark-submit client and Spark's JVMs on a shared machine: quick to start, one GC
   * thread.
   */
  private static final String QUICK_JVM = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC";

  @TempDir static Path dir;

  private ArylMiniCluster cluster;
  private CoexistenceIT.ContainerLog containers;
  private AskWatch asks;
  private Process sparkSubmit;
  private long roundMs;
  private long graceMs;

  // What the scenario saw, for the tests.
  private ApplicationId elastic;
  private Path marks;
  private ApplicationId spark;
  private int sparkExit;
  private String sparkOutput;
  private long sparkStartMs;
  private long sparkEndMs;
  private long shrunkBefore;
  private long shrunkAfterSpark;
  private long roundsBefore;
  private long roundsAfter;
  private long failedRoundsAfterSpark;
  private List<String> result;
  private long grownBackMs = -1;
  private long generationOfMaxMs = -1;
  private String whyNotGrownBack = "";

  @BeforeAll
  void sparkBesideAnElasticJob() throws Exception {
    long t0 = System.currentTimeMillis();
    YarnConfiguration conf = AmJobs.conf(dir.toFile());
    // Spark's JVMs on a shared 2-core machine: no memory-monitor kills (as for MapReduce's in
    // CoexistenceIT).
    conf.setBoolean(YarnConfiguration.NM_PMEM_CHECK_ENABLED, false);
    conf.setBoolean(YarnConfiguration.NM_VMEM_CHECK_ENABLED, false);
    cluster = ArylMiniCluster.start("spark-on-yarn", conf, 0, 1);
    roundMs = ArylStatus.roundMs(cluster.conf());
    graceMs = ArylStatus.graceMs(cluster.conf());
    containers = new CoexistenceIT.ContainerLog(cluster);
    step(
        t0,
        "cluster up: %s training (8 GPUs), %s default partition; rounds every %d ms, shrink grace %d ms",
        cluster.nodeName(TRAINING_NODE),
        cluster.nodeName(1),
        roundMs,
        graceMs);

    marks = dir.resolve("elastic-worker-marks");
    Files.createFile(marks);
    AmJobs.Result submitted =
        AmJobs.client(
            new YarnConfiguration(cluster.conf()),
            SubmitLine.job("elastic-slow-exit")
                .workers(ELASTIC_MIN, ELASTIC_MAX)
                .gpus(1)
                .memoryMb(256)
                .predictedRuntimeS(3600)
                .amMemoryMb(256)
                .graceMs(30000)
                .command(slowExitWorker(marks)));
    assertThat(submitted.exit()).as(submitted.out() + submitted.err()).isZero();
    elastic = submitted.applicationId();
    cluster.awaitShowingStatus(
        "the elastic job runs a generation of " + ELASTIC_MAX + " workers",
        () -> gpuContainers(elastic) == ELASTIC_MAX && latestGenerationSize() == ELASTIC_MAX);
    step(
        t0,
        "elastic job %s holds the training pool: %d workers of 1 GPU (min %d), generation %d",
        elastic,
        gpuContainers(elastic),
        ELASTIC_MIN,
        latestGeneration());

    Path confDir = Files.createDirectories(dir.resolve("hadoop-conf"));
    try (OutputStream out = Files.newOutputStream(confDir.resolve("yarn-site.xml"))) {
      cluster.conf().writeXml(out);
    }
    shrunkBefore = cluster.aryl().metrics().containersShrunk();
    roundsBefore = cluster.status().round();
    asks = new AskWatch(cluster, SPARK_NAME);
    sparkStartMs = System.currentTimeMillis();
    sparkSubmit = startSparkSubmit(confDir);
    step(
        t0,
        "spark-submit started: %d executors x %d GPUs in root.training, %d GPU tasks",
        EXECUTORS,
        EXECUTOR_GPUS,
        SLICES);
    boolean ended = sparkSubmit.waitFor(SPARK_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    sparkEndMs = System.currentTimeMillis();
    if (!ended) {
      sparkSubmit.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
    sparkExit = ended ? sparkSubmit.exitValue() : -1;
    sparkOutput = Files.readString(dir.resolve("spark-submit.out"));
    spark = asks.app();
    asks.close();
    shrunkAfterSpark = cluster.aryl().metrics().containersShrunk();
    failedRoundsAfterSpark = cluster.aryl().metrics().planningRoundsFailed();
    step(
        t0,
        "spark-submit ended with %d after %d ms; application %s",
        sparkExit,
        sparkEndMs - sparkStartMs,
        spark);
    Path resultFile = dir.resolve("spark-result.txt");
    result = Files.exists(resultFile) ? Files.readAllLines(resultFile) : List.of();
    printSparkTimeline(t0);

    // Afterwards: the elastic job's ApplicationMaster asks for its lost workers again; the freed
    // GPUs are its.
    try {
      cluster.awaitShowingStatus(
          "the elastic job holds " + ELASTIC_MAX + " workers again after Spark's end",
          GROW_BACK_TIMEOUT,
          () -> gpuContainers(elastic) == ELASTIC_MAX);
      grownBackMs = System.currentTimeMillis() - sparkEndMs;
      int before = latestGeneration();
      cluster.awaitShowingStatus(
          "a generation of " + ELASTIC_MAX + " workers after Spark's end",
          GROW_BACK_TIMEOUT,
          () -> latestGeneration() > before && latestGenerationSize() == ELASTIC_MAX);
      generationOfMaxMs = System.currentTimeMillis() - sparkEndMs;
      step(
          t0,
          "elastic job back at %d workers %d ms after Spark's end; its generation %d of %d workers started after"
              + " %d ms",
          ELASTIC_MAX,
          grownBackMs,
          latestGeneration(),
          ELASTIC_MAX,
          generationOfMaxMs);
    } catch (AssertionError e) {
      whyNotGrownBack =
          e.getMessage() + "; elastic job's status: " + AmJobs.statusJson(cluster, elastic);
      step(t0, "elastic job NOT back at its maximum: %s", whyNotGrownBack);
    }
    roundsAfter = cluster.status().round();
    step(
        t0,
        "%d Aryl rounds since spark-submit started, %d failed",
        roundsAfter - roundsBefore,
        cluster.aryl().metrics().planningRoundsFailed());
  }

  @AfterAll
  void stopAll() throws Exception {
    if (sparkSubmit != null && sparkSubmit.isAlive()) {
      sparkSubmit.destroyForcibly();
    }
    if (asks != null) {
      asks.close();
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
      "no planning round failed, and the ResourceManager's metrics say so (PlanningRoundsFailed)")
  void noPlanningRoundFailed() throws Exception {
    assertThat(roundsAfter - roundsBefore).as("Aryl rounds while Spark ran and after").isPositive();
    assertThat(failedRoundsAfterSpark).as("planning rounds failed until Spark's end").isZero();
    assertThat(cluster.aryl().metrics().planningRoundsFailed())
        .as("planning rounds failed, all along")
        .isZero();
    String jmx = cluster.get("/jmx?qry=Hadoop:service=ResourceManager,name=ArylScheduler").body();
    assertThat(jmx)
        .as("the ArylScheduler bean in the RM's /jmx")
        .contains("\"PlanningRoundsFailed\" : 0");
  }

  @Test
  @DisplayName(
      "Spark's executors get their GPUs by shrinking the elastic job within a round plus the shrink grace:"
          + " the slow workers are killed at the grace")
  void sparkGetsItsGpusWithinARoundPlusTheGrace() {
    assertThat(spark).as("Spark's application").isNotNull();
    List<RMContainer> executors = gpuContainersOf(spark);
    assertThat(executors)
        .as("Spark's GPU containers:%n%s", describe(spark))
        .hasSize(EXECUTORS)
        .allSatisfy(
            c -> {
              assertThat(c.getAllocatedResource().getResourceValue(GPU))
                  .as("GPUs of %s", c.getContainerId())
                  .isEqualTo(EXECUTOR_GPUS);
              assertThat(c.getAllocatedNode()).isEqualTo(cluster.nodeId(TRAINING_NODE));
            });
    long askedMs = asks.firstGpuAskMs();
    long placedMs = executors.stream().mapToLong(RMContainer::getCreationTime).max().orElseThrow();
    assertThat(askedMs).as("when the ResourceManager first held Spark's GPU asks").isPositive();
    assertThat(placedMs - askedMs)
        .as(
            "ms from Spark's GPU asks to both executors placed (round %d ms, grace %d ms)",
            roundMs, graceMs)
        .isLessThanOrEqualTo(roundMs + graceMs + HEARTBEAT_SLACK_MS)
        .isLessThan(WORKER_EXIT_S * 1000L);

    int shrunk = EXECUTORS * EXECUTOR_GPUS;
    assertThat(shrunkAfterSpark - shrunkBefore)
        .as("elastic workers shrunk for Spark:%n%s", describe(elastic))
        .isEqualTo(shrunk);
    List<RMContainer> preempted =
        gpuContainersOf(elastic).stream()
            .filter(c -> c.getContainerExitStatus() == ContainerExitStatus.PREEMPTED)
            .toList();
    assertThat(preempted)
        .as(
            "elastic workers killed at the grace (exit %d):%n%s",
            ContainerExitStatus.PREEMPTED, describe(elastic))
        .hasSize(shrunk);
    Map<String, Map<String, Long>> noted = workerMarks();
    for (RMContainer c : preempted) {
      Map<String, Long> m = noted.getOrDefault(c.getContainerId().toString(), Map.of());
      // Told by its ApplicationMaster (SIGTERM, on the PreemptionMessage), it was still on its way
      // out when killed.
      assertThat(m)
          .as("what worker %s noted", c.getContainerId())
          .containsKey("term")
          .doesNotContainKey("exit");
      assertThat(c.getFinishTime() - m.get("term"))
          .as("ms from %s's SIGTERM to its kill", c.getContainerId())
          .isPositive()
          .isLessThanOrEqualTo(graceMs + HEARTBEAT_SLACK_MS);
    }
  }

  @Test
  @DisplayName(
      "the Spark job succeeds: pi estimated by GPU tasks, each given one GPU of its executor")
  void sparkJobSucceeds() throws Exception {
    assertThat(sparkExit)
        .as("spark-submit's exit status; output:%n%s", CoexistenceIT.tail(sparkOutput))
        .isZero();
    ApplicationReport app = cluster.client().getApplicationReport(spark);
    assertThat(app.getQueue()).isIn("training", "root.training");
    assertThat(app.getApplicationType()).isEqualTo("SPARK");
    assertThat(app.getApplicationTags())
        .as("a plain application: no Aryl tags")
        .noneMatch(t -> t.startsWith("aryl."));
    assertThat(app.getYarnApplicationState()).isEqualTo(YarnApplicationState.FINISHED);
    assertThat(app.getFinalApplicationStatus()).isEqualTo(FinalApplicationStatus.SUCCEEDED);

    assertThat(result).as("GpuPi's result file").hasSize(SLICES + 1);
    assertThat(result.get(SLICES)).startsWith("pi=");
    double pi =
        Double.parseDouble(result.get(SLICES).substring(3, result.get(SLICES).indexOf(' ')));
    assertThat(pi).as("the estimate").isBetween(3.13, 3.15);
    Set<String> executorContainers =
        gpuContainersOf(spark).stream()
            .map(c -> c.getContainerId().toString())
            .collect(Collectors.toSet());
    for (String task : result.subList(0, SLICES)) {
      Map<String, String> fields = fields(task);
      assertThat(fields.get("gpus")).as("GPUs of %s", task).isIn("0", "1");
      assertThat(fields.get("container")).as("container of %s", task).isIn(executorContainers);
    }
    assertThat(gpuContainersOf(spark))
        .as("Spark's executors are never shrunk or preempted")
        .noneMatch(c -> c.getContainerExitStatus() == ContainerExitStatus.PREEMPTED);
  }

  @Test
  @DisplayName("afterwards the elastic job grows back to its maximum")
  void elasticJobGrowsBack() {
    assertThat(whyNotGrownBack).as("why the elastic job did not grow back").isEmpty();
    assertThat(gpuContainers(elastic)).isEqualTo(ELASTIC_MAX);
    assertThat(grownBackMs)
        .as("ms from Spark's end to the elastic job's %d containers", ELASTIC_MAX)
        .isNotNegative();
    // Its ApplicationMaster runs them all: none is held aside, and the generation change waits only
    // for the workers
    // it stops, each taking WORKER_EXIT_S to exit.
    assertThat(generationOfMaxMs)
        .as("ms from Spark's end to a generation of %d workers", ELASTIC_MAX)
        .isPositive();
  }

  // ---------------------------------------------------------------------------------------------------------------

  /**
   * The elastic worker: notes its start, and on SIGTERM notes it, sleeps {@value #WORKER_EXIT_S} s
   * (a checkpoint that takes its time) and notes its exit. Lines "CONTAINER_ID GENERATION what
   * epoch-ms" in {@code marks}.
   */
  private static String slowExitWorker(Path marks) {
    return note(marks, "start")
        + "; trap '"
        + note(marks, "term")
        + "; sleep "
        + WORKER_EXIT_S
        + "; "
        + note(marks, "exit")
        + "; exit 0' TERM; sleep 600 & wait";
  }

  private static String note(Path marks, String what) {
    return "echo \"$CONTAINER_ID $ARYL_GENERATION " + what + " $(date +%s%3N)\" >> " + marks;
  }

  /**
   * What each elastic worker noted, by container: the first time of each kind. A worker killed
   * during its slow exit notes a second "term" (the NodeManager's SIGTERM before its SIGKILL),
   * which is not its notice.
   */
  private Map<String, Map<String, Long>> workerMarks() {
    Map<String, Map<String, Long>> out = new TreeMap<>();
    for (String line : AmJobs.lines(marks)) {
      String[] f = line.trim().split(" ");
      if (f.length == 4) {
        out.computeIfAbsent(f[0], k -> new TreeMap<>()).putIfAbsent(f[2], Long.parseLong(f[3]));
      }
    }
    return out;
  }

  /** Workers started in each generation of the elastic job. */
  private TreeMap<Integer, Set<String>> generations() {
    TreeMap<Integer, Set<String>> out = new TreeMap<>();
    for (String line : AmJobs.lines(marks)) {
      String[] f = line.trim().split(" ");
      if (f.length == 4 && f[2].equals("start")) {
        out.computeIfAbsent(Integer.parseInt(f[1]), k -> new TreeSet<>()).add(f[0]);
      }
    }
    return out;
  }

  private int latestGeneration() {
    TreeMap<Integer, Set<String>> g = generations();
    return g.isEmpty() ? -1 : g.lastKey();
  }

  private int latestGenerationSize() {
    TreeMap<Integer, Set<String>> g = generations();
    return g.isEmpty() ? 0 : g.lastEntry().getValue().size();
  }

  /** The application's live containers with GPUs, as the scheduler holds them now. */
  private int gpuContainers(ApplicationId app) {
    SchedulerApplication<?> a =
        ((AbstractYarnScheduler<?, ?>) cluster.scheduler()).getSchedulerApplications().get(app);
    SchedulerApplicationAttempt attempt = a == null ? null : a.getCurrentAppAttempt();
    return attempt == null
        ? 0
        : (int)
            attempt.getLiveContainers().stream()
                .filter(c -> c.getAllocatedResource().getResourceValue(GPU) > 0)
                .count();
  }

  /** Every GPU container the application ever held, with its final state once it ended. */
  private List<RMContainer> gpuContainersOf(ApplicationId app) {
    return containers.of(app).stream()
        .filter(c -> c.getAllocatedResource().getResourceValue(GPU) > 0)
        .toList();
  }

  private String describe(ApplicationId app) {
    try {
      return CoexistenceIT.describe(containers.of(app), cluster.client().getApplicationReport(app));
    } catch (Exception e) {
      return e.toString();
    }
  }

  private static Map<String, String> fields(String line) {
    Map<String, String> out = new LinkedHashMap<>();
    for (String f : line.split(" ")) {
      int eq = f.indexOf('=');
      if (eq > 0) {
        out.put(f.substring(0, eq), f.substring(eq + 1));
      }
    }
    return out;
  }

  /**
   * What happened between spark-submit's start and end, by the RM's and the workers' clocks (one
   * machine).
   */
  private void printSparkTimeline(long t0) {
    long asked = asks.firstGpuAskMs();
    System.out.printf(
        "SparkOnYarnIT: Spark's GPU asks first held by the RM +%d ms after spark-submit started: %s;"
            + " Aryl's plainDemand then: %s%n",
        asked - sparkStartMs, asks.firstAsk(), asks.plainDemand());
    Map<String, Map<String, Long>> noted = workerMarks();
    for (RMContainer c : gpuContainersOf(elastic)) {
      Map<String, Long> m = noted.getOrDefault(c.getContainerId().toString(), Map.of());
      System.out.printf(
          "SparkOnYarnIT:   elastic %s: placed %s, first SIGTERM %s, worker's exit %s, container %s%n",
          c.getContainerId(),
          relative(c.getCreationTime(), asked),
          relative(m.get("term"), asked),
          m.containsKey("exit") ? relative(m.get("exit"), asked) : "none",
          c.getFinishTime() > 0
              ? "ended "
                  + relative(c.getFinishTime(), asked)
                  + " with exit "
                  + c.getContainerExitStatus()
              : "running");
    }
    if (spark != null) {
      for (RMContainer c : containers.of(spark)) {
        System.out.printf(
            "SparkOnYarnIT:   spark %s%s %s: placed %s, ended %s with exit %d%n",
            c.getContainerId(),
            c.isAMContainer() ? " (AM, the driver)" : "",
            c.getAllocatedResource(),
            relative(c.getCreationTime(), asked),
            relative(c.getFinishTime(), asked),
            c.getContainerExitStatus());
      }
    }
    System.out.printf(
        "SparkOnYarnIT: (times relative to Spark's first GPU ask) elastic workers shrunk: %d; GpuPi's"
            + " result:%n  %s%n",
        shrunkAfterSpark - shrunkBefore, String.join("\n  ", result));
    step(t0, "Spark done");
  }

  private static String relative(Long ms, long from) {
    return ms == null || ms <= 0 ? "-" : String.format("%+d ms", ms - from);
  }

  private static void step(long t0, String format, Object... args) {
    System.out.printf(
        "SparkOnYarnIT: [%6.1f s] %s%n",
        (System.currentTimeMillis() - t0) / 1000.0, String.format(format, args));
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Spark

  /**
   * Starts {@code SparkSubmit} as spark-submit does, in a JVM of its own on Spark's class path
   * (built by src/test/spark-job), with the cluster's configuration as {@code HADOOP_CONF_DIR}.
   * Output to spark-submit.out.
   */
  private Process startSparkSubmit(Path confDir) throws Exception {
    Path jobDir = Path.of(System.getProperty("aryl.it.spark-job-dir", "target/spark-job"));
    Path jars = jobDir.resolve("jars");
    Path job = jobDir.resolve("aryl-it-spark-job.jar");
    assertThat(jars)
        .as(
            "Spark's class path, built by src/test/spark-job (system property aryl.it.spark-job-dir)")
        .isDirectory();
    assertThat(job).as("the Spark job, built by src/test/spark-job").isRegularFile();
    Path discovery = dir.resolve("gpu-discovery.sh");
    // Spark's GPU discovery contract: one JSON object naming the resource and the addresses this
    // executor may use.
    // The NodeManagers count GPUs but isolate none here: the script reports the executor's two.
    Files.writeString(
        discovery, "#!/bin/bash\necho '{\"name\":\"gpu\",\"addresses\":[\"0\",\"1\"]}'\n");
    Files.setPosixFilePermissions(discovery, PosixFilePermissions.fromString("rwxr-xr-x"));

    List<String> cmd =
        new ArrayList<>(List.of(System.getProperty("java.home") + "/bin/java", "-Xmx256m"));
    cmd.addAll(List.of(QUICK_JVM.split(" ")));
    cmd.addAll(List.of(javaModuleOptions(jars).split(" ")));
    cmd.addAll(
        List.of(
            "-cp",
            confDir + File.pathSeparator + jars + "/*",
            "org.apache.spark.deploy.SparkSubmit",
            "--master",
            "yarn",
            "--deploy-mode",
            "cluster",
            "--queue",
            "training",
            "--name",
            SPARK_NAME,
            "--class",
            "io.aryl.it.spark.GpuPi"));
    Map<String, String> sparkConf = new LinkedHashMap<>();
    sparkConf.put("spark.yarn.jars", "local:" + jars + "/*");
    sparkConf.put("spark.yarn.populateHadoopClasspath", "false");
    sparkConf.put("spark.yarn.stagingDir", dir.resolve("spark-staging").toUri().toString());
    sparkConf.put("spark.yarn.maxAppAttempts", "1");
    sparkConf.put("spark.yarn.report.interval", "500ms");
    sparkConf.put("spark.yarn.scheduler.heartbeat.interval-ms", "500");
    sparkConf.put("spark.driver.memory", "512m");
    sparkConf.put("spark.driver.extraJavaOptions", QUICK_JVM);
    sparkConf.put("spark.executor.instances", Integer.toString(EXECUTORS));
    sparkConf.put("spark.executor.cores", Integer.toString(EXECUTOR_GPUS));
    sparkConf.put("spark.executor.memory", "512m");
    sparkConf.put("spark.executor.extraJavaOptions", QUICK_JVM);
    sparkConf.put("spark.executor.resource.gpu.amount", Integer.toString(EXECUTOR_GPUS));
    sparkConf.put("spark.executor.resource.gpu.discoveryScript", discovery.toString());
    sparkConf.put("spark.task.resource.gpu.amount", "1");
    sparkConf.put("spark.dynamicAllocation.enabled", "false");
    // Tasks start once both executors are up, so that both show their GPUs.
    sparkConf.put("spark.scheduler.minRegisteredResourcesRatio", "1.0");
    sparkConf.put("spark.scheduler.maxRegisteredResourcesWaitingTime", "120s");
    sparkConf.put("spark.ui.enabled", "false");
    sparkConf.forEach((k, v) -> cmd.addAll(List.of("--conf", k + "=" + v)));
    cmd.addAll(
        List.of(
            job.toString(), Integer.toString(SLICES), dir.resolve("spark-result.txt").toString()));
    ProcessBuilder pb =
        new ProcessBuilder(cmd)
            .directory(dir.toFile())
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("spark-submit.out").toFile());
    pb.environment().put("HADOOP_CONF_DIR", confDir.toString());
    return pb.start();
  }

  /**
   * The {@code --add-opens} options Spark's own launcher gives its JVMs on Java 17 ({@code
   * org.apache.spark.launcher.JavaModuleOptions}), read from Spark's class path: spark-submit needs
   * them, and Spark adds them itself to its ApplicationMaster's and executors' command lines.
   */
  private static String javaModuleOptions(Path jars) throws Exception {
    Path launcher;
    try (var files = Files.list(jars)) {
      launcher =
          files
              .filter(f -> f.getFileName().toString().startsWith("spark-launcher_"))
              .findFirst()
              .orElseThrow(() -> new AssertionError("no spark-launcher jar in " + jars));
    }
    try (URLClassLoader loader = new URLClassLoader(new URL[] {launcher.toUri().toURL()}, null)) {
      return (String)
          loader
              .loadClass("org.apache.spark.launcher.JavaModuleOptions")
              .getMethod("defaultModuleOptions")
              .invoke(null);
    }
  }

  /**
   * Watches the ResourceManager, every 50 ms, for the application named {@code name} and the first
   * moment its ApplicationMaster holds GPU asks in the training partition: when the scheduler could
   * first know of them. Then for the first Aryl status that shows them as plain demand, with the
   * room the plan made for them.
   */
  private static final class AskWatch implements AutoCloseable {
    private final ArylMiniCluster cluster;
    private final String name;
    private final Thread poller;
    private volatile boolean running = true;
    private volatile ApplicationId app;
    private volatile long firstGpuAskMs;
    private volatile String firstAsk = "";
    private volatile List<PlainDemand> plainDemand;

    AskWatch(ArylMiniCluster cluster, String name) {
      this.cluster = cluster;
      this.name = name;
      poller = new Thread(this::poll, "spark-ask-watch");
      poller.setDaemon(true);
      poller.start();
    }

    private void poll() {
      while (running && plainDemand == null) {
        try {
          if (firstGpuAskMs == 0) {
            look();
          } else {
            SchedulerStatus status = ArylStatus.orNull(cluster);
            List<PlainDemand> demand = status == null ? null : status.plainDemand();
            if (demand != null && !demand.isEmpty()) {
              plainDemand = demand;
            }
          }
          Thread.sleep(50);
        } catch (InterruptedException e) {
          return;
        } catch (RuntimeException e) {
          // an application or attempt changed while we looked: look again
        }
      }
    }

    private void look() {
      long now = System.currentTimeMillis();
      if (app == null) {
        for (RMApp a : cluster.rm().getRMContext().getRMApps().values()) {
          if (name.equals(a.getName())) {
            app = a.getApplicationId();
          }
        }
        if (app == null) {
          return;
        }
      }
      SchedulerApplication<?> a =
          ((AbstractYarnScheduler<?, ?>) cluster.scheduler()).getSchedulerApplications().get(app);
      SchedulerApplicationAttempt attempt = a == null ? null : a.getCurrentAppAttempt();
      if (attempt == null) {
        return;
      }
      for (ResourceRequest rr : attempt.getAppSchedulingInfo().getAllResourceRequests()) {
        if (ResourceRequest.ANY.equals(rr.getResourceName())
            && rr.getNumContainers() > 0
            && rr.getCapability().getResourceValue(GPU) > 0) {
          firstAsk =
              rr.getNumContainers()
                  + " x "
                  + rr.getCapability()
                  + " on "
                  + rr.getNodeLabelExpression();
          firstGpuAskMs = now;
        }
      }
    }

    ApplicationId app() {
      return app;
    }

    long firstGpuAskMs() {
      return firstGpuAskMs;
    }

    String firstAsk() {
      return firstAsk;
    }

    /** Aryl's {@code plainDemand} once it showed Spark's asks; null if it never did. */
    List<PlainDemand> plainDemand() {
      return plainDemand;
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
