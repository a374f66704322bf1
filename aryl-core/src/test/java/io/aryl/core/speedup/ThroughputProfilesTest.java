package io.aryl.core.speedup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Specification of {@link ThroughputProfiles}, against a slice of the real Pollux profiles in
 * {@code src/test/resources/throughput_profiles/} (see the README there) and tiny hand-written
 * files.
 *
 * <p>Expected values are computed here from step times copied from those files. The speedup of
 * {@code n} replicas at a fixed local batch is {@code (n * bsz / step_n) / (1 * bsz / step_1) = n *
 * step_1 / step_n}.
 */
@DisplayName("ThroughputProfiles")
class ThroughputProfilesTest {
  private static final double EPS = 1e-12;

  // cifar10/placements.csv and scalability.csv, local_bsz 182: step_time in seconds.
  /** placements.csv: {@code 1,182,0.13722496032714843,...}. */
  private static final double CIFAR_182_P1 = 0.13722496032714843;

  /**
   * placements.csv: {@code 2,182,0.1522368907928467,...}; beats {@code 11,182,0.15558092594146727}.
   */
  private static final double CIFAR_182_P2 = 0.1522368907928467;

  /**
   * placements.csv: {@code 4,182,0.14636456966400146,...}; beats 22 (0.18819742202758788), 1111
   * (0.1741780996322632).
   */
  private static final double CIFAR_182_P4 = 0.14636456966400146;

  /**
   * placements.csv: {@code 2222,182,0.18080713748931884,...}; beats 44 (0.224548864364624) and
   * scalability.csv 8/8 (0.20243172645568847), 6/8 (0.2031799077987671).
   */
  private static final double CIFAR_182_P2222 = 0.18080713748931884;

  /**
   * placements.csv: {@code 4444,182,0.17696428298950195,...}; beats scalability.csv 16/16
   * (0.22646563053131102), 12/16 (0.20458872318267823), 8/16 (0.19991371631622315), 6/16
   * (0.204827618598938).
   */
  private static final double CIFAR_182_P4444 = 0.17696428298950195;

  /**
   * scalability.csv: {@code 16,64,182,0.38951921463012695,...}, the largest replica count measured.
   */
  private static final double CIFAR_182_S64 = 0.38951921463012695;

  // cifar10, local_bsz 1024.
  /** placements.csv: {@code 1,1024,0.7020925283432007,...}. */
  private static final double CIFAR_1024_P1 = 0.7020925283432007;

  /**
   * placements.csv: {@code 11,1024,0.721982479095459,...}: at this batch two nodes beat {@code 2}
   * (0.8379724740982055).
   */
  private static final double CIFAR_1024_P11 = 0.721982479095459;

  // bert, local_bsz 12.
  /** placements.csv: {@code 1,12,0.9215156733989716,...}. */
  private static final double BERT_12_P1 = 0.9215156733989716;

  /**
   * scalability.csv: {@code 12,16,12,1.7188740968704224,...}; beats placements.csv 4444
   * (1.8881946355104446) and scalability.csv 16/16 (1.8259641081094742), 8/16 (1.7575292736291885),
   * 6/16 (1.8033214062452316).
   */
  private static final double BERT_12_S16 = 1.7188740968704224;

  private static double speedup(int n, double stepAtOne, double stepAtN) {
    return n * stepAtOne / stepAtN;
  }

  private static Path profiles() {
    try {
      return Path.of(ThroughputProfilesTest.class.getResource("/throughput_profiles").toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  @Nested
  @DisplayName("on the real cifar10 and bert slices")
  class RealProfiles {
    private final Path cifar10 = profiles().resolve("cifar10");
    private final Path bert = profiles().resolve("bert");

    @Test
    @DisplayName(
        "default local batch size is the one measured at the most replica counts (182 at 18, not 1024 at 8)")
    void defaultBatchIsTheMostWidelyMeasured() {
      assertThat(ThroughputProfiles.defaultLocalBatchSize(cifar10)).isEqualTo(182);
      assertThat(ThroughputProfiles.defaultLocalBatchSize(bert)).isEqualTo(12);
    }

    @Test
    @DisplayName("is named after the model directory, 1 replica is throughput 1")
    void oneReplicaIsTheUnit() {
      MeasuredSpeedup s = ThroughputProfiles.load(cifar10);
      assertThat(s.name()).isEqualTo("cifar10");
      assertThat(s.throughput(1)).isEqualTo(1.0);
    }

    @Test
    @DisplayName(
        "at measured counts, the speedup is n * step(1) / step(n) of the fastest placement")
    void measuredCountsMatchTheRows() {
      MeasuredSpeedup s = ThroughputProfiles.load(cifar10);
      assertThat(s.throughput(2)).isCloseTo(speedup(2, CIFAR_182_P1, CIFAR_182_P2), within(EPS));
      assertThat(s.throughput(4)).isCloseTo(speedup(4, CIFAR_182_P1, CIFAR_182_P4), within(EPS));
      assertThat(s.throughput(8)).isCloseTo(speedup(8, CIFAR_182_P1, CIFAR_182_P2222), within(EPS));
      assertThat(s.throughput(16))
          .isCloseTo(speedup(16, CIFAR_182_P1, CIFAR_182_P4444), within(EPS));
      assertThat(s.throughput(64)).isCloseTo(speedup(64, CIFAR_182_P1, CIFAR_182_S64), within(EPS));
    }

    @Test
    @DisplayName(
        "best placement per count is taken over both files (bert 16 replicas: scalability.csv 12 nodes)")
    void bestPlacementAcrossBothFiles() {
      MeasuredSpeedup s = ThroughputProfiles.load(bert);
      assertThat(s.throughput(16)).isCloseTo(speedup(16, BERT_12_P1, BERT_12_S16), within(EPS));
    }

    @Test
    @DisplayName("an explicit local batch size picks its own rows and its own best placement")
    void explicitBatchSize() {
      MeasuredSpeedup s = ThroughputProfiles.load(cifar10, 1024);
      assertThat(s.throughput(1)).isEqualTo(1.0);
      assertThat(s.throughput(2)).isCloseTo(speedup(2, CIFAR_1024_P1, CIFAR_1024_P11), within(EPS));
      assertThat(s.maxMeasuredWorkers()).isEqualTo(12);
    }

    @Test
    @DisplayName(
        "between measured counts the speedup is linearly interpolated (3 is halfway from 2 to 4)")
    void interpolatesBetweenPoints() {
      MeasuredSpeedup s = ThroughputProfiles.load(cifar10);
      double two = speedup(2, CIFAR_182_P1, CIFAR_182_P2);
      double four = speedup(4, CIFAR_182_P1, CIFAR_182_P4);
      assertThat(s.throughput(3)).isCloseTo((two + four) / 2, within(EPS));
    }

    @Test
    @DisplayName("beyond the largest measured count the speedup stays flat")
    void flatBeyondLargest() {
      MeasuredSpeedup s = ThroughputProfiles.load(cifar10);
      assertThat(s.maxMeasuredWorkers()).isEqualTo(64);
      assertThat(s.throughput(65)).isEqualTo(s.throughput(64));
      assertThat(s.throughput(1000)).isEqualTo(s.throughput(64));
    }

    @Test
    @DisplayName("a local batch size that was never measured is an error listing the measured ones")
    void unmeasuredBatchSize() {
      assertThatThrownBy(() -> ThroughputProfiles.load(cifar10, 999))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("cifar10")
          .hasMessageContaining("local_bsz 999")
          .hasMessageContaining("[182, 1024]");
    }

    @Test
    @DisplayName("loadAll finds every model directory, sorted by name")
    void loadAllFindsBothModels() {
      Map<String, MeasuredSpeedup> all = ThroughputProfiles.loadAll(profiles());
      assertThat(all).containsOnlyKeys("bert", "cifar10");
      assertThat(all.keySet()).containsExactly("bert", "cifar10");
      assertThat(all.get("bert").throughput(16))
          .isEqualTo(ThroughputProfiles.load(bert).throughput(16));
    }
  }

  @Nested
  @DisplayName("on hand-written files")
  class Synthetic {
    @TempDir Path dir;

    private Path model(String placements, String scalability) throws IOException {
      Path m = dir.resolve("m");
      Files.createDirectories(m);
      Files.writeString(m.resolve("placements.csv"), placements);
      Files.writeString(m.resolve("scalability.csv"), scalability);
      return m;
    }

    private static final String P_HEADER = "placement,local_bsz,step_time,sync_time\n";
    private static final String S_HEADER = "num_nodes,num_replicas,local_bsz,step_time,sync_time\n";

    @Test
    @DisplayName(
        "placement digits are replicas per node: '22' is 4 replicas, and the best of 4, 22, 1111 wins")
    void placementDigitsSumToReplicas() throws IOException {
      Path m = model(P_HEADER + "1,10,1.0,0\n4,10,2.0,0\n22,10,1.0,0\n1111,10,4.0,0\n", S_HEADER);
      // 4 replicas: 4*10/2 = 20, 4*10/1 = 40 (best), 4*10/4 = 10; 1 replica: 10.
      assertThat(ThroughputProfiles.load(m).throughput(4)).isEqualTo(4.0);
    }

    @Test
    @DisplayName("scalability rows count num_replicas, whatever num_nodes")
    void scalabilityCountsReplicas() throws IOException {
      Path m = model(P_HEADER + "1,10,1.0,0\n", S_HEADER + "6,12,10,2.0,0.5\n");
      // 12 * 10 / 2 = 60 samples/s against 10 at 1 replica.
      assertThat(ThroughputProfiles.load(m).throughput(12)).isEqualTo(6.0);
    }

    @Test
    @DisplayName("on a tie in replica counts measured, the default is the largest local batch size")
    void tieGoesToLargestBatch() throws IOException {
      Path m =
          model(P_HEADER + "1,8,1.0,0\n2,8,1.0,0\n1,16,1.0,0\n2,16,1.5,0\n1,32,1.0,0\n", S_HEADER);
      assertThat(ThroughputProfiles.defaultLocalBatchSize(m)).isEqualTo(16);
      assertThat(ThroughputProfiles.load(m).throughput(2)).isCloseTo(2 / 1.5, within(EPS));
    }

    @Test
    @DisplayName("the default ignores local batch sizes without a 1-replica row")
    void defaultNeedsOneReplica() throws IOException {
      Path m =
          model(
              P_HEADER + "1,8,1.0,0\n2,8,1.0,0\n2,16,1.0,0\n4,16,1.0,0\n",
              S_HEADER + "6,6,16,1.0,0\n");
      assertThat(ThroughputProfiles.defaultLocalBatchSize(m)).isEqualTo(8);
    }

    @Test
    @DisplayName("requesting a local batch size with no 1-replica row is an error")
    void requestedBatchWithoutOneReplica() throws IOException {
      Path m = model(P_HEADER + "1,8,1.0,0\n2,16,1.0,0\n", S_HEADER);
      assertThatThrownBy(() -> ThroughputProfiles.load(m, 16))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("placements.csv")
          .hasMessageContaining("no row at 1 replica with local_bsz 16")
          .hasMessageContaining("[8]");
    }

    @Test
    @DisplayName("no 1-replica row at all is an error")
    void noOneReplicaAtAll() throws IOException {
      Path m = model(P_HEADER + "2,8,1.0,0\n", S_HEADER);
      assertThatThrownBy(() -> ThroughputProfiles.load(m))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("placements.csv")
          .hasMessageContaining("no row at 1 replica");
    }

    @Test
    @DisplayName("a missing file is an error naming it")
    void missingFile() throws IOException {
      Path m = dir.resolve("m");
      Files.createDirectories(m);
      Files.writeString(m.resolve("placements.csv"), P_HEADER + "1,8,1.0,0\n");
      assertThatThrownBy(() -> ThroughputProfiles.load(m))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining(m.resolve("scalability.csv").toString())
          .hasMessageContaining("file not found");
    }

    @Test
    @DisplayName("an empty file is an error at line 1")
    void emptyFile() throws IOException {
      Path m = model("", S_HEADER);
      assertThatThrownBy(() -> ThroughputProfiles.load(m))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("placements.csv:1: missing header");
    }

    @Test
    @DisplayName("a header missing a column is an error at line 1 naming the column and the header")
    void wrongHeaderColumn() throws IOException {
      Path m = model("placement,local_bsz,step_tim,sync_time\n1,8,1.0,0\n", S_HEADER);
      assertThatThrownBy(() -> ThroughputProfiles.load(m))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("placements.csv:1:")
          .hasMessageContaining("no column 'step_time'")
          .hasMessageContaining("'placement,local_bsz,step_tim,sync_time'");
    }

    @Test
    @DisplayName("a scalability header missing num_replicas is an error")
    void wrongScalabilityHeader() throws IOException {
      Path m = model(P_HEADER + "1,8,1.0,0\n", "num_nodes,local_bsz,step_time,sync_time\n");
      assertThatThrownBy(() -> ThroughputProfiles.load(m))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("scalability.csv:1:")
          .hasMessageContaining("no column 'num_replicas'");
    }

    static Stream<Arguments> badPlacementLines() {
      return Stream.of(
          Arguments.of("1,8,abc,0", "step_time must be a number > 0, was 'abc'"),
          Arguments.of("1,8,0,0", "step_time must be a number > 0, was '0'"),
          Arguments.of("1,8,-1.5,0", "step_time must be a number > 0, was '-1.5'"),
          Arguments.of("1,8,NaN,0", "step_time must be a number > 0, was 'NaN'"),
          Arguments.of("1,8,Infinity,0", "step_time must be a number > 0, was 'Infinity'"),
          Arguments.of("1,8,1.0,x", "sync_time must be a number >= 0, was 'x'"),
          Arguments.of(",8,1.0,0", "placement must not be empty"),
          Arguments.of(
              "2a,8,1.0,0", "placement must be digits 1-9 (one per node: its replicas), was '2a'"),
          Arguments.of("20,8,1.0,0", "was '20'"),
          Arguments.of("2,8.5,1.0,0", "local_bsz must be an integer > 0, was '8.5'"),
          Arguments.of("2,0,1.0,0", "local_bsz must be an integer > 0, was '0'"),
          Arguments.of("2,8,1.0", "expected 4 columns, found 3, was '2,8,1.0'"),
          Arguments.of("2,8,1.0,0,9", "expected 4 columns, found 5, was '2,8,1.0,0,9'"),
          Arguments.of("", "expected 4 columns, found 1, was ''"));
    }

    @ParameterizedTest(name = "placements line ''{0}'' -> {1}")
    @MethodSource("badPlacementLines")
    @DisplayName("a malformed placements line is an error naming file, line number and value")
    void malformedPlacementLine(String line, String expected) throws IOException {
      Path m = model(P_HEADER + "1,8,1.0,0\n" + line + "\n2,8,1.0,0\n", S_HEADER);
      assertThatThrownBy(() -> ThroughputProfiles.load(m))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining(m.resolve("placements.csv") + ":3: ")
          .hasMessageContaining(expected);
    }

    static Stream<Arguments> badScalabilityLines() {
      return Stream.of(
          Arguments.of("6,x,8,1.0,0", "num_replicas must be an integer > 0, was 'x'"),
          Arguments.of("0,6,8,1.0,0", "num_nodes must be an integer > 0, was '0'"),
          Arguments.of("8,6,8,1.0,0", "num_replicas must be >= num_nodes (8), was '6'"),
          Arguments.of("6,6,8,abc,0", "step_time must be a number > 0, was 'abc'"),
          Arguments.of("6,6,8,1.0", "expected 5 columns, found 4"));
    }

    @ParameterizedTest(name = "scalability line ''{0}'' -> {1}")
    @MethodSource("badScalabilityLines")
    @DisplayName("a malformed scalability line is an error naming file, line number and value")
    void malformedScalabilityLine(String line, String expected) throws IOException {
      Path m =
          model(P_HEADER + "1,8,1.0,0\n", S_HEADER + "6,6,8,1.0,0\n6,7,8,1.0,0\n" + line + "\n");
      assertThatThrownBy(() -> ThroughputProfiles.load(m))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining(m.resolve("scalability.csv") + ":4: ")
          .hasMessageContaining(expected);
    }

    @Test
    @DisplayName("loadAll skips directories with neither file, sorted by name")
    void loadAllSkipsUnrelatedDirectories() throws IOException {
      for (String name : new String[] {"zeta", "alpha"}) {
        Path m = Files.createDirectories(dir.resolve(name));
        Files.writeString(m.resolve("placements.csv"), P_HEADER + "1,8,1.0,0\n");
        Files.writeString(m.resolve("scalability.csv"), S_HEADER);
      }
      Files.createDirectories(dir.resolve("notes"));
      assertThat(ThroughputProfiles.loadAll(dir).keySet()).containsExactly("alpha", "zeta");
    }

    @Test
    @DisplayName("loadAll rejects a model directory with only one of the two files")
    void loadAllRejectsHalfAModel() throws IOException {
      Path m = Files.createDirectories(dir.resolve("half"));
      Files.writeString(m.resolve("placements.csv"), P_HEADER + "1,8,1.0,0\n");
      assertThatThrownBy(() -> ThroughputProfiles.loadAll(dir))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining(m.resolve("scalability.csv").toString())
          .hasMessageContaining("file not found");
    }

    @Test
    @DisplayName("loadAll of a directory holding no model is an error")
    void loadAllOfNothing() {
      assertThatThrownBy(() -> ThroughputProfiles.loadAll(dir))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining(dir.toString())
          .hasMessageContaining("no model directory");
      assertThatThrownBy(() -> ThroughputProfiles.loadAll(dir.resolve("absent")))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("not a directory");
    }
  }
}
