package io.aryl.yarn.rm;

import io.aryl.yarn.engine.Action;
import io.aryl.yarn.engine.Outcome;
import io.aryl.yarn.engine.RoundEngine;
import io.aryl.yarn.engine.Tally;
import java.io.IOException;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.attempt.RMAppAttempt;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerNode;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.ContainerPreemptEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.SchedulerEventType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries the engine's actions out on the ResourceManager, and counts what its outcomes say in the
 * metrics: a notice is a PreemptionMessage to the container's ApplicationMaster, a kill completes
 * the container (exit status -102), a relabel goes to the label manager (only on a node with
 * nothing on it), a diagnostic to the application's current attempt. It decides nothing.
 */
final class ActionApplier {
  private static final Logger LOG = LoggerFactory.getLogger(ActionApplier.class);

  private final CapacityScheduler scheduler;
  private final RoundEngine engine;
  private final ArylMetrics metrics;
  private final Function<String, FiCaSchedulerNode> nodeNamed;

  ActionApplier(
      CapacityScheduler scheduler,
      RoundEngine engine,
      ArylMetrics metrics,
      Function<String, FiCaSchedulerNode> nodeNamed) {
    this.scheduler = scheduler;
    this.engine = engine;
    this.metrics = metrics;
    this.nodeNamed = nodeNamed;
  }

  /**
   * Carries out the outcome's notices, kills, relabels and diagnostics, and counts what it says.
   *
   * @return the applications whose grants are to be handed to the Capacity Scheduler now
   */
  Set<String> apply(Outcome outcome, long now) {
    Set<String> granted = new LinkedHashSet<>();
    for (Action a : outcome.actions()) {
      if (a instanceof Action.Grant g) {
        granted.add(g.appId());
      } else if (a instanceof Action.Notice n) {
        preempt(n.containerId(), SchedulerEventType.MARK_CONTAINER_FOR_PREEMPTION);
      } else if (a instanceof Action.Kill k) {
        preempt(k.containerId(), SchedulerEventType.MARK_CONTAINER_FOR_KILLABLE);
      } else if (a instanceof Action.Relabel r) {
        relabel(r, now);
      } else if (a instanceof Action.Diagnose d) {
        diagnose(d.appId(), d.message());
      }
    }
    count(outcome.tally());
    Outcome.Gauges g = outcome.gauges();
    metrics.loanedNodes.set(g.loanedNodes());
    metrics.loanedGpus.set(g.loanedGpus());
    metrics.reclaimsInFlight.set(g.reclaimsInFlight());
    metrics.recovering.set(g.recovering() ? 1 : 0);
    if (g.recoveryWaitMs() >= 0) {
      metrics.recoveryWaitMs.set(g.recoveryWaitMs());
    }
    return granted;
  }

  private void count(Tally t) {
    metrics.containersShrunk.incr(t.containersShrunk());
    metrics.containersPreempted.incr(t.containersPreempted());
    metrics.containersMoved.incr(t.containersMoved());
    metrics.gpuSecondsLost.incr(t.gpuSecondsLost());
    metrics.reclaimsStarted.incr(t.reclaimsStarted());
    metrics.reclaimsFinished.incr(t.reclaimsFinished());
    metrics.reclaimsLate.incr(t.reclaimsLate());
    t.reclaimDurationsMs().forEach(metrics.reclaimDuration::add);
  }

  private void preempt(String containerId, SchedulerEventType type) {
    RMContainer rc = scheduler.getRMContainer(ContainerId.fromString(containerId));
    if (rc != null) {
      scheduler
          .getRMContext()
          .getDispatcher()
          .getEventHandler()
          .handle(new ContainerPreemptEvent(rc.getApplicationAttemptId(), rc, type));
    }
  }

  /**
   * Relabels the node, but only when the scheduler itself says nothing runs or is reserved there
   * now (the round read it a moment ago): relabelling does not stop what runs on a node, it would
   * only charge it to the other pool.
   */
  private void relabel(Action.Relabel r, long now) {
    FiCaSchedulerNode node = nodeNamed.apply(r.node());
    if (node == null || node.getNumContainers() > 0 || node.getReservedContainer() != null) {
      return; // gone, or busy again since the round read it: the next round sees it as it is
    }
    if (!r.label().equals(node.getPartition())) {
      try {
        scheduler
            .getRMContext()
            .getNodeLabelManager()
            .replaceLabelsOnNode(Map.of(node.getNodeID(), Set.of(r.label())));
      } catch (IOException e) {
        LOG.warn(
            "Aryl: relabelling {} {} failed, will retry: {}", r.node(), r.label(), e.toString());
        return;
      }
    }
    count(engine.relabelled(r.node(), r.label(), now));
  }

  /**
   * Sets the message where YARN keeps a running attempt's diagnostics; a message is never worth a
   * round.
   */
  private void diagnose(String appId, String message) {
    try {
      RMApp app = scheduler.getRMContext().getRMApps().get(ApplicationId.fromString(appId));
      RMAppAttempt attempt = app == null ? null : app.getCurrentAppAttempt();
      if (attempt != null) {
        attempt.updateAMLaunchDiagnostics(message);
      }
    } catch (RuntimeException e) {
      LOG.warn("Aryl could not update the diagnostics of {}: {}", appId, e.toString());
    }
  }
}
