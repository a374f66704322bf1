package io.aryl.core.model;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One consistent snapshot of the cluster: servers, jobs (queued and running) and where running
 * jobs' workers are. Everything a decision reads comes from here, so the simulator and the YARN
 * scheduler feed the policy the same way.
 *
 * <p>Construction checks the snapshot and refuses an inconsistent one with a message naming the job
 * or server: unknown GPU types, a worker too large for every server it may use, over-committed
 * servers, running jobs outside min..max.
 */
public final class ClusterState {
  private final double nowS;
  private final ServerSet servers;
  private final List<Job> jobs;
  // Made on first lookup: a round reads jobs in id order. Racy but safe: the unmodifiable wrapper's
  // final field
  // publishes the finished map.
  private Map<String, Job> jobsById;
  private final JobAllocations allocations;
  private final Job[]
      runningJobs; // the job of each allocation, by position in allocations; null if unknown
  private final int[] usedGpus; // by server position
  private final Tenants tenants;

  private ClusterState(
      double nowS,
      List<Server> servers,
      List<Job> jobs,
      Map<String, Allocation> allocations,
      Tenants tenants) {
    this(
        Checks.nonNegative("nowS", nowS),
        Checks.notNull("tenants", tenants),
        new ServerSet(Checks.notNull("servers", servers)),
        jobs,
        allocations);
  }

  private ClusterState(
      double nowS,
      Tenants tenants,
      ServerSet servers,
      List<Job> jobs,
      Map<String, Allocation> allocations) {
    this.nowS = Checks.nonNegative("nowS", nowS);
    this.tenants = Checks.notNull("tenants", tenants);
    this.servers = servers;
    this.jobs = checkedJobs(jobs, servers, tenants);
    this.allocations = JobAllocations.of(allocations);
    this.runningJobs = jobsOf(this.allocations);
    this.usedGpus = usedGpus(this.allocations);
  }

  /**
   * {@code base} with other allocations: its servers and jobs, already checked, are shared, not
   * checked again.
   */
  private ClusterState(ClusterState base, Map<String, Allocation> allocations) {
    this.nowS = base.nowS;
    this.tenants = base.tenants;
    this.servers = base.servers;
    this.jobs = base.jobs;
    this.jobsById = base.jobsById; // null unless base has looked a job up
    this.allocations = JobAllocations.of(allocations);
    this.runningJobs = jobsOf(this.allocations);
    this.usedGpus = usedGpus(this.allocations);
  }

  /**
   * The next snapshot of {@code before}'s servers: its allocations checked only where they differ
   * from before's.
   */
  private ClusterState(
      ClusterState before,
      double nowS,
      List<Job> jobs,
      JobAllocations allocations,
      Tenants tenants) {
    this.nowS = Checks.nonNegative("nowS", nowS);
    this.tenants = Checks.notNull("tenants", tenants);
    this.servers = before.servers;
    this.jobs = checkedJobs(jobs, servers, tenants);
    this.allocations = allocations;
    this.runningJobs = jobsOf(allocations);
    this.usedGpus = usedGpusSince(before);
  }

  /** The jobs sorted by id, each checked to be unique and to fit some server it may use. */
  private static List<Job> checkedJobs(List<Job> jobs, ServerSet servers, Tenants tenants) {
    if (tenants.totalGuaranteedGpus() > servers.ownGpus) {
      throw new IllegalArgumentException(
          "tenants' guaranteedGpus must sum to at most the "
              + servers.ownGpus
              + " GPUs of the training pool's own servers, was "
              + tenants.totalGuaranteedGpus()
              + " "
              + tenants.guarantees());
    }
    List<Job> sorted = new ArrayList<>(jobs);
    for (int i = 1; i < sorted.size(); i++) {
      if (sorted.get(i - 1).id().compareTo(sorted.get(i).id()) > 0) {
        sorted.sort(Comparator.comparing(Job::id));
        break;
      }
    }
    for (int i = 0; i < sorted.size(); i++) {
      Job j = sorted.get(i);
      if (i > 0 && sorted.get(i - 1).id().equals(j.id())) {
        throw new IllegalArgumentException("job.id must be unique, '" + j.id() + "' appears twice");
      }
      servers.checkFits(j);
    }
    return Collections.unmodifiableList(sorted);
  }

  /**
   * The job of each allocation, found by walking both in id order; null for an allocation of no
   * job.
   */
  private Job[] jobsOf(JobAllocations allocations) {
    Job[] out = new Job[allocations.size()];
    JobsInOrder inOrder = new JobsInOrder();
    for (int k = 0; k < out.length; k++) {
      out[k] = inOrder.find(allocations.jobAt(k));
    }
    return out;
  }

  /**
   * Checks running jobs' allocations against this snapshot's jobs and servers, and returns the GPUs
   * they use per server position.
   */
  private int[] usedGpus(JobAllocations allocations) {
    int[] used = new int[servers.list.size()];
    for (int k = 0; k < allocations.size(); k++) {
      addChecked(runningJobs[k], allocations.jobAt(k), allocations.allocationAt(k), used, null);
    }
    for (int i = 0; i < used.length; i++) {
      checkNotOverCommitted(i, used[i]);
    }
    return used;
  }

  /**
   * As {@link #usedGpus(JobAllocations)}, for a snapshot of {@code before}'s servers: an allocation
   * that is the very object {@code before} held, of a job with the same worker size and GPU types,
   * was checked then and is only checked against the job's min..max again. The rest are checked as
   * any; only servers given GPUs can be over-committed now. A snapshot this finds wrong is checked
   * again in full, so that it is refused with the same message as {@link #of} gives.
   */
  @SuppressWarnings("ReferenceEquality") // the very allocation, and ids compared by identity first
  private int[] usedGpusSince(ClusterState before) {
    try {
      int[] used = before.usedGpus.clone();
      boolean[] touched = new boolean[used.length];
      JobAllocations was = before.allocations;
      int i = 0;
      int k = 0;
      while (i < was.size() || k < allocations.size()) {
        int c =
            i == was.size()
                ? 1
                : k == allocations.size()
                    ? -1
                    : was.jobAt(i) == allocations.jobAt(k)
                        ? 0
                        : was.jobAt(i).compareTo(allocations.jobAt(k));
        if (c < 0) {
          release(before.runningJobs[i], was.allocationAt(i), used, before);
          i++;
          continue;
        }
        String id = allocations.jobAt(k);
        Allocation a = allocations.allocationAt(k);
        Job j = runningJobs[k];
        if (c == 0) {
          Job old = before.runningJobs[i];
          if (a == was.allocationAt(i)
              && j != null
              && j.gpusPerWorker() == old.gpusPerWorker()
              && j.allowedGpuTypes().equals(old.allowedGpuTypes())) {
            checkWidth(j, a);
          } else {
            release(old, was.allocationAt(i), used, before);
            addChecked(j, id, a, used, touched);
          }
          i++;
        } else {
          addChecked(j, id, a, used, touched);
        }
        k++;
      }
      for (int s = 0; s < used.length; s++) {
        if (touched[s]) {
          checkNotOverCommitted(s, used[s]);
        }
      }
      return used;
    } catch (IllegalArgumentException e) {
      return usedGpus(allocations); // throws as a snapshot checked in full does
    }
  }

  /**
   * Adds the GPUs of job {@code id}'s allocation {@code a} to {@code used} by server position (and
   * marks those servers in {@code touched}, unless null), first checking that the job ({@code j},
   * null if unknown) may run so: within min..max, on known servers that serve training and are of a
   * type it allows.
   */
  private void addChecked(Job j, String id, Allocation a, int[] used, boolean[] touched) {
    if (j == null) {
      throw new IllegalArgumentException("allocation names unknown job '" + id + "'");
    }
    checkWidth(j, a);
    for (int k = 0; k < a.serverCount(); k++) {
      Integer i = servers.index.get(a.serverAt(k));
      if (i == null) {
        throw new IllegalArgumentException(
            "job(" + j.id() + ") has workers on unknown server '" + a.serverAt(k) + "'");
      }
      Server s = servers.list.get(i);
      if (!s.servesTraining()) {
        throw new IllegalArgumentException(
            "job("
                + j.id()
                + ") has workers on server("
                + s.id()
                + "), which does not serve training");
      }
      if (!j.allows(s.gpuType())) {
        throw new IllegalArgumentException(
            "job("
                + j.id()
                + ") has workers on server("
                + s.id()
                + ") of GPU type "
                + s.gpuType().name()
                + ", not in its allowedGpuTypes "
                + j.allowedGpuTypes());
      }
      used[i] += a.workersAt(k) * j.gpusPerWorker();
      if (touched != null) {
        touched[i] = true;
      }
    }
  }

  private static void checkWidth(Job j, Allocation a) {
    if (a.totalWorkers() < j.minWorkers() || a.totalWorkers() > j.maxWorkers()) {
      throw new IllegalArgumentException(
          "job("
              + j.id()
              + ") runs "
              + a.totalWorkers()
              + " workers, outside its minWorkers..maxWorkers "
              + j.minWorkers()
              + ".."
              + j.maxWorkers());
    }
  }

  private void checkNotOverCommitted(int i, int used) {
    Server s = servers.list.get(i);
    if (used > s.gpus()) {
      throw new IllegalArgumentException(
          "server(" + s.id() + ") is over-committed: " + used + " GPUs used of " + s.gpus());
    }
  }

  /**
   * Finds jobs by ids given in increasing order, walking the sorted jobs once instead of looking
   * each one up.
   */
  private final class JobsInOrder {
    private int next;

    @SuppressWarnings("ReferenceEquality") // identity first, as the comment below says
    Job find(String id) {
      // A job's id is most often the very string its allocation is keyed by: compared by identity
      // first.
      while (next < jobs.size()
          && jobs.get(next).id() != id
          && jobs.get(next).id().compareTo(id) < 0) {
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
   * Checks {@code newAllocations} as {@link #withAllocations} does, without building the snapshot:
   * for a caller that only needs to know they are valid. Only the allocations that differ from this
   * snapshot's are looked at, and only the servers they change: the rest were checked when this
   * snapshot was made.
   */
  @SuppressWarnings("ReferenceEquality") // mostly the very id string on both sides: identity first
  void checkAllocations(JobAllocations newAllocations) {
    int[] used = usedGpus.clone();
    boolean[] touched =
        new boolean[used.length]; // servers given GPUs: only they can be over-committed now
    JobsInOrder inOrder = new JobsInOrder(); // the ids below come in increasing order
    int i = 0;
    for (int k = 0; k < newAllocations.size(); k++) {
      String id = newAllocations.jobAt(k);
      while (i < allocations.size()
          && allocations.jobAt(i) != id
          && allocations.jobAt(i).compareTo(id) < 0) {
        release(inOrder.find(allocations.jobAt(i)), allocations.allocationAt(i), used, this);
        i++;
      }
      Allocation now = Allocation.EMPTY;
      if (i < allocations.size() && allocations.jobAt(i).equals(id)) {
        now = allocations.allocationAt(i++);
      }
      Allocation next = newAllocations.allocationAt(k);
      if (next.equals(now)) {
        continue;
      }
      Job j = inOrder.find(id);
      if (!now.isEmpty()) {
        release(j, now, used, this);
      }
      addChecked(j, id, next, used, touched);
    }
    for (; i < allocations.size(); i++) {
      release(inOrder.find(allocations.jobAt(i)), allocations.allocationAt(i), used, this);
    }
    for (int s = 0; s < used.length; s++) {
      if (touched[s]) {
        checkNotOverCommitted(s, used[s]);
      }
    }
  }

  /**
   * Takes the GPUs of running job {@code j}'s allocation {@code a} (checked with {@code in}) off
   * {@code used}.
   */
  private static void release(Job j, Allocation a, int[] used, ClusterState in) {
    for (int k = 0; k < a.serverCount(); k++) {
      used[in.servers.index.get(a.serverAt(k))] -= a.workersAt(k) * j.gpusPerWorker();
    }
  }

  /**
   * A snapshot without tenants ({@link Tenants#NONE}): every job belongs to the implicit tenant.
   */
  public static ClusterState of(
      double nowS, List<Server> servers, List<Job> jobs, Map<String, Allocation> allocations) {
    return new ClusterState(nowS, servers, jobs, allocations, Tenants.NONE);
  }

  /**
   * A snapshot of a training pool shared by tenants, each guaranteed GPUs of the pool's own
   * servers. The guarantees must not sum to more than those servers' GPUs.
   */
  public static ClusterState of(
      double nowS,
      List<Server> servers,
      List<Job> jobs,
      Map<String, Allocation> allocations,
      Tenants tenants) {
    return new ClusterState(nowS, servers, jobs, allocations, tenants);
  }

  /**
   * The snapshot {@link #of(double, List, List, Map, Tenants)} makes of these arguments, made
   * faster for a caller that takes snapshots of one cluster again and again (a simulator, a
   * scheduler's rounds): when {@code servers} are this snapshot's servers, what was checked here is
   * not checked again, only what differs from it: allocations that are not the very objects this
   * snapshot holds, or whose job changed its worker size or GPU types. Anything the full checks
   * refuse is refused, with the same message.
   */
  public ClusterState next(
      double nowS,
      List<Server> servers,
      List<Job> jobs,
      Map<String, Allocation> allocations,
      Tenants tenants) {
    ServerSet same = this.servers.reusedFor(Checks.notNull("servers", servers));
    if (same != this.servers) {
      return new ClusterState(nowS, tenants, same, jobs, allocations);
    }
    return new ClusterState(this, nowS, jobs, JobAllocations.of(allocations), tenants);
  }

  /**
   * The same snapshot with other allocations (validated as any snapshot is), e.g. a plan's targets.
   */
  public ClusterState withAllocations(Map<String, Allocation> newAllocations) {
    return new ClusterState(this, newAllocations);
  }

  /**
   * The tenants sharing the training pool and their guarantees; {@link Tenants#NONE} when there are
   * none.
   */
  public Tenants tenants() {
    return tenants;
  }

  public double nowS() {
    return nowS;
  }

  /** All servers, sorted by id. */
  public List<Server> servers() {
    return servers.list;
  }

  /** All jobs, queued and running, sorted by id. */
  public List<Job> jobs() {
    return jobs;
  }

  public Server server(String id) {
    return servers.list.get(indexOf(id));
  }

  private int indexOf(String serverId) {
    Integer i = servers.index.get(serverId);
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
  public JobAllocations allocations() {
    return allocations;
  }

  public Allocation allocation(String jobId) {
    return allocations.getOrDefault(jobId, Allocation.EMPTY);
  }

  public boolean isRunning(String jobId) {
    return allocations.containsKey(jobId);
  }

  public int usedGpus(String serverId) {
    Integer i = servers.index.get(serverId);
    return i == null ? 0 : usedGpus[i];
  }

  public int freeGpus(String serverId) {
    int i = indexOf(serverId);
    return servers.list.get(i).gpus() - usedGpus[i];
  }

  /** Jobs whose workers run on the server, with their worker counts there, sorted by job id. */
  public Map<String, Integer> workersOn(String serverId) {
    Map<String, Integer> out = new TreeMap<>();
    for (int k = 0; k < allocations.size(); k++) {
      int w = allocations.allocationAt(k).workersOn(serverId);
      if (w > 0) {
        out.put(allocations.jobAt(k), w);
      }
    }
    return out;
  }

  @Override
  public String toString() {
    return "ClusterState[t="
        + nowS
        + "s, "
        + servers.list.size()
        + " servers, "
        + jobs.size()
        + " jobs, "
        + allocations.size()
        + " running]";
  }
}
