package io.aryl.am;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName(
    "ProxyOnlyPages: people reach the ApplicationMaster's pages through the RM's web proxy")
class ProxyOnlyPagesTest {
  private static final String APP = "application_1_0042";
  private final AtomicLong now = new AtomicLong();

  private static InetAddress ip(String text) throws UnknownHostException {
    return InetAddress.getByName(text);
  }

  private ProxyOnlyPages pages(Map<String, String> dns) {
    return new ProxyOnlyPages(
        List.of("proxy:8088", "rm2:8088"),
        "http://proxy:8088/proxy/" + APP,
        host -> {
          String a = dns.get(host);
          if (a == null) {
            throw new UnknownHostException(host);
          }
          return new InetAddress[] {ip(a)};
        },
        now::get);
  }

  @Test
  @DisplayName(
      "the proxy and the ResourceManagers are served; anyone else is sent to the proxy, path and query kept")
  void othersAreSentToTheProxy() throws Exception {
    ProxyOnlyPages p = pages(Map.of("proxy", "10.0.0.1", "rm2", "10.0.0.2"));

    assertThat(p.redirectFor(ip("10.0.0.1"), "/status.json", null)).isNull();
    assertThat(p.redirectFor(ip("10.0.0.2"), "/", null)).isNull();
    assertThat(p.redirectFor(ip("10.9.9.9"), "/status.json", "pretty=1"))
        .isEqualTo("http://proxy:8088/proxy/" + APP + "/status.json?pretty=1");
  }

  @Test
  @DisplayName("a proxy that moves is found at the next resolution, minutes later")
  void hostsAreResolvedAgain() throws Exception {
    Map<String, String> dns =
        new java.util.HashMap<>(Map.of("proxy", "10.0.0.1", "rm2", "10.0.0.2"));
    ProxyOnlyPages p = pages(dns);
    assertThat(p.redirectFor(ip("10.0.0.1"), "/", null)).isNull();

    dns.put("proxy", "10.0.0.7");
    now.addAndGet(60_000);
    assertThat(p.redirectFor(ip("10.0.0.7"), "/", null)).as("not yet resolved again").isNotNull();
    now.addAndGet(5 * 60_000);
    assertThat(p.redirectFor(ip("10.0.0.7"), "/", null)).isNull();
    assertThat(p.redirectFor(ip("10.0.0.1"), "/", null)).isNotNull();
  }

  @Test
  @DisplayName(
      "from the job's configuration: the RM's web address (HA: every RM's) is the proxy, as AmFilterInitializer finds it")
  void fromConfiguration() {
    YarnConfiguration conf = new YarnConfiguration();
    conf.setBoolean(YarnConfiguration.RM_HA_ENABLED, true);
    conf.set(YarnConfiguration.RM_HA_IDS, "rm1,rm2");
    conf.set(YarnConfiguration.RM_WEBAPP_ADDRESS + ".rm1", "127.0.0.1:8088");
    conf.set(YarnConfiguration.RM_WEBAPP_ADDRESS + ".rm2", "127.0.0.1:8090");
    conf.set(YarnConfiguration.RM_HOSTNAME + ".rm1", "127.0.0.1");
    conf.set(YarnConfiguration.RM_HOSTNAME + ".rm2", "127.0.0.1");

    ProxyOnlyPages p = ProxyOnlyPages.from(conf, APP);

    assertThat(p.allowedHostPorts())
        .as("both RMs")
        .anySatisfy(h -> assertThat(h).endsWith(":8088"))
        .anySatisfy(h -> assertThat(h).endsWith(":8090"));
    assertThat(p.proxyBase()).startsWith("http://").endsWith(":8088/proxy/" + APP);
  }

  @Test
  @DisplayName(
      "the status server redirects the pages for people, and serves /hosts to the job's containers")
  void statusServerRedirects() throws IOException {
    ProxyOnlyPages nobodyHere =
        new ProxyOnlyPages(
            List.of("proxy.invalid:8088"),
            "http://proxy.invalid:8088/proxy/" + APP,
            h -> {
              throw new UnknownHostException(h);
            },
            now::get);
    try (StatusServer s =
        new StatusServer(
            () -> Map.of("name", "x", "workers", List.of(), "events", List.of()),
            () -> List.of("h1:2"),
            "token",
            r -> {},
            nobodyHere)) {
      s.start();
      for (String path : List.of("/", "/status.json")) {
        HttpURLConnection c = get(s, path);
        assertThat(c.getResponseCode()).as(path).isEqualTo(302);
        assertThat(c.getHeaderField("Location"))
            .isEqualTo("http://proxy.invalid:8088/proxy/" + APP + path);
      }
      HttpURLConnection hosts = get(s, "/hosts");
      assertThat(hosts.getResponseCode()).isEqualTo(200);
      assertThat(new String(hosts.getInputStream().readAllBytes(), StandardCharsets.UTF_8))
          .isEqualTo("h1:2\n");
    }
  }

  private static HttpURLConnection get(StatusServer s, String path) throws IOException {
    HttpURLConnection c =
        (HttpURLConnection)
            URI.create("http://127.0.0.1:" + s.port() + path).toURL().openConnection();
    c.setInstanceFollowRedirects(false);
    return c;
  }
}
