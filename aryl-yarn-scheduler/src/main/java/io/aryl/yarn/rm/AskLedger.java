package io.aryl.yarn.rm;

import io.aryl.core.job.JobShape;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceInformation;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.ResourceCommitRequest;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.SchedulerContainer;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerApp;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerNode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What each elastic application's ApplicationMaster asks for, kept as the Capacity Scheduler keeps
 * its own pending asks ({@link ElasticApps.App#asks}): the last worker asks it sent, less the
 * workers allocated against them since. A round plans from these; a heartbeat grants from them.
 *
 * <ul>
 *   <li>{@link #record}: a heartbeat's asks replace the ones kept, less the workers allocated and
 *       not yet handed to the ApplicationMaster, which it still counts as asked for;
 *   <li>{@link #allocating}: a commit's workers leave their ask before it is committed, and come
 *       back if it is not ({@link AllocatingWorkers#ended});
 *   <li>{@link #handedOver}: workers handed to the ApplicationMaster no longer count against its
 *       asks.
 * </ul>
 *
 * <p>Every change is made under the application's monitor; the asks themselves are swapped whole,
 * since rounds read them without it.
 */
final class AskLedger {
  private static final Logger LOG = LoggerFactory.getLogger(AskLedger.class);

  private final ElasticApps apps;

  AskLedger(ElasticApps apps) {
    this.apps = apps;
  }

  /**
   * Keeps the worker asks of an ApplicationMaster's heartbeat: those at {@link ResourceRequest#ANY}
   * (its node and rack asks are dropped: the plan places workers), held to the job's shape. The
   * caller holds the application's monitor.
   *
   * @return whether an ask is new or changed its count: new demand for the rounds
   */
  boolean record(ElasticApps.App app, FiCaSchedulerApp attempt, List<ResourceRequest> ask) {
    boolean changed = false;
    for (ResourceRequest rr : ask) {
      if (ResourceRequest.ANY.equals(rr.getResourceName())) {
        // The ApplicationMaster still counts workers allocated but not yet handed to it as asked
        // for.
        ResourceRequest outstanding = ResourceRequest.clone(rr);
        holdToShape(app, outstanding);
        outstanding.setNumContainers(
            Math.max(
                0,
                rr.getNumContainers()
                    - app.unseen.getOrDefault(
                        unseenKey(attempt, rr.getPriority(), rr.getAllocationRequestId()), 0)));
        ResourceRequest before = app.asks.put(askKey(rr), outstanding);
        changed |= before == null || before.getNumContainers() != outstanding.getNumContainers();
      }
    }
    return changed;
  }

  /**
   * Takes the workers a commit request allocates out of their application's asks before it is
   * committed, as the Capacity Scheduler takes them out of its own pending asks. Without this an
   * ask kept counting workers already allocated until the ApplicationMaster's next heartbeat: a
   * round in between planned the job that many workers more, and pushed the grant at once, so that
   * a node heartbeat could allocate workers nobody asked for (which the ApplicationMaster hands
   * back) and the next gang was planned around them. Until {@link AllocatingWorkers#ended} the
   * workers count as {@linkplain ElasticApps.App#askedOrAllocating() being allocated}, so that a
   * round reading across the commit does not see them in neither the asks nor the nodes.
   */
  AllocatingWorkers allocating(ResourceCommitRequest<FiCaSchedulerApp, FiCaSchedulerNode> request) {
    AllocatingWorkers allocating = new AllocatingWorkers();
    if (request.getContainersToAllocate() == null) {
      return allocating;
    }
    for (var proposal : request.getContainersToAllocate()) {
      SchedulerContainer<FiCaSchedulerApp, FiCaSchedulerNode> sc =
          proposal.getAllocatedOrReservedContainer();
      FiCaSchedulerApp attempt = sc.getSchedulerApplicationAttempt();
      ElasticApps.App app = apps.get(attempt.getApplicationId().toString()).orElse(null);
      if (app == null || attempt.isWaitingForAMContainer() || sc.getRmContainer() == null) {
        continue;
      }
      Container c = sc.getRmContainer().getContainer();
      synchronized (app) {
        for (Map.Entry<String, ResourceRequest> e : app.asks.entrySet()) {
          ResourceRequest rr = e.getValue();
          if (rr.getNumContainers() > 0
              && rr.getPriority().equals(c.getPriority())
              && rr.getAllocationRequestId() == c.getAllocationRequestId()) {
            String key = e.getKey();
            String unseen = unseenKey(attempt, c.getPriority(), c.getAllocationRequestId());
            app.allocationStarted(); // before it leaves the ask: a round reads the asks first
            app.addToAsk(key, -1);
            app.unseen.merge(unseen, 1, Integer::sum);
            allocating.add(app, key, unseen);
            break;
          }
        }
      }
    }
    return allocating;
  }

  /**
   * The ApplicationMaster was handed these containers: its asks from now on no longer count them.
   */
  void handedOver(FiCaSchedulerApp attempt, List<Container> containers) {
    ElasticApps.App app = apps.get(attempt.getApplicationId().toString()).orElse(null);
    if (app == null || containers == null || containers.isEmpty()) {
      return;
    }
    synchronized (app) {
      for (Container c : containers) {
        app.dropUnseen(unseenKey(attempt, c.getPriority(), c.getAllocationRequestId()));
      }
    }
  }

  /**
   * A worker container is never larger in GPUs than the job's declared {@code
   * aryl.gpus-per-worker}: the caps and the plan count that, so an ApplicationMaster asking for
   * more gets containers of the declared size.
   */
  private static void holdToShape(ElasticApps.App app, ResourceRequest rr) {
    int declared = app.shape.gpusPerWorker();
    int asked = RmReader.gpus(rr.getCapability());
    if (asked <= declared) {
      return;
    }
    Resource held = Resource.newInstance(rr.getCapability());
    held.setResourceValue(ResourceInformation.GPU_URI, declared);
    rr.setCapability(held);
    if (!app.oversizeLogged) {
      app.oversizeLogged = true;
      LOG.warn(
          "Aryl: {} asks for {}-GPU containers but declared {}={}: its containers get {} GPU(s)",
          app.id,
          asked,
          JobShape.GPUS_PER_WORKER,
          declared,
          declared);
    }
  }

  /** The key of the workers allocated and not yet handed over, by attempt, priority and request. */
  private static String unseenKey(
      FiCaSchedulerApp attempt, Priority priority, long allocationRequestId) {
    return attempt.getApplicationAttemptId()
        + "/"
        + priority.getPriority()
        + "/"
        + allocationRequestId;
  }

  /** The key of an ask: the ApplicationMaster's asks differ by priority, request id and size. */
  private static String askKey(ResourceRequest rr) {
    return rr.getPriority().getPriority()
        + "/"
        + rr.getAllocationRequestId()
        + "/"
        + rr.getCapability();
  }
}
