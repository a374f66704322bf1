package io.aryl.api.serve;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * What an inference service's ApplicationMaster (aryl-serve) answers at {@link #PATH} on its
 * tracking URL: the replicas it runs and asks for, the request rate it measured and the number of
 * replicas that rate calls for. Written by the AM's status server, once a request, from its scaling
 * core; read by the load generator (the endpoints to send requests to), the tests, and whoever
 * wants the service's demand.
 *
 * @param application the service's application id
 * @param state {@code STARTING} until the AM registered, then {@code RUNNING}, {@code FAILED}
 * @param replicasMin the fewest replicas the service runs
 * @param replicasMax the most
 * @param targetRpsPerReplica the request rate one replica is meant to carry
 * @param gpusPerReplica the GPUs each replica's container holds: with the GPUs of an inference
 *     server, how many replicas one server runs (the loan controller's {@code serve} demand)
 * @param rateRps the request rate the replicas answered over the last window, per second
 * @param target the replicas the AM wants now: {@code ceil(rateRps / targetRpsPerReplica)} within
 *     min and max, after hysteresis
 * @param running replicas that answered their health check (the {@code endpoints})
 * @param starting replicas allocated or launched that have not answered yet
 * @param asked containers asked of YARN and not granted yet
 * @param endpoints the base URLs ({@code http://host:port}) of the running replicas, where requests
 *     go
 * @param replicas every replica the AM holds, in the order it got them
 * @param events the latest scaling events, oldest first
 */
public record ServeStatus(
    String application,
    String state,
    int replicasMin,
    int replicasMax,
    double targetRpsPerReplica,
    int gpusPerReplica,
    double rateRps,
    int target,
    int running,
    int starting,
    int asked,
    List<String> endpoints,
    List<ReplicaStatus> replicas,
    List<ScaleEvent> events) {
  /** The status path on the AM's tracking URL. */
  public static final String PATH = "/status.json";

  /**
   * The YARN application type of an inference service: the client submits with it, and the loan
   * controller's {@code serve} demand lists the running applications of this type to find the
   * services.
   */
  public static final String APPLICATION_TYPE = "ARYL-SERVE";

  public ServeStatus {
    endpoints = copy(endpoints);
    replicas = copy(replicas);
    events = copy(events);
  }

  private static <T> List<T> copy(List<T> l) {
    return l == null ? List.of() : Collections.unmodifiableList(new ArrayList<>(l));
  }

  /**
   * One replica.
   *
   * @param container its container id
   * @param host the NodeManager's host
   * @param port the port the AM gave it ({@code ARYL_SERVE_PORT})
   * @param state {@code ALLOCATED}, {@code STARTING}, {@code RUNNING} or {@code DRAINING}
   * @param requests the request counter it reported last, -1 before it reported one
   */
  public record ReplicaStatus(
      String container, String host, int port, String state, long requests) {}

  /**
   * A scaling event: the target changed, a replica was asked for, became ready, was drained, lost
   * or exited.
   *
   * <p>The loan controller measures a replica's start-up from two kinds, {@link #ALLOCATED} to
   * {@link #READY} of the same {@code container}: both times are the AM's clock, so the difference
   * needs no synchronized hosts.
   *
   * @param timeMs when, epoch milliseconds
   * @param kind what, e.g. {@code scale-up}, {@link #READY}, {@code lost}
   * @param detail in words, with the numbers that decided it
   * @param container the container id of the one replica the event is about; null (absent) for an
   *     event about the service as a whole ({@code scale-up}, {@code ask}), and from an AM older
   *     than this field
   */
  public record ScaleEvent(
      long timeMs,
      String kind,
      String detail,
      @JsonInclude(JsonInclude.Include.NON_NULL) String container) {
    /** The RM granted a container for a replica: its start-up begins. */
    public static final String ALLOCATED = "allocated";

    /** The replica answered its health check: it serves, its start-up is over. */
    public static final String READY = "ready";

    /** An event about the service as a whole, naming no replica. */
    public ScaleEvent(long timeMs, String kind, String detail) {
      this(timeMs, kind, detail, null);
    }
  }
}
