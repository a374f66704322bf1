package io.aryl.serve.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.groups.Tuple.tuple;

import io.aryl.api.serve.ServeStatus;
import io.aryl.serve.core.ReplicaAction.Ask;
import io.aryl.serve.core.ReplicaAction.CancelAsks;
import io.aryl.serve.core.ReplicaAction.Launch;
import io.aryl.serve.core.ReplicaAction.Release;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

@DisplayName("ReplicaSet: the inference AM's decisions, events in and actions out")
class ReplicaSetTest {
  /** min 1, max 4, 10 rps a replica, 5 s window, scale down after 30 s, drain 2 s, 2 failures. */
  private static final ScalingSettings SETTINGS =
      new ScalingSettings(1, 4, 10, 5_000, 30_000, 2_000, 2, 20_000, 20_009);

  /**
   * A set grown to {@code n} serving replicas c1..cn: c1 alone answers n x 10 rps in its first
   * second, which raises the target to n; the others are granted and answer their health check at 1
   * s. Then every replica answers 10 rps from 19 s to 20 s with no tick, so that the window of a
   * test's first tick, at 21 s or later, holds only that steady load. {@code counters} are the
   * replicas' request counters, index 0 for c1.
   */
  private static ReplicaSet serving(int n, long[] counters) {
    ReplicaSet s = new ReplicaSet(SETTINGS, 7);
    s.start(0);
    if (n == 0) {
      return s;
    }
    s.allocated("c1", "h1", 0);
    s.launched("c1", 0);
    s.polled("c1", true, 0, 0);
    if (n > 1) {
      counters[0] = n * 10L;
      s.polled("c1", true, counters[0], 1_000);
      assertThat(s.tick(1_000)).containsExactly(new Ask(n - 1));
      for (int i = 2; i <= n; i++) {
        s.allocated("c" + i, "h" + i, 1_000);
        s.launched("c" + i, 1_000);
        s.polled("c" + i, true, 0, 1_000);
      }
    }
    for (int t = 19; t <= 20; t++) {
      for (int i = 0; i < n; i++) {
        counters[i] += 10;
        s.polled("c" + (i + 1), true, counters[i], t * 1000L);
      }
    }
    assertThat(s.running()).hasSize(n);
    return s;
  }

  /**
   * Each serving replica answers {@code rpsEach} a second, polled and ticked every second from
   * {@code fromS} to {@code toS}; the actions of those ticks.
   */
  private static List<ReplicaAction> load(
      ReplicaSet s, double rpsEach, int fromS, int toS, long[] counters) {
    List<ReplicaAction> out = new ArrayList<>();
    for (int t = fromS; t <= toS; t++) {
      for (String id : s.running()) {
        int i = Integer.parseInt(id.substring(1)) - 1;
        counters[i] += (long) rpsEach;
        s.polled(id, true, counters[i], t * 1000L);
      }
      out.addAll(s.tick(t * 1000L));
    }
    return out;
  }

  @Test
  @DisplayName(
      "starts by asking for the minimum, launches a granted container on a port of the range")
  void startAsksForMin() {
    ReplicaSet s = new ReplicaSet(SETTINGS, 7);
    assertThat(s.start(0)).containsExactly(new Ask(1));
    List<ReplicaAction> a = s.allocated("c1", "h1", 10);
    assertThat(a).hasSize(1).first().isInstanceOf(Launch.class);
    Launch l = (Launch) a.get(0);
    assertThat(l.id()).isEqualTo("c1");
    assertThat(l.host()).isEqualTo("h1");
    assertThat(l.port()).isBetween(20_000, 20_009);
    assertThat(s.status("app", "RUNNING", 1).endpoints())
        .as("not serving before its health check")
        .isEmpty();
    s.launched("c1", 20);
    s.polled("c1", false, -1, 500);
    assertThat(s.running()).isEmpty();
    s.polled("c1", true, 0, 1000);
    assertThat(s.status("app", "RUNNING", 1).endpoints()).containsExactly("http://h1:" + l.port());
  }

  static Stream<Arguments> targets() {
    // rate (total rps) -> replicas wanted, with 10 rps a replica, between 1 and 4
    return Stream.of(
        Arguments.of(0.0, 1),
        Arguments.of(5.0, 1),
        Arguments.of(10.0, 1),
        Arguments.of(10.5, 2),
        Arguments.of(20.0, 2),
        Arguments.of(31.0, 4),
        Arguments.of(1000.0, 4));
  }

  @ParameterizedTest(name = "{0} rps wants {1}")
  @MethodSource("targets")
  @DisplayName("wants ceil(rate / target rps per replica), within min and max")
  void replicasFor(double rate, int wanted) {
    assertThat(SETTINGS.replicasFor(rate)).isEqualTo(wanted);
  }

  @Test
  @DisplayName("a rate over one replica's target raises the target at once and asks for the rest")
  void scalesUpAtOnce() {
    long[] counters = new long[4];
    ReplicaSet s = serving(1, counters);
    List<ReplicaAction> out = load(s, 25, 21, 26, counters);
    assertThat(s.rate()).isEqualTo(25.0);
    assertThat(s.target()).isEqualTo(3);
    // the window fills with the new load: 17.5 and 20 rps at 21-22 s want 2, 21.25 at 23 s wants 3
    assertThat(out).containsExactly(new Ask(1), new Ask(1));
    assertThat(s.asked()).isEqualTo(2);
    assertThat(s.status("app", "RUNNING", 1).events())
        .extracting(ServeStatus.ScaleEvent::kind)
        .contains("scale-up");
  }

  @Test
  @DisplayName(
      "a fall is followed only after 30 s of wanting fewer, to the most wanted in that time,"
          + " draining the newest")
  void scalesDownWithHysteresis() {
    long[] counters = new long[4];
    ReplicaSet s = serving(3, counters);
    assertThat(load(s, 10, 21, 26, counters)).isEmpty(); // 30 rps: 3 wanted
    assertThat(s.target()).isEqualTo(3);
    // 6 rps a replica: the 5 s window reads 27.6, 25.2, 22.8, 20.4 rps at 27-30 s (3 wanted), then
    // 18 rps from 31 s on (2 wanted): the wait starts at 31 s.
    assertThat(load(s, 6, 27, 60, counters)).isEmpty();
    assertThat(s.target()).isEqualTo(3);
    assertThat(load(s, 6, 61, 61, counters)).as("drained; released after the drain").isEmpty();
    assertThat(s.target()).isEqualTo(2);
    assertThat(s.running()).as("the newest is out of the endpoints").containsExactly("c1", "c2");
    assertThat(load(s, 9, 62, 62, counters)).isEmpty();
    assertThat(load(s, 9, 63, 63, counters)).containsExactly(new Release("c3"));
    assertThat(s.status("app", "RUNNING", 1).events())
        .extracting(ServeStatus.ScaleEvent::kind)
        .containsSubsequence("scale-down", "drain");
  }

  @Test
  @DisplayName(
      "events about one replica name its container, those about the service none: the loan"
          + " controller measures a start-up from allocated to ready of one container")
  void eventsNameTheirReplica() {
    ReplicaSet s = new ReplicaSet(SETTINGS, 7);
    s.start(0);
    s.allocated("c1", "h1", 1_000);
    s.launched("c1", 1_100);
    s.polled("c1", false, -1, 2_000);
    s.polled("c1", true, 0, 3_500);
    s.allocated("c2", "h2", 4_000); // surplus: the target is 1
    assertThat(s.status("app", "RUNNING", 1).events())
        .extracting(
            ServeStatus.ScaleEvent::timeMs,
            ServeStatus.ScaleEvent::kind,
            ServeStatus.ScaleEvent::container)
        .containsExactly(
            tuple(0L, "start", null),
            tuple(0L, "ask", null),
            tuple(1_000L, ServeStatus.ScaleEvent.ALLOCATED, "c1"),
            tuple(3_500L, ServeStatus.ScaleEvent.READY, "c1"),
            tuple(4_000L, "surplus", "c2"));
  }

  @Test
  @DisplayName("a rate that rises again during the wait restarts it")
  void riseCancelsTheWait() {
    long[] counters = new long[4];
    ReplicaSet s = serving(2, counters);
    load(s, 10, 21, 26, counters); // 2 wanted
    load(s, 3, 27, 51, counters); // 1 wanted from 30 s
    load(s, 10, 52, 60, counters); // 2 wanted again from 53 s
    load(s, 3, 61, 85, counters); // 1 wanted from 64 s: 21 s, not 30
    assertThat(s.target()).isEqualTo(2);
    assertThat(s.running()).hasSize(2);
  }

  @Test
  @DisplayName(
      "a preempted replica leaves the endpoints at once, is released after the drain and replaced")
  void preemptedIsDrainedAndReplaced() {
    long[] counters = new long[4];
    ReplicaSet s = serving(2, counters);
    load(s, 10, 21, 26, counters);
    List<ReplicaAction> out = s.preempted(Set.of("c2"), 26_500);
    assertThat(out).containsExactly(new Ask(1));
    assertThat(s.running()).containsExactly("c1");
    assertThat(s.tick(27_000)).isEmpty();
    assertThat(s.tick(28_500)).containsExactly(new Release("c2"));
    assertThat(s.tick(29_000)).as("released once").isEmpty();
    assertThat(s.completed("c2", -102, "preempted", 29_100)).isEmpty();
    assertThat(s.allocated("c3", "h3", 29_200)).hasSize(1).first().isInstanceOf(Launch.class);
  }

  @Test
  @DisplayName("a lost replica that served is replaced without counting as a failure")
  void lostIsReplaced() {
    ReplicaSet s = serving(1, new long[4]);
    for (int i = 0; i < 5; i++) {
      assertThat(s.completed("c" + (i + 1), -100, "node lost", 21_000 + i))
          .containsExactly(new Ask(1));
      s.allocated("c" + (i + 2), "h", 21_000 + i);
      s.polled("c" + (i + 2), true, 0, 21_000 + i);
    }
    assertThat(s.failure()).isNull();
  }

  @Test
  @DisplayName(
      "replicas that exit before they ever answer are failures; one over the allowance fails the service")
  void failuresFailTheService() {
    ReplicaSet s = serving(0, new long[4]);
    s.allocated("c1", "h", 0);
    assertThat(s.completed("c1", 1, "exit 1", 10)).containsExactly(new Ask(1));
    s.allocated("c2", "h", 20);
    assertThat(s.launchFailed("c2", "refused", 30)).containsExactly(new Release("c2"), new Ask(1));
    assertThat(s.failure()).isNull();
    s.allocated("c3", "h", 40);
    assertThat(s.completed("c3", 1, "Address already in use", 50)).isEmpty();
    assertThat(s.failure()).contains("3 replicas failed").contains("Address already in use");
    assertThat(s.status("app", "RUNNING", 1).state()).isEqualTo("FAILED");
  }

  @Test
  @DisplayName(
      "extra asks are withdrawn before replicas are drained; a grant not needed any more is released")
  void withdrawsAsksFirst() {
    ScalingSettings quick = new ScalingSettings(1, 4, 10, 5_000, 0, 2_000, 2, 20_000, 20_009);
    ReplicaSet s = new ReplicaSet(quick, 7);
    s.start(0);
    s.allocated("c1", "h1", 0);
    s.polled("c1", true, 0, 0);
    s.polled("c1", true, 40, 1_000); // 40 rps: 4 wanted
    assertThat(s.tick(1_000)).containsExactly(new Ask(3));
    s.polled("c1", true, 45, 2_000);
    s.polled("c1", true, 50, 3_000);
    s.polled("c1", true, 55, 4_000);
    s.polled("c1", true, 60, 5_000);
    s.polled("c1", true, 65, 6_000);
    s.polled("c1", true, 70, 7_000); // 5 rps over the window: 1 wanted
    assertThat(s.tick(7_000)).containsExactly(new CancelAsks(3));
    assertThat(s.allocated("c2", "h2", 7_100)).containsExactly(new Release("c2"));
  }

  @Test
  @DisplayName("two replicas on one host never get the same port")
  void portsDifferOnAHost() {
    ScalingSettings two = new ScalingSettings(2, 2, 10, 5_000, 0, 0, 2, 20_000, 20_001);
    for (long seed = 0; seed < 20; seed++) {
      ReplicaSet s = new ReplicaSet(two, seed);
      s.start(0);
      Launch a = (Launch) s.allocated("c1", "h", 0).get(0);
      Launch b = (Launch) s.allocated("c2", "h", 0).get(0);
      assertThat(a.port()).isNotEqualTo(b.port());
    }
  }

  @Test
  @DisplayName("bad settings are refused naming the option and the value")
  void badSettings() {
    assertThatThrownBy(() -> ScalingSettings.of(0, 1, 1))
        .hasMessage("--replicas-min must be >= 1, was 0");
    assertThatThrownBy(() -> ScalingSettings.of(3, 2, 1))
        .hasMessage("--replicas-max must be >= --replicas-min (3), was 2");
    assertThatThrownBy(() -> ScalingSettings.of(1, 2, 0))
        .hasMessage("--target-rps-per-replica must be a number > 0, was 0.0");
    assertThatThrownBy(() -> ScalingSettings.of(1, 2, Double.NaN))
        .hasMessage("--target-rps-per-replica must be a number > 0, was NaN");
  }
}
