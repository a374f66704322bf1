package io.aryl.am;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The containers of a {@code --launcher torchrun} job and what to do next: pure bookkeeping, no
 * YARN calls, the same event API as {@link WorkerGroup} ({@link Membership}). Here torchrun forms
 * the generations: every container runs one elastic agent ({@link TorchrunLauncher}), started once,
 * and the agents rendezvous among themselves in the AM's store ({@link RendezvousStore}). The AM
 * starts and stops agents; it never stops a survivor for a change of membership.
 *
 * <ul>
 *   <li><b>Start.</b> Asks for max containers; the first agents start together once min containers
 *       are held and membership has been still for the settle time (a partial gang runs nothing),
 *       each in rendezvous {@code incarnation} 1.
 *   <li><b>Grow.</b> A container granted later gets its agent once membership has been still for
 *       the settle time: it joins the rendezvous, and the running agents, seeing a node waiting,
 *       restart their workers into a bigger group (torchrun does not charge that).
 *   <li><b>Shrink.</b> A preempted container's agent alone gets SIGTERM (its workers checkpoint);
 *       the container is released once the agent exited, or at the grace. The survivors' workers
 *       fail their next collective and their agents re-rendezvous without it (torchrun charges that
 *       to each survivor's own budget: see {@link TorchrunLauncher#maxRestarts}). Below min
 *       containers the survivors wait in the rendezvous, for min nodes, until the scheduler gives
 *       the job its gang again.
 *   <li><b>Charged to --max-restarts</b> (the AM's budget): only an agent that exits non-zero on
 *       its own, i.e. torchrun gave up (its own restarts spent, or its rendezvous failed), and an
 *       agent that cannot be started. Not: an agent's exit after SIGTERM, a container YARN lost, an
 *       agent of an earlier AM attempt, an exit while every agent is being restarted, nor an exit
 *       while the job holds fewer than min containers (its rendezvous could not complete: a join
 *       timeout is not the job's failure).
 *   <li><b>Restart of every agent.</b> After such an exit torchrun has closed the rendezvous for
 *       good (it does when it gives up), so every other agent is told to stop, given the grace, and
 *       then every held container starts an agent of a new rendezvous ({@code incarnation} + 1, a
 *       new run id), once min are held. The same happens when the AM's store had to be restarted,
 *       and for the containers of an earlier AM attempt: that attempt's store died with it, and its
 *       agents with their rendezvous. Neither is charged.
 *   <li><b>Finish.</b> The first agent that exits 0 on its own (torchrun: its workers all finished,
 *       and it waited for the other agents of that round) starts the finish: no more asks or
 *       agents; the job succeeds once every container has ended. A non-zero exit meanwhile is
 *       recorded, not a failure: it is an agent that was not in the last round (one that joined as
 *       the others finished, whose rendezvous they closed).
 * </ul>
 *
 * <p>The AM records no generations for torchrun jobs (it forms none): {@link #current()} is null
 * and an AM restart restarts the agents (above) instead of adopting them.
 *
 * <p>The containers and their states, the asks, the events and the budget are kept in a {@link
 * ContainerLedger} (shared with {@link WorkerGroup}); what is here is what the torchrun launcher
 * decides.
 */
public final class AgentGroup implements Membership {
  private final long graceMs;
  private final long settleMs;
  private final ContainerLedger agents;

  /** Containers of an earlier AM attempt in which no agent of this attempt has started yet. */
  private final Set<String> recovered = new HashSet<>();

  /** The rendezvous the agents started now join; 0 before the first. */
  private int incarnation;

  /**
   * Every agent starts afresh, together, once min containers are held: before the first start and
   * after a stop.
   */
  private boolean startPending = true;

  /** A stop of every agent is in progress: its agents are STOPPING, none is started. */
  private boolean stopping;

  private boolean belowMin;
  private boolean finishing;
  private final List<String> finishNotes = new ArrayList<>();
  private Outcome outcome;

  /**
   * @param graceMs how long an agent told to stop has to exit before its container is released
   *     (preempted) or re-initialised (a restart of every agent)
   * @param settleMs how long membership must be still before agents are started
   */
  public AgentGroup(int min, int max, long graceMs, long settleMs, int maxRestarts) {
    this.agents = new ContainerLedger(min, max, maxRestarts, AgentGroup::describe);
    this.graceMs = graceMs;
    this.settleMs = settleMs;
  }

  /** torchrun jobs record no generation: a record of an earlier attempt is not theirs to adopt. */
  @Override
  public void resume(GenerationRecord previous, long now) {
    agents.event(
        now,
        "not-adopted",
        "generation "
            + previous.generation().number()
            + " recorded by attempt "
            + previous.attempt()
            + " ignored: torchrun forms this job's generations");
  }

  @Override
  public void recordUnreadable(String problem, long now) {
    agents.event(now, "not-adopted", problem + "; ignored: torchrun forms this job's generations");
  }

  @Override
  public List<WorkerAction> allocated(String id, String host, long now) {
    return agents.allocated(id, host, !finishing && outcome == null, now);
  }

  /**
   * A container of an earlier AM attempt: its agent lost that attempt's store, which died with it,
   * so it is told to stop; its container starts an agent of this attempt's rendezvous with the
   * others.
   */
  @Override
  public List<WorkerAction> recovered(String id, String host, long now) {
    if (agents.holds(id)) {
      return List.of();
    }
    Worker w = agents.add(id, host, State.STOPPING, 0);
    w.drainDeadline = now + graceMs;
    recovered.add(id);
    stopping = true;
    startPending = true;
    agents.changed(
        now,
        "recovered",
        describe(w)
            + " from the previous attempt: its rendezvous store ended with that"
            + " attempt; SIGTERM, then an agent of this attempt's rendezvous");
    return List.of(new WorkerAction.Terminate(id));
  }

  @Override
  public List<WorkerAction> launched(String id) {
    if (agents.holds(id)) {
      // Once this attempt's agent runs there, a container of an earlier attempt is like any other.
      recovered.remove(id);
    }
    return agents.launched(id);
  }

  /**
   * The NodeManager refused to start an agent: the container is given up, counted as a failure; but
   * not a container of an earlier attempt that could not be re-initialised (it ended before the AM
   * heard of it).
   */
  @Override
  public List<WorkerAction> launchFailed(String id, String why, long now) {
    Worker w = agents.remove(id);
    if (w == null) {
      return List.of();
    }
    agents.changed(now, "launch-failed", describe(w) + ": " + why);
    if (!recovered.remove(id)) {
      spendRestart(w, "could not be started: " + why, now);
    }
    return List.of(new WorkerAction.Release(id));
  }

  @Override
  public List<WorkerAction> completed(String id, int exitStatus, String diagnostics, long now) {
    Worker w = agents.remove(id);
    if (w == null) {
      return List.of();
    }
    String how =
        "ended with exit status " + exitStatus + (diagnostics.isEmpty() ? "" : ": " + diagnostics);
    if (w.state == State.DRAINING) {
      agents.changed(now, "drained", describe(w) + " " + how);
      return List.of();
    }
    if (finishing) {
      finishedWith(w, exitStatus, now);
      return List.of();
    }
    boolean running = w.running() && w.generation > 0;
    if (running && exitStatus == 0 && !stopping) {
      return finish(w, now);
    }
    if (!running || exitStatus == 0 || ContainerLedger.LOST_STATUSES.contains(exitStatus)) {
      agents.changed(
          now,
          "lost",
          describe(w)
              + " "
              + how
              + (running ? "; the other agents re-form the group without it" : ""));
      return List.of();
    }
    agents.changed(now, "lost", describe(w) + " " + how);
    return agentFailed(w, "ended with exit status " + exitStatus, now);
  }

  @Override
  public List<WorkerAction> exited(
      String id, int generation, int status, boolean toldToStop, long now) {
    Worker w = agents.get(id);
    if (w == null || w.generation != generation) {
      return List.of();
    }
    List<WorkerAction> out = new ArrayList<>();
    if (!agents.exited(
        w,
        "its agent exited with status " + status + (toldToStop ? " after SIGTERM" : ""),
        now,
        out)) {
      return out;
    }
    if (finishing) {
      finishedWith(w, status, now);
      return List.of();
    }
    if (toldToStop) {
      // Not by the AM: nothing is charged; the container starts a new agent, which joins the
      // others.
      agents.changed(now);
      return List.of();
    }
    if (status == 0) {
      return finish(w, now);
    }
    return agentFailed(w, "exited with status " + status, now);
  }

  /**
   * An agent of the current rendezvous exited non-zero on its own: torchrun gave up, and has closed
   * the rendezvous. Charged unless the job holds fewer than min containers; then every agent
   * restarts in a new rendezvous.
   */
  private List<WorkerAction> agentFailed(Worker w, String what, long now) {
    if (stopping || w.generation != incarnation) {
      return List.of();
    }
    // The failed agent's container counts: it was held when its agent failed (a completed one is
    // gone by now).
    long members = agents.members() + (agents.holds(w.id) ? 0 : 1);
    if (members < agents.min()) {
      agents.event(
          now,
          "not-charged",
          describe(w)
              + " "
              + what
              + " while the job held "
              + members
              + " of its minimum "
              + agents.min()
              + " containers: its rendezvous could not complete");
    } else {
      spendRestart(w, what + " (torchrun gave up)", now);
    }
    List<WorkerAction> out = new ArrayList<>();
    if (outcome == null) {
      stopAll(now, describe(w) + " " + what, out);
    }
    return out;
  }

  /**
   * The AM's rendezvous store was restarted (its process had died): every agent lost its
   * rendezvous, and every agent is restarted in a new one. Not charged.
   */
  public List<WorkerAction> storeRestarted(long now) {
    List<WorkerAction> out = new ArrayList<>();
    if (outcome == null && !finishing) {
      startPending = true;
      stopAll(now, "the rendezvous store was restarted", out);
    }
    return out;
  }

  /**
   * Tells every running agent to stop; once they all exited, or at the grace, every container
   * starts a new one.
   */
  private void stopAll(long now, String why, List<WorkerAction> out) {
    startPending = true;
    List<Worker> told = agents.running();
    agents.stop(told, out);
    told.forEach(w -> w.drainDeadline = now + graceMs);
    stopping = stopping || !told.isEmpty();
    agents.changed(
        now,
        "stopping",
        "rendezvous "
            + incarnation
            + ": SIGTERM to "
            + told.size()
            + " agents, "
            + graceMs
            + " ms to exit ("
            + why
            + "); then every container starts an agent of a new rendezvous");
  }

  /**
   * The RM asks for these containers back: each one's agent alone is told to stop (the others
   * re-form the group without it) and its container released once the agent exited, or at the
   * grace; one running no agent at once.
   */
  @Override
  public List<WorkerAction> allocatedForMove(String id, String host, long now) {
    return agents.allocatedForMove(id, host, !finishing && outcome == null, now);
  }

  @Override
  public List<WorkerAction> preempted(Set<String> ids, long now) {
    List<WorkerAction> out = new ArrayList<>();
    if (agents.notDraining(ids).stream().anyMatch(w -> !w.replacement)) {
      agents.replacementsJoin(now, false); // a move: the new agents join as the old ones leave
    }
    for (Worker w : agents.notDraining(ids)) {
      // One told to stop already keeps its deadline.
      agents.preempt(w, w.state == State.STOPPING ? w.drainDeadline : now + graceMs, now, out);
    }
    return out;
  }

  @Override
  public List<WorkerAction> tick(long now) {
    List<WorkerAction> out = new ArrayList<>();
    agents.releaseDrainedAtGrace(now, out);
    if (outcome != null) {
      return out;
    }
    if (finishing) {
      agents.releaseUnused(now, out);
      if (agents.isEmpty()) {
        outcome =
            new Outcome(
                true,
                "torchrun finished: the agents of rendezvous "
                    + incarnation
                    + " exited 0"
                    + (finishNotes.isEmpty() ? "" : "; " + String.join("; ", finishNotes)));
      }
      return out;
    }
    if (stopping) {
      for (Worker w : agents.all()) {
        if (w.state == State.STOPPING && now >= w.drainDeadline) {
          // Its container is re-initialised for the next agent, which kills what still runs there.
          w.state = State.IDLE;
          agents.event(
              now,
              "stopped",
              describe(w) + " still running at the end of the " + graceMs + " ms grace");
        }
      }
      if (!agents.any(State.STOPPING)) {
        stopping = false;
        agents.event(now, "stopped", "every agent of rendezvous " + incarnation + " stopped");
      }
    }
    agents.replacementsJoin(now, true);
    int min = agents.min();
    long members = agents.members();
    if (!belowMin && members < min && !startPending) {
      agents.event(
          now,
          "below-min",
          members
              + " of the minimum "
              + min
              + " containers: the agents"
              + " wait in their rendezvous for "
              + min
              + " nodes");
    }
    belowMin = members < min;
    if (!stopping && agents.stillFor(settleMs, now)) {
      List<Worker> idle = agents.unused();
      if (startPending && idle.size() >= min && idle.size() == members) {
        incarnation++;
        startPending = false;
        agents.event(
            now,
            "rendezvous",
            "rendezvous "
                + incarnation
                + ": "
                + idle.size()
                + " agents, "
                + min
                + " to "
                + agents.max()
                + " nodes");
        idle.forEach(w -> out.add(start(w)));
      } else if (!startPending && !idle.isEmpty()) {
        idle.forEach(
            w -> {
              out.add(start(w));
              agents.event(now, "joining", describe(w) + " joins rendezvous " + incarnation);
            });
      }
    }
    agents.askForMissing(out);
    return out;
  }

  private WorkerAction start(Worker w) {
    WorkerAction a = new WorkerAction.StartAgent(w.id, incarnation, w.state == State.IDLE);
    w.state = State.LAUNCHING;
    w.generation = incarnation;
    return a;
  }

  private List<WorkerAction> finish(Worker w, long now) {
    finishing = true;
    agents.event(
        now, "finishing", describe(w) + " exited 0: torchrun finished, the job is finishing");
    return agents.cancelAsks();
  }

  private void finishedWith(Worker w, int status, long now) {
    if (status != 0) {
      finishNotes.add(
          describe(w)
              + " exited with status "
              + status
              + " as the others finished (not in their round)");
    }
    agents.event(now, "finished", describe(w) + " exited with status " + status);
  }

  private void spendRestart(Worker w, String what, long now) {
    if (!agents.charge(w, what, now) && outcome == null) {
      outcome =
          new Outcome(
              false,
              describe(w)
                  + " "
                  + what.strip()
                  + "; the job is failed: "
                  + agents.overBudget("agent"));
    }
  }

  private static String describe(Worker w) {
    return "agent " + w.id + " on " + w.host;
  }

  /** The rendezvous agents started now join (1, 2, ... in this AM attempt); 0 before the first. */
  public int incarnation() {
    return incarnation;
  }

  @Override
  public Generation current() {
    return null;
  }

  @Override
  public List<Generation> generations() {
    return List.of();
  }

  @Override
  public List<Worker> workers() {
    return agents.list();
  }

  public Worker worker(String id) {
    return agents.get(id);
  }

  @Override
  public List<ScalingEvent> events() {
    return agents.events();
  }

  @Override
  public int outstandingAsks() {
    return agents.outstandingAsks();
  }

  @Override
  public int restartsUsed() {
    return agents.restartsUsed();
  }

  @Override
  public boolean finishing() {
    return finishing;
  }

  @Override
  public Outcome outcome() {
    return outcome;
  }

  public int min() {
    return agents.min();
  }

  public int max() {
    return agents.max();
  }
}
