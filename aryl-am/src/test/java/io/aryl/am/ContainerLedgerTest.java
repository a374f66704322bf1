package io.aryl.am;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.aryl.am.Membership.State;
import io.aryl.am.Membership.Worker;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The container bookkeeping both launchers share ({@link ContainerLedger}): states, asks, events,
 * restart budget.
 */
@DisplayName("ContainerLedger: the job's containers, their states, asks and restart budget")
class ContainerLedgerTest {
  /** A ledger of min 1, max 2 and one restart, naming containers by id. */
  private static ContainerLedger ledger() {
    return new ContainerLedger(1, 2, 1, w -> w.id());
  }

  private static String brief(List<WorkerAction> actions) {
    return String.join(
        ",",
        actions.stream()
            .map(
                a ->
                    a instanceof WorkerAction.Terminate t
                        ? "term " + t.id()
                        : a instanceof WorkerAction.Release r ? "release " + r.id() : a.toString())
            .toList());
  }

  @Test
  @DisplayName(
      "holds what the RM grants up to max; releases the surplus, and everything once the job wants no more")
  void allocation() {
    ContainerLedger l = ledger();
    assertThat(brief(l.allocated("a", "h", true, 0))).isEmpty();
    assertThat(brief(l.allocated("b", "h", false, 0))).isEqualTo("release b");
    assertThat(brief(l.allocated("c", "h", true, 0))).isEmpty();
    assertThat(brief(l.allocated("d", "h", true, 0))).isEqualTo("release d");
    assertThat(l.list()).extracting(Worker::id).containsExactly("a", "c");
    assertThat(l.events())
        .extracting(Membership.ScalingEvent::detail)
        .containsExactly("a on h (1 held)", "c on h (2 held)");
  }

  @Test
  @DisplayName(
      "asks for what max lacks beyond the asks outstanding; a grant uses up one ask; a finish withdraws them")
  void asks() {
    ContainerLedger l = ledger();
    List<WorkerAction> out = new ArrayList<>();
    l.askForMissing(out);
    l.askForMissing(out);
    assertThat(out).containsExactly(new WorkerAction.Ask(2));
    l.allocated("a", "h", true, 0);
    assertThat(l.outstandingAsks()).isEqualTo(1);
    assertThat(l.cancelAsks()).containsExactly(new WorkerAction.CancelAsks(1));
    assertThat(l.cancelAsks()).isEmpty();
  }

  @Test
  @DisplayName(
      "a start accepted runs; one told to stop while its start was in flight gets SIGTERM then, once")
  void launched() {
    ContainerLedger l = ledger();
    Worker a = l.add("a", "h", State.LAUNCHING, 1);
    assertThat(l.launched("a")).isEmpty();
    assertThat(a.state()).isEqualTo(State.RUNNING);

    Worker b = l.add("b", "h", State.LAUNCHING, 1);
    l.stop(List.of(b), new ArrayList<>());
    assertThat(brief(l.launched("b"))).isEqualTo("term b");
    assertThat(l.launched("b")).isEmpty();
    assertThat(l.launched("unknown")).isEmpty();
  }

  static Stream<Arguments> exits() {
    return Stream.of(
        Arguments.of(State.HELD, false, "", State.HELD),
        Arguments.of(State.IDLE, false, "", State.IDLE),
        Arguments.of(State.DRAINING, false, "release a", null),
        Arguments.of(State.STOPPING, false, "", State.IDLE),
        Arguments.of(State.RUNNING, true, "", State.IDLE),
        Arguments.of(State.LAUNCHING, true, "", State.IDLE));
  }

  @ParameterizedTest(name = "{0}: the caller decides {1}, actions [{2}], then {3}")
  @MethodSource("exits")
  @DisplayName(
      "a process's exit: ignored where nothing ran, released when draining, else the container goes idle;"
          + " the caller decides only what a running process's exit means")
  void exits(State before, boolean callerDecides, String actions, State after) {
    ContainerLedger l = ledger();
    Worker a = l.add("a", "h", before, 1);
    List<WorkerAction> out = new ArrayList<>();
    assertThat(l.exited(a, "exited 1", 0, out)).isEqualTo(callerDecides);
    assertThat(brief(out)).isEqualTo(actions);
    assertThat(l.get("a") == null ? null : l.get("a").state()).isEqualTo(after);
  }

  static Stream<Arguments> preemptions() {
    return Stream.of(
        Arguments.of(State.HELD, "release a", null),
        Arguments.of(State.IDLE, "release a", null),
        Arguments.of(State.RUNNING, "term a", State.DRAINING),
        Arguments.of(State.LAUNCHING, "", State.DRAINING),
        Arguments.of(State.STOPPING, "", State.DRAINING));
  }

  @ParameterizedTest(name = "{0}: actions [{1}], then {2}")
  @MethodSource("preemptions")
  @DisplayName(
      "a preemption releases a container that runs nothing at once; one that runs drains until its deadline")
  void preemptions(State before, String actions, State after) {
    ContainerLedger l = ledger();
    Worker a = l.add("a", "h", before, 1);
    List<WorkerAction> out = new ArrayList<>();
    l.preempt(a, 1000, 0, out);
    assertThat(brief(out)).isEqualTo(actions);
    assertThat(l.get("a") == null ? null : l.get("a").state()).isEqualTo(after);
    assertThat(l.notDraining(Set.of("a"))).isEmpty();
    if (after == State.DRAINING) {
      out.clear();
      l.releaseDrainedAtGrace(999, out);
      l.releaseDrainedAtGrace(1000, out);
      assertThat(brief(out)).isEqualTo("release a");
    }
  }

  @Test
  @DisplayName("each failure spends one restart, with an event; the one past the budget is refused")
  void restartBudget() {
    ContainerLedger l = ledger();
    Worker a = l.add("a", "h", State.RUNNING, 1);
    assertThat(l.charge(a, "exited with status 1", 0)).isTrue();
    assertThat(l.charge(a, "exited with status 2", 0)).isFalse();
    assertThat(l.restartsUsed()).isEqualTo(2);
    assertThat(l.overBudget("worker")).isEqualTo("2 worker failures, more than --max-restarts=1");
    assertThat(l.events())
        .extracting(Membership.ScalingEvent::detail)
        .containsExactly("a exited with status 1 (restart 1 of 1)");
  }

  @Test
  @DisplayName("min and max must make sense")
  void refusesBadBounds() {
    assertThatThrownBy(() -> new ContainerLedger(2, 1, 0, w -> w.id()))
        .hasMessage("need 1 <= min <= max, was min 2, max 1");
    assertThatThrownBy(() -> new ContainerLedger(0, 1, 0, w -> w.id()))
        .hasMessage("need 1 <= min <= max, was min 0, max 1");
  }
}
