package io.aryl.am;

import io.aryl.core.job.CheckpointReport;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;

/**
 * The ApplicationMaster's status as its {@link StatusServer} serves it (and the scheduler reads it:
 * the checkpoint fields price a preemption): the job's shape, the launcher, the group's workers,
 * generations and scaling events. Built from a snapshot the caller takes under the AM's lock.
 */
final class AmStatusJson {
  private AmStatusJson() {}

  /**
   * @param group the job's membership, or null while the AM starts
   * @param launcher the launcher's own fields ({@code launcher}, with torchrun its {@code
   *     rendezvous})
   */
  static Map<String, Object> of(
      JobSpec spec,
      ApplicationAttemptId attempt,
      Membership group,
      CheckpointReport checkpoint,
      Map<String, Object> launcher) {
    Map<String, Object> s = new LinkedHashMap<>();
    s.put("name", spec.name());
    s.put("application", attempt.getApplicationId().toString());
    s.put("attempt", attempt.getAttemptId());
    s.put("minWorkers", spec.minWorkers());
    s.put("maxWorkers", spec.maxWorkers());
    s.put("gpusPerWorker", spec.gpusPerWorker());
    s.putAll(launcher);
    s.putAll(checkpoint.statusFields());
    if (group == null) {
      s.put("state", "STARTING");
      s.put("held", 0);
      s.put("generation", 0);
      s.put("restartsUsed", 0);
      s.put("maxRestarts", spec.maxRestarts());
      s.put("workers", List.of());
      s.put("generations", List.of());
      s.put("events", List.of());
      return s;
    }
    Generation current = group.current();
    s.put("state", state(group));
    s.put("held", group.workers().size());
    s.put("outstandingAsks", group.outstandingAsks());
    s.put("generation", current == null ? 0 : current.number());
    s.put("restartsUsed", group.restartsUsed());
    s.put("maxRestarts", spec.maxRestarts());
    s.put("workers", workers(group, current));
    s.put("generations", generations(group));
    s.put("events", events(group));
    return s;
  }

  /**
   * The launcher, and with torchrun where its agents rendezvous.
   *
   * @param agents the torchrun agents, or null for {@code --launcher env}
   * @param rendezvous the store the agents rendezvous in, or null while it is not running
   */
  static Map<String, Object> launcher(
      JobSpec spec,
      ApplicationAttemptId attempt,
      AgentGroup agents,
      RendezvousStore rendezvous,
      TorchrunLauncher torchrun) {
    Map<String, Object> s = new LinkedHashMap<>();
    s.put("launcher", spec.launcher());
    if (agents != null) {
      Map<String, Object> r = new LinkedHashMap<>();
      r.put("endpoint", rendezvous == null ? null : rendezvous.endpoint());
      r.put(
          "runId",
          agents.incarnation() == 0
              ? null
              : TorchrunLauncher.runId(
                  attempt.getApplicationId().toString(), agents.incarnation()));
      r.put("incarnation", agents.incarnation());
      r.put("storeStarts", rendezvous == null ? 0 : rendezvous.starts());
      r.put("nprocPerNode", spec.nprocPerNode());
      r.put("torchrunMaxRestarts", TorchrunLauncher.maxRestarts(spec, torchrun.settings()));
      s.put("rendezvous", r);
    }
    return s;
  }

  private static String state(Membership group) {
    Membership.Outcome outcome = group.outcome();
    if (outcome != null) {
      return outcome.succeeded() ? "SUCCEEDED" : "FAILED";
    }
    return group.finishing() ? "FINISHING" : "RUNNING";
  }

  private static List<Map<String, Object>> workers(Membership group, Generation current) {
    List<Map<String, Object>> workers = new ArrayList<>();
    for (Membership.Worker w : group.workers()) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("container", w.id());
      m.put("host", w.host());
      m.put("state", w.state().name());
      m.put("generation", w.generation());
      // A rank only in the generation that runs now; a worker of an older one has none.
      m.put(
          "rank",
          current != null
                  && w.generation() == current.number()
                  && current.ranks().containsKey(w.id())
              ? current.rank(w.id())
              : null);
      workers.add(m);
    }
    return workers;
  }

  private static List<Map<String, Object>> generations(Membership group) {
    List<Map<String, Object>> gens = new ArrayList<>();
    for (Generation g : group.generations()) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("number", g.number());
      m.put("worldSize", g.worldSize());
      m.put("masterAddr", g.masterAddr());
      m.put("masterPort", g.masterPort());
      m.put("hosts", g.hostSlots());
      m.put("containers", List.copyOf(g.ranks().keySet()));
      gens.add(m);
    }
    return gens;
  }

  private static List<Map<String, Object>> events(Membership group) {
    List<Map<String, Object>> events = new ArrayList<>();
    for (Membership.ScalingEvent e : group.events()) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("timeMs", e.timeMs());
      m.put("kind", e.kind());
      m.put("detail", e.detail());
      events.add(m);
    }
    return events;
  }
}
