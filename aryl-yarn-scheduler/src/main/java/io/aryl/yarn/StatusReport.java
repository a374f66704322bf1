package io.aryl.yarn;

import io.aryl.core.model.Allocation;
import io.aryl.core.model.ClusterState;
import io.aryl.core.model.Job;
import io.aryl.core.model.Plan;
import io.aryl.yarn.reclaim.Reclaim;
import io.aryl.yarn.round.ContainerView;
import io.aryl.yarn.round.NodeView;
import io.aryl.yarn.round.PlanBook;
import io.aryl.yarn.round.RoundInput;
import io.aryl.yarn.state.StateStore;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Predicate;

/** The JSON of {@code GET /ws/v1/cluster/aryl}: pools and loans, jobs' target against actual width, reclaims, recovery. */
final class StatusReport {
  private StatusReport() {}

  /** What the planning loop hands over, read under its lock. */
  record Inputs(long rounds, double roundLatencyMs, List<NodeView> nodes, Predicate<String> inferenceOwned,
      Set<String> fenced, List<ElasticApps.App> apps, PlanBook book, RoundInput lastInput, Plan lastPlan,
      List<Reclaim> inFlight, List<Reclaim> finished, int draining, Map<String, Object> recovery, String deposed) {}

  static Map<String, Object> of(Inputs in, ArylSettings settings, StateStore store, long epoch) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("enabled", true);
    out.put("round", in.rounds());
    out.put("roundLatencyMs", in.roundLatencyMs());
    out.put("recovery", in.recovery());
    Map<String, Object> st = new LinkedHashMap<>();
    st.put("kind", store.kind());
    st.put("location", store.location());
    st.put("epoch", epoch);
    if (in.deposed() != null) {
      st.put("deposed", in.deposed());
    }
    out.put("store", st);
    List<Map<String, Object>> loaned = new ArrayList<>();
    List<Map<String, Object>> pools = new ArrayList<>();
    for (NodeView n : in.nodes()) {
      boolean owned = in.inferenceOwned().test(n.id());
      Map<String, Object> node = new LinkedHashMap<>();
      node.put("node", n.id());
      node.put("label", n.label());
      node.put("gpus", n.gpus());
      node.put("usedGpus", n.containers().stream().mapToInt(ContainerView::gpus).sum());
      node.put("owner", owned ? "inference" : "training");
      node.put("loaned", owned && settings.trainingLabel().equals(n.label()));
      node.put("fenced", in.fenced().contains(n.id()));
      node.put("gpuType", n.gpuType() == null ? settings.gpuType() : n.gpuType().name());
      node.put("gpuSpeed", n.gpuType() == null ? 1.0 : n.gpuType().trainingSpeed());
      if (n.gpuTypeError() != null) {
        node.put("gpuType", null);
        node.put("gpuTypeError", n.gpuTypeError());
      }
      pools.add(node);
      if (Boolean.TRUE.equals(node.get("loaned"))) {
        loaned.add(node);
      }
    }
    out.put("nodes", pools);
    out.put("loanedNodes", loaned);
    List<Map<String, Object>> jobs = new ArrayList<>();
    for (ElasticApps.App a : in.apps()) {
      Map<String, Object> j = new LinkedHashMap<>();
      j.put("application", a.id);
      j.put("minWorkers", a.shape.minWorkers());
      j.put("maxWorkers", a.shape.maxWorkers());
      j.put("gpusPerWorker", a.shape.gpusPerWorker());
      j.put("predictedRuntimeS", a.shape.predictedRuntimeS());
      Allocation target = in.book().target(a.id);
      j.put("targetWorkers", target.totalWorkers());
      j.put("targetByNode", target.workersByServer());
      j.put("actualWorkers", in.lastInput() == null ? 0 : in.lastInput().liveWorkers(a.id));
      j.put("askedWorkers", a.askedWorkers());
      Plan p = in.lastPlan();
      j.put("change", p == null || p.changes().get(a.id) == null ? "NONE" : p.changes().get(a.id).name());
      // What a preemption of the job would lose per GPU, as the last round priced it (CheckpointTimes).
      boolean planned = in.lastInput() != null && in.lastInput().state().hasJob(a.id);
      j.put("sinceCheckpointS", planned ? in.lastInput().state().job(a.id).sinceCheckpointS() : null);
      j.put("team", planned ? in.lastInput().state().job(a.id).tenant() : null);
      jobs.add(j);
    }
    out.put("applications", jobs);
    out.put("teams", teams(in));
    out.put("plainDemand", plainDemand(in));
    Map<String, Object> plan = new LinkedHashMap<>();
    if (in.lastPlan() != null) {
      Map<String, Object> targets = new TreeMap<>();
      in.lastPlan().targets().forEach((id, alloc) -> targets.put(id, alloc.workersByServer()));
      plan.put("targets", targets);
      Map<String, String> changes = new TreeMap<>();
      in.lastPlan().changes().forEach((id, c) -> changes.put(id, c.name()));
      plan.put("changes", changes);
    }
    out.put("plan", plan);
    out.put("reclaimsInFlight", in.inFlight().stream().map(StatusReport::describe).toList());
    out.put("reclaimsDone", in.finished().stream().map(StatusReport::describe).toList());
    out.put("drainingContainers", in.draining());
    return out;
  }

  /** Each team's guarantee and the GPUs its planned jobs hold, as the last round saw them; empty without teams. */
  private static List<Map<String, Object>> teams(Inputs in) {
    List<Map<String, Object>> out = new ArrayList<>();
    if (in.lastInput() == null) {
      return out;
    }
    ClusterState state = in.lastInput().state();
    state.tenants().guarantees().forEach((team, guaranteed) -> {
      int used = 0;
      for (Job j : state.jobs()) {
        if (j.tenant().equals(team)) {
          used += state.allocation(j.id()).totalWorkers() * j.gpusPerWorker();
        }
      }
      Map<String, Object> t = new LinkedHashMap<>();
      t.put("team", team);
      t.put("guaranteedGpus", guaranteed);
      t.put("plannedGpus", used);
      out.add(t);
    });
    return out;
  }

  /** Applications without Aryl's tags whose pending GPU containers the last round planned for. */
  private static List<Map<String, Object>> plainDemand(Inputs in) {
    List<Map<String, Object>> out = new ArrayList<>();
    if (in.lastInput() == null) {
      return out;
    }
    Set<String> elastic = new java.util.HashSet<>();
    in.apps().forEach(a -> elastic.add(a.id));
    for (Job j : in.lastInput().state().jobs()) {
      if (elastic.contains(j.id())) {
        continue;
      }
      Map<String, Object> d = new LinkedHashMap<>();
      d.put("application", j.id());
      d.put("team", j.tenant());
      d.put("pendingContainers", j.minWorkers());
      d.put("gpusPerContainer", j.gpusPerWorker());
      d.put("roomMadeByNode", in.book().target(j.id()).workersByServer());
      out.add(d);
    }
    return out;
  }

  static Map<String, Object> describe(Reclaim r) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("id", r.id());
    m.put("phase", r.phase().name());
    m.put("requested", r.requested());
    m.put("nodes", r.nodes());
    m.put("returnedNodes", r.returnedNodes());
    m.put("lostNodes", r.lostNodes());
    m.put("replacements", r.replacements());
    m.put("shortBy", r.shortBy());
    m.put("requestedMs", r.requestedMs());
    m.put("deadlineMs", r.deadlineMs());
    m.put("finishedMs", r.finishedMs());
    m.put("tookMs", r.tookMs());
    m.put("late", r.phase() == Reclaim.Phase.DONE && r.late());
    m.put("jobs", r.jobActions());
    m.put("containersShrunk", r.containersShrunk());
    m.put("containersPreempted", r.containersPreempted());
    m.put("plannedCostGpuS", Math.round(r.plannedCostGpuS()));
    m.put("gpuSecondsLost", Math.round(r.gpuSecondsLost()));
    return m;
  }
}
