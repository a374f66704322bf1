package io.aryl.yarn.rm;

import io.aryl.api.status.ApplicationStatus;
import io.aryl.api.status.LoanTargetStatus;
import io.aryl.api.status.NodeStatus;
import io.aryl.api.status.PlainDemand;
import io.aryl.api.status.PlanStatus;
import io.aryl.api.status.ReclaimStatus;
import io.aryl.api.status.RecoveryStatus;
import io.aryl.api.status.SchedulerStatus;
import io.aryl.api.status.StoreStatus;
import io.aryl.api.status.TeamStatus;
import io.aryl.core.model.Allocation;
import io.aryl.core.model.ClusterState;
import io.aryl.core.model.Job;
import io.aryl.core.model.Plan;
import io.aryl.yarn.conf.ArylSettings;
import io.aryl.yarn.engine.WhyBelowMax;
import io.aryl.yarn.reclaim.Reclaim;
import io.aryl.yarn.round.ContainerView;
import io.aryl.yarn.round.NodeView;
import io.aryl.yarn.round.PlanBook;
import io.aryl.yarn.round.RoundInput;
import io.aryl.yarn.state.StateStore;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * The status of {@code GET /ws/v1/cluster/aryl} ({@link SchedulerStatus}): pools and loans, jobs'
 * target against actual width, reclaims, recovery. The one place it is written.
 */
final class StatusReport {
  private StatusReport() {}

  /** What the planning loop hands over, read under its lock. */
  record Inputs(
      long rounds,
      double roundLatencyMs,
      List<NodeView> nodes,
      Predicate<String> inferenceOwned,
      Set<String> fenced,
      List<ElasticApps.App> apps,
      PlanBook book,
      RoundInput lastInput,
      Plan lastPlan,
      List<Reclaim> inFlight,
      List<Reclaim> finished,
      int draining,
      RecoveryStatus recovery,
      String deposed,
      Map<String, NodeStatus.Place> places,
      LoanTargetStatus loanTarget,
      Map<String, Integer> preemptions) {}

  static SchedulerStatus of(Inputs in, ArylSettings settings, StateStore store, long epoch) {
    List<NodeStatus> nodes = new ArrayList<>();
    List<NodeStatus> loaned = new ArrayList<>();
    for (NodeView n : in.nodes()) {
      boolean owned = in.inferenceOwned().test(n.id());
      boolean typed = n.gpuTypeError() == null;
      NodeStatus node =
          new NodeStatus(
              n.id(),
              n.label(),
              n.gpus(),
              n.containers().stream().mapToInt(ContainerView::gpus).sum(),
              owner(owned, n.label(), settings.trainingLabel()),
              owned && settings.trainingLabel().equals(n.label()),
              in.fenced().contains(n.id()),
              !typed ? null : n.gpuType() == null ? settings.gpuType() : n.gpuType().name(),
              n.gpuType() == null ? 1.0 : n.gpuType().trainingSpeed(),
              n.gpuTypeError(),
              in.places().get(n.id()));
      nodes.add(node);
      if (node.loaned()) {
        loaned.add(node);
      }
    }
    return new SchedulerStatus(
        true,
        in.rounds(),
        in.roundLatencyMs(),
        in.recovery(),
        new StoreStatus(store.kind(), store.location(), epoch, in.deposed()),
        nodes,
        loaned,
        applications(in),
        teams(in),
        plainDemand(in),
        plan(in.lastPlan()),
        in.inFlight().stream().map(StatusReport::reclaim).toList(),
        in.finished().stream().map(StatusReport::reclaim).toList(),
        in.draining(),
        in.loanTarget());
  }

  /**
   * The pool that owns a node: inference for one it ever owned, training for one labelled training,
   * else none. A node of the default partition holds ApplicationMasters and plain work, not either
   * pool's GPUs; counting it as training's would swell that pool's row with nodes Aryl never plans
   * on.
   */
  static NodeStatus.Pool owner(boolean inferenceOwned, String label, String trainingLabel) {
    if (inferenceOwned) {
      return NodeStatus.Pool.INFERENCE;
    }
    return trainingLabel.equals(label) ? NodeStatus.Pool.TRAINING : null;
  }

  private static List<ApplicationStatus> applications(Inputs in) {
    List<ApplicationStatus> out = new ArrayList<>();
    Plan p = in.lastPlan();
    for (ElasticApps.App a : in.apps()) {
      Allocation target = in.book().target(a.id);
      Plan.Change change = p == null ? null : p.changes().get(a.id);
      // What a preemption of the job would lose per GPU, as the last round priced it
      // (CheckpointTimes).
      boolean planned = in.lastInput() != null && in.lastInput().state().hasJob(a.id);
      Job job = planned ? in.lastInput().state().job(a.id) : null;
      int live = in.lastInput() == null ? 0 : in.lastInput().liveWorkers(a.id);
      // Why the last round runs it below its maximum, as that round recorded it (WhyBelowMax), in
      // words.
      WhyBelowMax why = WhyBelowMax.of(a.id, a.shape, live, a.askedWorkers(), in.lastInput(), p);
      out.add(
          new ApplicationStatus(
              a.id,
              a.shape.minWorkers(),
              a.shape.maxWorkers(),
              a.shape.gpusPerWorker(),
              a.shape.predictedRuntimeS(),
              target.totalWorkers(),
              target.workersByServer(),
              live,
              a.askedWorkers(),
              change(change),
              job == null ? null : job.sinceCheckpointS(),
              job == null ? null : job.tenant(),
              why == null ? null : why.words(),
              in.preemptions().getOrDefault(a.id, 0)));
    }
    return out;
  }

  /**
   * Each team's guarantee and the GPUs its planned jobs hold, as the last round saw them; empty
   * without teams.
   */
  private static List<TeamStatus> teams(Inputs in) {
    List<TeamStatus> out = new ArrayList<>();
    if (in.lastInput() == null) {
      return out;
    }
    ClusterState state = in.lastInput().state();
    state
        .tenants()
        .guarantees()
        .forEach(
            (team, guaranteed) -> {
              int used = 0;
              for (Job j : state.jobs()) {
                if (j.tenant().equals(team)) {
                  used += state.allocation(j.id()).totalWorkers() * j.gpusPerWorker();
                }
              }
              out.add(new TeamStatus(team, guaranteed, used));
            });
    return out;
  }

  /** Applications without Aryl's tags whose pending GPU containers the last round planned for. */
  private static List<PlainDemand> plainDemand(Inputs in) {
    List<PlainDemand> out = new ArrayList<>();
    if (in.lastInput() == null) {
      return out;
    }
    Set<String> elastic = new HashSet<>();
    in.apps().forEach(a -> elastic.add(a.id));
    for (Job j : in.lastInput().state().jobs()) {
      if (!elastic.contains(j.id())) {
        out.add(
            new PlainDemand(
                j.id(),
                j.tenant(),
                j.minWorkers(),
                j.gpusPerWorker(),
                in.book().target(j.id()).workersByServer()));
      }
    }
    return out;
  }

  private static PlanStatus plan(Plan plan) {
    if (plan == null) {
      return PlanStatus.NONE;
    }
    Map<String, Map<String, Integer>> targets = new TreeMap<>();
    plan.targets().forEach((id, alloc) -> targets.put(id, alloc.workersByServer()));
    Map<String, ApplicationStatus.Change> changes = new TreeMap<>();
    plan.changes().forEach((id, c) -> changes.put(id, change(c)));
    return new PlanStatus(targets, changes);
  }

  /** The status's name of a plan's change: the same name, and NONE for no change. */
  static ApplicationStatus.Change change(Plan.Change c) {
    return c == null ? ApplicationStatus.Change.NONE : ApplicationStatus.Change.valueOf(c.name());
  }

  /** A reclaim as the status lists it and {@code POST .../reclaims} answers it. */
  static ReclaimStatus reclaim(Reclaim r) {
    Map<String, ReclaimStatus.Action> jobs = new TreeMap<>();
    r.jobActions().forEach((app, action) -> jobs.put(app, ReclaimStatus.Action.valueOf(action)));
    return new ReclaimStatus(
        r.id(),
        ReclaimStatus.Phase.valueOf(r.phase().name()),
        r.requested(),
        r.nodes(),
        r.returnedNodes(),
        r.lostNodes(),
        r.replacements(),
        r.shortBy(),
        r.requestedMs(),
        r.deadlineMs(),
        r.finishedMs(),
        r.tookMs(),
        r.phase() == Reclaim.Phase.DONE && r.late(),
        jobs,
        r.containersShrunk(),
        r.containersPreempted(),
        Math.round(r.plannedCostGpuS()),
        Math.round(r.gpuSecondsLost()));
  }
}
