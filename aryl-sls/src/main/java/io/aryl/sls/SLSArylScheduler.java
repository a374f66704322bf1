package io.aryl.sls;

import io.aryl.yarn.ArylScheduler;
import java.util.List;
import org.apache.hadoop.conf.Configurable;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.api.records.SchedulingRequest;
import org.apache.hadoop.yarn.exceptions.YarnException;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.Allocation;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ContainerUpdates;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CSQueue;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.ResourceCommitRequest;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.SchedulerEvent;
import org.apache.hadoop.yarn.sls.SLSRunner;
import org.apache.hadoop.yarn.sls.scheduler.SLSSchedulerCommons;
import org.apache.hadoop.yarn.sls.scheduler.SchedulerCommonsAccess;
import org.apache.hadoop.yarn.sls.scheduler.SchedulerMetrics;
import org.apache.hadoop.yarn.sls.scheduler.SchedulerWrapper;
import org.apache.hadoop.yarn.sls.scheduler.Tracker;

/**
 * {@link ArylScheduler} as SLS runs it: what {@code SLSCapacityScheduler} is to the Capacity
 * Scheduler. SLS wraps only the exact classes it knows, and casts the RM's scheduler to {@link
 * SchedulerWrapper}; this class is that wrapper for Aryl. Every call goes through SLS's timers and
 * counters (the same {@link SLSSchedulerCommons} the stock wrapper uses, with the Capacity
 * Scheduler's metrics) and then to Aryl unchanged.
 */
public class SLSArylScheduler extends ArylScheduler implements SchedulerWrapper, Configurable {
  private final SLSSchedulerCommons commons = new SLSSchedulerCommons(this);
  private Configuration conf;
  private SLSRunner runner;

  @Override
  public void setConf(Configuration conf) {
    this.conf = conf;
    super.setConf(conf);
    // Aryl is a Capacity Scheduler: SLS's metrics for that class read its queues and nodes.
    commons.initMetrics(CapacityScheduler.class, conf);
  }

  @Override
  public Configuration getConf() {
    return conf;
  }

  @Override
  public Allocation allocate(
      ApplicationAttemptId attemptId,
      List<ResourceRequest> ask,
      List<SchedulingRequest> schedulingRequests,
      List<ContainerId> release,
      List<String> blacklistAdditions,
      List<String> blacklistRemovals,
      ContainerUpdates updateRequests) {
    return commons.allocate(
        attemptId,
        ask,
        schedulingRequests,
        release,
        blacklistAdditions,
        blacklistRemovals,
        updateRequests);
  }

  @Override
  public Allocation allocatePropagated(
      ApplicationAttemptId attemptId,
      List<ResourceRequest> ask,
      List<SchedulingRequest> schedulingRequests,
      List<ContainerId> release,
      List<String> blacklistAdditions,
      List<String> blacklistRemovals,
      ContainerUpdates updateRequests) {
    return super.allocate(
        attemptId,
        ask,
        schedulingRequests,
        release,
        blacklistAdditions,
        blacklistRemovals,
        updateRequests);
  }

  @Override
  public void handle(SchedulerEvent event) {
    commons.handle(event);
  }

  @Override
  public void propagatedHandle(SchedulerEvent event) {
    super.handle(event);
  }

  @Override
  @SuppressWarnings("rawtypes")
  public boolean tryCommit(Resource cluster, ResourceCommitRequest r, boolean updatePending) {
    if (!commons.isMetricsON()) {
      return super.tryCommit(cluster, r, updatePending);
    }
    long startNs = System.nanoTime();
    boolean committed = false;
    try {
      committed = super.tryCommit(cluster, r, updatePending);
      return committed;
    } finally {
      SchedulerCommonsAccess.recordCommit(commons, committed, System.nanoTime() - startNs);
    }
  }

  @Override
  public void serviceStop() throws Exception {
    SchedulerCommonsAccess.stopMetrics(commons);
    super.serviceStop();
  }

  @Override
  public String getRealQueueName(String queue) throws YarnException {
    CSQueue q = getQueue(queue);
    if (q == null) {
      throw new YarnException(
          "the trace names queue '" + queue + "', which capacity-scheduler.xml does not define");
    }
    return q.getQueuePath();
  }

  @Override
  public SchedulerMetrics getSchedulerMetrics() {
    return commons.getSchedulerMetrics();
  }

  @Override
  public Tracker getTracker() {
    return commons.getTracker();
  }

  @Override
  public void setSLSRunner(SLSRunner runner) {
    this.runner = runner;
  }

  @Override
  public SLSRunner getSLSRunner() {
    return runner;
  }
}
