package io.aryl.yarn.rm;

import io.aryl.core.job.JobShape;
import java.util.Optional;
import java.util.function.Supplier;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.exceptions.YarnException;
import org.apache.hadoop.yarn.server.resourcemanager.RMContext;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMAppEvent;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMAppEventType;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.AppAddedSchedulerEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where an application's elastic shape (its {@code aryl.} tags) meets the ResourceManager: a
 * submission's shape is read, checked against its queue's caps ({@link SubmissionCheck}) and
 * registered in {@link ElasticApps}, or the application is rejected with the reason; a move to
 * another queue meets that queue's caps as a submission would.
 */
final class SubmissionAdmission {
  private static final Logger LOG = LoggerFactory.getLogger(SubmissionAdmission.class);

  private final Supplier<RMContext> rm;
  private final ElasticApps apps;
  private final SubmissionCheck check;

  SubmissionAdmission(Supplier<RMContext> rm, ElasticApps apps, SubmissionCheck check) {
    this.rm = rm;
    this.apps = apps;
    this.check = check;
  }

  /**
   * Reads the elastic shape from the tags of an added application; an invalid shape, or one over
   * its queue's caps, rejects the application with the reason.
   *
   * @return false if the application was rejected: the Capacity Scheduler must not add it
   */
  boolean admit(AppAddedSchedulerEvent event) {
    ApplicationId id = event.getApplicationId();
    RMApp app = rm.get().getRMApps().get(id);
    if (app == null) {
      return true;
    }
    try {
      JobShape.fromTags(app.getApplicationTags())
          .ifPresent(
              shape -> {
                if (!event.getIsAppRecovering()) {
                  check.checkFits(shape, addedQueue(event));
                }
                apps.register(id.toString(), shape, app.getSubmitTime());
              });
      return true;
    } catch (IllegalArgumentException e) {
      if (event.getIsAppRecovering()) {
        // Accepted once and running now: a restart never rejects it. Scheduled as a plain
        // application instead.
        LOG.warn(
            "Aryl: recovered application {} has an elastic shape this version refuses ({}); it is scheduled"
                + " as a plain application",
            id,
            e.getMessage());
        return true;
      }
      LOG.info("Aryl rejected {}: {}", id, e.getMessage());
      rm.get()
          .getDispatcher()
          .getEventHandler()
          .handle(new RMAppEvent(id, RMAppEventType.APP_REJECTED, e.getMessage()));
      return false;
    }
  }

  /**
   * A move to another queue ({@code yarn application -movetoqueue}) meets that queue's caps: else a
   * job could be submitted where its shape is allowed and moved where it is not.
   *
   * @throws YarnException naming the application, the queue and the cap its shape is over
   */
  void checkMove(ApplicationId appId, String newQueue) throws YarnException {
    RMApp app = rm.get().getRMApps().get(appId);
    if (app == null) {
      return;
    }
    Optional<String> why;
    try {
      why =
          JobShape.fromTags(app.getApplicationTags())
              .flatMap(s -> check.refusalToMove(s, newQueue));
    } catch (IllegalArgumentException e) {
      return; // its tags were refused at submission, or it was recovered as a plain application:
      // not Aryl's to judge
    }
    if (why.isPresent()) {
      throw new YarnException(
          "Aryl: cannot move "
              + appId
              + " to queue "
              + check.queuePath(newQueue)
              + ": "
              + why.get());
    }
  }

  /**
   * The queue a submission goes to, as the Capacity Scheduler reads it: a mapping rule's placement
   * when there is one (the submission context may then hold the leaf's name only), else the queue
   * submitted to.
   */
  static String addedQueue(AppAddedSchedulerEvent event) {
    var placement = event.getPlacementContext();
    if (placement != null && placement.getQueue() != null) {
      return placement.hasParentQueue()
          ? placement.getParentQueue() + "." + placement.getQueue()
          : placement.getQueue();
    }
    return event.getQueue();
  }
}
