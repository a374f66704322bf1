package io.aryl.labels;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.aryl.api.ArylPaths;
import io.aryl.api.loan.LoanTarget;
import io.aryl.api.loan.LoanTargetAccepted;
import io.aryl.labels.FakeRmWebApp.Ha;
import io.aryl.labels.SchedulerLink.SchedulerView;
import io.aryl.labels.SchedulerLink.StaleTargetException;
import io.aryl.labels.SchedulerLink.TargetRefusedException;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@DisplayName(
    "SchedulerResource: ArylScheduler's REST resource on whichever ResourceManager is active")
class SchedulerResourceTest {
  private static final String PUT_TARGET = "PUT " + ArylPaths.LOAN_TARGET;
  private static final LoanTarget TARGET = new LoanTarget(3, "a", 2, 0, 10, "rate 100.0 rps");

  private FakeRmWebApp rm1;
  private FakeRmWebApp rm2;
  private SchedulerResource scheduler;

  @BeforeEach
  void start() throws IOException {
    rm1 = new FakeRmWebApp(Ha.ACTIVE);
    rm2 = new FakeRmWebApp(Ha.STANDBY);
    rm2.activeLocation = rm1.url().toString();
    scheduler =
        new SchedulerResource(
            new ActiveRmWebApp(
                List.of(rm1.url(), rm2.url()), Duration.ofSeconds(2), Duration.ofSeconds(5)));
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

  private static String node(String name, String place) {
    return "{\"node\": \""
        + name
        + "\", \"label\": \"inference\", \"gpus\": 8"
        + (place == null ? "" : ", \"place\": \"" + place + "\"")
        + "}";
  }

  @ParameterizedTest(name = "recovery {0} -> recovering {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "\"recovery\": {\"recovering\": true, \"waitedMs\": 1200}, | true",
        "\"recovery\": {\"recovering\": false},                    | false",
        "                                                          | false"
      })
  @DisplayName(
      "counts the inference nodes by their place, those lent or being lent and those on their way home,"
          + " the latest reclaim's end, and reads recovery.recovering; a scheduler without recovery is not"
          + " recovering")
  void readsTheView(String recovery, boolean recovering) throws IOException {
    rm1.arylStatus =
        "{\"enabled\": true, "
            + (recovery == null ? "" : recovery)
            + " \"nodes\": ["
            + String.join(
                ", ",
                node("inf-0:1", "HOME"),
                node("inf-1:1", "LENDING"),
                node("inf-2:1", "LENT"),
                node("inf-3:1", "RETURNING"),
                node("train-0:1", null),
                node("inf-4:1", "MOVING"))
            + "],"
            + " \"reclaimsDone\": [{\"id\": 1, \"phase\": \"DONE\", \"finishedMs\": 700},"
            + " {\"id\": 2, \"phase\": \"DONE\", \"finishedMs\": 900}],"
            + " \"loanTarget\": {\"epoch\": 4, \"controller\": \"b\", \"maxOnLoan\": 2, \"returnByMs\": 99, \"onLoan\": 2}}";
    SchedulerView view = scheduler.view();
    assertThat(view.recovering()).isEqualTo(recovering);
    assertThat(view.inferenceNodes()).as("with a place this version knows").isEqualTo(4);
    assertThat(view.onLoan()).as("LENDING and LENT; RETURNING is on its way home").isEqualTo(2);
    assertThat(view.target().epoch()).isEqualTo(4);
    assertThat(view.target().maxOnLoan()).isEqualTo(2);
    assertThat(view.target().returnByMs()).isEqualTo(99);
    assertThat(view.returning()).as("RETURNING").isEqualTo(1);
    assertThat(view.reclaimFinishedMs()).as("the latest reclaim's end").isEqualTo(900);
  }

  @Test
  @DisplayName("a scheduler that has no target yet shows none; one where Aryl is off is an error")
  void noTargetAndAylOff() throws IOException {
    assertThat(scheduler.view().target()).isNull();
    rm1.arylStatus = "{\"enabled\": false}";
    assertThatThrownBy(() -> scheduler.view())
        .isInstanceOf(IOException.class)
        .hasMessageContaining("Aryl does not" + " run");
  }

  @Test
  @DisplayName(
      "after a failover the target goes to the new active RM, as aryl-api's LoanTarget, and its answer is"
          + " read")
  void targetsFollowTheFailover() throws Exception {
    scheduler.send(TARGET);
    assertThat(rm1.calls(PUT_TARGET)).isEqualTo(1);

    failOverToRm2();
    LoanTargetAccepted a = scheduler.send(TARGET);
    assertThat(rm2.calls(PUT_TARGET)).as("the new active hears the target").isEqualTo(1);
    assertThat(rm2.bodies.get(rm2.calls.lastIndexOf(PUT_TARGET)))
        .as("no returnByMs when 0")
        .isEqualTo(
            "{\"epoch\":3,\"controller\":\"a\",\"maxOnLoan\":2,\"decidedMs\":10,\"reason\":\"rate 100.0 rps\"}");
    assertThat(a.target().onLoan()).isEqualTo(1);
    assertThat(a.inferenceNodes()).isEqualTo(4);
    assertThat(scheduler.address()).isEqualTo(rm2.url().toString());
  }

  @Test
  @DisplayName("a target refused as stale (409) is told apart, with the epoch in force")
  void staleTargetIsToldApart() {
    rm1.targetStatus = 409;
    rm1.targetBody =
        "{\"error\": \"loan target of epoch 3 refused: the loan controller b set the one in force with"
            + " epoch 4\", \"epoch\": 3, \"currentEpoch\": 4}";
    assertThatThrownBy(() -> scheduler.send(TARGET))
        .isInstanceOfSatisfying(
            StaleTargetException.class,
            e -> {
              assertThat(e.getMessage())
                  .isEqualTo(
                      "loan target of epoch 3 refused: the loan controller b set the one in force"
                          + " with epoch 4");
              assertThat(e.answer().currentEpoch()).isEqualTo(4);
            });
  }

  @Test
  @DisplayName(
      "a 400, or a 503 while the scheduler cannot take it, is a refusal carrying its reason; another status"
          + " is an error")
  void refusals() {
    rm1.targetStatus = 400;
    rm1.targetBody = "{\"error\": \"maxOnLoan must be an integer in [0, 100000], was -1\"}";
    assertThatThrownBy(() -> scheduler.send(TARGET))
        .isInstanceOfSatisfying(
            TargetRefusedException.class,
            e -> {
              assertThat(e.status()).isEqualTo(400);
              assertThat(e.getMessage())
                  .isEqualTo("maxOnLoan must be an integer in [0, 100000], was -1");
            });
    rm1.targetStatus = 503;
    rm1.targetBody = "{\"error\": \"loan target not accepted: Aryl could not store it\"}";
    assertThatThrownBy(() -> scheduler.send(TARGET))
        .isInstanceOfSatisfying(
            TargetRefusedException.class, e -> assertThat(e.status()).isEqualTo(503));
    rm1.targetStatus = 404;
    rm1.targetBody = "{\"error\": \"Aryl is not running in this ResourceManager\"}";
    assertThatThrownBy(() -> scheduler.send(TARGET))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("404");
  }
}
