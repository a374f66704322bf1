package io.aryl.labels;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.aryl.api.ArylJson;
import io.aryl.api.serve.ServeStatus;
import io.aryl.api.serve.ServeStatus.ScaleEvent;
import io.aryl.core.loan.LoanPolicy;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The services' demand as the controller gets it, against a real local HTTP server playing the
 * active ResourceManager: its application list, ArylScheduler's status (the inference nodes' GPUs)
 * and its web proxy in front of each service's {@code /status.json}.
 */
@DisplayName("ServeDemand: the inference services' rate and replicas, as servers, as a rate")
class ServeDemandTest {
  /** Headroom 0.2: a service's measured rate is counted 20% above itself, as any other rate. */
  private static final LoanPolicy POLICY = new LoanPolicy(100, 0.2, 1);

  private HttpServer rm;
  private final List<String> calls = new CopyOnWriteArrayList<>();
  private volatile Map<String, Answer> services = Map.of();
  private volatile List<Integer> nodeGpus = List.of();

  /** What the proxy answers for one service's status. */
  record Answer(int status, String body) {
    static Answer of(ServeStatus s) {
      return new Answer(200, ArylJson.write(s));
    }
  }

  @BeforeEach
  void start() throws IOException {
    rm = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    rm.createContext("/", this::handle);
    rm.start();
  }

  @AfterEach
  void stop() {
    rm.stop(0);
  }

  private void handle(HttpExchange x) throws IOException {
    URI uri = x.getRequestURI();
    calls.add(uri.toString());
    String path = uri.getPath();
    if (path.equals("/ws/v1/cluster/apps")) {
      StringBuilder apps = new StringBuilder();
      for (String id : services.keySet()) {
        apps.append(apps.length() == 0 ? "" : ",")
            .append("{\"id\":\"")
            .append(id)
            .append("\",\"applicationType\":\"ARYL-SERVE\",\"state\":\"RUNNING\"}");
      }
      // An RM with no application answers "apps": null.
      send(x, 200, services.isEmpty() ? "{\"apps\":null}" : "{\"apps\":{\"app\":[" + apps + "]}}");
    } else if (path.equals("/ws/v1/cluster/aryl")) {
      StringBuilder nodes = new StringBuilder();
      for (int i = 0; i < nodeGpus.size(); i++) {
        nodes
            .append(i == 0 ? "" : ",")
            .append("{\"node\":\"inf")
            .append(i)
            .append(":1\",\"label\":\"inference\",\"gpus\":")
            .append(nodeGpus.get(i))
            .append(",\"owner\":\"inference\",\"place\":\"HOME\"}");
      }
      // A training node has no place: its GPUs say nothing of an inference server's.
      nodes.append(nodes.length() == 0 ? "" : ",");
      nodes.append("{\"node\":\"tr0:1\",\"label\":\"training\",\"gpus\":1,\"owner\":\"training\"}");
      send(x, 200, "{\"enabled\":true,\"nodes\":[" + nodes + "]}");
    } else if (path.startsWith("/proxy/") && path.endsWith(ServeStatus.PATH)) {
      String id = path.substring("/proxy/".length(), path.length() - ServeStatus.PATH.length());
      Answer a = services.get(id);
      if (a == null) {
        send(x, 404, "no such application");
      } else {
        send(x, a.status(), a.body());
      }
    } else {
      send(x, 404, "not found: " + path);
    }
  }

  private static void send(HttpExchange x, int status, String body) throws IOException {
    byte[] b = body.getBytes(StandardCharsets.UTF_8);
    x.sendResponseHeaders(status, b.length);
    try (OutputStream out = x.getResponseBody()) {
      out.write(b);
    }
  }

  private ServeDemand source() {
    return new ServeDemand(
        ActiveRmWebApp.of(List.of(URI.create("http://127.0.0.1:" + rm.getAddress().getPort()))),
        POLICY);
  }

  /**
   * A running service's status.
   *
   * @param asked replicas asked of YARN and not granted
   */
  static ServeStatus service(
      String id,
      int gpusPerReplica,
      double targetRpsPerReplica,
      double rateRps,
      int target,
      int running,
      int asked) {
    return new ServeStatus(
        id,
        "RUNNING",
        1,
        64,
        targetRpsPerReplica,
        gpusPerReplica,
        rateRps,
        target,
        running,
        0,
        asked,
        List.of(),
        List.of(),
        List.of());
  }

  /** The same status with another maximum of replicas. */
  static ServeStatus withMax(ServeStatus s, int replicasMax) {
    return new ServeStatus(
        s.application(),
        s.state(),
        s.replicasMin(),
        replicasMax,
        s.targetRpsPerReplica(),
        s.gpusPerReplica(),
        s.rateRps(),
        s.target(),
        s.running(),
        s.starting(),
        s.asked(),
        s.endpoints(),
        s.replicas(),
        s.events());
  }

  private static Map<String, Answer> services(ServeStatus... statuses) {
    Map<String, Answer> m = new LinkedHashMap<>();
    for (ServeStatus s : statuses) {
      m.put(s.application(), Answer.of(s));
    }
    return m;
  }

  static Stream<Arguments> demands() {
    List<Arguments> rows = new ArrayList<>();
    rows.add(
        Arguments.of(
            "no service running: zero demand, whatever the nodes",
            List.of(1, 1),
            Map.of(),
            0.0,
            0));
    rows.add(
        Arguments.of(
            "one service asking for a third replica it cannot get: 3 one-GPU servers, although its"
                + " rate (8 rps, 5 per replica, 1.92 replicas with headroom) calls for 2",
            List.of(1, 1, 1),
            services(service("application_1_0001", 1, 5, 8, 3, 2, 1)),
            3.0,
            3));
    rows.add(
        Arguments.of(
            "the same service granted its two replicas and asking none: 2 servers",
            List.of(1, 1, 1),
            services(service("application_1_0001", 1, 5, 8, 2, 2, 0)),
            2.0,
            2));
    rows.add(
        Arguments.of(
            "a measured rate above the replicas it runs: 30 rps at 5 per replica, with headroom"
                + " 7.2 replicas, on 2-GPU servers of 2 replicas each: 3.6, so 4 servers",
            List.of(2, 2, 2, 2),
            services(service("application_1_0001", 1, 5, 30, 2, 2, 0)),
            3.6,
            4));
    rows.add(
        Arguments.of(
            "a measured rate beyond the service's maximum counts its maximum: 30 rps at 5 per"
                + " replica, at most 4 replicas, on one-GPU servers: 4 servers",
            List.of(1, 1, 1, 1, 1, 1, 1, 1),
            services(withMax(service("application_1_0001", 1, 5, 30, 2, 2, 0), 4)),
            4.0,
            4));
    rows.add(
        Arguments.of(
            "two services sharing 8-GPU servers: 24 one-GPU replicas for 100 rps (3 servers) and 3"
                + " running two-GPU replicas (4 a server, 0.75): 3.75, so 4 servers",
            List.of(8, 8, 8, 8, 8),
            services(
                service("application_1_0001", 1, 5, 100, 20, 20, 0),
                service("application_1_0002", 2, 50, 0, 3, 3, 0)),
            3.75,
            4));
    rows.add(
        Arguments.of(
            "replicas per server from the smallest inference node: 3-GPU replicas on 8- and 6-GPU"
                + " nodes run 2 a server, and 3 of them need 1.5 servers",
            List.of(8, 6),
            services(service("application_1_0001", 3, 5, 0, 3, 2, 1)),
            1.5,
            2));
    return rows.stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("demands")
  @DisplayName("servers the services need, given as the rate whose need is that many")
  void demand(
      String why, List<Integer> gpus, Map<String, Answer> running, double servers, int needed)
      throws IOException {
    nodeGpus = gpus;
    services = running;
    ServeDemand source = source();

    assertThat(source.servers()).isCloseTo(servers, within(1e-9));
    assertThat(POLICY.serversNeeded(source.rate())).isEqualTo(needed);
  }

  static Stream<Arguments> unreadable() {
    ServeStatus fine = service("application_1_0001", 1, 5, 8, 2, 2, 0);
    return Stream.of(
        Arguments.of(
            "status unreadable: the proxy cannot reach one of two services",
            List.of(1, 1),
            Map.of(
                "application_1_0001",
                Answer.of(fine),
                "application_1_0002",
                new Answer(502, "connection refused")),
            "service application_1_0002: http://127.0.0.1:",
            "/proxy/application_1_0002/status.json answered 502"),
        Arguments.of(
            "a page that is not a service's status",
            List.of(1, 1),
            Map.of("application_1_0003", new Answer(200, "<html>redirecting</html>")),
            "service application_1_0003:",
            "is not a service's status"),
        Arguments.of(
            "a status without the replica's GPUs (an older AM)",
            List.of(1, 1),
            Map.of(
                "application_1_0004",
                new Answer(
                    200, "{\"application\":\"application_1_0004\",\"targetRpsPerReplica\":5}")),
            "application_1_0004: its status has gpusPerReplica 0",
            "must be >= 1"),
        Arguments.of(
            "a replica larger than any inference server",
            List.of(1, 1),
            services(service("application_1_0005", 2, 5, 0, 1, 0, 1)),
            "application_1_0005: a replica of 2 GPUs fits no inference server",
            "(the smallest has 1)"),
        Arguments.of(
            "a service running while the scheduler lists no inference node",
            List.of(),
            services(fine),
            "/ws/v1/cluster/aryl lists no inference node with GPUs",
            "fit none"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("unreadable")
  @DisplayName("a service that cannot be read makes the source unavailable, named in one line")
  void unavailable(
      String why, List<Integer> gpus, Map<String, Answer> running, String names, String says) {
    nodeGpus = gpus;
    services = running;

    assertThatThrownBy(() -> source().rate())
        .isInstanceOf(IOException.class)
        .hasMessageContaining(names)
        .hasMessageContaining(says)
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
  }

  @Test
  @DisplayName("finds the services by aryl-api's application type, running ones only")
  void asksForRunningServices() throws IOException {
    services = services(service("application_1_0001", 1, 5, 0, 1, 1, 0));
    nodeGpus = List.of(1);

    source().rate();

    assertThat(calls)
        .contains("/ws/v1/cluster/apps?states=RUNNING&applicationTypes=ARYL-SERVE")
        .contains("/proxy/application_1_0001/status.json");
    assertThat(source().name()).isEqualTo("serve");
  }

  /** The same status with these scaling events. */
  static ServeStatus withEvents(ServeStatus s, ScaleEvent... events) {
    return new ServeStatus(
        s.application(),
        s.state(),
        s.replicasMin(),
        s.replicasMax(),
        s.targetRpsPerReplica(),
        s.gpusPerReplica(),
        s.rateRps(),
        s.target(),
        s.running(),
        s.starting(),
        s.asked(),
        s.endpoints(),
        s.replicas(),
        List.of(events));
  }

  /** An event about one replica's container. */
  private static ScaleEvent ev(long timeMs, String kind, String container) {
    return new ScaleEvent(timeMs, kind, container + " ...", container);
  }

  /** A running one-replica service with these events. */
  private static ServeStatus serving(String id, ScaleEvent... events) {
    return withEvents(service(id, 1, 5, 1, 1, 1, 0), events);
  }

  private static final String A1 = "application_1_0001";
  private static final String A2 = "application_1_0002";
  private static final ScaleEvent START = new ScaleEvent(0, "start", "target 1");
  private static final ScaleEvent ASK = new ScaleEvent(10, "ask", "1 replica(s): 0 live, target 1");

  static Stream<Arguments> startups() {
    return Stream.of(
        Arguments.of(
            "from allocated to ready of one container",
            List.of(
                services(
                    serving(
                        A1,
                        START,
                        ASK,
                        ev(1_000, ScaleEvent.ALLOCATED, "c1"),
                        ev(3_500, ScaleEvent.READY, "c1")))),
            List.of(List.of(2_500L))),
        Arguments.of(
            "events seen again in the next read are counted once; a new replica's are counted",
            List.of(
                services(
                    serving(
                        A1,
                        ev(1_000, ScaleEvent.ALLOCATED, "c1"),
                        ev(3_500, ScaleEvent.READY, "c1"))),
                services(
                    serving(
                        A1,
                        ev(1_000, ScaleEvent.ALLOCATED, "c1"),
                        ev(3_500, ScaleEvent.READY, "c1"),
                        ev(9_000, ScaleEvent.ALLOCATED, "c2"))),
                services(
                    serving(
                        A1,
                        ev(1_000, ScaleEvent.ALLOCATED, "c1"),
                        ev(3_500, ScaleEvent.READY, "c1"),
                        ev(9_000, ScaleEvent.ALLOCATED, "c2"),
                        ev(17_000, ScaleEvent.READY, "c2")))),
            List.of(List.of(2_500L), List.of(), List.of(8_000L))),
        Arguments.of(
            "a replica that exits before it answered is no start-up, nor is its replacement's"
                + " wait counted from the first grant",
            List.of(
                services(
                    serving(
                        A1,
                        ev(1_000, ScaleEvent.ALLOCATED, "c1"),
                        ev(4_000, "exited", "c1"),
                        ev(5_000, ScaleEvent.ALLOCATED, "c2"),
                        ev(7_600, ScaleEvent.READY, "c2")))),
            List.of(List.of(2_600L))),
        Arguments.of(
            "a replica drained and released before it answered is no start-up",
            List.of(
                services(
                    serving(
                        A1,
                        ev(1_000, ScaleEvent.ALLOCATED, "c1"),
                        ev(2_000, "drain", "c1"),
                        ev(2_000, "released", "c1"),
                        // an AM that polled late: a ready after the replica left counts nothing
                        ev(2_500, ScaleEvent.READY, "c1")))),
            List.of(List.of())),
        Arguments.of(
            "two services naming the same container are not matched across: each its own",
            List.of(
                services(
                    serving(A1, ev(1_000, ScaleEvent.ALLOCATED, "c1")),
                    serving(
                        A2,
                        ev(10_000, ScaleEvent.ALLOCATED, "c1"),
                        ev(12_000, ScaleEvent.READY, "c1"))),
                services(
                    serving(
                        A1,
                        ev(1_000, ScaleEvent.ALLOCATED, "c1"),
                        ev(13_000, ScaleEvent.READY, "c1")),
                    serving(
                        A2,
                        ev(10_000, ScaleEvent.ALLOCATED, "c1"),
                        ev(12_000, ScaleEvent.READY, "c1")))),
            List.of(List.of(2_000L), List.of(12_000L))),
        Arguments.of(
            "a service restarted as a new application starts afresh: the old one's grant is"
                + " forgotten, the new one's replica measured from its own",
            List.of(
                services(serving(A1, ev(1_000, ScaleEvent.ALLOCATED, "c1"))),
                services(
                    serving(
                        A2,
                        ev(20_000, ScaleEvent.READY, "c1"),
                        ev(30_000, ScaleEvent.ALLOCATED, "c7"),
                        ev(32_400, ScaleEvent.READY, "c7")))),
            List.of(List.of(), List.of(2_400L))),
        Arguments.of(
            "a grant seen in one read is kept for the ready of a later read, though the window"
                + " has moved past it",
            List.of(
                services(serving(A1, ev(1_000, ScaleEvent.ALLOCATED, "c1"))),
                services(serving(A1, ev(9_000, ScaleEvent.READY, "c1")))),
            List.of(List.of(), List.of(8_000L))),
        Arguments.of(
            "a ready whose grant was never seen (before the window), or events naming no"
                + " container (an older AM), measure nothing",
            List.of(
                services(
                    serving(
                        A1,
                        ev(9_000, ScaleEvent.READY, "c1"),
                        new ScaleEvent(10_000, ScaleEvent.ALLOCATED, "c2 on h1"),
                        new ScaleEvent(12_000, ScaleEvent.READY, "c2 serves")))),
            List.of(List.of())));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("startups")
  @DisplayName(
      "replicas' start-ups measured from the services' events, read after read, each counted once")
  void measuresStartups(String why, List<Map<String, Answer>> reads, List<List<Long>> measured)
      throws IOException {
    nodeGpus = List.of(1, 1, 1);
    ServeDemand source = source();
    List<List<Long>> seen = new ArrayList<>();
    for (Map<String, Answer> read : reads) {
      services = read;
      source.rate();
      seen.add(source.takeReplicaStartupsMs());
    }
    assertThat(seen).isEqualTo(measured);
  }

  @Test
  @DisplayName(
      "start-ups measured reach the reading, and a source that sees no replicas measures none")
  void startupsInTheReading() {
    services = services(serving(A1, ev(1_000, "allocated", "c1"), ev(3_800, "ready", "c1")));
    nodeGpus = List.of(1);
    DemandSource flat = () -> 50;

    DemandReading r = DemandReading.read(List.of(flat, source()));

    assertThat(r.replicaStartupsMs()).containsExactly(2_800L);
    assertThat(flat.takeReplicaStartupsMs()).isEmpty();
    assertThat(DemandReading.read(List.of(flat)).replicaStartupsMs()).isEmpty();
  }

  @Test
  @DisplayName("an unavailable source makes the reading incomplete: nothing new is lent")
  void incompleteReading() {
    services =
        Map.of(
            "application_1_0001",
            Answer.of(service("application_1_0001", 1, 5, 0, 1, 1, 0)),
            "application_1_0002",
            new Answer(500, "boom"));
    nodeGpus = List.of(1, 1);

    DemandReading r = DemandReading.read(List.of(source()));

    assertThat(r.complete()).isFalse();
    assertThat(r.rate()).isNaN();
    assertThat(r.sources().get("serve").toString())
        .startsWith("unavailable: service application_1_0002");
  }
}
