package io.aryl.am;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The job's workers and what to do next: pure bookkeeping, no YARN calls. Events (allocated, completed, preempted,
 * launched, tick) go in; {@link WorkerAction}s come out. One thread at a time (the AM holds a lock around it).
 *
 * <p>Rules: asks for up to max workers; starts no worker process until min containers are held (a partial gang is
 * parked, never running); any membership change, once settled, starts a new generation that (re)starts every
 * worker; preempted workers get SIGTERM and are released after the grace; a failed worker spends one restart of the
 * budget (its container is replaced), one failure past the budget fails the job; the first worker to exit 0 starts
 * the finish: no more asks or generations, and the job succeeds when every worker has exited 0.
 *
 * <p>Durable state: every generation's {@link GenerationRecord} is to be written ({@link WorkerAction.Record}) before
 * any of its workers is (re)started, and again once all of them run, and once one of them is signalled or parked. A
 * new AM attempt {@link #resume resumes} from the previous attempt's record: it adopts the running generation when
 * exactly its members come back (see {@link Adoption}), else starts a new one, the numbers continuing.
 */
public final class WorkerGroup {
  /** Exit statuses that are YARN's doing, not the worker's (ContainerExitStatus): lost, not failed. */
  static final Set<Integer> LOST_STATUSES = Set.of(-100, -101, -102, -105, -106, -107);

  public enum State { HELD, LAUNCHING, RUNNING, PARKED, DRAINING }

  /** One worker container as the group sees it. */
  public static final class Worker {
    final String id;
    final String host;
    State state;
    int generation;
    boolean parking;
    long drainDeadline;

    Worker(String id, String host, State state, int generation) {
      this.id = id;
      this.host = host;
      this.state = state;
      this.generation = generation;
    }

    public String id() {
      return id;
    }

    public String host() {
      return host;
    }

    public State state() {
      return state;
    }

    public int generation() {
      return generation;
    }
  }

  /** Something that changed the job's size or membership, for the status page. */
  public record ScalingEvent(long timeMs, String kind, String detail) {}

  /** How the job ended. */
  public record Outcome(boolean succeeded, String diagnostics) {}

  private final int min;
  private final int max;
  private final long graceMs;
  private final long settleMs;
  private final int portSeed;
  private final int attempt;
  private final RestartBudget budget;
  private final Map<String, Worker> workers = new LinkedHashMap<>();
  private final List<Generation> generations = new ArrayList<>();
  private final List<ScalingEvent> events = new ArrayList<>();
  private int outstanding;
  private int lastGenerationNumber;
  private long changedAt;
  private boolean finishing;
  private String finishFailure;
  private Outcome outcome;
  /** What the store holds (or will, once the last Record action is done) about the current generation. */
  private GenerationRecord recorded;
  /** The previous attempt's running generation while this attempt waits to adopt it. */
  private Adoption adoption;
  /** The previous attempt's last generation: the rank order this attempt's first generation keeps. */
  private Generation previousAttemptGeneration;

  /**
   * @param settleMs how long membership must be still before a new generation starts; also the longest a new
   *     attempt waits for the previous attempt's workers to come back
   * @param attempt this ApplicationMaster attempt (from 1), named in the generation records it writes
   */
  public WorkerGroup(int min, int max, long graceMs, long settleMs, int maxRestarts, int portSeed, int attempt) {
    if (min < 1 || max < min) {
      throw new IllegalArgumentException("need 1 <= min <= max, was min " + min + ", max " + max);
    }
    if (attempt < 1) {
      throw new IllegalArgumentException("attempt must be >= 1, was " + attempt);
    }
    this.min = min;
    this.max = max;
    this.graceMs = graceMs;
    this.settleMs = settleMs;
    this.portSeed = portSeed;
    this.attempt = attempt;
    this.budget = new RestartBudget(maxRestarts);
  }

  /**
   * What the previous attempt recorded; called once, before the first tick. Generation numbers continue from it and
   * the survivors keep its rank order. If its generation was running, it is adopted as it runs once exactly its
   * members are recovered; until that is decided (at most the settle time from {@code now}) no generation is started,
   * no worker parked and nothing asked for.
   */
  public void resume(GenerationRecord previous, long now) {
    if (!generations.isEmpty() || previousAttemptGeneration != null) {
      throw new IllegalStateException("resume before the first generation, once; was resumed or started already");
    }
    previousAttemptGeneration = previous.generation();
    lastGenerationNumber = Math.max(lastGenerationNumber, previous.generation().number());
    if (previous.running()) {
      adoption = new Adoption(previous, now, settleMs);
    } else {
      events.add(new ScalingEvent(now, "not-adopted", "generation " + previous.generation().number()
          + " from attempt " + previous.attempt() + " not adopted: its workers were being started, signalled or"
          + " parked when that attempt ended"));
    }
  }

  /** The previous attempt's record exists but cannot be trusted: nothing is adopted, numbers start again at 1. */
  public void recordUnreadable(String problem, long now) {
    events.add(new ScalingEvent(now, "not-adopted", problem + "; the workers restart in a new generation"));
  }

  /** A container granted by the RM. */
  public List<WorkerAction> allocated(String id, String host, long now) {
    outstanding = Math.max(0, outstanding - 1);
    if (finishing || outcome != null || workers.size() >= max) {
      return List.of(new WorkerAction.Release(id));
    }
    workers.put(id, new Worker(id, host, State.HELD, 0));
    changed(now, "allocated", id + " on " + host + " (" + workers.size() + " held)");
    return List.of();
  }

  /** A container kept from an earlier AM attempt: running something, generation unknown. */
  public List<WorkerAction> recovered(String id, String host, long now) {
    if (!workers.containsKey(id)) {
      workers.put(id, new Worker(id, host, State.RUNNING, -1));
      changed(now, "recovered", id + " on " + host + " from the previous attempt");
    }
    return List.of();
  }

  /** The NodeManager accepted the (re)start of a worker; once all of the generation's are, it is recorded running. */
  public List<WorkerAction> launched(String id) {
    Worker w = workers.get(id);
    if (w != null && w.state == State.LAUNCHING) {
      w.state = w.parking ? State.PARKED : State.RUNNING;
    }
    Generation g = current();
    if (recorded == null || recorded.running() || recorded.generation().number() != g.number()) {
      return List.of();
    }
    boolean allRunning = g.ranks().keySet().stream().map(workers::get)
        .allMatch(m -> m != null && m.state == State.RUNNING && m.generation == g.number());
    if (!allRunning) {
      return List.of();
    }
    recorded = recorded.withRunning(true);
    return List.of(new WorkerAction.Record(recorded));
  }

  /** Before a member's process is signalled or replaced: the record must stop offering the generation for adoption. */
  private void recordDisturbed(List<WorkerAction> out) {
    if (recorded != null && recorded.running()) {
      recorded = recorded.withRunning(false);
      out.add(new WorkerAction.Record(recorded));
    }
  }

  /** The NodeManager refused to (re)start a worker: the container is given up, counted as a failure. */
  public List<WorkerAction> launchFailed(String id, String why, long now) {
    Worker w = workers.remove(id);
    if (w == null) {
      return List.of();
    }
    changed(now, "launch-failed", id + ": " + why);
    spendRestart(w, "could not be started: " + why);
    return List.of(new WorkerAction.Release(id));
  }

  /** A container ended (exited, killed or released). */
  public List<WorkerAction> completed(String id, int exitStatus, String diagnostics, long now) {
    Worker w = workers.remove(id);
    if (w == null) {
      return List.of();
    }
    if (adoption != null) {
      adoption.ended(id);
    }
    String who = describe(w);
    if (w.state == State.DRAINING) {
      changed(now, "drained", who + " left with exit status " + exitStatus);
      return List.of();
    }
    if (finishing) {
      if (exitStatus != 0 && finishFailure == null) {
        finishFailure = who + " exited with status " + exitStatus + " while the job was finishing: " + diagnostics;
      }
      events.add(new ScalingEvent(now, "finished", who + " exited with status " + exitStatus));
      return List.of();
    }
    boolean currentWorker = w.state == State.RUNNING && w.generation == currentNumber();
    if (exitStatus == 0 && currentWorker) {
      finishing = true;
      events.add(new ScalingEvent(now, "finishing", who + " exited 0: the job is finishing"));
      List<WorkerAction> out = new ArrayList<>();
      if (outstanding > 0) {
        out.add(new WorkerAction.CancelAsks(outstanding));
        outstanding = 0;
      }
      return out;
    }
    changed(now, "lost", who + " ended with exit status " + exitStatus);
    if (!LOST_STATUSES.contains(exitStatus) && w.state != State.PARKED) {
      spendRestart(w, "exited with status " + exitStatus + ": " + diagnostics);
    }
    return List.of();
  }

  private void spendRestart(Worker w, String what) {
    if (budget.spend()) {
      events.add(new ScalingEvent(System.currentTimeMillis(), "restart",
          describe(w) + " " + what + " (restart " + budget.used() + " of " + budget.max() + ")"));
    } else if (outcome == null) {
      outcome = new Outcome(false, "worker " + describe(w) + " " + what.strip() + "; the job is failed: "
          + budget.used() + " worker failures, more than --max-restarts=" + budget.max());
    }
  }

  /** The RM asks for these containers back: SIGTERM to each, released at the grace if still there. */
  public List<WorkerAction> preempted(Set<String> ids, long now) {
    List<WorkerAction> out = new ArrayList<>();
    for (String id : ids) {
      Worker w = workers.get(id);
      if (w == null || w.state == State.DRAINING) {
        continue;
      }
      if (w.state == State.HELD) {
        workers.remove(id);
        out.add(new WorkerAction.Release(id));
      } else {
        w.state = State.DRAINING;
        w.drainDeadline = now + graceMs;
        recordDisturbed(out);
        out.add(new WorkerAction.Terminate(id));
      }
      changed(now, "preempted", describe(w) + " asked back by the RM");
    }
    return out;
  }

  /** Periodic decisions: releases at the grace, the next generation, parking, asks, the end. */
  public List<WorkerAction> tick(long now) {
    List<WorkerAction> out = new ArrayList<>();
    for (Worker w : List.copyOf(workers.values())) {
      if (w.state == State.DRAINING && now >= w.drainDeadline) {
        workers.remove(w.id);
        out.add(new WorkerAction.Release(w.id));
        events.add(new ScalingEvent(now, "released", describe(w) + " released at the end of the grace"));
      }
    }
    if (outcome != null) {
      return out;
    }
    if (finishing) {
      if (workers.isEmpty()) {
        outcome = finishFailure == null ? new Outcome(true, "all workers of generation " + currentNumber()
            + " exited 0") : new Outcome(false, finishFailure);
      }
      return out;
    }
    if (adoption != null) {
      Adoption.Verdict verdict = adoption.verdict(workers.values(), now);
      switch (verdict.decision()) {
        case WAIT -> {
          return out;
        }
        case ADOPT -> adopt(now);
        case REFUSE -> events.add(new ScalingEvent(now, "not-adopted", verdict.reason()));
      }
      adoption = null;
    }
    boolean busy = workers.values().stream().anyMatch(w -> w.state == State.DRAINING || w.state == State.LAUNCHING);
    if (!busy) {
      if (workers.size() < min) {
        for (Worker w : workers.values()) {
          if (w.state == State.RUNNING) {
            recordDisturbed(out);
            w.state = State.LAUNCHING;
            w.parking = true;
            w.generation = 0;
            out.add(new WorkerAction.Park(w.id));
            events.add(new ScalingEvent(now, "parked", describe(w) + ": below the minimum of " + min));
          }
        }
      } else if (membershipChanged() && now - changedAt >= settleMs) {
        out.addAll(startGeneration(now));
      }
    }
    int want = max - workers.size() - outstanding;
    if (want > 0) {
      outstanding += want;
      out.add(new WorkerAction.Ask(want));
    }
    return out;
  }

  /** The previous attempt's generation, as it runs: its workers are neither restarted nor told anything. */
  private void adopt(long now) {
    GenerationRecord r = adoption.record();
    Generation g = r.generation();
    generations.add(g);
    recorded = r;
    for (Worker w : workers.values()) {
      w.generation = g.number();
    }
    events.add(new ScalingEvent(now, "adopted", "adopted generation " + g.number() + " from attempt " + r.attempt()
        + ": " + g.worldSize() + " workers, master " + g.masterAddr() + ":" + g.masterPort()));
  }

  private List<WorkerAction> startGeneration(long now) {
    List<Generation.Member> members = new ArrayList<>();
    workers.values().forEach(w -> members.add(new Generation.Member(w.id, w.host)));
    Generation previous = current() != null ? current() : previousAttemptGeneration;
    Generation g = Generation.assign(++lastGenerationNumber, members, previous, portSeed);
    generations.add(g);
    recorded = new GenerationRecord(g, attempt, false);
    List<WorkerAction> out = new ArrayList<>();
    // Durable before any worker starts: a next attempt must not find an older record while they run this one.
    out.add(new WorkerAction.Record(recorded));
    for (Worker w : workers.values()) {
      out.add(w.state == State.HELD ? new WorkerAction.Launch(w.id, g) : new WorkerAction.Relaunch(w.id, g));
      w.state = State.LAUNCHING;
      w.parking = false;
      w.generation = g.number();
    }
    events.add(new ScalingEvent(now, "generation", "generation " + g.number() + ": " + g.worldSize()
        + " workers, master " + g.masterAddr() + ":" + g.masterPort()));
    return out;
  }

  private boolean membershipChanged() {
    Generation g = current();
    if (g == null || !g.ranks().keySet().equals(workers.keySet())) {
      return true;
    }
    return workers.values().stream().anyMatch(w -> w.generation != g.number());
  }

  private void changed(long now, String kind, String detail) {
    changedAt = now;
    events.add(new ScalingEvent(now, kind, detail));
  }

  private String describe(Worker w) {
    Generation g = current();
    String rank = g != null && w.generation == g.number() && g.ranks().containsKey(w.id)
        ? "rank " + g.rank(w.id) + " " : "";
    return rank + w.id + " on " + w.host;
  }

  public Generation current() {
    return generations.isEmpty() ? null : generations.get(generations.size() - 1);
  }

  private int currentNumber() {
    Generation g = current();
    return g == null ? -1 : g.number();
  }

  public List<Generation> generations() {
    return List.copyOf(generations);
  }

  public List<Worker> workers() {
    return List.copyOf(workers.values());
  }

  public Worker worker(String id) {
    return workers.get(id);
  }

  public List<ScalingEvent> events() {
    return List.copyOf(events);
  }

  public int outstandingAsks() {
    return outstanding;
  }

  public int restartsUsed() {
    return budget.used();
  }

  public boolean finishing() {
    return finishing;
  }

  /** Present once the job is over; the AM then unregisters. */
  public Outcome outcome() {
    return outcome;
  }

  public int min() {
    return min;
  }

  public int max() {
    return max;
  }
}
