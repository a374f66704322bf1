package io.aryl.labels;

import io.aryl.core.model.Checks;
import java.io.IOException;
import java.security.PrivilegedExceptionAction;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.api.records.NodeReport;
import org.apache.hadoop.yarn.api.records.NodeState;
import org.apache.hadoop.yarn.client.ClientRMProxy;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.exceptions.YarnException;
import org.apache.hadoop.yarn.server.api.ResourceManagerAdministrationProtocol;
import org.apache.hadoop.yarn.server.api.protocolrecords.ReplaceLabelsOnNodeRequest;

/**
 * {@link Pools} on a real ResourceManager: node reports through {@link YarnClient}, relabelling through the RM admin
 * protocol — both fail over between RMs by themselves (ClientRMProxy) when the configuration has
 * {@code yarn.resourcemanager.ha.enabled} and {@code yarn.resourcemanager.ha.rm-ids} — and reclaims through the
 * scheduler's REST resource on the active RM ({@link SchedulerResource} over {@link ActiveRmWebApp}).
 *
 * <p>Lifecycle: constructed started; {@link #close()} once.
 */
public final class YarnPools implements Pools, AutoCloseable {
  private final YarnClient client;
  private final ResourceManagerAdministrationProtocol admin;
  private final SchedulerResource scheduler;

  /** The scheduler's web app from the configuration ({@link ActiveRmWebApp#candidates(Configuration)}). */
  public YarnPools(Configuration conf) throws IOException {
    this(conf, ActiveRmWebApp.of(conf));
  }

  /** @param schedulerUrl the RM web app's base URL, or a comma-separated list of candidates */
  public YarnPools(Configuration conf, String schedulerUrl) throws IOException {
    this(conf, ActiveRmWebApp.of(ActiveRmWebApp.parseCandidates("schedulerUrl", schedulerUrl)));
  }

  public YarnPools(Configuration conf, ActiveRmWebApp web) throws IOException {
    this(conf, web, UserGroupInformation.getCurrentUser());
  }

  /**
   * @param login the user the RPC clients act as (with Kerberos: the controller's login); their connections, and those
   *     made after a failover, authenticate as it
   */
  public YarnPools(Configuration conf, ActiveRmWebApp web, UserGroupInformation login) throws IOException {
    this.scheduler = new SchedulerResource(Checks.notNull("web", web));
    YarnConfiguration yarn = new YarnConfiguration(conf);
    this.client = YarnClient.createYarnClient();
    client.init(yarn);
    try {
      this.admin = Checks.notNull("login", login).doAs((PrivilegedExceptionAction<ResourceManagerAdministrationProtocol>)
          () -> {
            client.start();
            return ClientRMProxy.createRMProxy(yarn, ResourceManagerAdministrationProtocol.class);
          });
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted connecting to the ResourceManager", e);
    }
  }

  @Override
  public List<PoolNode> nodes() throws IOException {
    try {
      List<PoolNode> out = new ArrayList<>();
      for (NodeReport r : client.getNodeReports(NodeState.RUNNING)) {
        Set<String> labels = r.getNodeLabels() == null ? Set.of() : r.getNodeLabels();
        out.add(new PoolNode(r.getNodeId().toString(), labels, r.getNumContainers()));
      }
      return out;
    } catch (YarnException e) {
      throw new IOException("node reports: " + e.getMessage(), e);
    }
  }

  @Override
  public void relabel(String node, String label) throws IOException {
    try {
      admin.replaceLabelsOnNode(ReplaceLabelsOnNodeRequest.newInstance(Map.of(NodeId.fromString(node),
          Set.of(label))));
    } catch (YarnException e) {
      throw new IOException("relabel " + node + " to " + label + ": " + e.getMessage(), e);
    }
  }

  @Override
  public SchedulerReclaim requestReclaim(int nodes, long deadlineMs) throws IOException, ReclaimRefusedException {
    return scheduler.requestReclaim(nodes, deadlineMs);
  }

  @Override
  public void reportStatus(Map<String, Object> status) throws IOException {
    scheduler.report(status);
  }

  @Override
  public SchedulerView scheduler() throws IOException {
    return scheduler.view();
  }

  @Override
  public String schedulerAddress() {
    return scheduler.web().active().map(Object::toString).orElse("");
  }

  @Override
  public void close() {
    client.stop();
    org.apache.hadoop.ipc.RPC.stopProxy(admin);
  }
}
