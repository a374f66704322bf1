package io.aryl.sls;

import io.aryl.core.job.JobShape;
import java.security.PrivilegedExceptionAction;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.security.token.Token;
import org.apache.hadoop.yarn.api.protocolrecords.AllocateRequest;
import org.apache.hadoop.yarn.api.protocolrecords.AllocateResponse;
import org.apache.hadoop.yarn.api.protocolrecords.GetNewApplicationRequest;
import org.apache.hadoop.yarn.api.protocolrecords.SubmitApplicationRequest;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ApplicationSubmissionContext;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ContainerExitStatus;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.ContainerLaunchContext;
import org.apache.hadoop.yarn.api.records.ContainerStatus;
import org.apache.hadoop.yarn.api.records.ExecutionType;
import org.apache.hadoop.yarn.api.records.PreemptionMessage;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.ReservationId;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.security.AMRMTokenIdentifier;
import org.apache.hadoop.yarn.server.resourcemanager.ResourceManager;
import org.apache.hadoop.yarn.sls.AMDefinition;
import org.apache.hadoop.yarn.sls.SLSRunner;
import org.apache.hadoop.yarn.sls.appmaster.AMSimulator;
import org.apache.hadoop.yarn.sls.scheduler.ContainerSimulator;
import org.apache.hadoop.yarn.util.Records;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An elastic Aryl job in SLS (written as {@link SlsJobFormat} describes). It submits with the job's
 * shape in its application tags, as the {@code yarn jar} client does, asks for its maximum workers
 * and holds what it is given; it trains only while its base gang is whole ({@link ElasticWork}); it
 * gives back at once every worker a PreemptionMessage names and asks for it again; it releases
 * everything when its work is done.
 *
 * <p>The same AM runs under the stock Capacity Scheduler, which ignores the tags: a fair comparison
 * of one workload.
 */
public class ArylAmSimulator extends AMSimulator {
  private static final Logger LOG = LoggerFactory.getLogger(ArylAmSimulator.class);
  private static final int WORKER_PRIORITY = 20;

  /** Workers run until the job releases them or the RM takes them: longer than any simulation. */
  private static final long WORKER_LIFETIME_MS = 30L * 86_400_000L;

  private final Map<ContainerId, Container> held = new LinkedHashMap<>();
  private String user;
  private String labelExpression;
  private Resource amResource;
  private long baselineMs;
  private Map<ApplicationId, AMSimulator> appIdToSimulator;
  private JobShape shape;
  private Resource workerResource;
  private ElasticWork work;
  private long lastProgressMs = -1;
  private int askedFor = -1;
  private boolean finished;
  private long submittedMs = -1;
  private long amStartedMs = -1;
  private long baseStartedMs = -1;
  private long finishedMs = -1;
  private int mostHeld;
  private int givenBack;

  @Override
  @SuppressWarnings("checkstyle:parameternumber")
  public void init(
      AMDefinition amDef,
      ResourceManager rm,
      SLSRunner slsRunner,
      boolean tracked,
      long baselineTimeMS,
      long heartbeatInterval,
      Map<ApplicationId, AMSimulator> appIdToAMSim) {
    super.init(amDef, rm, slsRunner, tracked, baselineTimeMS, heartbeatInterval, appIdToAMSim);
    amtype = SlsJobFormat.AM_TYPE;
    user = amDef.getUser();
    labelExpression = amDef.getLabelExpression();
    amResource = amDef.getAmResource();
    baselineMs = baselineTimeMS;
    appIdToSimulator = appIdToAMSim;
    int base = 0;
    int flexible = 0;
    long runtimeMs = 0;
    for (ContainerSimulator c : amDef.getTaskContainers()) {
      if (SlsJobFormat.FLEXIBLE.equals(c.getType())) {
        flexible++;
      } else {
        base++;
        runtimeMs = Math.max(runtimeMs, c.getLifeTime());
      }
      workerResource = c.getResource();
    }
    int gpus = (int) workerResource.getResourceValue(SlsJobFormat.GPU);
    shape =
        new JobShape(base, base + flexible, Math.max(1, gpus), Math.max(1, runtimeMs) / 1000.0, "");
    work = new ElasticWork(base, base + flexible, runtimeMs);
    totalContainers = base + flexible;
  }

  /**
   * Submits with the shape's tags (SLS's own submission has none), then waits for the AM container
   * like SLS does.
   */
  @Override
  public void firstStep() throws Exception {
    simulateStartTimeMS = System.currentTimeMillis() - baselineMs;
    submittedMs = simulateStartTimeMS;
    appId =
        rm.getClientRMService()
            .getNewApplication(Records.newRecord(GetNewApplicationRequest.class))
            .getApplicationId();
    ApplicationSubmissionContext context = Records.newRecord(ApplicationSubmissionContext.class);
    context.setApplicationId(appId);
    context.setApplicationName(oldAppId == null ? "aryl-sls" : oldAppId);
    context.setApplicationType("ARYL");
    context.setApplicationTags(shape.toTags());
    context.setMaxAppAttempts(1);
    context.setQueue(queue);
    context.setPriority(Priority.newInstance(0));
    context.setAMContainerSpec(
        ContainerLaunchContext.newInstance(
            new HashMap<>(),
            new HashMap<>(),
            new ArrayList<>(),
            new HashMap<>(),
            null,
            new HashMap<>()));
    context.setResource(amResource);
    if (labelExpression != null) {
      context.setNodeLabelExpression(labelExpression);
    }
    SubmitApplicationRequest request = Records.newRecord(SubmitApplicationRequest.class);
    request.setApplicationSubmissionContext(context);
    UserGroupInformation.createRemoteUser(user)
        .doAs(
            (PrivilegedExceptionAction<Object>)
                () -> rm.getClientRMService().submitApplication(request));
    appIdToSimulator.put(appId, this);
    SlsJobLog.add(this);
    LOG.info("Submitted {} ({}) with {}", appId, oldAppId, shape.toTags());
  }

  @Override
  public synchronized void notifyAMContainerLaunched(Container masterContainer) throws Exception {
    super.notifyAMContainerLaunched(masterContainer);
    amStartedMs = System.currentTimeMillis() - baselineMs;
  }

  @Override
  protected synchronized void processResponseQueue() throws Exception {
    long now = System.currentTimeMillis() - baselineMs;
    if (lastProgressMs >= 0) {
      work.advance(now - lastProgressMs, held.size());
    }
    lastProgressMs = now;
    while (!responseQueue.isEmpty()) {
      AllocateResponse response = responseQueue.take();
      for (ContainerStatus s : response.getCompletedContainersStatuses()) {
        if (held.remove(s.getContainerId()) != null
            && s.getExitStatus() == ContainerExitStatus.PREEMPTED) {
          givenBack++;
        }
      }
      for (Container c : response.getAllocatedContainers()) {
        held.put(c.getId(), c);
        se.getNmMap().get(c.getNodeId()).addNewContainer(c, WORKER_LIFETIME_MS, appId);
        getRanNodes().add(c.getNodeId());
      }
      giveBack(response.getPreemptionMessage());
    }
    mostHeld = Math.max(mostHeld, held.size());
    if (baseStartedMs < 0 && work.working(held.size()) > 0) {
      baseStartedMs = now;
    }
    if (!finished && work.done()) {
      finished = true;
      finishedMs = now;
    }
  }

  /** Workers a PreemptionMessage names leave now, before the scheduler has to kill them. */
  private final List<ContainerId> toRelease = new ArrayList<>();

  private void giveBack(PreemptionMessage message) {
    if (message == null) {
      return;
    }
    List<ContainerId> named = new ArrayList<>();
    if (message.getStrictContract() != null) {
      message.getStrictContract().getContainers().forEach(c -> named.add(c.getId()));
    }
    if (message.getContract() != null) {
      message.getContract().getContainers().forEach(c -> named.add(c.getId()));
    }
    for (ContainerId id : named) {
      if (held.remove(id) != null) {
        toRelease.add(id);
        givenBack++;
      }
    }
  }

  @Override
  protected synchronized void sendContainerRequest() throws Exception {
    List<ResourceRequest> ask = new ArrayList<>();
    List<ContainerId> release = new ArrayList<>(toRelease);
    toRelease.clear();
    int wanted = finished ? 0 : shape.maxWorkers() - held.size();
    if (wanted != askedFor) {
      // An ask is the total outstanding at this priority and size: the job always wants its
      // maximum.
      ask.add(
          createResourceRequest(
              workerResource,
              ExecutionType.GUARANTEED,
              ResourceRequest.ANY,
              WORKER_PRIORITY,
              0,
              wanted));
      askedFor = wanted;
    }
    if (finished) {
      release.addAll(held.keySet());
      held.clear();
    }
    AllocateRequest request = createAllocateRequest(ask, release);
    request.setProgress(
        finished ? 1f : (float) Math.min(1, mostHeld / (double) Math.max(1, totalContainers)));
    Token<AMRMTokenIdentifier> token =
        rm.getRMContext().getRMApps().get(appId).getRMAppAttempt(appAttemptId).getAMRMToken();
    UserGroupInformation ugi = UserGroupInformation.createRemoteUser(appAttemptId.toString());
    ugi.addTokenIdentifier(token.decodeIdentifier());
    AllocateResponse response =
        ugi.doAs(
            (PrivilegedExceptionAction<AllocateResponse>)
                () -> rm.getApplicationMasterService().allocate(request));
    if (response != null) {
      responseQueue.put(response);
    }
  }

  @Override
  public void initReservation(ReservationId reservationId, long deadline, long now) {
    setReservationRequest(null);
  }

  @Override
  protected synchronized void checkStop() {
    if (finished && held.isEmpty() && toRelease.isEmpty()) {
      setEndTime(System.currentTimeMillis());
    }
  }

  /** What became of this job so far. */
  synchronized SlsJobRecord record() {
    return new SlsJobRecord(
        appId == null ? "" : appId.toString(),
        oldAppId,
        shape.minWorkers(),
        shape.maxWorkers(),
        shape.gpusPerWorker(),
        submittedMs,
        amStartedMs,
        baseStartedMs,
        finishedMs,
        mostHeld,
        givenBack);
  }
}
