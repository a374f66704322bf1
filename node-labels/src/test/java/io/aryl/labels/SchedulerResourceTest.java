package io.aryl.labels;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.aryl.api.ArylPaths;
import io.aryl.labels.FakeRmWebApp.Ha;
import io.aryl.labels.Pools.ReclaimRefusedException;
import io.aryl.labels.Pools.SchedulerReclaim;
import io.aryl.labels.Pools.SchedulerView;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@DisplayName("SchedulerResource: ArylScheduler's REST resource on whichever ResourceManager is active")
class SchedulerResourceTest {
  private static final String PUT_REPORT = "PUT " + ArylPaths.LOAN_CONTROLLER;
  private static final String POST_RECLAIM = "POST " + ArylPaths.RECLAIMS;

  private FakeRmWebApp rm1;
  private FakeRmWebApp rm2;
  private SchedulerResource scheduler;

  @BeforeEach
  void start() throws IOException {
    rm1 = new FakeRmWebApp(Ha.ACTIVE);
    rm2 = new FakeRmWebApp(Ha.STANDBY);
    rm2.activeLocation = rm1.url().toString();
    scheduler = new SchedulerResource(new ActiveRmWebApp(List.of(rm1.url(), rm2.url()), Duration.ofSeconds(2),
        Duration.ofSeconds(5)));
  }

  @AfterEach
  void stop() {
    rm1.close();
    rm2.close();
  }

  private void failOverToRm2() {
    rm1.activeLocation = rm2.url().toString();
    rm1.ha = Ha.STANDBY;
    rm2.ha = Ha.ACTIVE;
  }

  @ParameterizedTest(name = "recovery {0} -> recovering {1}")
  @CsvSource(delimiter = '|', value = {
      "\"recovery\": {\"recovering\": true, \"waitedMs\": 1200}, | true",
      "\"recovery\": {\"recovering\": false},                    | false",
      "                                                          | false"})
  @DisplayName("reads the reclaims and recovery.recovering; a scheduler without recovery (older) is not recovering")
  void readsTheView(String recovery, boolean recovering) throws IOException {
    rm1.arylStatus = "{" + (recovery == null ? "" : recovery)
        + " \"reclaimsInFlight\": [{\"id\": 3, \"phase\": \"DRAINING\", \"nodes\": [\"inf-1:1\"], \"requestedMs\": 10,"
        + " \"deadlineMs\": 20}], \"reclaimsDone\": [{\"id\": 2, \"phase\": \"DONE\", \"nodes\": [\"inf-0:1\"]}]}";
    SchedulerView view = scheduler.view();
    assertThat(view.recovering()).isEqualTo(recovering);
    assertThat(view.reclaims()).extracting(SchedulerReclaim::id).containsExactly(3L, 2L);
    assertThat(view.lists(3, "inf-1:1")).isTrue();
    assertThat(view.lists(3, "inf-0:1")).isFalse();
  }

  @Test
  @DisplayName("a reclaim in a phase this version does not know is read, and is not done")
  void unknownPhase() throws IOException {
    rm1.arylStatus = "{\"reclaimsInFlight\": [{\"id\": 4, \"phase\": \"VERIFYING\", \"nodes\": [\"inf-2:1\"]}]}";
    SchedulerView view = scheduler.view();
    assertThat(view.lists(4, "inf-2:1")).isTrue();
    assertThat(view.reclaims().get(0).done()).isFalse();
  }

  @Test
  @DisplayName("a report refused as stale (409) is told apart, with the scheduler's reason")
  void staleReportIsToldApart() {
    rm1.reportStatus = 409;
    rm1.reportBody = "{\"error\": \"loan controller report of epoch 3 refused: the leader in force is c2 with epoch"
        + " 4\", \"epoch\": 3, \"currentEpoch\": 4}";
    assertThatThrownBy(() -> scheduler.report(Map.of("role", "LEADER", "epoch", 3)))
        .isInstanceOf(SchedulerResource.StaleReportException.class)
        .hasMessage("loan controller report of epoch 3 refused: the leader in force is c2 with epoch 4");
  }

  @Test
  @DisplayName("after a failover the controller's report and its reclaims go to the new active RM")
  void reportsAndReclaimsFollowTheFailover() throws Exception {
    scheduler.report(Map.of("role", "LEADER", "epoch", 3));
    assertThat(rm1.calls(PUT_REPORT)).isEqualTo(1);

    failOverToRm2();
    scheduler.report(Map.of("role", "LEADER", "epoch", 3));
    assertThat(rm2.calls(PUT_REPORT)).as("the new active hears the report").isEqualTo(1);
    assertThat(rm2.bodies.get(rm2.calls.lastIndexOf(PUT_REPORT))).contains("\"epoch\":3");

    SchedulerReclaim r = scheduler.requestReclaim(1, 2);
    assertThat(r.id()).isEqualTo(7);
    assertThat(r.nodes()).containsExactly("inf-0:1");
    assertThat(r.done()).isFalse();
    assertThat(rm2.bodies.get(rm2.calls.lastIndexOf(POST_RECLAIM))).as("a ReclaimRequest, no GPU type named")
        .isEqualTo("{\"nodes\":1,\"deadlineMs\":2}");
    assertThat(rm2.calls(POST_RECLAIM)).isEqualTo(1);
    assertThat(rm1.calls(POST_RECLAIM)).as("the standby never takes a reclaim").isZero();
  }

  @Test
  @DisplayName("a 400, or a 503 while the scheduler recovers, is a refusal carrying its reason; another status is an"
      + " error")
  void refusals() {
    rm1.reclaimStatus = 400;
    rm1.reclaimBody = "{\"error\": \"asked for 2, only 0 are loaned\"}";
    assertThatThrownBy(() -> scheduler.requestReclaim(2, 5)).isInstanceOf(ReclaimRefusedException.class)
        .hasMessage("asked for 2, only 0 are loaned");
    rm1.reclaimStatus = 503;
    rm1.reclaimBody = "{\"error\": \"Aryl is recovering after the ResourceManager became active\"}";
    assertThatThrownBy(() -> scheduler.requestReclaim(2, 5)).isInstanceOf(ReclaimRefusedException.class)
        .hasMessage("unavailable: Aryl is recovering after the ResourceManager became active");
    rm1.reclaimStatus = 404;
    rm1.reclaimBody = "{\"error\": \"Aryl is not running in this ResourceManager\"}";
    assertThatThrownBy(() -> scheduler.requestReclaim(2, 5)).isInstanceOf(IOException.class)
        .hasMessageContaining("404");
  }
}
