package io.aryl.yarn.engine;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.aryl.core.job.CheckpointReport;
import io.aryl.core.job.JobShape;
import io.aryl.yarn.conf.ArylSettings;
import io.aryl.yarn.round.AppView;
import io.aryl.yarn.round.ContainerView;
import io.aryl.yarn.round.NodeView;
import io.aryl.yarn.round.TenantShares;
import io.aryl.yarn.state.BackgroundSaves;
import io.aryl.yarn.state.DurableState;
import io.aryl.yarn.state.JobRecord;
import io.aryl.yarn.state.Jobs;
import io.aryl.yarn.state.Section;
import io.aryl.yarn.state.StateStore;
import io.aryl.yarn.state.StoreFencedException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A cluster as the {@link RoundEngine} sees it, written by hand: nodes, their containers, elastic
 * jobs and plain applications' demand, which a test changes between rounds as the ResourceManager
 * would. Every round hands the engine a fresh {@link RmView} of it and returns the {@link Outcome};
 * the rig applies nothing by itself, so a test says exactly what the cluster did with the actions
 * (a worker released, a node relabelled, a NodeManager gone).
 *
 * <p>The engine's state store is a {@link Store} the test can make fail or hand to another
 * scheduler, and that survives a {@link #restart}.
 */
final class EngineRig implements AutoCloseable {
  static final String TRAINING = "training";
  static final String INFERENCE = "inference";

  private final Map<String, String> conf;
  final Store store;
  final Lifecycle lifecycle = new Lifecycle();
  private final BackgroundSaves measurements;
  final RoundEngine engine;
  private final Map<String, Node> nodes = new TreeMap<>();
  private final Map<String, Job> jobs = new TreeMap<>();
  private final Map<String, AppView> plain = new TreeMap<>();
  private final Map<String, CheckpointReport> checkpoints = new HashMap<>();
  private final List<RmView.Finished> finished = new ArrayList<>();
  private TenantShares tenants = TenantShares.NONE;
  private boolean rmReady = true;
  private long seq;
  long nowMs;

  /** A node: its pool label, GPUs, and the containers on it in the order they started. */
  static final class Node {
    String label;
    final int gpus;
    final Map<String, ContainerView> containers = new LinkedHashMap<>();

    Node(String label, int gpus) {
      this.label = label;
      this.gpus = gpus;
    }
  }

  /**
   * An elastic job: its shape, what its ApplicationMaster asks for now, and whether its
   * ApplicationMaster runs.
   */
  static final class Job {
    final JobShape shape;
    final double submitS;
    int asking;
    String team = "";

    Job(JobShape shape, double submitS) {
      this.shape = shape;
      this.submitS = submitS;
    }
  }

  EngineRig(Map<String, String> conf) {
    this(conf, new Store(), 1_000_000L);
  }

  /**
   * A scheduler becoming active on {@code store}, which a test may have filled as a predecessor
   * left it.
   */
  EngineRig(Map<String, String> conf, Store store) {
    this(conf, store, 1_000_000L);
  }

  private EngineRig(Map<String, String> conf, Store store, long nowMs) {
    this.conf = conf;
    this.store = store;
    this.nowMs = nowMs;
    try {
      DurableState state = DurableState.open(store, nowMs);
      this.measurements = new BackgroundSaves(state, "test-state-writer");
      lifecycle.move(Lifecycle.State.NEW, Lifecycle.State.STANDBY);
      this.engine = new RoundEngine(ArylSettings.from(conf), lifecycle, state, measurements, nowMs);
      lifecycle.move(Lifecycle.State.STANDBY, Lifecycle.State.RECOVERING);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * A new scheduler becoming active on the same store (a restart or a failover), with this cluster
   * as it runs now: every node registered, unless the test takes some away until they re-register.
   */
  EngineRig restart() {
    EngineRig next = new EngineRig(conf, store, nowMs);
    next.nodes.putAll(nodes);
    next.jobs.putAll(jobs);
    next.plain.putAll(plain);
    next.seq = seq;
    return next;
  }

  EngineRig node(String id, String label, int gpus) {
    nodes.put(id, new Node(label, gpus));
    return this;
  }

  Node node(String id) {
    return nodes.get(id);
  }

  /** The NodeManager left the cluster: the node and everything on it are gone. */
  void lose(String nodeId) {
    nodes.remove(nodeId);
  }

  /**
   * An elastic job submitted at {@code submitS}, its ApplicationMaster running and asking for its
   * minimum.
   */
  EngineRig job(String id, int min, int max, int gpusPerWorker, double runtimeS, double submitS) {
    Job j = new Job(new JobShape(min, max, gpusPerWorker, runtimeS, ""), submitS);
    j.asking = min;
    jobs.put(id, j);
    return this;
  }

  EngineRig job(String id, int min, int max, int gpusPerWorker, double runtimeS) {
    return job(id, min, max, gpusPerWorker, runtimeS, 0);
  }

  Job job(String id) {
    return jobs.get(id);
  }

  /** The job's ApplicationMaster now asks for {@code workers} more than it holds. */
  EngineRig asking(String id, int workers) {
    jobs.get(id).asking = workers;
    return this;
  }

  /** The job ended. */
  void finish(String id, boolean succeeded) {
    jobs.remove(id);
    nodes.values().forEach(n -> n.containers.values().removeIf(c -> c.appId().equals(id)));
    finished.add(new RmView.Finished(id, succeeded, null));
  }

  /**
   * A plain application (no Aryl tags) asking for {@code containers} of {@code gpus} GPUs in the
   * training pool.
   */
  EngineRig plain(String id, int containers, int gpus) {
    return plain(id, containers, gpus, "");
  }

  /**
   * {@link #plain(String, int, int)} in a team's queue (a child of the training queue; "" for
   * none).
   */
  EngineRig plain(String id, int containers, int gpus, String team) {
    if (containers == 0) {
      plain.remove(id);
    } else {
      plain.put(
          id,
          new AppView(
              id, new JobShape(containers, containers, gpus, 1, ""), 0, containers, team, true));
    }
    return this;
  }

  /** The elastic job belongs to a team: its queue is that child of the training queue. */
  EngineRig team(String id, String team) {
    jobs.get(id).team = team;
    return this;
  }

  void checkpoint(String appId, long atMs) {
    checkpoints.put(appId, new CheckpointReport(atMs, 1));
  }

  void tenants(Map<String, Double> shares) {
    tenants = TenantShares.of(shares);
  }

  void rmReady(boolean ready) {
    rmReady = ready;
  }

  /**
   * Starts a container of {@code app} on the node; a worker of an elastic job takes one from its
   * ask.
   */
  String start(String app, String node, int gpus, boolean am) {
    String id = "container_" + ++seq;
    nodes.get(node).containers.put(id, new ContainerView(id, app, seq, gpus, am));
    Job j = jobs.get(app);
    if (j != null && !am && j.asking > 0) {
      j.asking--;
    }
    return id;
  }

  /** Starts a worker of the elastic job (its declared size) on the node. */
  String worker(String app, String node) {
    return start(app, node, jobs.get(app).shape.gpusPerWorker(), false);
  }

  /**
   * Every container the outcome's grants would allocate: the book's targets, where the job holds
   * fewer workers.
   */
  List<String> allocateGrants(Outcome o) {
    List<String> started = new ArrayList<>();
    o.promises()
        .book()
        .targets()
        .forEach(
            (app, target) -> {
              if (!jobs.containsKey(app)) {
                return;
              }
              target
                  .workersByServer()
                  .forEach(
                      (node, want) -> {
                        int have = workersOf(app, node).size();
                        for (int i = have; i < want && jobs.get(app).asking > 0; i++) {
                          started.add(worker(app, node));
                        }
                      });
            });
    return started;
  }

  /** The container ended (released by its ApplicationMaster, or killed). */
  void end(String containerId) {
    nodes.values().forEach(n -> n.containers.remove(containerId));
  }

  List<String> workersOf(String app, String node) {
    Node n = nodes.get(node);
    return n == null
        ? List.of()
        : n.containers.values().stream()
            .filter(c -> c.appId().equals(app) && !c.amContainer())
            .map(ContainerView::id)
            .toList();
  }

  int workersOf(String app) {
    return nodes.keySet().stream().mapToInt(n -> workersOf(app, n).size()).sum();
  }

  RmView view() {
    List<NodeView> views = new ArrayList<>();
    nodes.forEach(
        (id, n) ->
            views.add(new NodeView(id, n.label, n.gpus, List.copyOf(n.containers.values()))));
    Map<String, AppView> elastic = new TreeMap<>();
    Map<String, RmView.KnownApp> known = new TreeMap<>();
    jobs.forEach(
        (id, j) -> {
          elastic.put(id, new AppView(id, j.shape, j.submitS, j.asking, j.team, false));
          known.put(id, new RmView.KnownApp(id, j.shape, j.asking));
        });
    List<RmView.Finished> ended = List.copyOf(finished);
    finished.clear();
    return new RmView(nowMs, views, elastic, known, plain, tenants, rmReady, checkpoints, ended);
  }

  /** A round at {@code atMs}. */
  Outcome round(long atMs) {
    nowMs = atMs;
    return engine.round(view());
  }

  /** A round {@code ms} after the last. */
  Outcome after(long ms) {
    return round(nowMs + ms);
  }

  /** Carries out the outcome's relabels as the adapter does: only on a node with nothing on it. */
  void relabel(Outcome o) {
    for (Action.Relabel r : o.actions(Action.Relabel.class)) {
      Node n = nodes.get(r.node());
      if (n != null && n.containers.isEmpty()) {
        n.label = r.label();
        engine.relabelled(r.node(), r.label(), nowMs);
      }
    }
  }

  /** Ends every container the outcome kills. */
  void kill(Outcome o) {
    o.actions(Action.Kill.class).forEach(k -> end(k.containerId()));
  }

  /**
   * The job's preemptions as stored now (0 when the job has no stored record): what a newly active
   * scheduler would read.
   */
  int storedPreemptions(String app) throws IOException {
    byte[] jobs = store.readAll().get(Section.JOBS.name());
    if (jobs == null) {
      return 0;
    }
    JobRecord r = new ObjectMapper().readValue(jobs, Jobs.class).jobs().get(app);
    return r == null ? 0 : r.preemptions();
  }

  /** Waits until the measurements handed to the background writer are stored. */
  void flush() throws InterruptedException {
    measurements.flush();
  }

  @Override
  public void close() {
    measurements.close();
  }

  /**
   * A state store that outlives the schedulers that use it, and that a test can make fail: every
   * claim fences the claims before it, as the ZooKeeper store's epoch does.
   */
  static final class Store implements StateStore {
    final Map<String, byte[]> sections = new TreeMap<>();
    private long epoch;
    long writes;

    /** Every write, in order: the section and what it held then. */
    final List<Map.Entry<String, String>> log = new ArrayList<>();

    /** Writes fail with this while set. */
    IOException failing;

    @Override
    public synchronized long claim() {
      return ++epoch;
    }

    @Override
    public synchronized Map<String, byte[]> readAll() {
      return new TreeMap<>(sections);
    }

    @Override
    public synchronized void write(String section, byte[] data) throws IOException {
      if (failing != null) {
        throw failing;
      }
      sections.put(section, data.clone());
      log.add(Map.entry(section, new String(data, StandardCharsets.UTF_8)));
      writes++;
    }

    /** Another scheduler claimed the store: the next write of any earlier one fails as fenced. */
    void claimedByAnother() {
      failing =
          new StoreFencedException(
              "the state store was claimed by another scheduler (epoch " + (epoch + 1) + ")");
    }

    @Override
    public String kind() {
      return "test";
    }

    @Override
    public String location() {
      return "the test's memory";
    }

    @Override
    public String location(String section) {
      return section;
    }

    @Override
    public String deleteCommand(String section) {
      return "nothing";
    }

    @Override
    public void close() {}
  }
}
