package io.aryl.am;

import java.io.IOException;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.ContainerManagementProtocol;
import org.apache.hadoop.yarn.api.protocolrecords.ReInitializeContainerRequest;
import org.apache.hadoop.yarn.api.protocolrecords.SignalContainerRequest;
import org.apache.hadoop.yarn.api.protocolrecords.StartContainerRequest;
import org.apache.hadoop.yarn.api.protocolrecords.StartContainersRequest;
import org.apache.hadoop.yarn.api.protocolrecords.StartContainersResponse;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.ContainerLaunchContext;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.api.records.SignalContainerCommand;
import org.apache.hadoop.yarn.client.api.NMTokenCache;
import org.apache.hadoop.yarn.client.api.impl.ContainerManagementProtocolProxy;
import org.apache.hadoop.yarn.client.api.impl.ContainerManagementProtocolProxy.ContainerManagementProtocolProxyData;
import org.apache.hadoop.yarn.exceptions.YarnException;

/**
 * Blocking calls to NodeManagers for the AM's containers: start, re-initialize (new process, same
 * container), and SIGTERM. Unlike NMClient it works on containers started by an earlier AM attempt
 * too (it keeps no per-container state; the NM tokens come from the AMRM client's token cache).
 */
public final class NodeManagerOps implements AutoCloseable {
  private final ContainerManagementProtocolProxy proxies;

  public NodeManagerOps(Configuration conf) {
    this.proxies = new ContainerManagementProtocolProxy(conf, NMTokenCache.getSingleton());
  }

  private interface Call {
    void on(ContainerManagementProtocol p) throws YarnException, IOException;
  }

  private void call(NodeId node, ContainerId id, Call call) throws YarnException, IOException {
    ContainerManagementProtocolProxyData proxy = proxies.getProxy(node.toString(), id);
    try {
      call.on(proxy.getContainerManagementProtocol());
    } finally {
      proxies.mayBeCloseProxy(proxy);
    }
  }

  public void start(Container c, ContainerLaunchContext clc) throws YarnException, IOException {
    call(
        c.getNodeId(),
        c.getId(),
        p -> {
          StartContainersResponse r =
              p.startContainers(
                  StartContainersRequest.newInstance(
                      List.of(StartContainerRequest.newInstance(clc, c.getContainerToken()))));
          if (r.getFailedRequests() != null && r.getFailedRequests().containsKey(c.getId())) {
            throw new YarnException(
                "start of "
                    + c.getId()
                    + " refused: "
                    + r.getFailedRequests().get(c.getId()).getMessage());
          }
        });
  }

  /**
   * Kills the container's processes (SIGTERM, then SIGKILL after the NM's {@code
   * sleep-delay-before-sigkill.ms}) and starts this launch context in the same container. The
   * NodeManager accepts it only while the container runs: a container whose main process exited has
   * completed ("Cannot perform RE_INIT ... Current state is [EXITED_WITH_...]", or "does not exist"
   * once it is gone), which is why a worker container's main process is the supervisor that
   * outlives its worker.
   */
  public void reinitialize(NodeId node, ContainerId id, ContainerLaunchContext clc)
      throws YarnException, IOException {
    call(
        node,
        id,
        p -> p.reInitializeContainer(ReInitializeContainerRequest.newInstance(id, clc, true)));
  }

  /**
   * SIGTERM to the container's process group (GRACEFUL_SHUTDOWN); dropped by the NM if it has not
   * launched it yet.
   */
  public void terminate(NodeId node, ContainerId id) throws YarnException, IOException {
    call(
        node,
        id,
        p ->
            p.signalToContainer(
                SignalContainerRequest.newInstance(id, SignalContainerCommand.GRACEFUL_SHUTDOWN)));
  }

  /**
   * Whether a failed call says that the NodeManager no longer has the container: it refused the
   * AM's NMToken as one it did not issue ({@code InvalidToken: Given NMToken for application ...
   * seems to have been generated illegally}, after the NodeManager was lost and came back), or it
   * does not know the container ({@code ... does not exist}, {@code ... is not handled by this
   * NodeManager}, {@code ... not found}). Such a container is gone for the AM; any other failure
   * (the NodeManager unreachable, say) is not proof of that.
   */
  public static boolean containerGone(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      String message = String.valueOf(t.getMessage());
      if (t.getClass().getName().endsWith("InvalidToken")
          || message.contains("InvalidToken")
          || message.contains("generated illegally")
          || message.contains("Invalid NMToken")
          || message.contains("does not exist")
          || message.contains("is not handled by this NodeManager")
          || message.contains("not found")) {
        return true;
      }
    }
    return false;
  }

  /** A failure in one line: its class and message, and its cause's when it has one. */
  public static String oneLine(Throwable failure) {
    String line = failure.getClass().getSimpleName() + ": " + failure.getMessage();
    Throwable cause = failure.getCause();
    if (cause != null && cause != failure) {
      line += " (" + cause.getClass().getSimpleName() + ": " + cause.getMessage() + ")";
    }
    int nl = line.indexOf('\n');
    return nl < 0 ? line : line.substring(0, nl);
  }

  @Override
  public void close() {
    proxies.stopAllProxies();
  }
}
