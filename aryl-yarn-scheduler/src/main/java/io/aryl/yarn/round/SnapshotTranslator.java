package io.aryl.yarn.round;

import io.aryl.core.model.Allocation;
import io.aryl.core.model.ClusterState;
import io.aryl.core.model.GpuType;
import io.aryl.core.model.Job;
import io.aryl.core.model.Server;
import io.aryl.core.model.Tenants;
import io.aryl.core.speedup.SpeedupModel;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
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
 *
 * <p>A translation runs in phases, each its own class, in this order: the containers sorted into
 * the jobs' workers and capacity the plan does not own ({@link HeldWorkers}); live workers counted,
 * then promises where their room is free ({@link PromisesInFreeRoom}) or is held by drains ({@link
 * PromisesInDrainedRoom}); partial gangs' workers made orphans; the jobs the plan sees ({@link
 * JobsToPlan}); the servers. The phases share one round's accounts: the GPUs per node ({@link
 * GpuLedger}) and the workers counted per job ({@link CountedWorkers}). Only what is kept from one
 * round to the next lives here: the nodes' positions, inference's nodes ({@link
 * InferenceOwnership}) and the last snapshot.
 */
public final class SnapshotTranslator {
  private final String trainingLabel;
  private final GpuType gpuType;
  private final InferenceOwnership ownership;
  private final SpeedupModel speedup;

  /**
   * The last round's nodes and snapshot: the next round's are made from them where nothing changed.
   */
  private PlannableNodes lastNodes;

  private ClusterState lastState;

  /** A translator for jobs that scale linearly with their workers. */
  public SnapshotTranslator(
      String trainingLabel, GpuType gpuType, Predicate<String> inferenceOwned) {
    this(trainingLabel, gpuType, inferenceOwned, SpeedupModel.linear());
  }

  /**
   * A translator that asks {@code inferenceOwned} of every node every round.
   *
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
   * A translator that keeps which nodes inference owns until the owners change.
   *
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
    this.ownership = new InferenceOwnership(inferenceOwned, ownersChanges);
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
   * The round's input without teams.
   *
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
   * The round's input: the snapshot aryl-core plans on, and the workers the plan may move.
   *
   * @param book the last round's promises
   * @param draining ids of the containers being drained
   * @param fenced nodes being reclaimed: nothing new is placed there
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
    HeldWorkers held = HeldWorkers.sort(nodes, plannable, apps, draining, gpus);
    Collection<AppView> all = apps.values();
    List<ContainerView> surplus = held.takeSurplus(all, gpus);

    CountedWorkers counted = new CountedWorkers(gpus);
    counted.countLive(all, held);
    new PromisesInFreeRoom(book, fenced, gpus, counted).count(all);
    PromisesInDrainedRoom drained = new PromisesInDrainedRoom(book, fenced, gpus, held, counted);
    drained.countGangs(all);
    drained.countRunningJobs(all);

    // Partial gangs, before any job is modelled: their orphans shrink capacity, which every job's
    // fit must see.
    List<ContainerView> orphans = new ArrayList<>();
    for (AppView app : all) {
      int total = counted.total(app.id());
      if (total > 0 && total < app.shape().minWorkers()) {
        orphans.addAll(held.takeOrphans(app, gpus));
        counted.drop(app);
      }
    }

    JobsToPlan jobs = new JobsToPlan(nowS, progress, sinceCheckpointS, speedup);
    // The largest capacity once: a walk of every node for each waiting job was nodes x jobs.
    jobs.addAll(all, held, counted, gpus.largestCapacity());

    boolean[] loaned = ownership.owned(plannable);
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
    ClusterState state =
        snapshot(nowS, servers, jobs.jobs(), jobs.allocations(), tenants.guarantees(ownGpus));
    return new RoundInput(
        state, held.byApp(), orphans, surplus, counted.awaitingDrains(), gpus.roomFromDrains());
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
}
