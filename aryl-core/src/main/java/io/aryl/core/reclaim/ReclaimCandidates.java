package io.aryl.core.reclaim;

import io.aryl.core.model.Allocation;
import io.aryl.core.model.ClusterState;
import io.aryl.core.model.Job;
import io.aryl.core.model.JobAllocations;
import io.aryl.core.model.Server;
import io.aryl.core.victim.Fate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The servers a reclaim may return (loaned, not already returning, of the asked type) and the jobs
 * on them, with the cost of returning any set of them. Every {@link ServerChooser} is judged by the
 * same {@link #costOf}.
 */
public final class ReclaimCandidates {
  private static final int[][] NONE = new int[0][];

  private final ReclaimCostModel costs;
  private final List<String> eligible;
  private final Map<String, Integer> busyGpus = new HashMap<>();
  private final List<Job> jobs = new ArrayList<>(); // jobs with workers on eligible servers
  private final int[] totalWorkers;
  private final Map<String, int[][]> onServer = new HashMap<>(); // server -> {jobIndex, workers}[]
  private final Map<String, Integer> indexOfServer = new HashMap<>();
  private final List<List<String>> serversOfJob;

  public ReclaimCandidates(ClusterState state, ReclaimRequest request, ReclaimCostModel costs) {
    this.costs = costs;
    List<String> ids = new ArrayList<>();
    for (Server s : state.servers()) {
      if (s.loaned()
          && !s.fenced()
          && (request.gpuType() == null || s.gpuType().name().equals(request.gpuType()))) {
        indexOfServer.put(s.id(), ids.size());
        ids.add(s.id());
        busyGpus.put(s.id(), 0);
      }
    }
    this.eligible = List.copyOf(ids);
    Map<String, List<int[]>> byServer = new HashMap<>();
    List<Integer> totals = new ArrayList<>();
    // Allocations and jobs are both sorted by job id: the jobs are found by walking them alongside.
    JobAllocations allocations = state.allocations();
    List<Job> all = state.jobs();
    int nextJob = 0;
    for (int k = 0; k < allocations.size(); k++) {
      Allocation a = allocations.allocationAt(k);
      Job job = null;
      int jobIndex = -1;
      for (int i = 0; i < a.serverCount(); i++) {
        String server = a.serverAt(i);
        if (!indexOfServer.containsKey(server)) {
          continue;
        }
        if (jobIndex < 0) {
          String id = allocations.jobAt(k);
          while (!all.get(nextJob).id().equals(id)) {
            nextJob++;
          }
          job = all.get(nextJob);
          jobIndex = jobs.size();
          jobs.add(job);
          totals.add(a.totalWorkers());
        }
        byServer
            .computeIfAbsent(server, x -> new ArrayList<>())
            .add(new int[] {jobIndex, a.workersAt(i)});
        busyGpus.merge(server, a.workersAt(i) * job.gpusPerWorker(), Integer::sum);
      }
    }
    this.totalWorkers = totals.stream().mapToInt(Integer::intValue).toArray();
    byServer.forEach((s, list) -> onServer.put(s, list.toArray(NONE)));
    List<List<String>> sets = new ArrayList<>();
    for (int j = 0; j < jobs.size(); j++) {
      sets.add(new ArrayList<>());
    }
    for (String s : eligible) {
      for (int[] jw : onServer.getOrDefault(s, NONE)) {
        sets.get(jw[0]).add(s);
      }
    }
    this.serversOfJob = sets;
  }

  /**
   * For every job on candidate servers, the candidate servers it runs on (in id order): taking all
   * of them costs that job one preemption, however many they are.
   */
  public List<List<String>> serversByJob() {
    return serversOfJob;
  }

  /** Servers that may be returned, sorted by id. */
  public List<String> eligible() {
    return eligible;
  }

  public int busyGpus(String server) {
    return busyGpus.getOrDefault(server, 0);
  }

  public ReclaimCostModel costs() {
    return costs;
  }

  /** Total cost of returning exactly these servers. */
  public double costOf(Collection<String> servers) {
    Selection s = select();
    for (String id : servers) {
      s.add(id);
    }
    return s.cost();
  }

  /**
   * An incremental selection: the marginal cost of each further server, given those already chosen.
   */
  public Selection select() {
    return new Selection();
  }

  /** Servers chosen so far, with the workers they take from each job. */
  public final class Selection {
    private final int[] removed = new int[jobs.size()];
    private final List<String> chosen = new ArrayList<>();
    private final Set<String> chosenSet = new HashSet<>();
    private double cost;

    /** What returning {@code server} as well would add to the cost. */
    public double marginalCost(String server) {
      double delta = 0;
      for (int[] jw : onServer.getOrDefault(server, NONE)) {
        Job job = jobs.get(jw[0]);
        int total = totalWorkers[jw[0]];
        delta +=
            costs.jobCost(job, total, removed[jw[0]] + jw[1])
                - costs.jobCost(job, total, removed[jw[0]]);
      }
      return delta;
    }

    /** What returning all of {@code servers} (none chosen yet) as well would add to the cost. */
    public double marginalCost(List<String> servers) {
      Map<Integer, Integer> extra = new HashMap<>();
      for (String s : servers) {
        for (int[] jw : onServer.getOrDefault(s, NONE)) {
          extra.merge(jw[0], jw[1], Integer::sum);
        }
      }
      double delta = 0;
      for (Map.Entry<Integer, Integer> e : extra.entrySet()) {
        int j = e.getKey();
        delta +=
            costs.jobCost(jobs.get(j), totalWorkers[j], removed[j] + e.getValue())
                - costs.jobCost(jobs.get(j), totalWorkers[j], removed[j]);
      }
      return delta;
    }

    public int size() {
      return chosen.size();
    }

    public void add(String server) {
      if (!indexOfServer.containsKey(server)) {
        throw new IllegalArgumentException("server '" + server + "' is not a reclaim candidate");
      }
      if (!chosenSet.add(server)) {
        throw new IllegalArgumentException("server '" + server + "' is already chosen");
      }
      cost += marginalCost(server);
      for (int[] jw : onServer.getOrDefault(server, NONE)) {
        removed[jw[0]] += jw[1];
      }
      chosen.add(server);
    }

    public boolean contains(String server) {
      return chosenSet.contains(server);
    }

    public double cost() {
      return cost;
    }

    public List<String> chosen() {
      return List.copyOf(chosen);
    }

    /** What the chosen servers do to each affected job. */
    Map<String, ReclaimPlan.JobImpact> impacts(ClusterState state) {
      Map<String, ReclaimPlan.JobImpact> out = new TreeMap<>();
      for (int j = 0; j < jobs.size(); j++) {
        if (removed[j] == 0) {
          continue;
        }
        Job job = jobs.get(j);
        Fate fate = Fate.of(totalWorkers[j], removed[j], job.minWorkers());
        Map<String, Integer> taken = new TreeMap<>();
        if (fate == Fate.PREEMPT) {
          taken.putAll(state.allocation(job.id()).workersByServer());
        } else {
          for (String s : chosen) {
            for (int[] jw : onServer.getOrDefault(s, NONE)) {
              if (jw[0] == j) {
                taken.put(s, jw[1]);
              }
            }
          }
        }
        out.put(
            job.id(),
            new ReclaimPlan.JobImpact(
                fate, Map.copyOf(taken), costs.jobCost(job, totalWorkers[j], removed[j])));
      }
      return out;
    }
  }
}
