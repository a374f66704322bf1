package io.aryl.labels;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.aryl.api.ArylJson;
import io.aryl.api.ArylPaths;
import io.aryl.api.serve.ServeStatus;
import io.aryl.api.status.NodeStatus;
import io.aryl.api.status.SchedulerStatus;
import io.aryl.core.loan.LoanPolicy;
import io.aryl.core.model.Checks;
import io.aryl.labels.ActiveRmWebApp.Answer;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Demand from the inference services themselves (aryl-serve): every running application of type
 * {@link ServeStatus#APPLICATION_TYPE} on the active ResourceManager, its {@link ServeStatus} read
 * through the RM's web proxy ({@code /proxy/<id>/status.json}, which follows the active RM and
 * carries the controller's SPNEGO like its other calls).
 *
 * <p>A service needs, in replicas, the larger of
 *
 * <ul>
 *   <li>its measured rate with the policy's headroom, {@code rateRps * (1 + headroom) /
 *       targetRpsPerReplica}, at most {@code replicasMax}: what the traffic calls for, so a rise is
 *       seen as soon as the service measures it, before its own hysteresis or YARN grants anything
 *       (servers beyond the service's maximum would stay idle); and
 *   <li>the replicas it runs or asks for, {@code max(target, running + starting + asked)}: a
 *       replica it asked for and cannot get (its node is on loan) counts, and a service holding
 *       replicas after its traffic fell (its scale-down hysteresis) is not squeezed under them.
 * </ul>
 *
 * <p>One inference server runs {@code floor(gpusPerServer / gpusPerReplica)} of its replicas: the
 * GPUs of an inference server are the scheduler's (the fewest GPUs of any node with a place in
 * {@code /ws/v1/cluster/aryl}, so a mixed pool is never counted as larger than it is), a replica's
 * are the service's ({@link ServeStatus#gpusPerReplica()}); a replica does not span servers, hence
 * the floor. The services' needs, in fractions of a server, are summed (they share servers as YARN
 * packs them), and given to the decision as the rate whose need under the policy is exactly that
 * many servers: {@code servers * capacityPerServer / (1 + headroom)}. So the decision rounds up
 * once, and the only numbers in play are the services' own and the policy the controller already
 * has.
 *
 * <p>A service whose status cannot be read, or is not a service's, makes the whole source
 * unavailable (the controller then lends nothing new): a service it cannot see may be the one that
 * needs a node back.
 *
 * <p>Each status read also measures the services' replicas' start-ups from their scaling events
 * ({@link ReplicaStartups}): the controller's lead adds them to the reclaim it measures itself.
 */
public final class ServeDemand implements DemandSource {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** The RM's applications, those running of the service's type. */
  static final String RUNNING_SERVICES =
      "/ws/v1/cluster/apps?states=RUNNING&applicationTypes=" + ServeStatus.APPLICATION_TYPE;

  private final ActiveRmWebApp web;
  private final LoanPolicy policy;
  private final ReplicaStartups startups = new ReplicaStartups();

  public ServeDemand(ActiveRmWebApp web, LoanPolicy policy) {
    this.web = Checks.notNull("web", web);
    this.policy = Checks.notNull("policy", policy);
  }

  @Override
  public double rate() throws IOException {
    return rateOfServers(servers());
  }

  /** The servers the running services need, in fractions of a server; 0 with none running. */
  public double servers() throws IOException {
    List<String> services = runningServices();
    startups.running(services);
    if (services.isEmpty()) {
      return 0;
    }
    int gpusPerServer = gpusPerServer();
    double servers = 0;
    for (String id : services) {
      servers += serversOf(id, status(id), gpusPerServer);
    }
    return servers;
  }

  /** The rate whose need under the policy is exactly {@code servers} (rounded up). */
  public double rateOfServers(double servers) {
    return servers * policy.capacityPerServer() / (1 + policy.headroom());
  }

  /** The servers one service needs, in fractions of a server (see the class's comment). */
  double serversOf(String id, ServeStatus s, int gpusPerServer) throws IOException {
    int gpusPerReplica = s.gpusPerReplica();
    if (gpusPerReplica < 1) {
      throw new IOException(
          id + ": its status has gpusPerReplica " + gpusPerReplica + ", must be >= 1");
    }
    if (gpusPerReplica > gpusPerServer) {
      throw new IOException(
          id
              + ": a replica of "
              + gpusPerReplica
              + " GPUs fits no inference server (the smallest has "
              + gpusPerServer
              + ")");
    }
    if (!(s.targetRpsPerReplica() > 0) || !(s.rateRps() >= 0) || Double.isInfinite(s.rateRps())) {
      throw new IOException(
          id
              + ": its status has targetRpsPerReplica "
              + s.targetRpsPerReplica()
              + " and rateRps "
              + s.rateRps()
              + ", must be > 0 and >= 0");
    }
    if (s.replicasMax() < 1) {
      throw new IOException(
          id + ": its status has replicasMax " + s.replicasMax() + ", must be >= 1");
    }
    int replicasPerServer = gpusPerServer / gpusPerReplica;
    double forRate =
        Math.min(s.rateRps() * (1 + policy.headroom()) / s.targetRpsPerReplica(), s.replicasMax());
    int held = Math.max(s.target(), s.running() + s.starting() + s.asked());
    return Math.max(forRate, held) / replicasPerServer;
  }

  /** The ids of the running services, from the active RM's application list. */
  List<String> runningServices() throws IOException {
    Answer a = web.get(RUNNING_SERVICES);
    if (a.status() != 200) {
      throw new IOException(a.rm() + RUNNING_SERVICES + " answered " + a.status());
    }
    List<String> ids = new ArrayList<>();
    for (JsonNode app : JSON.readTree(a.body()).path("apps").path("app")) {
      // The RM filters already; checked again so that an RM ignoring the query counts nothing else.
      String type = app.path("applicationType").asText("");
      if (ServeStatus.APPLICATION_TYPE.equals(type.toUpperCase(Locale.ROOT))
          && "RUNNING".equals(app.path("state").asText())) {
        ids.add(app.path("id").asText());
      }
    }
    return ids;
  }

  /** GPUs of one inference server: the fewest of any node the scheduler gives a place. */
  int gpusPerServer() throws IOException {
    Answer a = web.get(ArylPaths.STATUS);
    if (a.status() != 200) {
      throw new IOException(a.rm() + ArylPaths.STATUS + " answered " + a.status());
    }
    SchedulerStatus status = ArylJson.readStatus(a.body());
    int fewest = Integer.MAX_VALUE;
    for (NodeStatus n : status.nodes() == null ? List.<NodeStatus>of() : status.nodes()) {
      if (n.place() != null && n.gpus() > 0) {
        fewest = Math.min(fewest, n.gpus());
      }
    }
    if (fewest == Integer.MAX_VALUE) {
      throw new IOException(
          ArylPaths.STATUS + " lists no inference node with GPUs: a service's replicas fit none");
    }
    return fewest;
  }

  /** One service's status, through the active RM's web proxy. */
  ServeStatus status(String id) throws IOException {
    String path = "/proxy/" + id + ServeStatus.PATH;
    Answer a;
    try {
      a = web.get(path);
    } catch (IOException e) {
      throw new IOException("service " + id + ": " + e.getMessage(), e);
    }
    if (a.status() != 200) {
      throw new IOException("service " + id + ": " + a.rm() + path + " answered " + a.status());
    }
    ServeStatus s;
    try {
      s = ArylJson.read(a.body(), ServeStatus.class);
    } catch (IOException e) {
      throw new IOException(
          "service " + id + ": " + a.rm() + path + " is not a service's status: " + firstLine(e),
          e);
    }
    startups.read(id, s.events());
    return s;
  }

  /** The replicas' start-ups measured from the services' events since the last call. */
  @Override
  public List<Long> takeReplicaStartupsMs() {
    return startups.take();
  }

  private static String firstLine(Exception e) {
    String m = String.valueOf(e.getMessage());
    int nl = m.indexOf('\n');
    return nl < 0 ? m : m.substring(0, nl);
  }

  @Override
  public String name() {
    return "serve";
  }
}
