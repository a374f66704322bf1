package io.aryl.am;

import io.aryl.core.job.JobShape;
import io.aryl.yarnapp.PreemptedContainers;
import java.io.File;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.yarn.api.ApplicationConstants.Environment;
import org.apache.hadoop.yarn.api.protocolrecords.RegisterApplicationMasterResponse;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.ContainerStatus;
import org.apache.hadoop.yarn.api.records.FinalApplicationStatus;
import org.apache.hadoop.yarn.api.records.NodeReport;
import org.apache.hadoop.yarn.api.records.PreemptionMessage;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.UpdatedContainer;
import org.apache.hadoop.yarn.client.api.AMRMClient.ContainerRequest;
import org.apache.hadoop.yarn.client.api.async.AMRMClientAsync;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The elastic ApplicationMaster: the glue between {@link WorkerGroup}'s decisions and the RM (asks,
 * releases, preemption, containers of earlier attempts) and NodeManagers ({@link NodeManagerOps}),
 * with a {@link StatusServer} as tracking URL, and a {@link GenerationStore} in the job's staging
 * directory through which a next attempt adopts the running workers. Runs in the AM container:
 * {@code java io.aryl.am.ElasticAppMaster} with {@link AmKeys#JOB_FILE} in its working directory.
 */
public final class ElasticAppMaster {
  private static final Logger LOG = LoggerFactory.getLogger(ElasticAppMaster.class);
  private static final Priority WORKER_PRIORITY = Priority.newInstance(1);
  private static final long TICK_MS = 200;

  /** How long the rendezvous store's Python may take to import torch and print its port. */
  private static final long RENDEZVOUS_STORE_START_MS = 120_000;

  private final YarnConfiguration conf;
  private final JobSpec spec;
  private final ApplicationAttemptId attempt;
  private final Object lock = new Object();
  private final Map<String, Container> containers = new ConcurrentHashMap<>();

  /**
   * The NodeManager calls. Tasks are handed over with {@code execute}: each one logs and reports
   * its own failure, and whatever else it throws reaches the thread's uncaught-exception handler
   * rather than a Future that no one reads.
   */
  private final ExecutorService nmCalls = Executors.newFixedThreadPool(4);

  private final long startedAt = System.currentTimeMillis();

  /**
   * When the workers last checkpointed, for the status JSON (the scheduler prices preemptions by
   * it).
   */
  private final CheckpointWatch checkpoints;

  private Membership group;

  /**
   * With --launcher torchrun: the agents' launch contexts and the rendezvous store this AM hosts;
   * else null.
   */
  private TorchrunLauncher torchrun;

  private RendezvousStore rendezvous;
  private WorkerLauncher launcher;
  private NodeManagerOps nm;
  private AMRMClientAsync<ContainerRequest> amrm;
  private GenerationStore store;
  private volatile String stopReason;

  /**
   * The partition workers ask for, named explicitly: the application's own label is the AM's
   * partition. Null (the application's label) for a job submitted by a client that did not name it.
   */
  private final String workerNodeLabel = System.getenv(AmKeys.WORKER_NODE_LABEL_ENV);

  public ElasticAppMaster(YarnConfiguration conf, JobSpec spec, ApplicationAttemptId attempt) {
    this.conf = conf;
    this.spec = spec;
    this.attempt = attempt;
    this.checkpoints = CheckpointWatch.of(conf, spec.checkpointDir());
  }

  public static void main(String[] args) throws Exception {
    YarnConfiguration conf = new YarnConfiguration();
    JobSpec spec;
    try (InputStream in = new FileInputStream(new File(AmKeys.JOB_FILE))) {
      spec = JobSpec.read(in);
    }
    String containerId = System.getenv(Environment.CONTAINER_ID.name());
    ApplicationAttemptId attempt = ContainerId.fromString(containerId).getApplicationAttemptId();
    new ElasticAppMaster(conf, spec, attempt).run();
  }

  private Resource workerResource() {
    return Resource.newInstance(
        spec.memoryMb(), spec.vcores(), Map.of(AmKeys.GPU, (long) spec.gpusPerWorker()));
  }

  private ContainerRequest workerRequest() {
    return new ContainerRequest(
        workerResource(), null, null, WORKER_PRIORITY, true, workerNodeLabel);
  }

  public void run() throws Exception {
    String host = System.getenv().getOrDefault(Environment.NM_HOST.name(), "localhost");
    String reportToken = UUID.randomUUID().toString();
    try (StatusServer status =
        new StatusServer(
            this::status,
            this::hosts,
            reportToken,
            this::exited,
            ProxyOnlyPages.from(conf, attempt.getApplicationId().toString()))) {
      status.start();
      String trackingUrl = "http://" + host + ":" + status.port() + "/";
      if (spec.stagingDir().isEmpty()) {
        throw new IllegalStateException(
            "the job has no staging directory, where the worker supervisor is staged");
      }
      launcher =
          new WorkerLauncher(
              spec,
              attempt.getApplicationId().toString(),
              trackingUrl,
              reportToken,
              SupervisorScript.stage(conf, new Path(spec.stagingDir())));
      if (spec.torchrun()) {
        TorchrunLauncher.Settings settings = TorchrunLauncher.Settings.defaults();
        try {
          settings = TorchrunLauncher.Settings.of(conf);
        } catch (IllegalArgumentException e) {
          stopReason = "--launcher torchrun: " + e.getMessage();
        }
        torchrun =
            new TorchrunLauncher(
                spec,
                settings,
                attempt.getApplicationId().toString(),
                launcher,
                SupervisorScript.stage(
                    conf, new Path(spec.stagingDir()), TorchrunLauncher.SCRIPT_FILE));
      }
      nm = new NodeManagerOps(conf);
      amrm =
          AMRMClientAsync.createAMRMClientAsync(
              conf.getInt(AmKeys.HEARTBEAT_MS, AmKeys.HEARTBEAT_MS_DEFAULT), new Callbacks());
      amrm.init(conf);
      amrm.start();
      store = new GenerationStore(conf, new Path(spec.stagingDir()));
      synchronized (lock) {
        group =
            spec.torchrun()
                ? new AgentGroup(
                    spec.minWorkers(),
                    spec.maxWorkers(),
                    spec.graceMs(),
                    conf.getLong(AmKeys.SETTLE_MS, AmKeys.SETTLE_MS_DEFAULT),
                    spec.maxRestarts())
                : new WorkerGroup(
                    spec.minWorkers(),
                    spec.maxWorkers(),
                    spec.graceMs(),
                    conf.getLong(AmKeys.SETTLE_MS, AmKeys.SETTLE_MS_DEFAULT),
                    spec.maxRestarts(),
                    attempt.getApplicationId().hashCode(),
                    attempt.getAttemptId());
      }
      if (torchrun != null && stopReason == null) {
        // Before registering: the containers of an earlier attempt are recovered right after it.
        startRendezvousStore(host);
      }
      PreviousRecord previous = readPreviousRecord();
      RegisterApplicationMasterResponse registered =
          amrm.registerApplicationMaster(host, 0, trackingUrl);
      LOG.info(
          "registered {} with tracking URL {}; {} containers from earlier attempts",
          attempt,
          trackingUrl,
          registered.getContainersFromPreviousAttempts().size());
      synchronized (lock) {
        // The adoption wait starts now that the RM has answered with the containers it kept.
        long now = System.currentTimeMillis();
        previous.record().ifPresent(r -> group.resume(r, now));
        if (previous.problem() != null) {
          group.recordUnreadable(previous.problem(), now);
        }
      }
      recover(registered.getContainersFromPreviousAttempts());

      Membership.Outcome outcome;
      while (true) {
        checkpoints.tick(System.currentTimeMillis());
        checkRendezvousStore();
        synchronized (lock) {
          apply(group.tick(System.currentTimeMillis()));
          outcome = group.outcome();
        }
        if (outcome != null) {
          break;
        }
        if (stopReason != null) {
          outcome = new Membership.Outcome(false, stopReason);
          break;
        }
        Thread.sleep(TICK_MS);
      }
      LOG.info("job over: succeeded={} {}", outcome.succeeded(), outcome.diagnostics());
      checkpoints.close();
      if (rendezvous != null) {
        rendezvous.close();
      }
      amrm.unregisterApplicationMaster(
          outcome.succeeded() ? FinalApplicationStatus.SUCCEEDED : FinalApplicationStatus.FAILED,
          outcome.diagnostics(),
          trackingUrl);
      amrm.stop();
      nmCalls.shutdown();
      nmCalls.awaitTermination(5, TimeUnit.SECONDS);
      nm.close();
      deleteStaging();
    }
  }

  private void recover(List<Container> previous) {
    synchronized (lock) {
      long now = System.currentTimeMillis();
      for (Container c : previous) {
        if (!isWorker(c)) {
          // The list includes the earlier attempt's own AM container while the RM still counts it.
          LOG.info(
              "ignoring {} from an earlier attempt: not a worker ({})", c.getId(), c.getResource());
          continue;
        }
        containers.put(c.getId().toString(), c);
        apply(group.recovered(c.getId().toString(), c.getNodeId().getHost(), now));
      }
    }
  }

  private boolean isWorker(Container c) {
    Resource r = c.getResource();
    return r.getResourceValue(AmKeys.GPU) >= spec.gpusPerWorker();
  }

  /**
   * Carries out the group's decisions in order; called with the lock held. Records are written
   * here, before the actions after them; NM calls run on their own threads.
   */
  private void apply(List<WorkerAction> actions) {
    for (WorkerAction a : actions) {
      if (a instanceof WorkerAction.WriteRecord r) {
        write(r.record());
      } else if (a instanceof WorkerAction.Launch l) {
        Container c = containers.get(l.id());
        var clc = launcher.worker(l.generation(), l.id());
        nmCall(l.id(), "start", () -> nm.start(c, clc));
      } else if (a instanceof WorkerAction.Relaunch r) {
        Container c = containers.get(r.id());
        var clc = launcher.worker(r.generation(), r.id());
        nmCall(r.id(), "restart", () -> nm.reinitialize(c.getNodeId(), c.getId(), clc));
      } else if (a instanceof WorkerAction.StartAgent s) {
        startAgent(s);
      } else if (a instanceof WorkerAction.Terminate t) {
        Container c = containers.get(t.id());
        if (c == null) {
          continue; // completed meanwhile: nothing to signal
        }
        nmCalls.execute(
            () -> {
              try {
                nm.terminate(c.getNodeId(), c.getId());
              } catch (Exception e) {
                if (NodeManagerOps.containerGone(e)) {
                  goneAfterFailedCall(t.id(), "SIGTERM", e);
                } else {
                  LOG.warn(
                      "SIGTERM to {} failed ({}); the generation change waits for it until the"
                          + " grace",
                      t.id(),
                      NodeManagerOps.oneLine(e));
                }
              }
            });
      } else if (a instanceof WorkerAction.Release r) {
        Container c = containers.get(r.id());
        if (c != null) {
          amrm.releaseAssignedContainer(c.getId());
        }
      } else if (a instanceof WorkerAction.Ask ask) {
        for (int i = 0; i < ask.n(); i++) {
          amrm.addContainerRequest(workerRequest());
        }
      } else if (a instanceof WorkerAction.CancelAsks cancel) {
        for (int i = 0; i < cancel.n(); i++) {
          amrm.removeContainerRequest(workerRequest());
        }
      }
    }
  }

  /**
   * --launcher torchrun: the store the agents rendezvous in, on this AM's host; the job fails if it
   * cannot start.
   */
  private void startRendezvousStore(String host) {
    rendezvous = new RendezvousStore(spec.python(), host, RENDEZVOUS_STORE_START_MS);
    try {
      rendezvous.start();
    } catch (IOException e) {
      LOG.error("the rendezvous store did not start", e);
      rendezvous = null;
      stopReason = "--launcher torchrun: " + e.getMessage();
    }
  }

  /**
   * A store whose process died is restarted (and logged); every agent then restarts in a new
   * rendezvous.
   */
  private void checkRendezvousStore() {
    if (rendezvous == null || !(group instanceof AgentGroup agents)) {
      return;
    }
    try {
      if (rendezvous.restartIfDead()) {
        synchronized (lock) {
          apply(agents.storeRestarted(System.currentTimeMillis()));
        }
      }
    } catch (IOException e) {
      LOG.error("the rendezvous store could not be restarted", e);
      stopReason =
          "--launcher torchrun: the rendezvous store died and could not be restarted: "
              + e.getMessage();
    }
  }

  /**
   * Starts (or, in a container whose previous agent has exited, re-initialises) a torchrun agent.
   */
  private void startAgent(WorkerAction.StartAgent s) {
    Container c = containers.get(s.id());
    if (rendezvous == null || c == null) {
      return;
    }
    var clc = torchrun.agent(s.incarnation(), rendezvous.host(), rendezvous.port());
    if (s.reinitialize()) {
      nmCall(s.id(), "agent restart", () -> nm.reinitialize(c.getNodeId(), c.getId(), clc));
    } else {
      nmCall(s.id(), "agent start", () -> nm.start(c, clc));
    }
  }

  private interface NmCall {
    void run() throws Exception;
  }

  private void nmCall(String id, String what, NmCall call) {
    nmCalls.execute(
        () -> {
          try {
            call.run();
            synchronized (lock) {
              apply(group.launched(id));
            }
          } catch (Exception e) {
            if (NodeManagerOps.containerGone(e)) {
              goneAfterFailedCall(id, what, e);
              return;
            }
            LOG.warn("{} of {} failed", what, id, e);
            synchronized (lock) {
              apply(
                  group.launchFailed(
                      id, what + " failed: " + e.getMessage(), System.currentTimeMillis()));
            }
          }
        });
  }

  /**
   * A NodeManager call on a container failed because the NodeManager no longer has it (see {@link
   * NodeManagerOps#containerGone}): the container is gone for the membership, logged in one line.
   */
  private void goneAfterFailedCall(String id, String what, Exception e) {
    String why = what + " failed: its NodeManager no longer has it: " + NodeManagerOps.oneLine(e);
    LOG.info("{}: {}; counted as gone", id, why);
    synchronized (lock) {
      apply(group.gone(Set.of(id), why, System.currentTimeMillis()));
    }
  }

  /** A worker's supervisor says its worker process exited; the container is still held. */
  private void exited(ExitReport r) {
    LOG.info(
        "{}: the worker of generation {} exited with status {}{}",
        r.container(),
        r.generation(),
        r.status(),
        r.stopped() ? " after SIGTERM" : "");
    synchronized (lock) {
      if (group != null) {
        apply(
            group.exited(
                r.container(),
                r.generation(),
                r.status(),
                r.stopped(),
                System.currentTimeMillis()));
      }
    }
  }

  /**
   * The previous attempt's record, or the reason it cannot be used; both empty for a first attempt.
   */
  private record PreviousRecord(Optional<GenerationRecord> record, String problem) {}

  private PreviousRecord readPreviousRecord() {
    try {
      Optional<GenerationRecord> r = store.read();
      r.ifPresent(
          g ->
              LOG.info(
                  "the previous attempt recorded generation {} of attempt {} (running: {}) in {}",
                  g.generation().number(),
                  g.attempt(),
                  g.running(),
                  store.file()));
      return new PreviousRecord(r, null);
    } catch (GenerationStore.UnreadableRecordException e) {
      LOG.warn(
          "{}: not adopting the workers of the previous attempt, they restart in a new generation numbered"
              + " from 1 (the last number is unknown)",
          e.getMessage(),
          e);
      return new PreviousRecord(Optional.empty(), e.getMessage());
    }
  }

  private void write(GenerationRecord r) {
    try {
      store.write(r);
    } catch (IOException e) {
      // The job runs on; only a next attempt is worse off: it finds an older record, or none.
      LOG.warn(
          "could not write generation {} (running: {}) to {}; a next attempt will not see it",
          r.generation().number(),
          r.running(),
          store.file(),
          e);
    }
  }

  private void deleteStaging() {
    try {
      Path p = new Path(spec.stagingDir());
      p.getFileSystem(conf).delete(p, true);
    } catch (IOException e) {
      LOG.warn("could not delete the staging directory {}", spec.stagingDir(), e);
    }
  }

  private float progress() {
    // The AM cannot see training progress: report worker-time done against the predicted runtime at
    // min workers.
    synchronized (lock) {
      if (group == null) {
        return 0f;
      }
      if (group.outcome() != null || group.finishing()) {
        return 1f;
      }
      double widthFactor = Math.max(1, group.workers().size()) / (double) spec.minWorkers();
      double done =
          (System.currentTimeMillis() - startedAt)
              / 1000.0
              * widthFactor
              / spec.predictedRuntimeS();
      return (float) Math.min(0.99, done);
    }
  }

  List<String> hosts() {
    synchronized (lock) {
      Generation g = group == null ? null : group.current();
      return g == null ? List.of() : g.hostSlots();
    }
  }

  Map<String, Object> status() {
    synchronized (lock) {
      AgentGroup agents = torchrun != null && group instanceof AgentGroup a ? a : null;
      return AmStatusJson.of(
          spec,
          attempt,
          group,
          checkpoints.last(),
          AmStatusJson.launcher(spec, attempt, agents, rendezvous, torchrun));
    }
  }

  private final class Callbacks extends AMRMClientAsync.AbstractCallbackHandler {
    @Override
    public void onContainersAllocated(List<Container> allocated) {
      synchronized (lock) {
        long now = System.currentTimeMillis();
        for (Container c : allocated) {
          containers.put(c.getId().toString(), c);
          if (c.getAllocationRequestId() == JobShape.MOVE_REQUEST_ID) {
            // Not one of ours: the scheduler moves the job and grants its new workers first.
            apply(group.allocatedForMove(c.getId().toString(), c.getNodeId().getHost(), now));
          } else {
            amrm.removeContainerRequest(workerRequest());
            apply(group.allocated(c.getId().toString(), c.getNodeId().getHost(), now));
          }
        }
      }
    }

    @Override
    public void onContainersCompleted(List<ContainerStatus> statuses) {
      synchronized (lock) {
        List<Membership.Completion> batch = new ArrayList<>();
        for (ContainerStatus s : statuses) {
          String id = s.getContainerId().toString();
          LOG.info("container {} completed: exit {} {}", id, s.getExitStatus(), s.getDiagnostics());
          batch.add(new Membership.Completion(id, s.getExitStatus(), s.getDiagnostics()));
        }
        // As one batch: a change the first completion starts signals none of the others.
        apply(group.completed(batch, System.currentTimeMillis()));
        batch.forEach(c -> containers.remove(c.id()));
      }
    }

    @Override
    public void onPreemptionMessageReceived(PreemptionMessage message) {
      Set<String> ids = PreemptedContainers.of(message);
      LOG.info("preemption message for {}", ids);
      synchronized (lock) {
        apply(group.preempted(ids, System.currentTimeMillis()));
      }
    }

    @Override
    public void onContainersReceivedFromPreviousAttempts(List<Container> previous) {
      recover(previous);
    }

    @Override
    public void onContainersUpdated(List<UpdatedContainer> containers) {}

    @Override
    public void onShutdownRequest() {
      stopReason = "the ResourceManager asked the ApplicationMaster to shut down";
    }

    /**
     * The containers on a node the RM reports lost or unusable (lost, unhealthy, decommissioned,
     * shut down) are gone: the RM completes them on a lost node anyway, and on an unhealthy one the
     * AM releases them rather than signal or wait for them.
     */
    @Override
    public void onNodesUpdated(List<NodeReport> updatedNodes) {
      synchronized (lock) {
        for (NodeReport n : updatedNodes) {
          if (n.getNodeState() == null || !n.getNodeState().isUnusable()) {
            continue;
          }
          Set<String> on = new HashSet<>();
          containers.forEach(
              (id, c) -> {
                if (c.getNodeId().equals(n.getNodeId())) {
                  on.add(id);
                }
              });
          if (!on.isEmpty()) {
            String why = "its node " + n.getNodeId() + " is " + n.getNodeState();
            LOG.info("{} on {}: {}; counted as gone", on, n.getNodeId(), why);
            apply(group.gone(on, why, System.currentTimeMillis()));
          }
        }
      }
    }

    @Override
    public float getProgress() {
      return progress();
    }

    @Override
    public void onError(Throwable e) {
      LOG.error("AMRM client error", e);
      stopReason = "ApplicationMaster error: " + e;
    }
  }
}
