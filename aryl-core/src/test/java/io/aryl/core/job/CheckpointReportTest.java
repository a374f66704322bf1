package io.aryl.core.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

@DisplayName(
    "CheckpointReport: the checkpoint contract between workers, their ApplicationMaster and the scheduler")
class CheckpointReportTest {

  @Nested
  @DisplayName("the marker's path")
  class MarkerPath {
    static Stream<Arguments> dirs() {
      return Stream.of(
          Arguments.of("a local directory", "/mnt/ckpt/bert", "/mnt/ckpt/bert/aryl-checkpoint"),
          Arguments.of(
              "a trailing slash is not doubled",
              "/mnt/ckpt/bert/",
              "/mnt/ckpt/bert/aryl-checkpoint"),
          Arguments.of("several trailing slashes", "/mnt/ckpt//", "/mnt/ckpt/aryl-checkpoint"),
          Arguments.of(
              "an HDFS URI keeps its scheme",
              "hdfs:///ckpt/bert",
              "hdfs:///ckpt/bert/aryl-checkpoint"),
          Arguments.of(
              "a URI with an authority",
              "hdfs://nn:8020/ckpt",
              "hdfs://nn:8020/ckpt/aryl-checkpoint"),
          Arguments.of("the root", "/", "/aryl-checkpoint"),
          Arguments.of("a file system's root", "hdfs:///", "hdfs:///aryl-checkpoint"),
          Arguments.of(
              "a file system's root with an authority",
              "hdfs://nn:8020/",
              "hdfs://nn:8020/aryl-checkpoint"),
          Arguments.of("an authority alone", "hdfs://nn:8020", "hdfs://nn:8020/aryl-checkpoint"),
          Arguments.of("blanks around it", "  /ckpt ", "/ckpt/aryl-checkpoint"),
          Arguments.of("no checkpoint directory: no marker", "", ""),
          Arguments.of("a blank directory: no marker", "   ", ""));
    }

    @ParameterizedTest(name = "{0}: ''{1}'' -> ''{2}''")
    @MethodSource("dirs")
    @DisplayName("is the marker file inside the checkpoint directory, in the directory's own form")
    void markerInsideDir(String what, String dir, String expected) {
      assertThat(CheckpointReport.markerPath(dir)).isEqualTo(expected);
    }

    @Test
    @DisplayName("no directory at all: no marker")
    void nullDir() {
      assertThat(CheckpointReport.markerPath(null)).isEmpty();
    }
  }

  @Nested
  @DisplayName("the step in the marker's content")
  class Step {
    static Stream<Arguments> contents() {
      return Stream.of(
          Arguments.of("a step number", "1200", 1200L),
          Arguments.of("with the newline echo writes", "1200\n", 1200L),
          Arguments.of("with blanks around it", "  42 \r\n", 42L),
          Arguments.of("step zero", "0", 0L),
          Arguments.of("empty: the contract allows no content", "", -1L),
          Arguments.of("not a number", "epoch-3", -1L),
          Arguments.of("negative", "-5", -1L),
          Arguments.of("a fraction", "1.5", -1L),
          Arguments.of("two numbers", "12 13", -1L),
          Arguments.of("too long to be a step (would overflow)", "9999999999999999999999", -1L));
    }

    @ParameterizedTest(name = "{0}: ''{1}'' -> {2}")
    @MethodSource("contents")
    @DisplayName("is a decimal integer >= 0, or unknown (-1)")
    void parsed(String what, String content, long expected) {
      assertThat(CheckpointReport.parseStep(content)).isEqualTo(expected);
    }
  }

  @Nested
  @DisplayName("the seconds a preemption throws away")
  class Since {
    static final long NOW = 1_000_000_000_000L;

    static Stream<Arguments> cases() {
      return Stream.of(
          Arguments.of(
              "no checkpoint reported: the time since the workers changed, as before",
              CheckpointReport.NONE,
              600.0,
              600.0),
          Arguments.of(
              "checkpointed after the last change: the time since the checkpoint",
              new CheckpointReport(NOW - 5_000, 10),
              3000.0,
              5.0),
          Arguments.of(
              "checkpointed before the last change: the restart at the change lost the rest already",
              new CheckpointReport(NOW - 2_400_000, 10),
              60.0,
              60.0),
          Arguments.of("checkpointed this very moment", new CheckpointReport(NOW, -1), 300.0, 0.0),
          Arguments.of(
              "a checkpoint time ahead of the scheduler's clock counts as now",
              new CheckpointReport(NOW + 2_000, -1),
              300.0,
              0.0),
          Arguments.of("milliseconds count", new CheckpointReport(NOW - 1_500, -1), 300.0, 1.5));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    @DisplayName(
        "is the work since the later of the last checkpoint and the last change of workers")
    void sinceLaterOfCheckpointAndChange(
        String what, CheckpointReport r, double sinceChangeS, double expected) {
      assertThat(r.sinceCheckpointS(NOW, sinceChangeS)).isEqualTo(expected);
    }
  }

  @Nested
  @DisplayName("the ApplicationMaster's status fields")
  class Status {
    @Test
    @DisplayName("are lastCheckpointMs then lastCheckpointStep, -1 when unknown")
    void fields() {
      assertThat(new CheckpointReport(1234, 7).statusFields())
          .containsExactly(
              org.assertj.core.api.Assertions.entry("lastCheckpointMs", 1234L),
              org.assertj.core.api.Assertions.entry("lastCheckpointStep", 7L));
      assertThat(CheckpointReport.NONE.statusFields().values()).containsExactly(-1L, -1L);
      assertThat(
              List.of(CheckpointReport.LAST_CHECKPOINT_MS, CheckpointReport.LAST_CHECKPOINT_STEP))
          .containsExactlyElementsOf(CheckpointReport.NONE.statusFields().keySet());
    }

    @Test
    @DisplayName("a time or step below -1 is refused, naming the field and the value")
    void refusesBelowMinusOne() {
      assertThatIllegalArgumentException()
          .isThrownBy(() -> new CheckpointReport(-2, 0))
          .withMessageContaining("lastCheckpointMs")
          .withMessageContaining("-2");
      assertThatIllegalArgumentException()
          .isThrownBy(() -> new CheckpointReport(0, -7))
          .withMessageContaining("lastCheckpointStep")
          .withMessageContaining("-7");
    }

    @Test
    @DisplayName("only a time of 0 or later is a known checkpoint")
    void known() {
      assertThat(CheckpointReport.NONE.known()).isFalse();
      assertThat(new CheckpointReport(0, -1).known()).isTrue();
    }
  }
}
