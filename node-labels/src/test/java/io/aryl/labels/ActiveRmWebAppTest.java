package io.aryl.labels;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import io.aryl.api.ArylPaths;
import io.aryl.labels.ActiveRmWebApp.Answer;
import io.aryl.labels.FakeRmWebApp.Ha;
import io.aryl.labels.FakeRmWebApp.StandbyAnswer;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

@DisplayName(
    "ActiveRmWebApp: calls follow the active ResourceManager across restarts and failovers")
class ActiveRmWebAppTest {
  private static final String ARYL = "GET " + ArylPaths.STATUS;
  private static final String INFO = "GET /ws/v1/cluster/info";

  private FakeRmWebApp rm1;
  private FakeRmWebApp rm2;

  @BeforeEach
  void start() throws IOException {
    rm1 = new FakeRmWebApp(Ha.STANDBY);
    rm2 = new FakeRmWebApp(Ha.ACTIVE);
    rm1.activeLocation = rm2.url().toString();
    rm1.arylStatus = "{\"from\": \"rm1\"}";
    rm2.arylStatus = "{\"from\": \"rm2\"}";
  }

  @AfterEach
  void stop() {
    rm1.close();
    rm2.close();
  }

  private ActiveRmWebApp both() {
    return new ActiveRmWebApp(
        List.of(rm1.url(), rm2.url()), Duration.ofSeconds(2), Duration.ofSeconds(5));
  }

  /** rm1 becomes active, rm2 standby, answering as {@code standby} says. */
  private void failOverToRm1(StandbyAnswer standby) {
    rm2.standbyAnswer = standby;
    rm2.activeLocation = rm1.url().toString();
    rm2.ha = Ha.STANDBY;
    rm1.ha = Ha.ACTIVE;
  }

  @Test
  @DisplayName(
      "finds the active RM by GET /ws/v1/cluster/info, whatever the order of the candidates, and remembers it")
  void findsAndRemembersTheActive() throws IOException {
    ActiveRmWebApp web = both();
    assertThat(web.active()).isEmpty();

    Answer a = web.get(ArylPaths.STATUS);
    assertThat(a.rm()).isEqualTo(rm2.url());
    assertThat(a.body()).contains("rm2");
    assertThat(web.active()).contains(rm2.url());
    assertThat(rm1.calls).as("the standby is only asked for its HA state").containsExactly(INFO);

    web.get(ArylPaths.STATUS);
    assertThat(rm2.calls)
        .as("the second call goes straight to the remembered active")
        .containsExactly(INFO, ARYL, ARYL);
    assertThat(rm1.calls).containsExactly(INFO);
  }

  @ParameterizedTest(name = "the old active then answers with {0}")
  @EnumSource(StandbyAnswer.class)
  @DisplayName(
      "after a failover the remembered RM answers as a standby: the call goes to the new active")
  void followsAFailover(StandbyAnswer standby) throws IOException {
    ActiveRmWebApp web = both();
    assertThat(web.get(ArylPaths.STATUS).body()).contains("rm2");

    failOverToRm1(standby);
    Answer a = web.get(ArylPaths.STATUS);
    assertThat(a.rm()).isEqualTo(rm1.url());
    assertThat(a.status()).isEqualTo(200);
    assertThat(a.body()).contains("rm1");
    assertThat(web.active()).contains(rm1.url());
    assertThat(rm2.calls(ARYL)).as("rm2 got the call once as active, once as standby").isEqualTo(2);
  }

  @Test
  @DisplayName(
      "when the remembered RM refuses connections (it died), the call goes to the RM that took over")
  void movesOnWhenTheActiveDies() throws IOException {
    ActiveRmWebApp web = both();
    web.get(ArylPaths.STATUS);

    rm2.close();
    rm1.ha = Ha.ACTIVE;
    Answer a = web.get(ArylPaths.STATUS);
    assertThat(a.rm()).isEqualTo(rm1.url());
    assertThat(a.body()).contains("rm1");
  }

  @Test
  @DisplayName(
      "with no active RM, the error names every candidate and what it said; the next call looks again")
  void noActive() throws IOException {
    ActiveRmWebApp web = both();
    rm2.ha = Ha.STANDBY;
    rm1.close();
    assertThatThrownBy(() -> web.get(ArylPaths.STATUS))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("no active ResourceManager")
        .hasMessageContaining(rm1.url() + "/ws/v1/cluster/info")
        .hasMessageContaining("ConnectException")
        .hasMessageContaining(rm2.url() + " is STANDBY");
    assertThat(web.active()).isEmpty();

    rm2.ha = Ha.ACTIVE;
    assertThat(web.get(ArylPaths.STATUS).body()).contains("rm2");
  }

  @Test
  @DisplayName(
      "a call that may have reached the RM (it hung up mid-call) is not sent again; the next one looks again")
  void aCallThatMayHaveArrivedIsNotRepeated() throws IOException {
    ActiveRmWebApp web = both();
    web.get(ArylPaths.STATUS);
    rm2.hangsUp = true;

    assertThatThrownBy(() -> web.send("POST", ArylPaths.RECLAIMS, "{\"nodes\": 1}"))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("POST " + rm2.url() + ArylPaths.RECLAIMS);
    assertThat(rm2.calls("POST " + ArylPaths.RECLAIMS)).isEqualTo(1);
    assertThat(rm1.calls).as("nothing sent elsewhere").containsExactly(INFO);
    assertThat(web.active()).isEmpty();

    rm2.hangsUp = false;
    web.get(ArylPaths.STATUS);
    assertThat(rm1.calls(INFO)).as("the active RM is looked for again").isEqualTo(2);
  }

  @Test
  @DisplayName(
      "one candidate is called directly, never probed; a standby answer from it is an error")
  void singleCandidate() throws IOException {
    ActiveRmWebApp web = ActiveRmWebApp.of(List.of(rm2.url()));
    assertThat(web.get(ArylPaths.STATUS).body()).contains("rm2");
    assertThat(rm2.calls).containsExactly(ARYL);

    rm2.ha = Ha.STANDBY;
    assertThatThrownBy(() -> web.get(ArylPaths.STATUS))
        .isInstanceOf(IOException.class)
        .hasMessageContaining(rm2.url().toString())
        .hasMessageContaining("standby");
  }

  @Nested
  @DisplayName("candidates from the configuration")
  class Candidates {
    static Stream<Arguments> configurations() {
      return Stream.of(
          arguments(
              "no HA: yarn.resourcemanager.webapp.address",
              Map.of("yarn.resourcemanager.webapp.address", "rm:8088"),
              List.of("http://rm:8088")),
          arguments(
              "no HA, HTTPS_ONLY: yarn.resourcemanager.webapp.https.address",
              Map.of(
                  "yarn.http.policy",
                  "HTTPS_ONLY",
                  "yarn.resourcemanager.webapp.https.address",
                  "rm:8090"),
              List.of("https://rm:8090")),
          arguments(
              "HA: the web app address of every rm-id, in order",
              Map.of(
                  "yarn.resourcemanager.ha.enabled",
                  "true",
                  "yarn.resourcemanager.ha.rm-ids",
                  "rm1,rm2",
                  "yarn.resourcemanager.webapp.address.rm1",
                  "a:1",
                  "yarn.resourcemanager.webapp.address.rm2",
                  "b:2"),
              List.of("http://a:1", "http://b:2")),
          arguments(
              "HA, HTTPS_ONLY: the https address of every rm-id",
              Map.of(
                  "yarn.resourcemanager.ha.enabled",
                  "true",
                  "yarn.resourcemanager.ha.rm-ids",
                  "rm1,rm2",
                  "yarn.http.policy",
                  "HTTPS_ONLY",
                  "yarn.resourcemanager.webapp.https.address.rm1",
                  "a:1",
                  "yarn.resourcemanager.webapp.https.address.rm2",
                  "b:2"),
              List.of("https://a:1", "https://b:2")),
          arguments(
              "HA with host names only: the default web app port",
              Map.of(
                  "yarn.resourcemanager.ha.enabled",
                  "true",
                  "yarn.resourcemanager.ha.rm-ids",
                  "rm1,rm2",
                  "yarn.resourcemanager.hostname.rm1",
                  "h1",
                  "yarn.resourcemanager.hostname.rm2",
                  "h2"),
              List.of("http://h1:8088", "http://h2:8088")),
          arguments(
              "aryl.labels.scheduler.url wins: one URL or a list, trailing / dropped",
              Map.of(
                  "yarn.resourcemanager.ha.enabled",
                  "true",
                  "yarn.resourcemanager.ha.rm-ids",
                  "rm1,rm2",
                  "yarn.resourcemanager.webapp.address.rm1",
                  "a:1",
                  "aryl.labels.scheduler.url",
                  " http://x:1/, https://y:2 "),
              List.of("http://x:1", "https://y:2")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("configurations")
    @DisplayName("are the ResourceManager web apps YARN's own clients would try")
    void fromConfiguration(String name, Map<String, String> keys, List<String> expected) {
      Configuration conf = new Configuration(false);
      keys.forEach(conf::set);
      assertThat(ActiveRmWebApp.candidates(conf))
          .map(URI::toString)
          .containsExactlyElementsOf(expected);
    }

    @ParameterizedTest(name = "aryl.labels.scheduler.url={0}")
    @ValueSource(strings = {"rm:8088", "ftp://rm:8088", "http://ok:1, /no-host", ", ,"})
    @DisplayName(
        "a bad aryl.labels.scheduler.url is refused at start-up, naming the key and the value")
    void badSchedulerUrl(String value) {
      Configuration conf = new Configuration(false);
      conf.set(LabelsConf.SCHEDULER_URL.key(), value);
      assertThatThrownBy(() -> LabelsSettings.from(conf))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining(LabelsConf.SCHEDULER_URL.key())
          .hasMessageContaining("'" + value + "'");
    }

    @Test
    @DisplayName("HA on with no address for any rm-id is refused, naming what to set")
    void haWithoutAddresses() {
      Configuration conf = new Configuration(false);
      conf.set("yarn.resourcemanager.ha.enabled", "true");
      conf.set("yarn.resourcemanager.ha.rm-ids", "rm1,rm2");
      assertThatThrownBy(() -> ActiveRmWebApp.candidates(conf))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("rm1,rm2")
          .hasMessageContaining("yarn.resourcemanager.webapp.address.<rm-id>");
    }
  }
}
