package io.aryl.yarn.round;

import io.aryl.core.job.JobShape;
import io.aryl.core.model.Allocation;
import io.aryl.core.model.ClusterState;
import io.aryl.core.model.GpuType;
import io.aryl.core.model.Job;
import io.aryl.core.model.Server;
import io.aryl.core.model.Tenants;
import io.aryl.core.speedup.SpeedupModel;
import io.aryl.core.victim.VictimOrder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import java.util.function.ToDoubleBiFunction;

/**
 * Turns the ResourceManager's view (nodes, containers, applications) plus the last round's promises
 * into an aryl-core {@link ClusterState}.
 *
 * <p>A job's allocation is, per node, the larger of its live workers and the workers promised to it
 * (never above its maximum in all): a gang being started counts as started, so the next round
 * neither admits it twice nor gives its GPUs away. GPUs the plan does not own (containers of other
 * applications, ApplicationMasters, workers being drained) are taken out of their server's
 * capacity. A plain application (no Aryl tags) enters as its pending containers only: a queued
 * rigid gang the plan makes room for, its running containers being capacity the plan does not own.
 * Promises that no longer fit (a node left, another application took the room) are dropped; a job
 * left with a partial gang is reported as orphaned rather than modelled below its minimum.
 */
public final class SnapshotTranslator {
  private final String trainingLabel;
  private final GpuType gpuType;
  private final Predicate<String> inferenceOwned;
  private final LongSupplier ownersChanges;

  /** Whether each of {@link #ownedFor}'s nodes is inference's, as of {@link #ownedAsOf}. */
  private boolean[] owned;

  private PlannableNodes ownedFor;
  private long ownedAsOf;
  private final SpeedupModel speedup;

  /**
   * The last round's nodes and snapshot: the next round's are made from them where nothing changed.
   */
  private PlannableNodes lastNodes;

  private ClusterState lastState;

  /** Jobs that scale linearly with their workers. */
  public SnapshotTranslator(
      String trainingLabel, GpuType gpuType, Predicate<String> inferenceOwned) {
    this(trainingLabel, gpuType, inferenceOwned, SpeedupModel.linear());
  }

  /**
   * @param speedup how every job's throughput grows with its workers ({@code
   *     aryl.scheduler.speedup-exponent})
   */
  public SnapshotTranslator(
      String trainingLabel,
      GpuType gpuType,
      Predicate<String> inferenceOwned,
      SpeedupModel speedup) {
    this(trainingLabel, gpuType, inferenceOwned, null, speedup);
  }

  /**
   * @param ownersChanges a count that moves whenever an answer of {@code inferenceOwned} may have
   *     changed: the answers for every node are kept until it does (asked every round if null)
   */
  public SnapshotTranslator(
      String trainingLabel,
      GpuType gpuType,
      Predicate<String> inferenceOwned,
      LongSupplier ownersChanges,
      SpeedupModel speedup) {
    this.trainingLabel = trainingLabel;
    this.gpuType = gpuType;
    this.inferenceOwned = inferenceOwned;
    this.ownersChanges = ownersChanges;
    this.speedup = speedup;
  }

  /**
   * Prices a preemption by the time since the job's workers last changed, as if they checkpointed
   * at every change.
   */
  public static final ToDoubleBiFunction<String, JobProgress> SINCE_CHANGE =
      (appId, p) -> p.sinceChangeS();

  /**
   * {@link #translate(double, List, Map, PlanBook, Set, Set, Map, ToDoubleBiFunction)} priced
   * {@link #SINCE_CHANGE}.
   */
  public RoundInput translate(
      double nowS,
      List<NodeView> nodes,
      Map<String, AppView> apps,
      PlanBook book,
      Set<String> draining,
      Set<String> fenced,
      Map<String, JobProgress> progress) {
    return translate(nowS, nodes, apps, book, draining, fenced, progress, SINCE_CHANGE);
  }

  /**
   * @param progress each job's progress, as the scheduler measures it
   * @param sinceCheckpointS for a job (id and progress), the seconds of work preempting it now
   *     would throw away: its {@link Job#sinceCheckpointS()}, which the reclaim cost multiplies by
   *     its GPUs
   */
  public RoundInput translate(
      double nowS,
      List<NodeView> nodes,
      Map<String, AppView> apps,
      PlanBook book,
      Set<String> draining,
      Set<String> fenced,
      Map<String, JobProgress> progress,
      ToDoubleBiFunction<String, JobProgress> sinceCheckpointS) {
    return translate(
        nowS, nodes, apps, book, draining, fenced, progress, sinceCheckpointS, TenantShares.NONE);
  }

  /**
   * @param tenants the training pool's teams; each is guaranteed its share of the GPUs the plan may
   *     use on the pool's own servers (loaned servers are shared by all)
   */
  public RoundInput translate(
      double nowS,
      List<NodeView> nodes,
      Map<String, AppView> apps,
      PlanBook book,
      Set<String> draining,
      Set<String> fenced,
      Map<String, JobProgress> progress,
      ToDoubleBiFunction<String, JobProgress> sinceCheckpointS,
      TenantShares tenants) {
    PlannableNodes plannable = plannableNodes(nodes);
    GpuLedger gpus = new GpuLedger(plannable);
    Map<String, AppView> appsById =
        new HashMap<>(apps); // looked up for every container: a hash, not a tree
    Map<String, Map<String, List<ContainerView>>> workers = new TreeMap<>();
    Map<String, Integer> drainingGpus = new HashMap<>();
    for (int k = 0; k < nodes.size(); k++) {
      int position = plannable.positionOfGiven(k);
      if (position < 0) {
        continue; // not in the pool planned on, or of no known GPU type: its speed would be a guess
      }
      NodeView node = nodes.get(k);
      int blocked = 0;
      for (ContainerView c : node.containers()) {
        AppView owner = appsById.get(c.appId());
        // A plain application's running containers are its own: only its pending ones are the
        // plan's to place.
        boolean plannedWorker =
            owner != null && !owner.plain() && !c.amContainer() && !draining.contains(c.id());
        if (plannedWorker) {
          workers
              .computeIfAbsent(c.appId(), a -> new TreeMap<>())
              .computeIfAbsent(node.id(), n -> new ArrayList<>())
              .add(c);
        } else {
          blocked += c.gpus();
          if (draining.contains(c.id())) {
            drainingGpus.merge(node.id(), c.gpus(), Integer::sum);
          }
        }
      }
      gpus.setCapacityAt(position, node.gpus() - blocked);
    }

    // A job holds at most its maximum: any beyond it (the newest, VictimOrder.newestFirst; new
    // workers of a move given
    // up) are surplus, their GPUs held until drained.
    List<ContainerView> surplus = new ArrayList<>();
    for (AppView app : apps.values()) {
      Map<String, List<ContainerView>> live = workers.get(app.id());
      int over = live == null ? 0 : count(live) - app.shape().maxWorkers();
      if (over > 0) {
        VictimOrder.newestFirst(
                live.values().stream().flatMap(List::stream).toList(), ContainerView::seq, over)
            .forEach(
                c -> {
                  surplus.add(c);
                  String node = nodeOf(live, c);
                  live.get(node).remove(c);
                  if (live.get(node).isEmpty()) {
                    live.remove(node);
                  }
                  gpus.addCapacity(node, -c.gpus());
                });
      }
    }

    // Live workers first: they hold their GPUs whatever the plan says.
    Map<String, Map<String, Integer>> alloc = new HashMap<>();
    List<ContainerView> orphans = new ArrayList<>();
    for (AppView app : apps.values()) {
      Map<String, List<ContainerView>> live = workers.getOrDefault(app.id(), Map.of());
      Map<String, Integer> a = new TreeMap<>();
      live.forEach((node, cs) -> a.put(node, cs.size()));
      alloc.put(app.id(), a);
      a.forEach((node, w) -> gpus.addUsed(node, w * app.shape().gpusPerWorker()));
    }
    // Then unfilled promises, where they still fit and the job stays within its max: live workers
    // the book did not
    // place (a worker that reached a node under an earlier book) count first.
    for (AppView app : apps.values()) {
      Map<String, Integer> a = alloc.get(app.id());
      int g = app.shape().gpusPerWorker();
      int live = sum(a);
      // A promise counts only as far as the ApplicationMaster still asks for it. Without this cap a
      // promise made
      // while its asks were stale (containers allocated, the AM's decremented ask not yet received)
      // or that the AM
      // withdrew was counted as the job's allocation, which then set the job's width: it was
      // promised again every
      // round, never filled (the gate passes no more than the AM asks), and kept GPUs from other
      // jobs for good.
      int demand = Math.max(live + app.askedWorkers(), app.shape().minWorkers());
      int headroom = Math.min(app.shape().maxWorkers(), demand) - live;
      for (Map.Entry<String, Integer> p : book.target(app.id()).workersByServer().entrySet()) {
        String node = p.getKey();
        int extra = p.getValue() - a.getOrDefault(node, 0);
        if (extra <= 0 || !gpus.plans(node) || fenced.contains(node)) {
          continue;
        }
        int room = (gpus.capacity(node) - gpus.used(node)) / g;
        int take = Math.min(Math.min(extra, Math.max(0, room)), headroom);
        if (take > 0) {
          a.merge(node, take, Integer::sum);
          gpus.addUsed(node, take * g);
          headroom -= take;
        }
      }
    }

    // Gangs whose room is still held by containers being drained (for them, as a rule: the last
    // round shrank a job to
    // make it) count as started on their promise, the GPUs those drains free being theirs already:
    // the plan keeps
    // their base workers where they were promised, as any running job's, and the drains that make
    // their room stand.
    // Modelled afresh meanwhile, such a gang found no room, was dropped from the plan, and the
    // drains that made its
    // room were called off or went to waste. The allocation path still holds their workers back
    // until all of a
    // gang's room is free.
    Set<String> awaitingDrains = new TreeSet<>();
    Map<String, Integer> roomFromDrains = new TreeMap<>();
    for (AppView app : apps.values()) {
      Map<String, Integer> a = alloc.get(app.id());
      Allocation promise = book.target(app.id());
      Map<String, Integer> taken =
          roomOnceDrained(
              app,
              a,
              promise,
              workers.getOrDefault(app.id(), Map.of()),
              gpus,
              drainingGpus,
              fenced);
      if (taken == null) {
        continue;
      }
      int g = app.shape().gpusPerWorker();
      taken.forEach(
          (node, fromDrains) -> {
            gpus.addCapacity(node, fromDrains);
            drainingGpus.merge(
                node, -fromDrains, Integer::sum); // another gang cannot count on them too
            roomFromDrains.merge(node, fromDrains, Integer::sum);
          });
      promise
          .workersByServer()
          .forEach(
              (node, w) -> {
                int extra = w - a.getOrDefault(node, 0);
                if (extra > 0) {
                  a.put(node, w);
                  gpus.addUsed(node, extra * g);
                }
              });
      awaitingDrains.add(app.id());
    }

    // Then a running job's promises that wait for the drains on their node, as a gang's do: a
    // worker promised into room
    // a shrink or another job's move frees (the moved job's old workers, held until its new ones
    // run) is promised
    // already. Dropped meanwhile, the round planned again without that room and undid the move or
    // the shrink that
    // was making it. Gangs had the drains' GPUs first; these take what is left of them.
    for (AppView app : apps.values()) {
      Map<String, Integer> a = alloc.get(app.id());
      int g = app.shape().gpusPerWorker();
      int held = sum(a);
      if (held < app.shape().minWorkers() || awaitingDrains.contains(app.id())) {
        continue; // not running: a gang, partial or whole, is the loops' above and below
      }
      int headroom =
          Math.min(
                  app.shape().maxWorkers(),
                  Math.max(
                      liveWorkers(workers, app.id()) + app.askedWorkers(),
                      app.shape().minWorkers()))
              - held;
      for (Map.Entry<String, Integer> p : book.target(app.id()).workersByServer().entrySet()) {
        String node = p.getKey();
        int extra = Math.min(p.getValue() - a.getOrDefault(node, 0), headroom);
        int leaving = drainingGpus.getOrDefault(node, 0);
        if (extra <= 0 || leaving <= 0 || !gpus.plans(node) || fenced.contains(node)) {
          continue;
        }
        int free = Math.max(0, gpus.capacity(node) - gpus.used(node));
        int take = Math.min(extra, (free + leaving) / g);
        int fromDrains = take * g - free;
        if (take <= 0 || fromDrains <= 0) {
          continue; // what fits in the free room was counted already
        }
        gpus.addCapacity(node, fromDrains);
        drainingGpus.merge(node, -fromDrains, Integer::sum);
        roomFromDrains.merge(node, fromDrains, Integer::sum);
        a.merge(node, take, Integer::sum);
        gpus.addUsed(node, take * g);
        headroom -= take;
      }
    }

    // Partial gangs, before any job is modelled: their orphans shrink capacity, which every job's
    // fit must see.
    for (AppView app : apps.values()) {
      JobShape shape = app.shape();
      Map<String, Integer> a = alloc.get(app.id());
      int total = sum(a);
      if (total > 0 && total < shape.minWorkers()) {
        // A partial gang with nothing to complete it must not run as it is; its workers keep their
        // GPUs until
        // drained, so they stay out of the capacity the plan may use.
        Map<String, List<ContainerView>> partial = workers.remove(app.id());
        if (partial != null) {
          partial.forEach(
              (node, cs) -> {
                orphans.addAll(cs);
                gpus.addCapacity(node, -cs.size() * shape.gpusPerWorker());
              });
        }
        a.forEach((node, w) -> gpus.addUsed(node, -w * shape.gpusPerWorker()));
        a.clear();
      }
    }

    List<Job> jobs = new ArrayList<>();
    Map<String, Allocation> allocations = new TreeMap<>();
    int largestFree =
        gpus.largestCapacity(); // once: a walk of every node for each waiting job was nodes x jobs
    for (AppView app : apps.values()) {
      JobShape shape = app.shape();
      Map<String, Integer> a = alloc.get(app.id());
      int total = sum(a);
      int liveTotal =
          liveWorkers(workers, app.id()); // 0 for a partial gang: its workers are orphans now
      int wanted = liveTotal + app.askedWorkers();
      if (total == 0 && wanted < shape.minWorkers()) {
        continue; // its ApplicationMaster has not asked for its whole gang yet
      }
      if (total == 0 && shape.gpusPerWorker() > largestFree) {
        continue; // no server has room for one worker now; the core would refuse the job outright
      }
      int max = Math.min(shape.maxWorkers(), Math.max(Math.max(wanted, total), shape.minWorkers()));
      JobProgress p = progress.getOrDefault(app.id(), JobProgress.NONE);
      // What the prediction leaves, to its last second: a job near its predicted end is planned as
      // near it (shortest
      // first, the elastic value), as the simulator the policy is evaluated on plans it. Only a job
      // past its
      // prediction, which was wrong, is assumed to need a tenth of it more; a floor of a tenth for
      // every job had
      // planned each one in its last tenth as longer than it is.
      double left = shape.predictedRuntimeS() - p.attainedBaseS();
      double remaining = left > 0 ? left : 0.1 * shape.predictedRuntimeS();
      jobs.add(
          Job.builder(app.id())
              .kind(shape.kind())
              .tenant(app.tenant())
              .submitTimeS(Math.min(app.submitS(), nowS))
              .gpusPerWorker(shape.gpusPerWorker())
              .allowedGpuTypes(shape.gpuTypes())
              .workers(shape.minWorkers(), max)
              .remainingS(remaining)
              .attainedS(p.attainedBaseS())
              .sinceCheckpointS(sinceCheckpointS.applyAsDouble(app.id(), p))
              .speedup(speedup)
              .build());
      if (total > 0) {
        allocations.put(app.id(), Allocation.of(a));
      }
    }

    boolean[] loaned = owned(plannable);
    List<Server> servers = new ArrayList<>(plannable.size());
    int ownGpus = 0;
    for (int i = 0; i < plannable.size(); i++) {
      int free = gpus.capacityAt(i);
      if (free <= 0) {
        continue;
      }
      String id = plannable.id(i);
      servers.add(plannable.server(i, free, loaned[i], fenced.contains(id)));
      ownGpus += loaned[i] ? 0 : free;
    }
    ClusterState state = snapshot(nowS, servers, jobs, allocations, tenants.guarantees(ownGpus));
    return new RoundInput(state, workers, orphans, surplus, awaitingDrains, roomFromDrains);
  }

  /**
   * Whether each node of {@code nodes} is inference's, by position: asked of every node only when
   * the nodes or the owners changed. At thousands of nodes a lookup of each one's name every round
   * was a tenth of the translation.
   */
  private boolean[] owned(PlannableNodes nodes) {
    long asOf =
        ownersChanges == null
            ? 0
            : ownersChanges.getAsLong(); // before the answers: a change after is seen next
    if (ownersChanges == null || nodes != ownedFor || asOf != ownedAsOf) {
      boolean[] answers = new boolean[nodes.size()];
      for (int i = 0; i < answers.length; i++) {
        answers[i] = inferenceOwned.test(nodes.id(i));
      }
      owned = answers;
      ownedFor = nodes;
      ownedAsOf = asOf;
    }
    return owned;
  }

  /**
   * This round's nodes as positions: those of the last round if no node joined, left, or changed
   * its pool or size.
   */
  private PlannableNodes plannableNodes(List<NodeView> nodes) {
    if (lastNodes == null || !lastNodes.fits(nodes, trainingLabel, gpuType)) {
      lastNodes = PlannableNodes.of(nodes, trainingLabel, gpuType);
    }
    return lastNodes;
  }

  /**
   * The snapshot of these arguments, as {@link ClusterState#of} makes it; from the last one, whose
   * servers it reuses when they are the same ({@link ClusterState#next}), and which checks only
   * what changed.
   */
  private ClusterState snapshot(
      double nowS,
      List<Server> servers,
      List<Job> jobs,
      Map<String, Allocation> allocations,
      Tenants tenants) {
    ClusterState state =
        lastState == null
            ? ClusterState.of(nowS, servers, jobs, allocations, tenants)
            : lastState.next(nowS, servers, jobs, allocations, tenants);
    lastState = state;
    return state;
  }

  /**
   * For a job short of its gang whose promise covers it, and fits on every node once the containers
   * being drained there are gone, though not now: per node, the GPUs of those drains its promise
   * needs. Null for any other job.
   */
  private static Map<String, Integer> roomOnceDrained(
      AppView app,
      Map<String, Integer> alloc,
      Allocation promise,
      Map<String, List<ContainerView>> live,
      GpuLedger gpus,
      Map<String, Integer> drainingGpus,
      Set<String> fenced) {
    int g = app.shape().gpusPerWorker();
    int allocated = sum(alloc);
    int held = count(live);
    if (allocated >= app.shape().minWorkers()
        || held + app.askedWorkers() < app.shape().minWorkers()
        || promise.totalWorkers() < app.shape().minWorkers()
        || promise.totalWorkers() > app.shape().maxWorkers()) {
      return null;
    }
    // Started on its promise, it holds on each node the more of its promise and what it counts
    // there already.
    int started = allocated;
    for (Map.Entry<String, Integer> p : promise.workersByServer().entrySet()) {
      started += Math.max(0, p.getValue() - alloc.getOrDefault(p.getKey(), 0));
    }
    if (started > app.shape().maxWorkers()) {
      return null; // workers beyond the promise too: a partial gang like any other
    }
    Map<String, Integer> fromDrains = new TreeMap<>();
    for (Map.Entry<String, Integer> p : promise.workersByServer().entrySet()) {
      String node = p.getKey();
      // What of the promise is not counted yet: neither live nor already fitted in the room free
      // now.
      int missingGpus = (p.getValue() - alloc.getOrDefault(node, 0)) * g;
      if (missingGpus <= 0) {
        continue;
      }
      if (!gpus.plans(node) || fenced.contains(node)) {
        return null;
      }
      int free = Math.max(0, gpus.capacity(node) - gpus.used(node));
      int leaving = drainingGpus.getOrDefault(node, 0);
      if (free + leaving < missingGpus) {
        return null;
      }
      if (free < missingGpus) {
        fromDrains.put(node, missingGpus - free);
      }
    }
    return fromDrains.isEmpty() ? null : fromDrains;
  }

  private static String nodeOf(Map<String, List<ContainerView>> byNode, ContainerView c) {
    for (Map.Entry<String, List<ContainerView>> e : byNode.entrySet()) {
      if (e.getValue().contains(c)) {
        return e.getKey();
      }
    }
    throw new IllegalStateException(c.id() + " is on no node");
  }

  private static int liveWorkers(
      Map<String, Map<String, List<ContainerView>>> workers, String appId) {
    return count(workers.getOrDefault(appId, Map.of()));
  }

  // Loops rather than streams: each runs several times per job, for hundreds of jobs, every round.
  private static int sum(Map<String, Integer> workersByNode) {
    int n = 0;
    for (int w : workersByNode.values()) {
      n += w;
    }
    return n;
  }

  private static int count(Map<String, List<ContainerView>> containersByNode) {
    int n = 0;
    for (List<ContainerView> cs : containersByNode.values()) {
      n += cs.size();
    }
    return n;
  }
}
