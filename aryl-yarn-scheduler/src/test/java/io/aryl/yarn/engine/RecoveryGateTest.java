package io.aryl.yarn.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

@DisplayName("RecoveryGate: a newly active scheduler acts only once the cluster is back")
class RecoveryGateTest {
  private static final long START = 1_000;
  private static final long MAX_WAIT = 60_000;

  static Stream<Arguments> cases() {
    return Stream.of(
        Arguments.of("nothing to wait for", Set.of(), Set.of(), true, START, true),
        Arguments.of(
            "every expected node re-registered",
            Set.of("a", "b"),
            Set.of("a", "b", "c"),
            true,
            START + 10,
            true),
        Arguments.of(
            "one expected node still missing",
            Set.of("a", "b"),
            Set.of("a"),
            true,
            START + 10,
            false),
        Arguments.of(
            "missing, but the wait is over",
            Set.of("a", "b"),
            Set.of("a"),
            true,
            START + MAX_WAIT,
            true),
        Arguments.of(
            "all back, but the ResourceManager still waits",
            Set.of("a"),
            Set.of("a"),
            false,
            START + 10,
            false),
        Arguments.of(
            "the wait is over, but the ResourceManager still waits",
            Set.of("a"),
            Set.of(),
            false,
            START + MAX_WAIT * 2,
            false));
  }

  @ParameterizedTest(name = "{0}: ready = {5}")
  @MethodSource("cases")
  @DisplayName(
      "is ready when the ResourceManager is, and every expected node is back or the wait is over")
  void readiness(
      String description,
      Set<String> expected,
      Set<String> registered,
      boolean rmReady,
      long now,
      boolean ready) {
    RecoveryGate gate = new RecoveryGate(START, MAX_WAIT, expected);
    assertThat(gate.ready(registered, rmReady, now)).isEqualTo(ready);
    assertThat(gate.status().recovering()).isEqualTo(!ready);
  }

  @Test
  @DisplayName("with every node back, it says it waits for the ResourceManager's own recovery")
  void saysWhenItWaitsForTheResourceManager() {
    RecoveryGate gate = new RecoveryGate(START, MAX_WAIT, Set.of("a"));
    assertThat(gate.ready(Set.of("a"), false, START + 5)).isFalse();
    assertThat(gate.waitingFor()).contains("scheduling-wait-ms");
  }

  @Test
  @DisplayName("once ready it stays ready, and reports how long it waited and for what")
  void staysReady() {
    RecoveryGate gate = new RecoveryGate(START, MAX_WAIT, Set.of("a", "b"));
    assertThat(gate.ready(Set.of("a"), true, START + 5)).isFalse();
    assertThat(gate.status().waitingForNodes()).containsExactly("b");
    assertThat(gate.waitingFor()).startsWith("node(s) [b] to re-register");
    assertThat(gate.ready(Set.of("a", "b"), true, START + 2_500)).isTrue();
    assertThat(gate.ready(Set.of(), false, START + 3_000)).as("ready for good").isTrue();
    assertThat(gate.waitedMs()).isEqualTo(2_500);
    assertThat(gate.how()).isEqualTo("all 2 node(s) re-registered");
  }
}
