package io.aryl.yarn.bench;

import io.aryl.api.status.ApplicationStatus;
import io.aryl.api.status.SchedulerStatus;
import io.aryl.core.job.JobShape;
import io.aryl.yarn.ArylScheduler;
import io.aryl.yarn.TemplateFiles;
import java.io.File;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.test.GenericTestUtils;
import org.apache.hadoop.yarn.api.protocolrecords.AllocateResponse;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.api.records.NodeLabel;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceInformation;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.api.records.SchedulingRequest;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.MockAM;
import org.apache.hadoop.yarn.server.resourcemanager.MockNM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmissionData;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmitter;
import org.apache.hadoop.yarn.server.resourcemanager.nodelabels.RMNodeLabelsManager;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.Allocation;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ContainerUpdates;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.ResourceCommitRequest;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerApp;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.SchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.SchedulerEventType;
import org.slf4j.event.Level;

/**
 * Allocation throughput of {@link ArylScheduler} against the stock {@link CapacityScheduler} on one
 * synthetic load, and the latency of Aryl's planning round at that size. Not a unit test: it prints
 * numbers.
 *
 * <p>Each run is a fresh in-process ResourceManager from Hadoop's own test tooling ({@link MockRM}:
 * the real scheduler, dispatcher and AM service, no RPC) configured from the conf-templates files,
 * with
 *
 * <ul>
 *   <li>{@code nodes} simulated NodeManagers ({@link MockNM}) labelled {@code training}, each 8
 *       GPUs / 64 GB / 32 vcores, and a few default-partition nodes for the ApplicationMasters;
 *   <li>{@code apps} applications in queue {@code training}, AM on the default partition, each
 *       elastic ({@code aryl.min-workers=4}, {@code aryl.max-workers=40}, 1 GPU per worker) whose
 *       {@link MockAM} asks for {@code max} workers on its first heartbeat; all asks together fit
 *       in the cluster.
 * </ul>
 *
 * A cycle heartbeats every node, waits for the dispatcher to drain, then heartbeats every AM (empty
 * asks after the first), until every ask is satisfied. Measured: containers allocated, wall time
 * from the first ask to the AM heartbeat that received the last container, allocations per second,
 * and when the first container came; plus, for diagnosis, the scheduler's own time in node updates
 * and AM allocate calls, and the allocation proposals made and refused (both variants run a
 * subclass that only counts and times these; the stock one adds nothing else to CapacityScheduler).
 * The two schedulers run alternately: warm-up runs, then repetitions.
 *
 * <p>Planning round latency: a further ResourceManager with Aryl, the same load, and a round
 * interval long enough that the background loop never runs; {@link ArylScheduler#runRound()} is
 * called and timed, with every job queued (asks in, no worker yet) and again with every job running
 * at its maximum.
 *
 * <p>Arguments, {@code key=value}, all optional: nodes (500), apps (60), min (4), max (40),
 * gpusPerWorker (1), roundMs (100), warmup (1), reps (3), latencyRounds (100), timeoutS (60), and
 * arylClass (the scheduler class of the Aryl runs, default {@link CountingArylScheduler}; a
 * subclass of it benchmarks a candidate change). Run with {@code bin/aryl-bench-yarn}.
 */
public final class AllocationThroughputBench {
  static final String GPU = ResourceInformation.GPU_URI;
  static final String TRAINING = "training";
  static final String INFERENCE = "inference";
  static final int NODE_GPUS = 8;
  static final int NODE_MEM_MB = 64 * 1024;
  static final int NODE_VCORES = 32;
  static final int WORKER_MEM_MB = 4096;
  static final int WORKER_VCORES = 2;
  static final int AM_NODE_MEM_MB = 128 * 1024;
  static final int AM_NODE_VCORES = 64;

  /**
   * ApplicationMasters per default-partition node: keeps the training queue's AM limit above the AM
   * count.
   */
  static final int AMS_PER_AM_NODE = 15;

  private AllocationThroughputBench() {}

  // ---------------------------------------------------------------------------------------------------------------
  // Parameters

  record Params(
      int nodes,
      int apps,
      int minWorkers,
      int maxWorkers,
      int gpusPerWorker,
      long roundMs,
      int warmup,
      int reps,
      int latencyRounds,
      long timeoutS,
      String arylClass) {
    static Params parse(String[] args) {
      Map<String, String> kv = new LinkedHashMap<>();
      for (String arg : args) {
        for (String a : arg.trim().split("\\s+", -1)) {
          if (a.isEmpty()) {
            continue;
          }
          int eq = a.indexOf('=');
          if (eq <= 0) {
            throw new IllegalArgumentException("argument '" + a + "' is not key=value");
          }
          kv.put(a.substring(0, eq), a.substring(eq + 1));
        }
      }
      Params p =
          new Params(
              integer(kv, "nodes", 500),
              integer(kv, "apps", 60),
              integer(kv, "min", 4),
              integer(kv, "max", 40),
              integer(kv, "gpusPerWorker", 1),
              integer(kv, "roundMs", 100),
              integer(kv, "warmup", 1),
              integer(kv, "reps", 3),
              integer(kv, "latencyRounds", 100),
              integer(kv, "timeoutS", 60),
              kv.getOrDefault("arylClass", CountingArylScheduler.class.getName()));
      kv.remove("arylClass");
      if (!kv.isEmpty()) {
        throw new IllegalArgumentException(
            "unknown arguments "
                + kv.keySet()
                + " (known: nodes, apps, min, max, gpusPerWorker, roundMs, warmup, reps, latencyRounds, timeoutS,"
                + " arylClass)");
      }
      long gpusAsked = (long) p.apps * p.maxWorkers * p.gpusPerWorker;
      if (gpusAsked > (long) p.nodes * NODE_GPUS) {
        throw new IllegalArgumentException(
            "the asks ("
                + gpusAsked
                + " GPUs) do not fit in "
                + p.nodes
                + " nodes of "
                + NODE_GPUS
                + " GPUs: both schedulers must be able to satisfy every ask");
      }
      return p;
    }

    private static int integer(Map<String, String> kv, String key, int dflt) {
      String v = kv.remove(key);
      return v == null ? dflt : Integer.parseInt(v);
    }

    int amNodes() {
      return Math.max(1, (apps + AMS_PER_AM_NODE - 1) / AMS_PER_AM_NODE);
    }

    int expectedContainers() {
      return apps * maxWorkers;
    }
  }

  enum Variant {
    STOCK("stock CapacityScheduler", CountingCapacityScheduler.class),
    ARYL("ArylScheduler", CountingArylScheduler.class);

    final String label;
    final Class<? extends CapacityScheduler> schedulerClass;

    Variant(String label, Class<? extends CapacityScheduler> schedulerClass) {
      this.label = label;
      this.schedulerClass = schedulerClass;
    }
  }

  // ---------------------------------------------------------------------------------------------------------------
  // The two schedulers, with counters and timers only

  /** What the counting subclasses record; read after the dispatcher has drained. */
  static final class Counters {
    final AtomicLong proposals = new AtomicLong();
    final AtomicLong commits = new AtomicLong();
    final AtomicLong reservations = new AtomicLong();
    final AtomicLong nodeUpdates = new AtomicLong();
    final AtomicLong nodeUpdateNanos = new AtomicLong();
    final AtomicLong allocateCalls = new AtomicLong();
    final AtomicLong allocateNanos = new AtomicLong();

    void reset() {
      for (AtomicLong a :
          List.of(
              proposals,
              commits,
              reservations,
              nodeUpdates,
              nodeUpdateNanos,
              allocateCalls,
              allocateNanos)) {
        a.set(0);
      }
    }

    /** Runs one scheduler event, timing it when it is a node update. */
    void handle(SchedulerEvent event, java.util.function.Consumer<SchedulerEvent> handler) {
      if (event.getType() != SchedulerEventType.NODE_UPDATE) {
        handler.accept(event);
        return;
      }
      long t0 = System.nanoTime();
      handler.accept(event);
      nodeUpdateNanos.addAndGet(System.nanoTime() - t0);
      nodeUpdates.incrementAndGet();
    }

    /** Runs one AM allocate call, timing it. */
    Allocation allocate(java.util.function.Supplier<Allocation> call) {
      long t0 = System.nanoTime();
      Allocation a = call.get();
      allocateNanos.addAndGet(System.nanoTime() - t0);
      allocateCalls.incrementAndGet();
      return a;
    }
  }

  interface Counting {
    Counters counters();
  }

  /**
   * The stock CapacityScheduler, counting proposals and timing node updates and AM allocate calls.
   */
  public static class CountingCapacityScheduler extends CapacityScheduler implements Counting {
    private final Counters counters = new Counters();

    @Override
    public Counters counters() {
      return counters;
    }

    @Override
    public void handle(SchedulerEvent event) {
      counters.handle(event, super::handle);
    }

    @Override
    public Allocation allocate(
        ApplicationAttemptId attemptId,
        List<ResourceRequest> ask,
        List<SchedulingRequest> schedulingRequests,
        List<ContainerId> release,
        List<String> blacklistAdditions,
        List<String> blacklistRemovals,
        ContainerUpdates updateRequests) {
      return counters.allocate(
          () ->
              super.allocate(
                  attemptId,
                  ask,
                  schedulingRequests,
                  release,
                  blacklistAdditions,
                  blacklistRemovals,
                  updateRequests));
    }

    @Override
    @SuppressWarnings("rawtypes")
    public boolean tryCommit(Resource cluster, ResourceCommitRequest r, boolean updatePending) {
      boolean ok = super.tryCommit(cluster, r, updatePending);
      count(counters, r, ok);
      return ok;
    }
  }

  /** ArylScheduler, with the same counters and timers as {@link CountingCapacityScheduler}. */
  public static class CountingArylScheduler extends ArylScheduler implements Counting {
    private final Counters counters = new Counters();

    @Override
    public Counters counters() {
      return counters;
    }

    @Override
    public void handle(SchedulerEvent event) {
      counters.handle(event, super::handle);
    }

    @Override
    public Allocation allocate(
        ApplicationAttemptId attemptId,
        List<ResourceRequest> ask,
        List<SchedulingRequest> schedulingRequests,
        List<ContainerId> release,
        List<String> blacklistAdditions,
        List<String> blacklistRemovals,
        ContainerUpdates updateRequests) {
      return counters.allocate(
          () ->
              super.allocate(
                  attemptId,
                  ask,
                  schedulingRequests,
                  release,
                  blacklistAdditions,
                  blacklistRemovals,
                  updateRequests));
    }

    @Override
    @SuppressWarnings("rawtypes")
    public boolean tryCommit(Resource cluster, ResourceCommitRequest r, boolean updatePending) {
      boolean ok = super.tryCommit(cluster, r, updatePending);
      count(counters, r, ok);
      return ok;
    }
  }

  /** Counts proposals to allocate a container (reservations apart), and those committed. */
  @SuppressWarnings("rawtypes")
  static void count(Counters c, ResourceCommitRequest r, boolean ok) {
    if (!r.getContainersToAllocate().isEmpty()) {
      c.proposals.incrementAndGet();
      if (ok) {
        c.commits.incrementAndGet();
      }
    } else if (!r.getContainersToReserve().isEmpty()) {
      c.reservations.incrementAndGet();
    }
  }

  // ---------------------------------------------------------------------------------------------------------------
  // One ResourceManager with the load

  /** A started ResourceManager with its nodes registered and every application's AM running. */
  static final class Cluster implements AutoCloseable {
    final MockRM rm;
    final List<MockNM> nms = new ArrayList<>();
    final List<MockAM> ams = new ArrayList<>();

    Cluster(MockRM rm) {
      this.rm = rm;
    }

    Counters counters() {
      return rm.getResourceScheduler() instanceof Counting k ? k.counters() : new Counters();
    }

    @Override
    public void close() {
      rm.stop();
    }
  }

  static YarnConfiguration conf(Variant v, Params p, long roundMs, File workDir)
      throws IOException {
    YarnConfiguration conf = TemplateFiles.conf();
    conf.set(
        YarnConfiguration.RM_SCHEDULER,
        v == Variant.ARYL ? p.arylClass : v.schedulerClass.getName());
    conf.set(
        YarnConfiguration.FS_NODE_LABELS_STORE_ROOT_DIR,
        new File(workDir, "node-labels").toURI().toString());
    conf.setLong("aryl.scheduler.round-interval-ms", roundMs);
    // Every run is a new cluster: no state to carry over, nothing to write on the hot path.
    conf.set("aryl.scheduler.state-store", "memory");
    // Long enough that nothing expires during a run.
    conf.setLong(YarnConfiguration.RM_NM_EXPIRY_INTERVAL_MS, 600_000);
    conf.setLong(YarnConfiguration.RM_AM_EXPIRY_INTERVAL_MS, 600_000);
    conf.setInt(YarnConfiguration.RM_AM_MAX_ATTEMPTS, 1);
    return conf;
  }

  static Cluster start(Variant v, Params p, long roundMs) throws Exception {
    File workDir = Files.createTempDirectory("aryl-bench-yarn").toFile();
    workDir.deleteOnExit();
    quietLogs();
    MockRM rm = new MockRM(conf(v, p, roundMs, workDir));
    // MockRM turns the root logger to DEBUG at the end of its constructor.
    quietLogs();
    Cluster c = new Cluster(rm);
    rm.start();

    RMNodeLabelsManager labels = rm.getRMContext().getNodeLabelManager();
    for (String label : List.of(INFERENCE, TRAINING)) {
      if (!labels.getClusterNodeLabelNames().contains(label)) {
        labels.addToCluserNodeLabels(List.of(NodeLabel.newInstance(label, true)));
      }
    }
    Map<NodeId, Set<String>> toLabel = new HashMap<>();
    List<String> gpuHosts = new ArrayList<>();
    for (int i = 0; i < p.nodes; i++) {
      // IP literals: container tokens resolve node hosts, and these need no name service.
      String host = String.format(Locale.ROOT, "127.1.%d.%d", i / 250, i % 250 + 1);
      gpuHosts.add(host);
      toLabel.put(NodeId.newInstance(host, 8041), Set.of(TRAINING));
    }
    labels.replaceLabelsOnNode(toLabel);

    Resource gpuNode =
        Resource.newInstance(NODE_MEM_MB, NODE_VCORES, Map.of(GPU, (long) NODE_GPUS));
    for (String host : gpuHosts) {
      c.nms.add(rm.registerNode(host + ":8041", gpuNode));
    }
    List<MockNM> amNms = new ArrayList<>();
    Resource amNode = Resource.newInstance(AM_NODE_MEM_MB, AM_NODE_VCORES, Map.of(GPU, 0L));
    for (int i = 0; i < p.amNodes(); i++) {
      MockNM nm = rm.registerNode(String.format(Locale.ROOT, "127.2.0.%d:8041", i + 1), amNode);
      amNms.add(nm);
      c.nms.add(nm);
    }
    rm.drainEvents();
    Resource training = labels.getResourceByLabel(TRAINING, null);
    long trainingGpus = training.getResourceValue(GPU);
    if (trainingGpus != (long) p.nodes * NODE_GPUS) {
      throw new IllegalStateException(
          "partition training has " + training + ", expected " + p.nodes * NODE_GPUS + " GPUs");
    }

    Resource amResource = Resource.newInstance(1024, 1);
    for (int i = 0; i < p.apps; i++) {
      // Shortest-predicted-first has something to order: runtimes from 10 minutes up.
      JobShape shape =
          new JobShape(p.minWorkers, p.maxWorkers, p.gpusPerWorker, 600 + 60 * i, "bench");
      RMApp app =
          MockRMAppSubmitter.submit(
              rm,
              MockRMAppSubmissionData.Builder.createWithResource(amResource, rm)
                  .withAppName("bench-" + i)
                  .withQueue(TRAINING)
                  // The AM runs on the default partition; workers name the training label in their
                  // asks.
                  .withAppNodeLabel("")
                  .withApplicationTags(shape.toTags())
                  .withMaxAppAttempts(1)
                  .build());
      c.ams.add(MockRM.launchAndRegisterAM(app, rm, amNms.get(i % amNms.size())));
    }
    rm.drainEvents();
    return c;
  }

  /**
   * The RM's own logging is not what is measured: warnings only, less the ones every start and stop
   * print.
   */
  static void quietLogs() {
    GenericTestUtils.setRootLogLevel(Level.WARN);
    GenericTestUtils.setLogLevel(
        org.apache.log4j.Logger.getLogger(
            "org.apache.hadoop.security.token.delegation.AbstractDelegationTokenSecretManager"),
        org.apache.log4j.Level.OFF);
    for (String logger :
        List.of(
            "org.apache.hadoop.metrics2.util.MBeans", "org.apache.hadoop.util.NativeCodeLoader")) {
      GenericTestUtils.setLogLevel(
          org.apache.log4j.Logger.getLogger(logger), org.apache.log4j.Level.ERROR);
    }
  }

  static ResourceRequest workerAsk(Params p) {
    Resource worker =
        Resource.newInstance(WORKER_MEM_MB, WORKER_VCORES, Map.of(GPU, (long) p.gpusPerWorker));
    return ResourceRequest.newInstance(
        Priority.newInstance(1), ResourceRequest.ANY, worker, p.maxWorkers, true, TRAINING);
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Throughput

  record RunResult(
      Variant variant,
      int containers,
      int expected,
      double wallS,
      double firstS,
      int cycles,
      long proposals,
      long commits,
      long reservations,
      double nodeUpdateMs,
      long nodeUpdates,
      double allocateMs,
      long allocateCalls,
      double setupS,
      String note) {
    double perSecond() {
      return containers / wallS;
    }

    boolean complete() {
      return containers == expected;
    }
  }

  /**
   * Drives the cluster until every ask is satisfied, no container came for {@code stallMs}, or the
   * timeout.
   */
  static RunResult drive(Variant v, Cluster c, Params p, double setupS, Runnable afterCycle)
      throws Exception {
    int expected = p.expectedContainers();
    long stallNs = Math.max(3_000, 30 * p.roundMs) * 1_000_000L;
    long timeoutNs = p.timeoutS * 1_000_000_000L;
    c.counters().reset();

    long t0 = System.nanoTime();
    long last = t0;
    long first = -1;
    int allocated = 0;
    for (MockAM am : c.ams) {
      // A request object per AM, as over RPC: the scheduler keeps and decrements the one it is
      // given.
      allocated += am.allocate(List.of(workerAsk(p)), List.of()).getAllocatedContainers().size();
    }
    int cycles = 0;
    while (allocated < expected) {
      long now = System.nanoTime();
      if (now - t0 > timeoutNs || now - last > stallNs) {
        break;
      }
      for (MockNM nm : c.nms) {
        nm.nodeHeartbeat(true);
      }
      c.rm.drainEvents();
      cycles++;
      afterCycle.run();
      for (MockAM am : c.ams) {
        AllocateResponse r = am.allocate(List.of(), List.of());
        int n = r.getAllocatedContainers().size();
        if (n > 0) {
          allocated += n;
          last = System.nanoTime();
          first = first < 0 ? last : first;
        }
      }
    }
    Counters k = c.counters();
    String note = "";
    if (allocated < expected) {
      note =
          "stopped short: "
              + pendingByApp(c)
              + (v == Variant.ARYL ? "; the plan grants " + plannedWorkers(c) + " workers" : "");
    }
    return new RunResult(
        v,
        allocated,
        expected,
        (last - t0) / 1e9,
        first < 0 ? Double.NaN : (first - t0) / 1e9,
        cycles,
        k.proposals.get(),
        k.commits.get(),
        k.reservations.get(),
        k.nodeUpdateNanos.get() / 1e6,
        k.nodeUpdates.get(),
        k.allocateNanos.get() / 1e6,
        k.allocateCalls.get(),
        setupS,
        note);
  }

  /** For a run that stopped short: how many applications still wait, and for how many GPUs. */
  static String pendingByApp(Cluster c) {
    CapacityScheduler cs = (CapacityScheduler) c.rm.getResourceScheduler();
    int waiting = 0;
    long gpus = 0;
    for (MockAM am : c.ams) {
      FiCaSchedulerApp app = cs.getApplicationAttempt(am.getApplicationAttemptId());
      long pending = app.getAppAttemptResourceUsage().getPending(TRAINING).getResourceValue(GPU);
      if (pending > 0) {
        waiting++;
        gpus += pending;
      }
    }
    return waiting + " applications still pending " + gpus + " GPUs at the scheduler";
  }

  static int plannedWorkers(Cluster c) {
    SchedulerStatus status = ((ArylScheduler) c.rm.getResourceScheduler()).aryl().status();
    return status.applications().stream().mapToInt(ApplicationStatus::targetWorkers).sum();
  }

  static RunResult runOnce(Variant v, Params p) throws Exception {
    System.gc();
    long s0 = System.nanoTime();
    try (Cluster c = start(v, p, p.roundMs)) {
      double setupS = (System.nanoTime() - s0) / 1e9;
      return drive(v, c, p, setupS, () -> {});
    }
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Planning round latency

  @SuppressWarnings(
      "ArrayRecordComponent") // samples read in place by the percentiles, never compared
  record Latency(String state, double[] ms) {
    double mean() {
      return Arrays.stream(ms).average().orElse(Double.NaN);
    }

    double pct(double q) {
      double[] s = ms.clone();
      Arrays.sort(s);
      int i = (int) Math.ceil(q * s.length) - 1;
      return s[Math.max(0, Math.min(s.length - 1, i))];
    }
  }

  static List<Latency> planningLatency(Params p) throws Exception {
    System.gc();
    List<Latency> out = new ArrayList<>();
    // The background loop waits an hour: every round below is one this thread runs and times.
    try (Cluster c = start(Variant.ARYL, p, 3_600_000L)) {
      ArylScheduler aryl = (ArylScheduler) c.rm.getResourceScheduler();
      for (MockAM am : c.ams) {
        am.allocate(List.of(workerAsk(p)), List.of());
      }
      out.add(new Latency("queued (asks in, 0 workers)", timeRounds(aryl, p.latencyRounds)));
      RunResult r = drive(Variant.ARYL, c, p, 0, aryl.aryl()::runRound);
      String running = "running (" + r.containers() + " workers)";
      out.add(new Latency(running, timeRounds(aryl, p.latencyRounds)));
    }
    return out;
  }

  static double[] timeRounds(ArylScheduler aryl, int n) {
    double[] ms = new double[n];
    for (int i = 0; i < n; i++) {
      long t0 = System.nanoTime();
      aryl.aryl().runRound();
      ms[i] = (System.nanoTime() - t0) / 1e6;
    }
    return ms;
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Main and report

  public static void main(String[] args) {
    int status = 0;
    try {
      run(Params.parse(args));
    } catch (Throwable t) {
      t.printStackTrace();
      status = 1;
    }
    // The ResourceManagers leave non-daemon threads behind.
    System.exit(status);
  }

  static void run(Params p) throws Exception {
    long start = System.nanoTime();
    String loadBefore = loadAverage();
    System.out.printf(
        Locale.ROOT,
        "Aryl allocation benchmark (MockRM, Hadoop %s, Java %s, %d CPUs, load average %s)%n",
        org.apache.hadoop.util.VersionInfo.getVersion(),
        Runtime.version(),
        Runtime.getRuntime().availableProcessors(),
        loadBefore);
    System.out.printf(
        Locale.ROOT,
        "Load: %d training nodes (%d GPUs, %d GB, %d vcores each) + %d default-partition node(s) for AMs; %d apps in"
            + " queue training, each min %d / max %d workers x %d GPU (%d MB, %d vcores) = %d containers asked;"
            + " Aryl round interval %d ms; %d warm-up + %d measured runs per scheduler, alternating%n%n",
        p.nodes,
        NODE_GPUS,
        NODE_MEM_MB / 1024,
        NODE_VCORES,
        p.amNodes(),
        p.apps,
        p.minWorkers,
        p.maxWorkers,
        p.gpusPerWorker,
        WORKER_MEM_MB,
        WORKER_VCORES,
        p.expectedContainers(),
        p.roundMs,
        p.warmup,
        p.reps);
    if (!p.arylClass.equals(CountingArylScheduler.class.getName())) {
      System.out.println("Aryl runs use scheduler class " + p.arylClass);
    }

    List<RunResult> measured = new ArrayList<>();
    for (int i = 0; i < p.warmup + p.reps; i++) {
      boolean warm = i < p.warmup;
      for (Variant v : Variant.values()) {
        RunResult r = runOnce(v, p);
        System.out.printf(
            Locale.ROOT,
            "%-7s %-24s %4d/%4d containers in %6.3f s = %5.0f /s (first after %3.0f ms) in %2d cycles;"
                + " allocation proposals %6d (refused %6d), reservations %4d; scheduler time: node updates %5.0f ms,"
                + " AM allocate %4.0f ms; setup %.1f s%s%n",
            warm ? "warm-up" : "run " + (i - p.warmup + 1),
            v.label,
            r.containers(),
            r.expected(),
            r.wallS(),
            r.perSecond(),
            r.firstS() * 1000,
            r.cycles(),
            r.proposals(),
            r.proposals() - r.commits(),
            r.reservations(),
            r.nodeUpdateMs(),
            r.allocateMs(),
            r.setupS(),
            r.note().isEmpty() ? "" : "  [" + r.note() + "]");
        if (!warm) {
          measured.add(r);
        }
      }
    }

    System.out.println();
    System.out.println("Allocation throughput (measured runs; mean [min .. max])");
    System.out.printf(
        Locale.ROOT,
        "%-24s %4s %10s %26s %22s %14s %6s %10s %10s %14s%n",
        "scheduler",
        "runs",
        "containers",
        "wall s (first ask->last)",
        "allocations/s",
        "first alloc ms",
        "cycles",
        "proposals",
        "refused",
        "node-update ms");
    Map<Variant, Double> meanRate = new LinkedHashMap<>();
    for (Variant v : Variant.values()) {
      List<RunResult> rs = measured.stream().filter(r -> r.variant() == v).toList();
      if (rs.isEmpty()) {
        continue;
      }
      double[] wall = rs.stream().mapToDouble(RunResult::wallS).toArray();
      double[] rate = rs.stream().mapToDouble(RunResult::perSecond).toArray();
      meanRate.put(v, mean(rate));
      System.out.printf(
          Locale.ROOT,
          "%-24s %4d %10s %26s %22s %14.0f %6.1f %10.0f %10.0f %14.0f%n",
          v.label,
          rs.size(),
          containers(rs),
          span(wall, "%.3f"),
          span(rate, "%.0f"),
          rs.stream().mapToDouble(RunResult::firstS).average().orElse(Double.NaN) * 1000,
          rs.stream().mapToInt(RunResult::cycles).average().orElse(0),
          rs.stream().mapToLong(RunResult::proposals).average().orElse(0),
          rs.stream().mapToLong(r -> r.proposals() - r.commits()).average().orElse(0),
          rs.stream().mapToDouble(RunResult::nodeUpdateMs).average().orElse(0));
    }
    if (meanRate.containsKey(Variant.STOCK) && meanRate.containsKey(Variant.ARYL)) {
      double ratio = meanRate.get(Variant.ARYL) / meanRate.get(Variant.STOCK);
      boolean allComplete = measured.stream().allMatch(RunResult::complete);
      System.out.printf(
          Locale.ROOT,
          "Aryl / stock allocations per second: %.2fx (target >= 0.90x): %s%s%n",
          ratio,
          ratio >= 0.9 ? "MET" : "MISSED",
          allComplete ? "" : "  (some runs did not allocate every container)");
      // The same runs split in two: how long until the first container (Aryl plans first), and how
      // fast containers
      // come once they come (the Capacity Scheduler's own allocation work, gate and ordering
      // included).
      Map<Variant, Double> steady = new LinkedHashMap<>();
      Map<Variant, Double> nodeMs = new LinkedHashMap<>();
      for (Variant v : meanRate.keySet()) {
        List<RunResult> rs = measured.stream().filter(r -> r.variant() == v).toList();
        steady.put(
            v,
            mean(
                rs.stream()
                    .filter(r -> r.wallS() > r.firstS())
                    .mapToDouble(r -> r.containers() / (r.wallS() - r.firstS()))
                    .toArray()));
        nodeMs.put(
            v, rs.stream().mapToDouble(RunResult::nodeUpdateMs).average().orElse(Double.NaN));
      }
      System.out.printf(
          Locale.ROOT,
          "  once allocating (first container -> last): stock %.0f /s, Aryl %.0f /s = %.2fx;"
              + " scheduler time in node updates: stock %.0f ms, Aryl %.0f ms = %.2fx the stock rate%n",
          steady.get(Variant.STOCK),
          steady.get(Variant.ARYL),
          steady.get(Variant.ARYL) / steady.get(Variant.STOCK),
          nodeMs.get(Variant.STOCK),
          nodeMs.get(Variant.ARYL),
          nodeMs.get(Variant.STOCK) / nodeMs.get(Variant.ARYL));
    }

    System.out.println();
    System.out.printf(
        Locale.ROOT,
        "Planning round latency, ArylScheduler.runRound() at %d nodes, %d jobs, %d rounds"
            + " per state (background loop idle)%n",
        p.nodes + p.amNodes(),
        p.apps,
        p.latencyRounds);
    for (Latency l : planningLatency(p)) {
      System.out.printf(
          Locale.ROOT,
          "  %-28s mean %6.2f ms   p50 %6.2f ms   p99 %6.2f ms   max %6.2f ms   (first round"
              + " %.2f ms)%n",
          l.state(),
          l.mean(),
          l.pct(0.50),
          l.pct(0.99),
          l.pct(1.0),
          l.ms()[0]);
    }
    System.out.printf(
        Locale.ROOT,
        "%nTotal %.0f s; load average before %s, after %s%n",
        (System.nanoTime() - start) / 1e9,
        loadBefore,
        loadAverage());
  }

  static String containers(List<RunResult> rs) {
    int min = rs.stream().mapToInt(RunResult::containers).min().orElse(0);
    int max = rs.stream().mapToInt(RunResult::containers).max().orElse(0);
    return min == max ? String.valueOf(min) : min + ".." + max;
  }

  static double mean(double[] xs) {
    return Arrays.stream(xs).average().orElse(Double.NaN);
  }

  static String span(double[] xs, String fmt) {
    double min = Arrays.stream(xs).min().orElse(Double.NaN);
    double max = Arrays.stream(xs).max().orElse(Double.NaN);
    return String.format(Locale.ROOT, fmt + " [" + fmt + " .. " + fmt + "]", mean(xs), min, max);
  }

  static String loadAverage() {
    try {
      String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+", -1);
      return f[0] + " " + f[1] + " " + f[2];
    } catch (IOException | RuntimeException e) {
      double l = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
      return String.format(Locale.ROOT, "%.2f", l);
    }
  }
}
