package io.aryl.core.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Stream;
import net.jqwik.api.ForAll;
import net.jqwik.api.Label;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.AlphaChars;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.NumericChars;
import net.jqwik.api.constraints.StringLength;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

@DisplayName("JobShape: a job's shape from its application tags")
class JobShapeTest {

  private static final String RUNTIME = "aryl.predicted-runtime-s=3600";

  @Nested
  @DisplayName("a valid shape")
  class Valid {
    static Stream<Arguments> shapes() {
      return Stream.of(
          Arguments.of(
              "min and runtime only: max defaults to min, one GPU per worker, no kind",
              List.of("aryl.min-workers=2", RUNTIME),
              new JobShape(2, 2, 1, 3600, "")),
          Arguments.of(
              "every tag given",
              List.of(
                  "aryl.min-workers=2",
                  "aryl.max-workers=8",
                  "aryl.gpus-per-worker=4",
                  "aryl.predicted-runtime-s=7200",
                  "aryl.kind=resnet50"),
              new JobShape(2, 8, 4, 7200, "resnet50")),
          Arguments.of(
              "upper case tags, as a client may write them before YARN lower-cases them",
              List.of(
                  "ARYL.MIN-WORKERS=1",
                  "Aryl.Max-Workers=3",
                  "ARYL.PREDICTED-RUNTIME-S=60",
                  "aryl.KIND=BERT"),
              new JobShape(1, 3, 1, 60, "bert")),
          Arguments.of(
              "blanks around the tag, the key and the value are ignored",
              List.of("  aryl.min-workers = 2 ", " aryl.predicted-runtime-s= 90"),
              new JobShape(2, 2, 1, 90, "")),
          Arguments.of(
              "tags of other systems alongside",
              List.of(
                  "team=vision",
                  "priority=high",
                  "aryl.min-workers=1",
                  RUNTIME,
                  "arylx.min-workers=9"),
              new JobShape(1, 1, 1, 3600, "")),
          Arguments.of(
              "the same tag twice with the same value",
              List.of("aryl.min-workers=2", "aryl.min-workers=2", RUNTIME),
              new JobShape(2, 2, 1, 3600, "")),
          Arguments.of(
              "a fractional runtime",
              List.of("aryl.min-workers=1", "aryl.predicted-runtime-s=0.5"),
              new JobShape(1, 1, 1, 0.5, "")),
          Arguments.of(
              "an empty kind is no kind",
              List.of("aryl.min-workers=1", RUNTIME, "aryl.kind="),
              new JobShape(1, 1, 1, 3600, "")),
          Arguments.of(
              "max at the limit",
              List.of("aryl.min-workers=1", "aryl.max-workers=10000", RUNTIME),
              new JobShape(1, JobShape.MAX_WORKERS_LIMIT, 1, 3600, "")),
          Arguments.of(
              "the GPU types it accepts",
              List.of("aryl.min-workers=1", RUNTIME, "aryl.gpu-types=h100, A100"),
              new JobShape(1, 1, 1, 3600, "", java.util.Set.of("a100", "h100"))));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("shapes")
    @DisplayName("is read from its tags")
    void isReadFromItsTags(String description, List<String> tags, JobShape expected) {
      assertThat(JobShape.fromTags(tags)).contains(expected);
    }

    @Test
    @DisplayName("is elastic exactly when max exceeds min")
    void elasticWhenMaxAboveMin() {
      assertThat(new JobShape(2, 2, 1, 60, "").isElastic()).isFalse();
      assertThat(new JobShape(2, 3, 1, 60, "").isElastic()).isTrue();
    }

    @Test
    @DisplayName("a null kind becomes the empty kind")
    void nullKindIsEmpty() {
      assertThat(new JobShape(1, 1, 1, 60, null).kind()).isEmpty();
    }
  }

  @Nested
  @DisplayName("an application without any aryl tag")
  class NotElastic {
    @ParameterizedTest(name = "tags {0}")
    @MethodSource("tags")
    @DisplayName("has no shape")
    void hasNoShape(List<String> tags) {
      assertThat(JobShape.fromTags(tags)).isEqualTo(Optional.empty());
    }

    static Stream<List<String>> tags() {
      return Stream.of(
          List.of(),
          List.of("team=vision"),
          List.of("aryl"),
          List.of("arylx.min-workers=2"),
          List.of("min-workers=2", "predicted-runtime-s=60"));
    }
  }

  @Nested
  @DisplayName("an invalid shape is refused with a message naming the tag and the value")
  class Invalid {
    static Stream<Arguments> cases() {
      return Stream.of(
          Arguments.of(
              "min above max",
              List.of("aryl.min-workers=4", "aryl.max-workers=2", RUNTIME),
              List.of("aryl.max-workers", "2", "aryl.min-workers", "4")),
          Arguments.of(
              "min 0", List.of("aryl.min-workers=0", RUNTIME), List.of("aryl.min-workers", "0")),
          Arguments.of(
              "min negative",
              List.of("aryl.min-workers=-1", RUNTIME),
              List.of("aryl.min-workers", "-1")),
          Arguments.of(
              "max beyond the limit",
              List.of("aryl.min-workers=1", "aryl.max-workers=10001", RUNTIME),
              List.of("aryl.max-workers", "10001")),
          Arguments.of(
              "gpus 0",
              List.of("aryl.min-workers=1", "aryl.gpus-per-worker=0", RUNTIME),
              List.of("aryl.gpus-per-worker", "0")),
          Arguments.of(
              "min not an integer",
              List.of("aryl.min-workers=two", RUNTIME),
              List.of("aryl.min-workers", "'two'")),
          Arguments.of(
              "min fractional",
              List.of("aryl.min-workers=1.5", RUNTIME),
              List.of("aryl.min-workers", "'1.5'")),
          Arguments.of(
              "min beyond an int",
              List.of("aryl.min-workers=99999999999", RUNTIME),
              List.of("aryl.min-workers", "'99999999999'")),
          Arguments.of(
              "min empty",
              List.of("aryl.min-workers=", RUNTIME),
              List.of("aryl.min-workers", "''")),
          Arguments.of(
              "max not an integer",
              List.of("aryl.min-workers=1", "aryl.max-workers=lots", RUNTIME),
              List.of("aryl.max-workers", "'lots'")),
          Arguments.of(
              "gpus not an integer",
              List.of("aryl.min-workers=1", "aryl.gpus-per-worker=1/2", RUNTIME),
              List.of("aryl.gpus-per-worker", "'1/2'")),
          Arguments.of(
              "min missing",
              List.of("aryl.max-workers=2", RUNTIME),
              List.of("missing", "aryl.min-workers")),
          Arguments.of(
              "runtime missing",
              List.of("aryl.min-workers=2"),
              List.of("missing", "aryl.predicted-runtime-s")),
          Arguments.of(
              "runtime negative",
              List.of("aryl.min-workers=1", "aryl.predicted-runtime-s=-5"),
              List.of("aryl.predicted-runtime-s", "-5")),
          Arguments.of(
              "runtime zero",
              List.of("aryl.min-workers=1", "aryl.predicted-runtime-s=0"),
              List.of("aryl.predicted-runtime-s", "0")),
          Arguments.of(
              "runtime NaN",
              List.of("aryl.min-workers=1", "aryl.predicted-runtime-s=NaN"),
              List.of("aryl.predicted-runtime-s", "nan")),
          Arguments.of(
              "runtime infinite",
              List.of("aryl.min-workers=1", "aryl.predicted-runtime-s=1e400"),
              List.of("aryl.predicted-runtime-s", "Infinity")),
          Arguments.of(
              "runtime not a number",
              List.of("aryl.min-workers=1", "aryl.predicted-runtime-s=1h"),
              List.of("aryl.predicted-runtime-s", "'1h'")),
          Arguments.of(
              "unknown aryl tag",
              List.of("aryl.min-workers=1", RUNTIME, "aryl.max-worker=4"),
              List.of("aryl.max-worker", "4")),
          Arguments.of(
              "an unknown aryl tag alone",
              List.of("aryl.priority=high"),
              List.of("aryl.priority", "high")),
          Arguments.of(
              "the same tag twice with different values",
              List.of("aryl.min-workers=2", "aryl.min-workers=3", RUNTIME),
              List.of("aryl.min-workers", "2", "3")),
          Arguments.of(
              "kind twice with different values",
              List.of("aryl.min-workers=1", RUNTIME, "aryl.kind=bert", "aryl.kind=gpt"),
              List.of("aryl.kind", "bert", "gpt")),
          Arguments.of(
              "an empty GPU type",
              List.of("aryl.min-workers=1", RUNTIME, "aryl.gpu-types=a100,,t4"),
              List.of("aryl.gpu-types", "'a100,,t4'")),
          Arguments.of(
              "a GPU type with a blank",
              List.of("aryl.min-workers=1", RUNTIME, "aryl.gpu-types=a 100"),
              List.of("aryl.gpu-types", "'a 100'")),
          Arguments.of(
              "an aryl tag without '='",
              List.of("aryl.min-workers", RUNTIME),
              List.of("aryl.min-workers")),
          Arguments.of(
              "an aryl tag with ':' instead of '='",
              List.of("aryl.min-workers:2", RUNTIME),
              List.of("aryl.min-workers:2")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    @DisplayName("throws InvalidJobShapeException")
    void throwsNamingTagAndValue(String description, List<String> tags, List<String> named) {
      assertThatThrownBy(() -> JobShape.fromTags(tags))
          .isInstanceOf(InvalidJobShapeException.class)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("invalid Aryl job shape: ")
          .message()
          .contains(named);
    }
  }

  @Nested
  @DisplayName("the messages submitters read in their application's diagnostics are, word for word")
  class Messages {
    static Stream<Arguments> cases() {
      return Stream.of(
          Arguments.of(
              List.of("aryl.min-workers=3", "aryl.max-workers=2", RUNTIME),
              "aryl.max-workers must be >= aryl.min-workers (3), was 2"),
          Arguments.of(
              List.of("aryl.min-workers=0", RUNTIME), "aryl.min-workers must be >= 1, was 0"),
          Arguments.of(
              List.of("aryl.min-workers=1", "aryl.max-workers=10001", RUNTIME),
              "aryl.max-workers must be <= 10000, was 10001"),
          Arguments.of(
              List.of("aryl.min-workers=1", "aryl.gpus-per-worker=0", RUNTIME),
              "aryl.gpus-per-worker must be >= 1, was 0"),
          Arguments.of(
              List.of("aryl.min-workers=two", RUNTIME),
              "aryl.min-workers must be an integer, was 'two'"),
          Arguments.of(List.of("aryl.max-workers=2", RUNTIME), "missing tag aryl.min-workers"),
          Arguments.of(
              List.of("aryl.min-workers=2"),
              "missing tag aryl.predicted-runtime-s (predicted runtime at min workers, s)"),
          Arguments.of(
              List.of("aryl.min-workers=1", "aryl.predicted-runtime-s=0"),
              "aryl.predicted-runtime-s must be a positive number of seconds, was 0.0"),
          Arguments.of(
              List.of("aryl.min-workers=1", "aryl.predicted-runtime-s=1h"),
              "aryl.predicted-runtime-s must be a number of seconds, was '1h'"),
          Arguments.of(
              List.of("aryl.min-workers=1", RUNTIME, "aryl.foo=1"),
              "unknown tag 'aryl.foo=1' (known: aryl.min-workers, aryl.max-workers, aryl.gpus-per-worker,"
                  + " aryl.predicted-runtime-s, aryl.kind, aryl.gpu-types)"),
          Arguments.of(
              List.of("aryl.min-workers=2", "aryl.min-workers=3", RUNTIME),
              "tag aryl.min-workers given twice: '2' and '3'"),
          Arguments.of(
              List.of("aryl.min-workers", RUNTIME), "tag 'aryl.min-workers' must be key=value"));
    }

    @ParameterizedTest(name = "{1}")
    @MethodSource("cases")
    @DisplayName("prefixed with 'invalid Aryl job shape: '")
    void exactly(List<String> tags, String message) {
      assertThatThrownBy(() -> JobShape.fromTags(tags))
          .isInstanceOf(InvalidJobShapeException.class)
          .hasMessage(InvalidJobShapeException.PREFIX + message);
    }
  }

  // jqwik runs properties of the test class itself, not of JUnit's @Nested classes, and names them
  // by @Label.
  @Property(tries = 300)
  @Label("toTags round-trips through fromTags (whole-second runtimes, lower-case kinds)")
  void roundTrips(
      @ForAll @IntRange(min = 1, max = 50) int min,
      @ForAll @IntRange(min = 0, max = 50) int extra,
      @ForAll @IntRange(min = 1, max = 16) int gpus,
      @ForAll @LongRange(min = 1, max = 10_000_000) long runtimeS,
      @ForAll @AlphaChars @NumericChars @StringLength(max = 12) String kind) {
    JobShape shape = new JobShape(min, min + extra, gpus, runtimeS, kind.toLowerCase(Locale.ROOT));
    assertThat(JobShape.fromTags(shape.toTags())).contains(shape);
  }

  @Property(tries = 200)
  @Label("toTags round-trips whatever the case the client wrote its tags in")
  void roundTripsInAnyCase(
      @ForAll @IntRange(min = 1, max = 50) int min,
      @ForAll @IntRange(min = 1, max = 16) int gpus,
      @ForAll @LongRange(min = 1, max = 10_000_000) long runtimeS) {
    JobShape shape = new JobShape(min, min, gpus, runtimeS, "");
    List<String> yarnTags = shape.toTags().stream().map(t -> t.toUpperCase(Locale.ROOT)).toList();
    assertThat(JobShape.fromTags(yarnTags)).contains(shape);
  }

  @Test
  @DisplayName("a shape's base gang needs min workers times GPUs per worker")
  void baseGpus() {
    assertThat(new JobShape(4, 8, 2, 60, "").baseGpus()).isEqualTo(8);
    assertThat(
            new JobShape(
                    JobShape.MAX_WORKERS_LIMIT,
                    JobShape.MAX_WORKERS_LIMIT,
                    Integer.MAX_VALUE,
                    60,
                    "")
                .baseGpus())
        .as("no int overflow")
        .isEqualTo(10_000L * Integer.MAX_VALUE);
  }

  @Nested
  @DisplayName("toTags")
  class ToTags {
    @Test
    @DisplayName("writes every field, and the kind only when there is one")
    void writesEveryField() {
      assertThat(new JobShape(2, 8, 4, 3600, "bert").toTags())
          .containsExactly(
              "aryl.gpus-per-worker=4",
              "aryl.kind=bert",
              "aryl.max-workers=8",
              "aryl.min-workers=2",
              "aryl.predicted-runtime-s=3600");
      assertThat(new JobShape(1, 1, 1, 60, "").toTags()).noneMatch(t -> t.startsWith("aryl.kind"));
    }

    @Test
    @DisplayName("rounds a fractional runtime up to whole seconds")
    void roundsRuntimeUp() {
      assertThat(new JobShape(1, 1, 1, 0.2, "").toTags()).contains("aryl.predicted-runtime-s=1");
      assertThat(
              JobShape.fromTags(new JobShape(1, 1, 1, 59.5, "").toTags())
                  .orElseThrow()
                  .predictedRuntimeS())
          .isEqualTo(60);
    }

    @Test
    @DisplayName("an upper-case kind comes back lower-cased, as YARN stores it")
    void kindComesBackLowerCased() {
      assertThat(
              JobShape.fromTags(new JobShape(1, 1, 1, 60, "ResNet50").toTags())
                  .orElseThrow()
                  .kind())
          .isEqualTo("resnet50");
    }
  }
}
