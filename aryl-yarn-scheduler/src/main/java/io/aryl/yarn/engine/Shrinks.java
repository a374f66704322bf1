package io.aryl.yarn.engine;

import io.aryl.core.model.Allocation;
import io.aryl.core.model.Plan;
import io.aryl.yarn.conf.ArylSettings;
import io.aryl.yarn.engine.Drains.Drain;
import io.aryl.yarn.engine.Drains.Reason;
import io.aryl.yarn.round.ContainerView;
import io.aryl.yarn.round.NodeView;
import io.aryl.yarn.round.PlanBook;
import io.aryl.yarn.round.RoundInput;
import io.aryl.yarn.round.ShrinkChooser;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.function.ToIntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which workers the plan takes back, and when: the plan's shrinks and moves and the workers of
 * gangs left below their minimum become {@link Drains}; a stored drain is announced to its
 * ApplicationMaster; once its grace is over, and if its reason still holds, the container is
 * killed. Reclaims add their own drains ({@link Reclaims}); this class announces and kills for them
 * too.
 *
 * <p>A job the plan places elsewhere while it keeps its width (a whole-job move between GPU speeds,
 * or workers traded between nodes) is moved new-workers-first: its old workers are recorded as MOVE
 * drains but announced only once every node of its target holds its new workers (granted meanwhile
 * by the allocation path), so that its ApplicationMaster changes generation once, from the old
 * workers to the new. If the plan stops moving the job, or the new workers do not all come within
 * {@code aryl.scheduler.move-timeout-ms}, the move is dropped and the job keeps running where it
 * is.
 */
final class Shrinks {
  private static final Logger LOG = LoggerFactory.getLogger(Shrinks.class);

  private final ArylSettings settings;
  private final Drains drains;
  private final JobProgressMeter progress;
  private final Predicate<Drain> reclaimStillReturning;

  /** The last round's input and plan, which held moves are judged by. */
  private RoundInput lastInput;

  private Plan lastPlan;

  /**
   * Since when each job has held fewer workers than its minimum, with nothing planned to complete
   * it.
   */
  private final Map<String, Long> partialSince = new HashMap<>();

  /**
   * @param progress where a job the plan stops (its {@link Plan.Change#PREEMPT}) is counted
   */
  Shrinks(
      ArylSettings settings,
      Drains drains,
      JobProgressMeter progress,
      Predicate<Drain> reclaimStillReturning) {
    this.settings = settings;
    this.drains = drains;
    this.progress = progress;
    this.reclaimStillReturning = reclaimStillReturning;
  }

  /**
   * Records the drains this round's plan calls for: workers beyond a target (moved when the target
   * wants workers elsewhere that the job does not hold yet, else shrunk), partial gangs past their
   * grace, and workers beyond a job's maximum (new workers of a move that was given up). A job the
   * plan stops as a whole (for a shorter job, or a team's guarantee) is counted as preempted once,
   * in the round its workers start draining: a later round, or a restarted scheduler, finds them
   * draining already and counts nothing.
   */
  void drainWhatThePlanTakes(
      RoundInput input, Plan plan, List<NodeView> nodes, long now, Tally tally) {
    this.lastInput = input;
    this.lastPlan = plan;
    List<ContainerView> shrunk = ShrinkChooser.choose(input, plan);
    List<ContainerView> partial = partialGangsPastGrace(input, now);
    if (shrunk.isEmpty() && input.surplus().isEmpty() && partial.isEmpty()) {
      return; // most rounds: no map of every container to its node
    }
    Map<String, String> nodeOf = new HashMap<>();
    nodes.forEach(n -> n.containers().forEach(c -> nodeOf.put(c.id(), n.id())));
    Set<String> stops = Set.copyOf(plan.preempted());
    Set<String> stopped = new HashSet<>(stops);
    for (ContainerView c : shrunk) {
      if (awaitsNewWorkers(input, plan, c.appId())) {
        long holdUntil = now + settings.moveTimeoutMs();
        // Counted when told: a move given up costs nothing.
        drains.add(
            Drain.move(
                c.id(),
                c.appId(),
                nodeOf.get(c.id()),
                holdUntil + settings.shrinkGraceMs(),
                holdUntil));
      } else if (take(c, nodeOf.get(c.id()), Reason.SHRINK, stops.contains(c.appId()), now, tally)
          && stopped.remove(c.appId())) {
        progress.preempted(c.appId());
      }
    }
    input.surplus().forEach(c -> take(c, nodeOf.get(c.id()), Reason.SHRINK, false, now, tally));
    partial.forEach(c -> take(c, nodeOf.get(c.id()), Reason.ORPHAN, false, now, tally));
  }

  /**
   * Drains the container; true if it was not draining yet.
   *
   * @param stopsJob whether the plan stops its job as a whole (then the kill is not called off)
   */
  private boolean take(
      ContainerView c, String node, Reason why, boolean stopsJob, long now, Tally tally) {
    long killAt = now + settings.shrinkGraceMs();
    Drain d =
        stopsJob
            ? Drain.stop(c.id(), c.appId(), node, killAt, why, 0)
            : new Drain(c.id(), c.appId(), node, killAt, why, 0);
    if (drains.add(d)) {
      tally.containersShrunk++;
      tally.gpuSecondsLost += Math.round(c.gpus() * settings.policy().rescaleOverheadS());
      return true;
    }
    return false;
  }

  /** Whether the plan puts workers of the job on a node where it does not hold them yet. */
  private static boolean awaitsNewWorkers(RoundInput input, Plan plan, String app) {
    Allocation target = plan.target(app);
    for (Map.Entry<String, Integer> e : target.workersByServer().entrySet()) {
      if (e.getValue() > liveWorkers(input, app, e.getKey())) {
        return true;
      }
    }
    return false;
  }

  /**
   * What a held MOVE drain waits for, by the last round: cancelled when the plan no longer runs its
   * job or wants a worker on its node again; announced once every node of the job's target holds
   * what the target puts there.
   */
  private Drains.Hold moveHold(Drain d) {
    RoundInput input = lastInput;
    Plan plan = lastPlan;
    if (input == null || plan == null) {
      return Drains.Hold.WAIT;
    }
    Allocation target = plan.target(d.app());
    if (target.isEmpty() || target.workersOn(d.node()) > liveWorkers(input, d.app(), d.node())) {
      return Drains.Hold.CANCEL;
    }
    return awaitsNewWorkers(input, plan, d.app()) ? Drains.Hold.WAIT : Drains.Hold.ANNOUNCE;
  }

  /**
   * Workers of gangs below their minimum that nothing completes, once that has lasted the grace: a
   * NodeManager that re-registers late, or a worker being replaced, brings the gang back whole
   * before then.
   */
  private List<ContainerView> partialGangsPastGrace(RoundInput input, long now) {
    Map<String, List<ContainerView>> byJob = new TreeMap<>();
    input.orphans().forEach(c -> byJob.computeIfAbsent(c.appId(), a -> new ArrayList<>()).add(c));
    partialSince.keySet().retainAll(byJob.keySet());
    List<ContainerView> out = new ArrayList<>();
    byJob.forEach(
        (job, cs) -> {
          long since = partialSince.computeIfAbsent(job, j -> now);
          if (now - since >= settings.partialGangGraceMs()) {
            out.addAll(cs);
          }
        });
    return out;
  }

  /**
   * The notices of drains not announced yet, but for moves still waiting for their job's new
   * workers; call only once the drains are stored.
   */
  List<Action> announceStored(long now, Tally tally) {
    List<Action> out = new ArrayList<>();
    for (Drain d : drains.announce(now, this::moveHold)) {
      if (d.reason() == Reason.MOVE) {
        LOG.info(
            "Aryl moves {} of {} off {}: the job's new workers are allocated",
            d.container(),
            d.app(),
            d.node());
        tally.containersMoved++;
      }
      out.add(new Action.Notice(d.container(), d.app()));
    }
    return out;
  }

  /**
   * The kills of drained containers whose grace is over, if the reason they were asked for still
   * holds; the others' drains are called off.
   *
   * @param minWorkers an application's minimum workers (0 if it is not known any more)
   */
  List<Action> killDue(
      RoundInput input,
      List<NodeView> nodes,
      PlanBook book,
      ToIntFunction<String> minWorkers,
      long now) {
    List<Action> out = new ArrayList<>();
    for (Drain d : drains.due(now)) {
      String why = noLongerNeeded(d, input, nodes, book, minWorkers);
      if (why != null) {
        LOG.info(
            "Aryl drain of {} ({} of {}) cancelled: {}", d.container(), d.reason(), d.app(), why);
        drains.cancel(d.container());
      } else {
        out.add(new Action.Kill(d.container(), d.app()));
      }
    }
    return out;
  }

  void jobFinished(String appId) {
    partialSince.remove(appId);
  }

  /**
   * Null when the drain's reason still holds; else why it no longer does. A worker of a job stopped
   * as a whole always goes: its ApplicationMaster was told that every worker does, and the stop was
   * counted, so neither a node the reclaim does not return (a reclaim stops a job for its workers
   * on the returned nodes and takes the others with them) nor the plan placing the job there again
   * calls it off.
   */
  private String noLongerNeeded(
      Drain d,
      RoundInput input,
      List<NodeView> nodes,
      PlanBook book,
      ToIntFunction<String> minWorkers) {
    if (d.stopsJob()) {
      return null;
    }
    return switch (d.reason()) {
      case RECLAIM -> reclaimStillReturning.test(d) ? null : "its node is no longer being returned";
      case SHRINK, MOVE ->
          book.target(d.app()).workersOn(d.node()) > liveWorkers(input, d.app(), d.node())
              ? "the plan wants the worker again"
              : null;
      case ORPHAN ->
          allWorkers(nodes, d.app()) >= minWorkers.applyAsInt(d.app())
              ? "its job holds its minimum again"
              : null;
    };
  }

  private static int liveWorkers(RoundInput input, String app, String node) {
    return input.workers().getOrDefault(app, Map.of()).getOrDefault(node, List.of()).size();
  }

  private static int allWorkers(List<NodeView> nodes, String app) {
    int n = 0;
    for (NodeView v : nodes) {
      for (ContainerView c : v.containers()) {
        if (c.appId().equals(app) && !c.amContainer()) {
          n++;
        }
      }
    }
    return n;
  }
}
