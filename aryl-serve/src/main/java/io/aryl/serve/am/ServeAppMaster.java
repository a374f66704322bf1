package io.aryl.serve.am;

import com.sun.net.httpserver.HttpServer;
import io.aryl.api.ArylJson;
import io.aryl.api.serve.ServeStatus;
import io.aryl.serve.ServeKeys;
import io.aryl.serve.ServeSpec;
import io.aryl.serve.core.PrometheusText;
import io.aryl.serve.core.ReplicaAction;
import io.aryl.serve.core.ReplicaSet;
import io.aryl.yarnapp.AmHttp;
import io.aryl.yarnapp.PreemptedContainers;
import io.aryl.yarnapp.StagedFile;
import java.io.File;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.yarn.api.ApplicationConstants;
import org.apache.hadoop.yarn.api.ApplicationConstants.Environment;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.ContainerLaunchContext;
import org.apache.hadoop.yarn.api.records.ContainerStatus;
import org.apache.hadoop.yarn.api.records.FinalApplicationStatus;
import org.apache.hadoop.yarn.api.records.LocalResource;
import org.apache.hadoop.yarn.api.records.NodeReport;
import org.apache.hadoop.yarn.api.records.PreemptionMessage;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.UpdatedContainer;
import org.apache.hadoop.yarn.client.api.AMRMClient.ContainerRequest;
import org.apache.hadoop.yarn.client.api.async.AMRMClientAsync;
import org.apache.hadoop.yarn.client.api.async.NMClientAsync;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The inference service's ApplicationMaster: the YARN and HTTP plumbing around {@link ReplicaSet},
 * which decides. Asks and releases go to the RM (AMRMClientAsync), launches to NodeManagers
 * (NMClientAsync); a poller reads each replica's health check and request counter every {@code
 * pollMs}; a main loop ticks the set every {@value #TICK_MS} ms; the status server is the tracking
 * URL. Every call into the set, and the actions it returns, happen under one lock.
 *
 * <p>Runs in the AM container: {@code java io.aryl.serve.am.ServeAppMaster} with {@link
 * ServeKeys#SPEC_FILE} in its working directory. It runs until it is killed ({@code yarn
 * application -kill}), or fails when replicas keep failing to start.
 */
public final class ServeAppMaster {
  private static final Logger LOG = LoggerFactory.getLogger(ServeAppMaster.class);
  private static final Priority REPLICA_PRIORITY = Priority.newInstance(1);
  private static final long TICK_MS = 200;
  private static final Duration POLL_TIMEOUT = Duration.ofSeconds(1);

  private final YarnConfiguration conf;
  private final ServeSpec spec;
  private final ApplicationAttemptId attempt;
  private final Object lock = new Object();
  private final ReplicaSet replicas;
  private final Map<String, Container> containers = new ConcurrentHashMap<>();
  private final HttpClient http =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(POLL_TIMEOUT)
          .build();
  private AMRMClientAsync<ContainerRequest> amrm;
  private NMClientAsync nm;
  private volatile String state = "STARTING";
  private volatile String stopReason;

  public ServeAppMaster(YarnConfiguration conf, ServeSpec spec, ApplicationAttemptId attempt) {
    this.conf = conf;
    this.spec = spec;
    this.attempt = attempt;
    this.replicas = new ReplicaSet(spec.scaling(), attempt.hashCode());
  }

  public static void main(String[] args) throws Exception {
    ServeSpec spec;
    try (InputStream in = new FileInputStream(new File(ServeKeys.SPEC_FILE))) {
      spec = ServeSpec.read(in);
    }
    String containerId = System.getenv(Environment.CONTAINER_ID.name());
    ApplicationAttemptId attempt = ContainerId.fromString(containerId).getApplicationAttemptId();
    new ServeAppMaster(new YarnConfiguration(), spec, attempt).run();
  }

  public void run() throws Exception {
    String host = System.getenv().getOrDefault(Environment.NM_HOST.name(), "localhost");
    HttpServer server = statusServer();
    ScheduledExecutorService poller =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "aryl-serve-poller");
              t.setDaemon(true);
              return t;
            });
    try {
      server.start();
      String trackingUrl = "http://" + host + ":" + server.getAddress().getPort() + "/";
      amrm = AMRMClientAsync.createAMRMClientAsync(500, new RmCallbacks());
      amrm.init(conf);
      amrm.start();
      nm = NMClientAsync.createNMClientAsync(new NmCallbacks());
      nm.init(conf);
      nm.start();
      amrm.registerApplicationMaster(host, 0, trackingUrl);
      LOG.info("registered {} with tracking URL {}", attempt, trackingUrl);
      state = "RUNNING";
      synchronized (lock) {
        apply(replicas.start(System.currentTimeMillis()));
      }
      ScheduledFuture<?> polling =
          poller.scheduleWithFixedDelay(this::poll, 0, spec.pollMs(), TimeUnit.MILLISECONDS);
      String failure;
      while (true) {
        synchronized (lock) {
          apply(replicas.tick(System.currentTimeMillis()));
          failure = replicas.failure();
        }
        if (failure != null || stopReason != null) {
          break;
        }
        Thread.sleep(TICK_MS);
      }
      String why = failure != null ? failure : stopReason;
      LOG.info("the service ends: {}", why);
      state = "FAILED";
      polling.cancel(true);
      amrm.unregisterApplicationMaster(FinalApplicationStatus.FAILED, why, trackingUrl);
      deleteStaging();
    } finally {
      poller.shutdownNow();
      server.stop(0);
      if (nm != null) {
        nm.stop();
      }
      if (amrm != null) {
        amrm.stop();
      }
    }
  }

  private ServeStatus status() {
    synchronized (lock) {
      return replicas.status(attempt.getApplicationId().toString(), state, spec.gpus());
    }
  }

  private HttpServer statusServer() throws IOException {
    HttpServer server = AmHttp.server("aryl-serve-status");
    server.createContext(
        "/",
        ex -> {
          String path = ex.getRequestURI().getPath();
          if (path.equals("/") || path.equals(ServeStatus.PATH)) {
            AmHttp.send(ex, 200, "application/json", ArylJson.write(status()) + "\n");
          } else {
            AmHttp.send(ex, 404, "text/plain", "not found: " + path + "\n");
          }
        });
    return server;
  }

  /** Reads every replica's health and request counter, and hands the answers to the set. */
  private void poll() {
    Map<String, String> targets;
    synchronized (lock) {
      targets = replicas.pollable();
    }
    List<CompletableFuture<Void>> calls = new ArrayList<>();
    for (Map.Entry<String, String> t : targets.entrySet()) {
      String id = t.getKey();
      calls.add(
          get(t.getValue() + spec.healthPath())
              .thenCompose(
                  health ->
                      health == null
                          ? CompletableFuture.completedFuture((String) null)
                          : get(t.getValue() + spec.metricsPath()))
              .handle(
                  (metrics, error) -> {
                    boolean healthy = error == null && metrics != null;
                    long count = -1;
                    if (healthy) {
                      try {
                        count = PrometheusText.counter(metrics, spec.requestsMetric());
                      } catch (IllegalArgumentException e) {
                        LOG.warn("{}: {}", id, e.getMessage());
                      }
                    }
                    synchronized (lock) {
                      apply(replicas.polled(id, healthy, count, System.currentTimeMillis()));
                    }
                    return null;
                  }));
    }
    try {
      CompletableFuture.allOf(calls.toArray(new CompletableFuture<?>[0]))
          .get(POLL_TIMEOUT.toMillis() * 3, TimeUnit.MILLISECONDS);
    } catch (Exception e) {
      LOG.debug("a poll did not finish in time", e);
    }
  }

  /** The body of a 200 answer; null for any other answer or no answer. */
  private CompletableFuture<String> get(String url) {
    HttpRequest r = HttpRequest.newBuilder(URI.create(url)).timeout(POLL_TIMEOUT).GET().build();
    return http.sendAsync(r, HttpResponse.BodyHandlers.ofString())
        .handle((resp, e) -> e == null && resp.statusCode() == 200 ? resp.body() : null);
  }

  private ContainerRequest replicaRequest() {
    Resource r =
        Resource.newInstance(
            spec.memoryMb(), spec.vcores(), Map.of(ServeKeys.GPU, (long) spec.gpus()));
    String label = spec.nodeLabel() == null || spec.nodeLabel().isEmpty() ? null : spec.nodeLabel();
    return new ContainerRequest(r, null, null, REPLICA_PRIORITY, true, label);
  }

  /** Carries out the set's decisions; called with the lock held. */
  private void apply(List<ReplicaAction> actions) {
    for (ReplicaAction a : actions) {
      if (a instanceof ReplicaAction.Ask ask) {
        for (int i = 0; i < ask.n(); i++) {
          amrm.addContainerRequest(replicaRequest());
        }
      } else if (a instanceof ReplicaAction.CancelAsks cancel) {
        for (int i = 0; i < cancel.n(); i++) {
          amrm.removeContainerRequest(replicaRequest());
        }
      } else if (a instanceof ReplicaAction.Launch launch) {
        Container c = containers.get(launch.id());
        if (c != null) {
          LOG.info("starting replica {} on {}:{}", launch.id(), launch.host(), launch.port());
          nm.startContainerAsync(c, replicaContext(launch.id(), launch.port()));
        }
      } else if (a instanceof ReplicaAction.Release release) {
        Container c = containers.get(release.id());
        if (c != null) {
          amrm.releaseAssignedContainer(c.getId());
        }
      }
    }
  }

  private ContainerLaunchContext replicaContext(String id, int port) {
    Map<String, LocalResource> files = StagedFile.localResources(spec.files());
    Map<String, String> env = new HashMap<>();
    env.put(ServeKeys.PORT_ENV, Integer.toString(port));
    env.put(ServeKeys.REPLICA_ENV, id);
    String log = ApplicationConstants.LOG_DIR_EXPANSION_VAR;
    String command =
        "bash "
            + ServeKeys.REPLICA_SCRIPT
            + " 1>"
            + log
            + "/replica.stdout 2>"
            + log
            + "/replica.stderr";
    return ContainerLaunchContext.newInstance(files, env, List.of(command), null, null, null);
  }

  private void deleteStaging() {
    try {
      Path p = new Path(spec.stagingDir());
      p.getFileSystem(conf).delete(p, true);
    } catch (IOException e) {
      LOG.warn("could not delete the staging directory {}", spec.stagingDir(), e);
    }
  }

  private final class RmCallbacks extends AMRMClientAsync.AbstractCallbackHandler {
    @Override
    public void onContainersAllocated(List<Container> allocated) {
      synchronized (lock) {
        for (Container c : allocated) {
          String id = c.getId().toString();
          containers.put(id, c);
          amrm.removeContainerRequest(replicaRequest());
          apply(replicas.allocated(id, c.getNodeId().getHost(), System.currentTimeMillis()));
        }
      }
    }

    @Override
    public void onContainersCompleted(List<ContainerStatus> statuses) {
      synchronized (lock) {
        for (ContainerStatus s : statuses) {
          String id = s.getContainerId().toString();
          LOG.info("replica {} completed: exit {} {}", id, s.getExitStatus(), s.getDiagnostics());
          apply(
              replicas.completed(
                  id, s.getExitStatus(), s.getDiagnostics(), System.currentTimeMillis()));
          containers.remove(id);
        }
      }
    }

    @Override
    public void onPreemptionMessageReceived(PreemptionMessage message) {
      Set<String> ids = PreemptedContainers.of(message);
      LOG.info("preemption message for {}", ids);
      synchronized (lock) {
        apply(replicas.preempted(ids, System.currentTimeMillis()));
      }
    }

    @Override
    public void onContainersUpdated(List<UpdatedContainer> updated) {}

    @Override
    public void onShutdownRequest() {
      stopReason = "the ResourceManager asked the ApplicationMaster to shut down";
    }

    @Override
    public void onNodesUpdated(List<NodeReport> updatedNodes) {}

    @Override
    public float getProgress() {
      return 0.5f; // a service has no end to make progress towards
    }

    @Override
    public void onError(Throwable e) {
      LOG.error("AMRM client error", e);
      stopReason = "ApplicationMaster error: " + e;
    }
  }

  private final class NmCallbacks extends NMClientAsync.AbstractCallbackHandler {
    @Override
    public void onContainerStarted(ContainerId id, Map<String, ByteBuffer> allServiceResponse) {
      synchronized (lock) {
        apply(replicas.launched(id.toString(), System.currentTimeMillis()));
      }
    }

    @Override
    public void onStartContainerError(ContainerId id, Throwable t) {
      LOG.warn("start of replica {} failed", id, t);
      synchronized (lock) {
        apply(replicas.launchFailed(id.toString(), String.valueOf(t), System.currentTimeMillis()));
      }
    }

    @Override
    public void onContainerStatusReceived(ContainerId id, ContainerStatus status) {}

    @Override
    public void onContainerStopped(ContainerId id) {}

    @Override
    @SuppressWarnings("deprecation") // abstract in NMClientAsync's handler: an override is due
    public void onContainerResourceIncreased(ContainerId id, Resource resource) {}

    @Override
    public void onContainerResourceUpdated(ContainerId id, Resource resource) {}

    @Override
    public void onGetContainerStatusError(ContainerId id, Throwable t) {}

    @Override
    @SuppressWarnings("deprecation") // abstract in NMClientAsync's handler: an override is due
    public void onIncreaseContainerResourceError(ContainerId id, Throwable t) {}

    @Override
    public void onUpdateContainerResourceError(ContainerId id, Throwable t) {}

    @Override
    public void onStopContainerError(ContainerId id, Throwable t) {}
  }
}
