package io.aryl.core.model;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * One consistent snapshot of the cluster: servers, jobs (queued and running) and where running jobs' workers are.
 * Everything a decision reads comes from here, so the simulator and the YARN scheduler feed the policy the same
 * way.
 *
 * <p>Construction checks the snapshot and refuses an inconsistent one with a message naming the job or server:
 * unknown GPU types, a worker too large for every server it may use, over-committed servers, running jobs
 * outside min..max.
 */
public final class ClusterState {
  private final double nowS;
  private final List<Server> servers;
  private final List<Job> jobs;
  private final Map<String, Integer> serverIndex; // position in servers
  // Made on first lookup: a round reads jobs in id order. Racy but safe: the unmodifiable wrapper's final field
  // publishes the finished map.
  private Map<String, Job> jobsById;
  private final Map<String, Allocation> allocations;
  private final int[] usedGpus; // by server position
  private final Tenants tenants;

  private ClusterState(double nowS, List<Server> servers, List<Job> jobs, Map<String, Allocation> allocations,
      Tenants tenants) {
    this.nowS = Checks.nonNegative("nowS", nowS);
    this.tenants = Checks.notNull("tenants", tenants);
    List<Server> sortedServers = new ArrayList<>(servers);
    sortedServers.sort(Comparator.comparing(Server::id));
    List<Job> sortedJobs = new ArrayList<>(jobs);
    sortedJobs.sort(Comparator.comparing(Job::id));
    this.servers = Collections.unmodifiableList(sortedServers);
    this.jobs = Collections.unmodifiableList(sortedJobs);

    Map<String, Integer> byId = new HashMap<>(sortedServers.size() * 2);
    Map<String, Integer> largestByType = new HashMap<>();
    Map<String, GpuType> typesByName = new HashMap<>();
    for (Server s : sortedServers) {
      if (byId.put(s.id(), byId.size()) != null) {
        throw new IllegalArgumentException("server.id must be unique, '" + s.id() + "' appears twice");
      }
      GpuType known = typesByName.putIfAbsent(s.gpuType().name(), s.gpuType());
      if (known != null && !known.equals(s.gpuType())) {
        throw new IllegalArgumentException("server(" + s.id() + ").gpuType " + s.gpuType().name()
            + " has trainingSpeed " + s.gpuType().trainingSpeed() + " but other servers give it " + known.trainingSpeed());
      }
      largestByType.merge(s.gpuType().name(), s.gpus(), Math::max);
    }
    this.serverIndex = byId;
    int ownGpus = 0;
    for (Server s : sortedServers) {
      if (s.pool() == Pool.TRAINING) {
        ownGpus += s.gpus();
      }
    }
    if (tenants.totalGuaranteedGpus() > ownGpus) {
      throw new IllegalArgumentException("tenants' guaranteedGpus must sum to at most the " + ownGpus
          + " GPUs of the training pool's own servers, was " + tenants.totalGuaranteedGpus() + " "
          + tenants.guarantees());
    }

    int largestServer = 0; // what a job that may use any type must fit
    for (int g : largestByType.values()) {
      largestServer = Math.max(largestServer, g);
    }
    for (int i = 0; i < sortedJobs.size(); i++) {
      Job j = sortedJobs.get(i);
      if (i > 0 && sortedJobs.get(i - 1).id().equals(j.id())) {
        throw new IllegalArgumentException("job.id must be unique, '" + j.id() + "' appears twice");
      }
      checkFits(j, largestByType, largestServer);
    }

    this.usedGpus = usedGpus(allocations);
    this.allocations = sortedRunning(allocations);
  }

  /** {@code base} with other allocations: its servers and jobs, already checked, are shared, not checked again. */
  private ClusterState(ClusterState base, Map<String, Allocation> allocations) {
    this.nowS = base.nowS;
    this.tenants = base.tenants;
    this.servers = base.servers;
    this.jobs = base.jobs;
    this.serverIndex = base.serverIndex;
    this.jobsById = base.jobsById; // null unless base has looked a job up
    this.usedGpus = usedGpus(allocations);
    this.allocations = sortedRunning(allocations);
  }

  /**
   * Checks running jobs' allocations against this snapshot's jobs and servers, and returns the GPUs they use per
   * server position. Empty allocations are allowed and ignored.
   */
  private int[] usedGpus(Map<String, Allocation> allocations) {
    int[] used = new int[servers.size()];
    JobsInOrder inOrder = allocations instanceof SortedMap<String, Allocation> sorted && sorted.comparator() == null
        ? new JobsInOrder()
        : null;
    for (Map.Entry<String, Allocation> e : allocations.entrySet()) {
      Allocation a = e.getValue();
      if (!a.isEmpty()) {
        addChecked(inOrder != null ? inOrder.find(e.getKey()) : jobsById().get(e.getKey()), e.getKey(), a, used, null);
      }
    }
    for (int i = 0; i < used.length; i++) {
      checkNotOverCommitted(i, used[i]);
    }
    return used;
  }

  /**
   * Adds the GPUs of job {@code id}'s allocation {@code a} to {@code used} by server position (and marks those
   * servers in {@code touched}, unless null), first checking that the job ({@code j}, null if unknown) may run so:
   * within min..max, on known servers that serve training and are of a type it allows.
   */
  private void addChecked(Job j, String id, Allocation a, int[] used, boolean[] touched) {
    if (j == null) {
      throw new IllegalArgumentException("allocation names unknown job '" + id + "'");
    }
    if (a.totalWorkers() < j.minWorkers() || a.totalWorkers() > j.maxWorkers()) {
      throw new IllegalArgumentException("job(" + j.id() + ") runs " + a.totalWorkers()
          + " workers, outside its minWorkers..maxWorkers " + j.minWorkers() + ".." + j.maxWorkers());
    }
    for (int k = 0; k < a.serverCount(); k++) {
      Integer i = serverIndex.get(a.serverAt(k));
      if (i == null) {
        throw new IllegalArgumentException(
            "job(" + j.id() + ") has workers on unknown server '" + a.serverAt(k) + "'");
      }
      Server s = servers.get(i);
      if (!s.servesTraining()) {
        throw new IllegalArgumentException(
            "job(" + j.id() + ") has workers on server(" + s.id() + "), which does not serve training");
      }
      if (!j.allows(s.gpuType())) {
        throw new IllegalArgumentException("job(" + j.id() + ") has workers on server(" + s.id() + ") of GPU type "
            + s.gpuType().name() + ", not in its allowedGpuTypes " + j.allowedGpuTypes());
      }
      used[i] += a.workersAt(k) * j.gpusPerWorker();
      if (touched != null) {
        touched[i] = true;
      }
    }
  }

  private void checkNotOverCommitted(int i, int used) {
    Server s = servers.get(i);
    if (used > s.gpus()) {
      throw new IllegalArgumentException(
          "server(" + s.id() + ") is over-committed: " + used + " GPUs used of " + s.gpus());
    }
  }

  /** Finds jobs by ids given in increasing order, walking the sorted jobs once instead of looking each one up. */
  private final class JobsInOrder {
    private int next;

    Job find(String id) {
      while (next < jobs.size() && jobs.get(next).id().compareTo(id) < 0) {
        next++;
      }
      return next < jobs.size() && jobs.get(next).id().equals(id) ? jobs.get(next) : null;
    }
  }

  private Map<String, Job> jobsById() {
    Map<String, Job> byId = jobsById;
    if (byId == null) {
      Map<String, Job> map = new HashMap<>(jobs.size() * 2);
      for (Job j : jobs) {
        map.put(j.id(), j);
      }
      byId = Collections.unmodifiableMap(map);
      jobsById = byId;
    }
    return byId;
  }

  /**
   * The non-empty allocations, sorted by job id, unmodifiable (a sorted map, so that checking them against the
   * jobs walks both in order). A map already sorted that way with none empty (as a caller keeping
   * its running jobs in a {@link java.util.SortedMap} gives it) is copied in linear time, without comparing ids.
   */
  static SortedMap<String, Allocation> sortedRunning(Map<String, Allocation> allocations) {
    if (allocations instanceof SortedMap<String, Allocation> sorted && sorted.comparator() == null
        && noneEmpty(sorted)) {
      return Collections.unmodifiableSortedMap(new TreeMap<>(sorted));
    }
    TreeMap<String, Allocation> out = new TreeMap<>();
    for (Map.Entry<String, Allocation> e : allocations.entrySet()) {
      if (!e.getValue().isEmpty()) {
        out.put(e.getKey(), e.getValue());
      }
    }
    return Collections.unmodifiableSortedMap(out);
  }

  private static boolean noneEmpty(Map<String, Allocation> allocations) {
    for (Allocation a : allocations.values()) {
      if (a.isEmpty()) {
        return false;
      }
    }
    return true;
  }

  /**
   * Checks {@code newAllocations} (non-empty, sorted by job id) as {@link #withAllocations} does, without building the
   * snapshot: for a caller that only needs to know they are valid. Only the allocations that differ from this
   * snapshot's are looked at, and only the servers they change: the rest were checked when this snapshot was made.
   */
  void checkAllocations(SortedMap<String, Allocation> newAllocations) {
    int[] used = usedGpus.clone();
    boolean[] touched = new boolean[used.length]; // servers given GPUs: only they can be over-committed now
    Iterator<Map.Entry<String, Allocation>> before = allocations.entrySet().iterator();
    Map.Entry<String, Allocation> was = before.hasNext() ? before.next() : null;
    JobsInOrder inOrder = new JobsInOrder(); // the ids below come in increasing order
    for (Map.Entry<String, Allocation> e : newAllocations.entrySet()) {
      while (was != null && was.getKey().compareTo(e.getKey()) < 0) {
        release(inOrder.find(was.getKey()), was.getValue(), used);
        was = before.hasNext() ? before.next() : null;
      }
      Allocation now = Allocation.EMPTY;
      if (was != null && was.getKey().equals(e.getKey())) {
        now = was.getValue();
        was = before.hasNext() ? before.next() : null;
      }
      if (e.getValue().equals(now)) {
        continue;
      }
      Job j = inOrder.find(e.getKey());
      if (!now.isEmpty()) {
        release(j, now, used);
      }
      addChecked(j, e.getKey(), e.getValue(), used, touched);
    }
    for (; was != null; was = before.hasNext() ? before.next() : null) {
      release(inOrder.find(was.getKey()), was.getValue(), used);
    }
    for (int i = 0; i < used.length; i++) {
      if (touched[i]) {
        checkNotOverCommitted(i, used[i]);
      }
    }
  }

  /** Takes the GPUs of running job {@code j}'s allocation {@code a} (checked with this snapshot) off {@code used}. */
  private void release(Job j, Allocation a, int[] used) {
    for (int k = 0; k < a.serverCount(); k++) {
      used[serverIndex.get(a.serverAt(k))] -= a.workersAt(k) * j.gpusPerWorker();
    }
  }

  private static void checkFits(Job j, Map<String, Integer> largestByType, int largestServer) {
    int largest = 0;
    if (j.allowedGpuTypes().isEmpty()) {
      largest = largestServer;
    } else {
      for (String t : j.allowedGpuTypes()) {
        Integer g = largestByType.get(t);
        if (g == null) {
          throw new IllegalArgumentException("job(" + j.id() + ").allowedGpuTypes names unknown GPU type '" + t
              + "'; the cluster has " + new TreeSet<>(largestByType.keySet()));
        }
        largest = Math.max(largest, g);
      }
    }
    if (j.gpusPerWorker() > largest) {
      throw new IllegalArgumentException("job(" + j.id() + ").gpusPerWorker must fit on one server, was "
          + j.gpusPerWorker() + " but the largest server it may use has " + largest + " GPUs");
    }
  }

  /** A snapshot without tenants ({@link Tenants#NONE}): every job belongs to the implicit tenant. */
  public static ClusterState of(double nowS, List<Server> servers, List<Job> jobs, Map<String, Allocation> allocations) {
    return new ClusterState(nowS, servers, jobs, allocations, Tenants.NONE);
  }

  /**
   * A snapshot of a training pool shared by tenants, each guaranteed GPUs of the pool's own servers. The guarantees
   * must not sum to more than those servers' GPUs.
   */
  public static ClusterState of(double nowS, List<Server> servers, List<Job> jobs, Map<String, Allocation> allocations,
      Tenants tenants) {
    return new ClusterState(nowS, servers, jobs, allocations, tenants);
  }

  /** The same snapshot with other allocations (validated as any snapshot is), e.g. a plan's targets. */
  public ClusterState withAllocations(Map<String, Allocation> newAllocations) {
    return new ClusterState(this, newAllocations);
  }

  /** The tenants sharing the training pool and their guarantees; {@link Tenants#NONE} when there are none. */
  public Tenants tenants() {
    return tenants;
  }

  public double nowS() {
    return nowS;
  }

  /** All servers, sorted by id. */
  public List<Server> servers() {
    return servers;
  }

  /** All jobs, queued and running, sorted by id. */
  public List<Job> jobs() {
    return jobs;
  }

  public Server server(String id) {
    return servers.get(indexOf(id));
  }

  private int indexOf(String serverId) {
    Integer i = serverIndex.get(serverId);
    if (i == null) {
      throw new IllegalArgumentException("unknown server '" + serverId + "'");
    }
    return i;
  }

  public Job job(String id) {
    Job j = jobsById().get(id);
    if (j == null) {
      throw new IllegalArgumentException("unknown job '" + id + "'");
    }
    return j;
  }

  public boolean hasJob(String id) {
    return jobsById().containsKey(id);
  }

  /** Running jobs' allocations by job id (sorted); a queued job has none. */
  public Map<String, Allocation> allocations() {
    return allocations;
  }

  public Allocation allocation(String jobId) {
    return allocations.getOrDefault(jobId, Allocation.EMPTY);
  }

  public boolean isRunning(String jobId) {
    return allocations.containsKey(jobId);
  }

  public int usedGpus(String serverId) {
    Integer i = serverIndex.get(serverId);
    return i == null ? 0 : usedGpus[i];
  }

  public int freeGpus(String serverId) {
    int i = indexOf(serverId);
    return servers.get(i).gpus() - usedGpus[i];
  }

  /** Jobs whose workers run on the server, with their worker counts there, sorted by job id. */
  public Map<String, Integer> workersOn(String serverId) {
    Map<String, Integer> out = new TreeMap<>();
    for (Map.Entry<String, Allocation> e : allocations.entrySet()) {
      int w = e.getValue().workersOn(serverId);
      if (w > 0) {
        out.put(e.getKey(), w);
      }
    }
    return out;
  }

  @Override
  public String toString() {
    return "ClusterState[t=" + nowS + "s, " + servers.size() + " servers, " + jobs.size() + " jobs, "
        + allocations.size() + " running]";
  }
}
