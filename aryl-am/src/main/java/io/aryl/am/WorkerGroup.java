package io.aryl.am;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The job's workers and what to do next: pure bookkeeping, no YARN calls. Events (allocated,
 * completed, preempted, launched, a worker's exit reported by its supervisor, tick) go in; {@link
 * WorkerAction}s come out. One thread at a time (the AM holds a lock around it).
 *
 * <p>Rules: asks for up to max workers; starts no worker process until min containers are held (a
 * partial gang runs nothing); any membership change starts a new generation, in two steps: first
 * every worker of the running generation is told to stop (SIGTERM) and given the grace to
 * checkpoint and exit, while its container is kept (each container's main process is a supervisor
 * that outlives its worker, see {@code aryl-supervise.sh}); once they have all exited, or at the
 * end of the grace, the new generation (re)starts every worker with fresh ranks. Preempted workers
 * are stopped with the rest and their containers released once their worker exited, or at the
 * grace. A grow waits for membership to settle before it stops anyone; a preemption, a lost
 * container or a failed worker stop the generation at once, since its collectives are broken
 * anyway. Exits while a change is in progress, or of a worker that was told to stop, are never
 * charged; a worker that fails on its own (non-zero exit, no change in progress, not told to stop)
 * spends one restart of the budget, and one failure past the budget fails the job. The first worker
 * to exit 0 on its own starts the finish: no more asks or generations, and the job succeeds when
 * every worker has exited 0.
 *
 * <p>Durable state: every generation's {@link GenerationRecord} is to be written ({@link
 * WorkerAction.WriteRecord}) before any of its workers is (re)started, and again once all of them
 * run, and once one of them is signalled. A new AM attempt {@link #resume resumes} from the
 * previous attempt's record: it adopts the running generation when exactly its members come back
 * (see {@link Adoption}), else starts a new one, the numbers continuing.
 *
 * <p>The containers and their states, the asks, the events and the budget are kept in a {@link
 * ContainerLedger} (shared with {@link AgentGroup}); what is here is what the env launcher decides.
 */
public final class WorkerGroup implements Membership {
  /**
   * A generation change in progress: the running workers were told to stop at {@code startedAt}.
   */
  private record Stop(long startedAt, long deadline, String generation) {}

  private final long graceMs;
  private final long settleMs;
  private final int portSeed;
  private final int attempt;
  private final ContainerLedger workers;
  private final List<Generation> generations = new ArrayList<>();
  private int lastGenerationNumber;
  private Stop stop;
  private boolean finishing;
  private String finishFailure;
  private Outcome outcome;

  /**
   * What the store holds (or will, once the last Record action is done) about the current
   * generation.
   */
  private GenerationRecord recorded;

  /** The previous attempt's running generation while this attempt waits to adopt it. */
  private Adoption adoption;

  /**
   * The previous attempt's last generation: the rank order this attempt's first generation keeps.
   */
  private Generation previousAttemptGeneration;

  /**
   * @param graceMs how long a worker told to stop has to exit before the next generation starts
   *     without it (and, when preempted, before its container is released)
   * @param settleMs how long membership must be still before a grow stops the running generation,
   *     and before a new generation starts; also the longest a new attempt waits for the previous
   *     attempt's workers to come back
   * @param attempt this ApplicationMaster attempt (from 1), named in the generation records it
   *     writes
   */
  public WorkerGroup(
      int min, int max, long graceMs, long settleMs, int maxRestarts, int portSeed, int attempt) {
    this.workers = new ContainerLedger(min, max, maxRestarts, this::describe);
    if (attempt < 1) {
      throw new IllegalArgumentException("attempt must be >= 1, was " + attempt);
    }
    this.graceMs = graceMs;
    this.settleMs = settleMs;
    this.portSeed = portSeed;
    this.attempt = attempt;
  }

  /**
   * What the previous attempt recorded; called once, before the first tick. Generation numbers
   * continue from it and the survivors keep its rank order. If its generation was running, it is
   * adopted as it runs once exactly its members are recovered; until that is decided (at most the
   * settle time from {@code now}) no generation is started, no worker parked and nothing asked for.
   */
  @Override
  public void resume(GenerationRecord previous, long now) {
    if (!generations.isEmpty() || previousAttemptGeneration != null) {
      throw new IllegalStateException(
          "resume before the first generation, once; was resumed or started already");
    }
    previousAttemptGeneration = previous.generation();
    lastGenerationNumber = Math.max(lastGenerationNumber, previous.generation().number());
    if (previous.running()) {
      adoption = new Adoption(previous, now, settleMs);
    } else {
      workers.event(
          now,
          "not-adopted",
          "generation "
              + previous.generation().number()
              + " from attempt "
              + previous.attempt()
              + " not adopted: its workers were being started, signalled or"
              + " parked when that attempt ended");
    }
  }

  /**
   * The previous attempt's record exists but cannot be trusted: nothing is adopted, numbers start
   * again at 1.
   */
  @Override
  public void recordUnreadable(String problem, long now) {
    workers.event(now, "not-adopted", problem + "; the workers restart in a new generation");
  }

  /** A container granted by the RM. */
  @Override
  public List<WorkerAction> allocated(String id, String host, long now) {
    return workers.allocated(id, host, !finishing && outcome == null, now);
  }

  @Override
  public List<WorkerAction> allocatedForMove(String id, String host, long now) {
    return workers.allocatedForMove(id, host, !finishing && outcome == null, now);
  }

  /** A container kept from an earlier AM attempt: running something, generation unknown. */
  @Override
  public List<WorkerAction> recovered(String id, String host, long now) {
    if (!workers.holds(id)) {
      workers.add(id, host, State.RUNNING, -1);
      workers.changed(now, "recovered", id + " on " + host + " from the previous attempt");
    }
    return List.of();
  }

  /**
   * The NodeManager accepted the (re)start of a worker; once all of the generation's are, it is
   * recorded running. A worker told to stop while its start was in flight gets its SIGTERM now.
   */
  @Override
  public List<WorkerAction> launched(String id) {
    List<WorkerAction> sigterm = workers.launched(id);
    if (!sigterm.isEmpty()) {
      return sigterm;
    }
    Generation g = current();
    if (recorded == null || recorded.running() || recorded.generation().number() != g.number()) {
      return List.of();
    }
    boolean allRunning =
        g.ranks().keySet().stream()
            .map(workers::get)
            .allMatch(m -> m != null && m.state == State.RUNNING && m.generation == g.number());
    if (!allRunning) {
      return List.of();
    }
    recorded = recorded.withRunning(true);
    return List.of(new WorkerAction.WriteRecord(recorded));
  }

  /**
   * Before a member's process is signalled: the record must stop offering the generation for
   * adoption.
   */
  private void recordDisturbed(List<WorkerAction> out) {
    if (recorded != null && recorded.running()) {
      recorded = recorded.withRunning(false);
      out.add(new WorkerAction.WriteRecord(recorded));
    }
  }

  /**
   * The NodeManager refused to (re)start a worker: the container is given up, counted as a failure.
   */
  @Override
  public List<WorkerAction> launchFailed(String id, String why, long now) {
    Worker w = workers.remove(id);
    if (w == null) {
      return List.of();
    }
    workers.changed(now, "launch-failed", id + ": " + why);
    spendRestart(w, "could not be started: " + why, now);
    return List.of(new WorkerAction.Release(id));
  }

  /** A container ended (exited, killed or released). */
  @Override
  public List<WorkerAction> completed(String id, int exitStatus, String diagnostics, long now) {
    Worker w = workers.get(id);
    if (w == null) {
      return List.of();
    }
    String who = describe(w);
    workers.remove(id);
    if (adoption != null) {
      adoption.ended(id);
    }
    if (w.state == State.DRAINING) {
      workers.changed(now, "drained", who + " left with exit status " + exitStatus);
      return List.of();
    }
    if (finishing) {
      finishedWith(who, exitStatus, diagnostics, now);
      return List.of();
    }
    if (!w.running()) {
      // Held, idle or already told to stop: no worker failed here.
      workers.changed(now, "lost", who + " ended with exit status " + exitStatus);
      return List.of();
    }
    if (exitStatus == 0 && startsTheFinish(w)) {
      return finish(who, now);
    }
    workers.changed(now, "lost", who + " ended with exit status " + exitStatus);
    List<WorkerAction> out = new ArrayList<>();
    if (exitStatus != 0 && !ContainerLedger.LOST_STATUSES.contains(exitStatus) && stop == null) {
      spendRestart(w, "exited with status " + exitStatus + ": " + diagnostics, now);
    }
    generationBroken(now, who + " ended", out);
    return out;
  }

  /**
   * A worker's supervisor reports that its worker process exited, the container still held: {@code
   * toldToStop} when SIGTERM reached it first. Reports of another generation than the worker's are
   * late ones of an earlier generation, ignored.
   */
  @Override
  public List<WorkerAction> exited(
      String id, int generation, int status, boolean toldToStop, long now) {
    Worker w = workers.get(id);
    if (w == null || (w.generation != generation && w.generation != -1)) {
      return List.of();
    }
    String who = describe(w);
    boolean startsFinish = status == 0 && !toldToStop && startsTheFinish(w);
    List<WorkerAction> out = new ArrayList<>();
    if (!workers.exited(
        w,
        "its worker exited with status " + status + (toldToStop ? " after SIGTERM" : ""),
        now,
        out)) {
      return out;
    }
    if (finishing) {
      finishedWith(who, status, "", now);
      return List.of();
    }
    if (startsFinish) {
      return finish(who, now);
    }
    if (status != 0 && !toldToStop && stop == null) {
      spendRestart(w, "exited with status " + status, now);
    }
    generationBroken(now, who + "'s worker exited", out);
    return out;
  }

  /**
   * Whether this worker exiting 0 means training is done: it ran the current generation, which
   * nobody is stopping.
   */
  private boolean startsTheFinish(Worker w) {
    return w.state == State.RUNNING && w.generation == currentNumber() && stop == null;
  }

  private List<WorkerAction> finish(String who, long now) {
    finishing = true;
    workers.event(now, "finishing", who + " exited 0: the job is finishing");
    return workers.cancelAsks();
  }

  /** A worker ended while the job is finishing: the job fails if it did not exit 0. */
  private void finishedWith(String who, int status, String diagnostics, long now) {
    if (status != 0 && finishFailure == null) {
      finishFailure =
          who
              + " exited with status "
              + status
              + " while the job was finishing"
              + (diagnostics.isEmpty() ? "" : ": " + diagnostics);
    }
    workers.event(now, "finished", who + " exited with status " + status);
  }

  private void spendRestart(Worker w, String what, long now) {
    if (!workers.charge(w, what, now) && outcome == null) {
      outcome =
          new Outcome(
              false,
              "worker "
                  + describe(w)
                  + " "
                  + what.strip()
                  + "; the job is failed: "
                  + workers.overBudget("worker"));
    }
  }

  /**
   * The RM asks for these containers back: each running one is told to stop, with the rest of its
   * generation, and released once its worker exited or at the grace; one that runs no worker is
   * released at once.
   */
  @Override
  public List<WorkerAction> preempted(Set<String> ids, long now) {
    List<WorkerAction> out = new ArrayList<>();
    boolean disturbed = false;
    if (workers.notDraining(ids).stream().anyMatch(w -> !w.replacement)) {
      workers.replacementsJoin(
          now, false); // a move: its new workers form the next generation with the survivors
    }
    for (Worker w : workers.notDraining(ids)) {
      if (w.running()) {
        recordDisturbed(out);
        disturbed = true;
      }
      workers.preempt(w, now + graceMs, now, out);
    }
    if (disturbed) {
      generationBroken(now, "preempted", out);
    }
    return out;
  }

  /**
   * A worker of the running generation is gone or going: the rest would fail their next collective,
   * so they are told to stop now, not after the settle time. Not while finishing (nothing restarts
   * then), nor while a new attempt decides on adoption (it signals no one before it has decided;
   * the next tick stops them if it does not adopt).
   */
  private void generationBroken(long now, String why, List<WorkerAction> out) {
    if (!finishing && adoption == null) {
      stopGeneration(now, why, out);
    }
  }

  /**
   * Starts a generation change, unless one is in progress: every running worker is told to stop
   * (SIGTERM) and has the grace to exit. Nothing is started until they all have, or the grace is
   * over.
   */
  private void stopGeneration(long now, String why, List<WorkerAction> out) {
    if (stop != null) {
      return;
    }
    List<Worker> running = workers.running();
    if (running.isEmpty()) {
      return;
    }
    recordDisturbed(out);
    workers.stop(running, out);
    Generation g = current();
    String which =
        g != null && running.stream().allMatch(w -> w.generation == g.number())
            ? "generation " + g.number()
            : "the running workers";
    stop = new Stop(now, now + graceMs, which);
    workers.event(
        now,
        "stopping",
        which
            + ": SIGTERM to "
            + running.size()
            + " workers, "
            + graceMs
            + " ms to exit ("
            + why
            + ")");
  }

  /** The change's stop is over: every worker told to stop exited, or the grace ended. */
  private void stopped(long now) {
    List<String> late = new ArrayList<>();
    for (Worker w : workers.all()) {
      if (w.state == State.STOPPING) {
        // Still running at the grace: re-initialising its container for the next generation kills
        // it.
        w.state = State.IDLE;
        late.add(describe(w));
      }
    }
    workers.event(
        now,
        "stopped",
        stop.generation()
            + (late.isEmpty()
                ? " stopped: every worker exited within " + (now - stop.startedAt()) + " ms"
                : " stopped at the end of the "
                    + graceMs
                    + " ms grace; still running: "
                    + String.join(", ", late)));
    stop = null;
    if (workers.members() < workers.min()) {
      for (Worker w : workers.all()) {
        if (w.state == State.IDLE) {
          workers.event(
              now,
              "parked",
              describe(w)
                  + ": below the minimum of "
                  + workers.min()
                  + ", the container is kept with no worker");
        }
      }
    }
  }

  /**
   * Periodic decisions: releases at the grace, the end of a stop, the next generation, asks, the
   * end.
   */
  @Override
  public List<WorkerAction> tick(long now) {
    List<WorkerAction> out = new ArrayList<>();
    workers.releaseDrainedAtGrace(now, out);
    if (outcome != null) {
      return out;
    }
    if (finishing) {
      workers.releaseUnused(now, out);
      if (workers.isEmpty()) {
        outcome =
            finishFailure == null
                ? new Outcome(true, "all workers of generation " + currentNumber() + " exited 0")
                : new Outcome(false, finishFailure);
      }
      return out;
    }
    if (adoption != null) {
      Adoption.Verdict verdict = adoption.verdict(workers.all(), now);
      switch (verdict.decision()) {
        case WAIT -> {
          return out;
        }
        case ADOPT -> adopt(now);
        case REFUSE -> workers.event(now, "not-adopted", verdict.reason());
      }
      adoption = null;
    }
    if (stop != null && (now >= stop.deadline() || !workers.any(State.STOPPING))) {
      stopped(now);
    }
    workers.replacementsJoin(now, true);
    boolean settled = workers.stillFor(settleMs, now);
    if (stop == null) {
      if (!workers.running().isEmpty()) {
        if (settled && membershipChanged()) {
          stopGeneration(now, "membership changed", out);
        }
      } else if (!workers.any(State.DRAINING) && workers.members() >= workers.min() && settled) {
        out.addAll(startGeneration(now));
      }
    }
    workers.askForMissing(out);
    return out;
  }

  /**
   * The previous attempt's generation, as it runs: its workers are neither restarted nor told
   * anything.
   */
  private void adopt(long now) {
    GenerationRecord r = adoption.record();
    Generation g = r.generation();
    generations.add(g);
    recorded = r;
    for (Worker w : workers.all()) {
      w.generation = g.number();
    }
    workers.event(
        now,
        "adopted",
        "adopted generation "
            + g.number()
            + " from attempt "
            + r.attempt()
            + ": "
            + g.worldSize()
            + " workers, master "
            + g.masterAddr()
            + ":"
            + g.masterPort());
  }

  /**
   * Every held container, none running a worker now, (re)starts one of a new generation; none held
   * aside.
   */
  private List<WorkerAction> startGeneration(long now) {
    List<Generation.Member> members = new ArrayList<>();
    List<Worker> joining = workers.memberWorkers();
    joining.forEach(w -> members.add(new Generation.Member(w.id, w.host)));
    Generation previous = current() != null ? current() : previousAttemptGeneration;
    Generation g = Generation.assign(++lastGenerationNumber, members, previous, portSeed);
    generations.add(g);
    recorded = new GenerationRecord(g, attempt, false);
    List<WorkerAction> out = new ArrayList<>();
    // Durable before any worker starts: a next attempt must not find an older record while they run
    // this one.
    out.add(new WorkerAction.WriteRecord(recorded));
    for (Worker w : joining) {
      out.add(
          w.state == State.HELD
              ? new WorkerAction.Launch(w.id, g)
              : new WorkerAction.Relaunch(w.id, g));
      w.state = State.LAUNCHING;
      w.generation = g.number();
    }
    workers.event(
        now,
        "generation",
        "generation "
            + g.number()
            + ": "
            + g.worldSize()
            + " workers, master "
            + g.masterAddr()
            + ":"
            + g.masterPort());
    return out;
  }

  /** Whether the workers held now are not exactly the current generation's, each running it. */
  private boolean membershipChanged() {
    Generation g = current();
    List<Worker> members = workers.memberWorkers();
    if (g == null
        || !g.ranks()
            .keySet()
            .equals(new java.util.HashSet<>(members.stream().map(w -> w.id).toList()))) {
      return true;
    }
    return members.stream().anyMatch(w -> w.generation != g.number());
  }

  private String describe(Worker w) {
    Generation g = current();
    String rank =
        g != null && w.generation == g.number() && g.ranks().containsKey(w.id)
            ? "rank " + g.rank(w.id) + " "
            : "";
    return rank + w.id + " on " + w.host;
  }

  @Override
  public Generation current() {
    return generations.isEmpty() ? null : generations.get(generations.size() - 1);
  }

  private int currentNumber() {
    Generation g = current();
    return g == null ? -1 : g.number();
  }

  @Override
  public List<Generation> generations() {
    return List.copyOf(generations);
  }

  @Override
  public List<Worker> workers() {
    return workers.list();
  }

  public Worker worker(String id) {
    return workers.get(id);
  }

  @Override
  public List<ScalingEvent> events() {
    return workers.events();
  }

  @Override
  public int outstandingAsks() {
    return workers.outstandingAsks();
  }

  @Override
  public int restartsUsed() {
    return workers.restartsUsed();
  }

  @Override
  public boolean finishing() {
    return finishing;
  }

  /** Present once the job is over; the AM then unregisters. */
  @Override
  public Outcome outcome() {
    return outcome;
  }

  public int min() {
    return workers.min();
  }

  public int max() {
    return workers.max();
  }
}
