package io.aryl.it;

import java.security.PrivilegedExceptionAction;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.security.token.Token;
import org.apache.hadoop.yarn.api.protocolrecords.AllocateResponse;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ApplicationReport;
import org.apache.hadoop.yarn.api.records.ApplicationSubmissionContext;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.ContainerLaunchContext;
import org.apache.hadoop.yarn.api.records.ContainerStatus;
import org.apache.hadoop.yarn.api.records.FinalApplicationStatus;
import org.apache.hadoop.yarn.api.records.PreemptionContainer;
import org.apache.hadoop.yarn.api.records.PreemptionMessage;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.YarnApplicationAttemptState;
import org.apache.hadoop.yarn.api.records.YarnApplicationState;
import org.apache.hadoop.yarn.client.ClientRMProxy;
import org.apache.hadoop.yarn.client.api.AMRMClient;
import org.apache.hadoop.yarn.client.api.NMClient;
import org.apache.hadoop.yarn.client.api.NMTokenCache;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.security.AMRMTokenIdentifier;

/**
 * A training job driven from the test: an unmanaged ApplicationMaster that registers with the real
 * RM, asks for its workers (1 vcore, 128 MB, G GPUs each) and heartbeats on its own thread. It
 * holds what it is given and, when {@code cooperative}, gives workers back as soon as a
 * PreemptionMessage names them.
 *
 * <p>On a cluster that recovers across ResourceManager restarts ({@link
 * ArylMiniCluster#recovering}) it also launches each worker (a {@code sleep}) on its NodeManager: a
 * restarted or new RM learns of a container only from the NodeManager running it, and an allocated
 * container nobody launched is not running anywhere. Elsewhere the workers are held unlaunched,
 * which is all the scheduler sees.
 */
public final class TestJob implements AutoCloseable {
  private final ArylMiniCluster cluster;
  private final ApplicationId appId;
  private final int gpusPerWorker;
  private final boolean cooperative;
  private final Map<ContainerId, Container> held = new ConcurrentHashMap<>();
  private final List<Integer> observedCounts = new CopyOnWriteArrayList<>();
  private final Set<ContainerId> preemptionNotices = ConcurrentHashMap.newKeySet();
  private final List<ContainerStatus> completed = new CopyOnWriteArrayList<>();

  /** Workers asked for and not yet received. */
  private final AtomicInteger outstanding = new AtomicInteger();

  private final AtomicBoolean running = new AtomicBoolean(true);

  /** Every worker the job was given, in order. */
  private final List<Container> received = new CopyOnWriteArrayList<>();

  private final List<String> launchFailures = new CopyOnWriteArrayList<>();

  /**
   * This job's own NM tokens: the shared default cache keeps one token per node, whichever job it
   * came from.
   */
  private final NMTokenCache nmTokens = new NMTokenCache();

  private AMRMClient<AMRMClient.ContainerRequest> am;

  /** Launches the workers; null when they are not launched. */
  private NMClient nm;

  private UserGroupInformation ugi;
  private Thread heartbeat;

  private TestJob(
      ArylMiniCluster cluster, ApplicationId appId, int gpusPerWorker, boolean cooperative) {
    this.cluster = cluster;
    this.appId = appId;
    this.gpusPerWorker = gpusPerWorker;
    this.cooperative = cooperative;
  }

  /**
   * Submits an application with these tags to the queue and returns it once its AM is registered.
   */
  public static TestJob submit(
      ArylMiniCluster cluster,
      String name,
      String queue,
      Set<String> tags,
      int gpusPerWorker,
      boolean cooperative)
      throws Exception {
    ApplicationId id = submitOnly(cluster, name, queue, tags);
    TestJob job = new TestJob(cluster, id, gpusPerWorker, cooperative);
    job.register();
    return job;
  }

  /** Submits only; for applications expected to be rejected. */
  public static ApplicationId submitOnly(
      ArylMiniCluster cluster, String name, String queue, Set<String> tags) throws Exception {
    YarnClient client = cluster.client();
    ApplicationSubmissionContext ctx = unmanagedApplication(client, name, queue, tags);
    client.submitApplication(ctx);
    return ctx.getApplicationId();
  }

  /**
   * A new application of this client's with an unmanaged AM (this test registers for it), not yet
   * submitted.
   */
  static ApplicationSubmissionContext unmanagedApplication(
      YarnClient client, String name, String queue, Set<String> tags) throws Exception {
    ApplicationSubmissionContext ctx = client.createApplication().getApplicationSubmissionContext();
    ctx.setApplicationName(name);
    ctx.setQueue(queue);
    ctx.setUnmanagedAM(true);
    ctx.setApplicationTags(tags);
    ctx.setResource(Resource.newInstance(128, 1));
    ctx.setAMContainerSpec(
        ContainerLaunchContext.newInstance(Map.of(), Map.of(), List.of(), null, null, null));
    return ctx;
  }

  /** Tags of an elastic job. */
  public static Set<String> shape(int min, int max, int gpus, long runtimeS) {
    return new TreeSet<>(
        Set.of(
            "aryl.min-workers=" + min,
            "aryl.max-workers=" + max,
            "aryl.gpus-per-worker=" + gpus,
            "aryl.predicted-runtime-s=" + runtimeS));
  }

  private void register() throws Exception {
    ArylMiniCluster.await(
        appId + " attempt launched",
        Duration.ofSeconds(30),
        () -> {
          try {
            ApplicationReport r = cluster.client().getApplicationReport(appId);
            return r.getYarnApplicationState() == YarnApplicationState.ACCEPTED
                && cluster
                        .client()
                        .getApplicationAttemptReport(r.getCurrentApplicationAttemptId())
                        .getYarnApplicationAttemptState()
                    == YarnApplicationAttemptState.LAUNCHED;
          } catch (Exception e) {
            return false;
          }
        });
    Token<AMRMTokenIdentifier> token = cluster.client().getAMRMToken(appId);
    token.setService(ClientRMProxy.getAMRMTokenService(cluster.conf()));
    ugi = UserGroupInformation.createRemoteUser(appId.toString());
    ugi.addToken(token);
    am =
        ugi.doAs(
            (PrivilegedExceptionAction<AMRMClient<AMRMClient.ContainerRequest>>)
                () -> {
                  AMRMClient<AMRMClient.ContainerRequest> c = AMRMClient.createAMRMClient();
                  c.setNMTokenCache(nmTokens);
                  c.init(new YarnConfiguration(cluster.conf()));
                  c.start();
                  c.registerApplicationMaster("localhost", 0, "");
                  return c;
                });
    if (cluster.recovering()) {
      nm = NMClient.createNMClient();
      nm.setNMTokenCache(nmTokens);
      nm.init(new YarnConfiguration(cluster.conf()));
      nm.cleanupRunningContainersOnStop(false); // the RM stops them with the application
      nm.start();
    }
    heartbeat = new Thread(this::loop, "am-" + appId);
    heartbeat.setDaemon(true);
    heartbeat.start();
  }

  /** Asks for n more workers. */
  public void askWorkers(int n) {
    // One lock with the heartbeat (AMRMClientImpl snapshots its asks under its own lock): all n go
    // in one heartbeat.
    synchronized (am) {
      outstanding.addAndGet(n);
      for (int i = 0; i < n; i++) {
        am.addContainerRequest(
            new AMRMClient.ContainerRequest(
                Resource.newInstance(128, 1, Map.of("yarn.io/gpu", (long) gpusPerWorker)),
                null,
                null,
                Priority.newInstance(1)));
      }
    }
  }

  /**
   * Asks for n more workers in one ask: no heartbeat sends part of them. (AMRMClientImpl snapshots
   * its asks under its own lock, which addContainerRequest also takes.) With {@link #askWorkers} a
   * heartbeat may carry only the first few, and a job admitted at that width may find growing to
   * the rest not worth a re-scale.
   */
  public void askWorkersAtOnce(int n) {
    synchronized (am) {
      askWorkers(n);
    }
  }

  private void loop() {
    while (running.get()) {
      try {
        AllocateResponse r =
            ugi.doAs((PrivilegedExceptionAction<AllocateResponse>) () -> am.allocate(0.1f));
        for (Container c : r.getAllocatedContainers()) {
          if (outstanding.getAndUpdate(v -> Math.max(0, v - 1)) == 0) {
            // More than asked for (an ask raced an allocation): a well-behaved AM hands the surplus
            // back.
            am.releaseAssignedContainer(c.getId());
            continue;
          }
          held.put(c.getId(), c);
          received.add(c);
          am.removeContainerRequest(
              new AMRMClient.ContainerRequest(c.getResource(), null, null, c.getPriority()));
          launch(c);
        }
        for (ContainerStatus s : r.getCompletedContainersStatuses()) {
          held.remove(s.getContainerId());
          completed.add(s);
        }
        PreemptionMessage pm = r.getPreemptionMessage();
        if (pm != null) {
          List<ContainerId> named = new ArrayList<>();
          if (pm.getStrictContract() != null) {
            pm.getStrictContract().getContainers().forEach(pc -> named.add(pc.getId()));
          }
          if (pm.getContract() != null) {
            for (PreemptionContainer pc : pm.getContract().getContainers()) {
              named.add(pc.getId());
            }
          }
          preemptionNotices.addAll(named);
          if (cooperative) {
            for (ContainerId id : named) {
              if (held.remove(id) != null) {
                am.releaseAssignedContainer(id);
              }
            }
          }
        }
        int n = held.size();
        observedCounts.add(n);
        Thread.sleep(100);
      } catch (InterruptedException e) {
        return;
      } catch (Exception e) {
        if (running.get()) {
          observedCounts.add(-1);
        }
        try {
          Thread.sleep(100);
        } catch (InterruptedException ie) {
          return;
        }
      }
    }
  }

  private void launch(Container c) {
    if (nm == null) {
      return;
    }
    try {
      nm.startContainer(
          c,
          ContainerLaunchContext.newInstance(
              Map.of(), Map.of(), List.of("sleep 600"), null, null, null));
    } catch (Exception e) {
      launchFailures.add(c.getId() + " on " + c.getNodeId() + ": " + e);
    }
  }

  public ApplicationId id() {
    return appId;
  }

  /** Workers held now. */
  public int workers() {
    return held.size();
  }

  /** Workers held per node name (host:port). */
  public Map<String, Integer> workersByNode() {
    Map<String, Integer> out = new java.util.TreeMap<>();
    held.values().forEach(c -> out.merge(c.getNodeId().toString(), 1, Integer::sum));
    return out;
  }

  /** Every worker the job was given, in order, whatever became of it. */
  public List<Container> received() {
    return List.copyOf(received);
  }

  /** Workers that could not be launched on their NodeManager, with why. */
  public List<String> launchFailures() {
    return List.copyOf(launchFailures);
  }

  /**
   * Every count of workers held seen after a heartbeat so far, in order: a copy, since the
   * heartbeat thread goes on adding (a subList of the live list threw
   * ConcurrentModificationException once it did).
   */
  public List<Integer> observedCounts() {
    return List.copyOf(observedCounts);
  }

  public Set<ContainerId> preemptionNotices() {
    return Set.copyOf(preemptionNotices);
  }

  public List<ContainerStatus> completed() {
    return List.copyOf(completed);
  }

  /** Unregisters as succeeded; its workers are released with it. */
  public void finish() throws Exception {
    if (!running.getAndSet(false)) {
      return;
    }
    heartbeat.interrupt();
    heartbeat.join(5000);
    ugi.doAs(
        (PrivilegedExceptionAction<Void>)
            () -> {
              am.unregisterApplicationMaster(FinalApplicationStatus.SUCCEEDED, "", "");
              am.stop();
              return null;
            });
    if (nm != null) {
      nm.stop();
    }
  }

  @Override
  public void close() {
    try {
      finish();
    } catch (Exception e) {
      // already gone
    }
  }
}
