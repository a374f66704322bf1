package io.aryl.yarn;

import io.aryl.core.model.Plan;
import io.aryl.yarn.Drains.Drain;
import io.aryl.yarn.Drains.Reason;
import io.aryl.yarn.round.ContainerView;
import io.aryl.yarn.round.NodeView;
import io.aryl.yarn.round.PlanBook;
import io.aryl.yarn.round.RoundInput;
import io.aryl.yarn.round.ShrinkChooser;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.ContainerPreemptEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.SchedulerEventType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Takes workers back: the plan's shrinks and the workers of gangs left below their minimum become {@link Drains}; a
 * stored drain is announced to its ApplicationMaster (a PreemptionMessage); once its grace is over, and if its reason
 * still holds, the container is killed. Reclaims add their own drains ({@link ReclaimExecutor}); this class tells and
 * kills for them too.
 */
final class DrainExecutor {
  private static final Logger LOG = LoggerFactory.getLogger(DrainExecutor.class);

  private final ArylScheduler scheduler;
  private final ArylSettings settings;
  private final ElasticApps apps;
  private final ArylMetrics metrics;
  private final Drains drains;
  private final Predicate<Drain> reclaimStillReturning;
  /** Since when each job has held fewer workers than its minimum, with nothing planned to complete it. */
  private final Map<String, Long> partialSince = new HashMap<>();

  DrainExecutor(ArylScheduler scheduler, ArylSettings settings, ElasticApps apps, ArylMetrics metrics, Drains drains,
      Predicate<Drain> reclaimStillReturning) {
    this.scheduler = scheduler;
    this.settings = settings;
    this.apps = apps;
    this.metrics = metrics;
    this.drains = drains;
    this.reclaimStillReturning = reclaimStillReturning;
  }

  /** Records the drains this round's plan calls for: workers beyond a target, and partial gangs past their grace. */
  void drainWhatThePlanTakes(RoundInput input, Plan plan, List<NodeView> nodes, long now) {
    Map<String, String> nodeOf = new HashMap<>();
    nodes.forEach(n -> n.containers().forEach(c -> nodeOf.put(c.id(), n.id())));
    List<ContainerView> taken = new ArrayList<>(ShrinkChooser.choose(input, plan));
    int shrinks = taken.size();
    taken.addAll(partialGangsPastGrace(input, now));
    for (int i = 0; i < taken.size(); i++) {
      ContainerView c = taken.get(i);
      Reason why = i < shrinks ? Reason.SHRINK : Reason.ORPHAN;
      if (drains.add(new Drain(c.id(), c.appId(), nodeOf.get(c.id()), now + settings.shrinkGraceMs(), why, 0))) {
        metrics.containersShrunk.incr();
        metrics.gpuSecondsLost.incr(Math.round(c.gpus() * settings.policy().rescaleOverheadS()));
      }
    }
  }

  /**
   * Workers of gangs below their minimum that nothing completes, once that has lasted the grace: a NodeManager that
   * re-registers late, or a worker being replaced, brings the gang back whole before then.
   */
  private List<ContainerView> partialGangsPastGrace(RoundInput input, long now) {
    Map<String, List<ContainerView>> byJob = new TreeMap<>();
    input.orphans().forEach(c -> byJob.computeIfAbsent(c.appId(), a -> new ArrayList<>()).add(c));
    partialSince.keySet().retainAll(byJob.keySet());
    List<ContainerView> out = new ArrayList<>();
    byJob.forEach((job, cs) -> {
      long since = partialSince.computeIfAbsent(job, j -> now);
      if (now - since >= settings.partialGangGraceMs()) {
        out.addAll(cs);
      }
    });
    return out;
  }

  /** Tells ApplicationMasters about drains not announced yet; call only once the drains are stored. */
  void announceStored() {
    for (Drain d : drains.announce()) {
      send(d, SchedulerEventType.MARK_CONTAINER_FOR_PREEMPTION);
    }
  }

  /** Kills drained containers whose grace is over, if the reason they were asked for still holds. */
  void killDue(RoundInput input, List<NodeView> nodes, PlanBook book, long now) {
    for (Drain d : drains.due(now)) {
      String why = noLongerNeeded(d, input, nodes, book);
      if (why != null) {
        LOG.info("Aryl drain of {} ({} of {}) cancelled: {}", d.container(), d.reason(), d.app(), why);
        drains.cancel(d.container());
      } else {
        send(d, SchedulerEventType.MARK_CONTAINER_FOR_KILLABLE);
      }
    }
  }

  void jobFinished(String appId) {
    partialSince.remove(appId);
  }

  /** Null when the drain's reason still holds; else why it no longer does. */
  private String noLongerNeeded(Drain d, RoundInput input, List<NodeView> nodes, PlanBook book) {
    return switch (d.reason()) {
      case RECLAIM -> reclaimStillReturning.test(d) ? null : "its node is no longer being returned";
      case SHRINK -> book.target(d.app()).workersOn(d.node()) > liveWorkers(input, d.app(), d.node())
          ? "the plan wants the worker again" : null;
      case ORPHAN -> allWorkers(nodes, d.app()) >= apps.get(d.app()).map(a -> a.shape.minWorkers()).orElse(0)
          ? "its job holds its minimum again" : null;
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

  private void send(Drain d, SchedulerEventType type) {
    RMContainer rc = scheduler.getRMContainer(ContainerId.fromString(d.container()));
    if (rc != null) {
      scheduler.getRMContext().getDispatcher().getEventHandler().handle(new ContainerPreemptEvent(
          rc.getApplicationAttemptId(), rc, type));
    }
  }
}
