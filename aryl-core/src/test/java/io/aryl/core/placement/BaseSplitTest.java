package io.aryl.core.placement;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.core.model.Allocation;
import io.aryl.core.model.GpuType;
import io.aryl.core.model.Job;
import io.aryl.core.model.Server;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

@DisplayName("BaseSplit: which of a running job's workers are its base")
class BaseSplitTest {
  private static final GpuType A100 = GpuType.of("A100");

  /** By index: a (own), b (own, fenced), c (loaned), d (own). */
  private static final ServerTable TABLE =
      new ServerTable(
          List.of(
              Server.training("a", A100, 8),
              Server.training("b", A100, 8).withFenced(true),
              Server.loaned("c", A100, 8),
              Server.training("d", A100, 8)));

  static Stream<Arguments> splits() {
    return Stream.of(
        Arguments.of(
            "the base takes the own open servers first, by index",
            3,
            Map.of("a", 2, "c", 2, "d", 2),
            new int[] {0, 2, 3},
            new int[] {2, 0, 1},
            new int[] {0, 2, 1}),
        Arguments.of(
            "then loaned open ones",
            3,
            Map.of("b", 1, "c", 4),
            new int[] {1, 2},
            new int[] {0, 3},
            new int[] {1, 1}),
        Arguments.of(
            "fenced ones last",
            3,
            Map.of("a", 1, "b", 4),
            new int[] {0, 1},
            new int[] {1, 2},
            new int[] {0, 2}),
        Arguments.of(
            "a job at its minimum has no flexible workers",
            4,
            Map.of("b", 2, "d", 2),
            new int[] {1, 3},
            new int[] {2, 2},
            new int[] {0, 0}));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("splits")
  void split(
      String name,
      int minWorkers,
      Map<String, Integer> workers,
      int[] servers,
      int[] base,
      int[] flexible) {
    Job job = Job.builder("j").gpusPerWorker(1).workers(minWorkers, 8).remainingS(100).build();
    BaseSplit.Parts parts =
        BaseSplit.split(job, Allocation.of(workers), TABLE, BaseSplit.ownOpenFirst(TABLE));
    assertThat(parts.servers()).containsExactly(servers);
    assertThat(parts.base()).containsExactly(base);
    assertThat(parts.flexible()).containsExactly(flexible);
    assertThat(parts.flexibleCount()).isEqualTo(java.util.Arrays.stream(flexible).sum());
  }
}
