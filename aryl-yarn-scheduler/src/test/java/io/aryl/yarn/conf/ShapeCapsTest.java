package io.aryl.yarn.conf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import io.aryl.core.job.JobShape;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

@DisplayName("ShapeCaps: the operator's caps on a job's workers and GPUs, per queue")
class ShapeCapsTest {
  private static final Set<String> QUEUES =
      Set.of(
          "root",
          "root.inference",
          "root.training",
          "root.training.big",
          "root.training.small",
          "root.trainingx",
          "root.aryl");

  private static final String CLUSTER_GPUS = "aryl.scheduler.max-gpus-per-job";
  private static final String CLUSTER_WORKERS = "aryl.scheduler.max-workers-per-job";
  private static final String TRAINING_GPUS =
      "yarn.scheduler.capacity.root.training.aryl.max-gpus-per-job";
  private static final String TRAINING_WORKERS =
      "yarn.scheduler.capacity.root.training.aryl.max-workers-per-job";
  private static final String SMALL_GPUS =
      "yarn.scheduler.capacity.root.training.small.aryl.max-gpus-per-job";
  private static final String BIG_GPUS =
      "yarn.scheduler.capacity.root.training.big.aryl.max-gpus-per-job";
  private static final String INFERENCE_GPUS =
      "yarn.scheduler.capacity.root.inference.aryl.max-gpus-per-job";

  /**
   * 64 GPUs per job cluster-wide, no cluster-wide worker cap; root.training: 32 GPUs and 16
   * workers; below it small: 8 GPUs, big: none of its own (0).
   */
  private static final ShapeCaps CAPS =
      caps(
          Map.of(CLUSTER_GPUS, "64"),
          Map.of(TRAINING_GPUS, "32", TRAINING_WORKERS, "16", SMALL_GPUS, "8", BIG_GPUS, "0"));

  private static ShapeCaps caps(
      Map<String, String> yarnSite, Map<String, String> capacityScheduler) {
    return ShapeCaps.of(ArylSettings.from(yarnSite), capacityScheduler, QUEUES::contains);
  }

  private static JobShape shape(int min, int max, int gpus) {
    return new JobShape(min, max, gpus, 60, "");
  }

  static Stream<Arguments> submissions() {
    return Stream.of(
        Arguments.of(
            "max workers above the queue's cap is refused naming the tag, the value and the queue's key",
            shape(2, 20, 1),
            "root.training",
            "aryl.max-workers=20 is more than queue root.training allows ("
                + TRAINING_WORKERS
                + "=16)"),
        Arguments.of(
            "GPUs above the queue's cap are refused naming both tags, their product and the queue's key",
            shape(2, 8, 8),
            "root.training",
            "aryl.max-workers=8 x aryl.gpus-per-worker=8 = 64 GPUs is more than queue root.training allows ("
                + TRAINING_GPUS
                + "=32)"),
        Arguments.of(
            "the cap holds for the widest a job may grow, not its base gang",
            shape(1, 40, 1),
            "root.training",
            "aryl.max-workers=40 is more than queue root.training allows ("
                + TRAINING_WORKERS
                + "=16)"),
        Arguments.of(
            "an inelastic job's width is named by aryl.min-workers, the tag it is sure to carry",
            shape(5, 5, 8),
            "root.training",
            "aryl.min-workers=5 x aryl.gpus-per-worker=8 = 40 GPUs is more than queue root.training allows ("
                + TRAINING_GPUS
                + "=32)"),
        Arguments.of(
            "workers are checked before GPUs: one message, the workers'",
            shape(1, 20, 8),
            "root.training",
            "aryl.max-workers=20 is more than queue root.training allows ("
                + TRAINING_WORKERS
                + "=16)"),
        Arguments.of(
            "exactly the queue's caps is allowed", shape(16, 16, 2), "root.training", null),
        Arguments.of(
            "exactly the GPU cap with fewer workers is allowed",
            shape(2, 4, 8),
            "root.training",
            null),
        Arguments.of(
            "a child queue without a cap of its own meets its parent's, named as the parent's key",
            shape(1, 8, 8),
            "root.training.big",
            "aryl.max-workers=8 x aryl.gpus-per-worker=8 = 64 GPUs is more than queue root.training.big allows ("
                + TRAINING_GPUS
                + "=32)"),
        Arguments.of(
            "a child queue's lower cap holds for its jobs",
            shape(1, 2, 8),
            "root.training.small",
            "aryl.max-workers=2 x aryl.gpus-per-worker=8 = 16 GPUs is more than queue root.training.small allows ("
                + SMALL_GPUS
                + "=8)"),
        Arguments.of(
            "the parent's worker cap holds in a child that caps only GPUs",
            shape(1, 17, 1),
            "root.training.small",
            "aryl.max-workers=17 is more than queue root.training.small allows ("
                + TRAINING_WORKERS
                + "=16)"),
        Arguments.of(
            "a queue below a capped one, created at submission, meets the nearest cap",
            shape(1, 4, 4),
            "root.training.small.alice",
            "aryl.max-workers=4 x aryl.gpus-per-worker=4 = 16 GPUs is more than queue root.training.small.alice"
                + " allows ("
                + SMALL_GPUS
                + "=8)"),
        Arguments.of(
            "a queue without caps of its own or above meets the cluster-wide cap, named by its key",
            shape(1, 16, 8),
            "root.inference",
            "aryl.max-workers=16 x aryl.gpus-per-worker=8 = 128 GPUs is more than queue root.inference allows ("
                + CLUSTER_GPUS
                + "=64)"),
        Arguments.of(
            "a queue whose name only begins like a capped one's is not under it",
            shape(1, 8, 8),
            "root.trainingx",
            null),
        Arguments.of(
            "no cluster-wide worker cap: a queue outside root.training may have any width the GPUs allow",
            shape(1, 64, 1),
            "root.inference",
            null));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("submissions")
  @DisplayName("a submission against the caps")
  void submission(String spec, JobShape shape, String queue, String refusal) {
    assertThat(CAPS.refusal(shape, queue))
        .as(spec)
        .isEqualTo(java.util.Optional.ofNullable(refusal));
  }

  @Test
  @DisplayName("no cap by default: any shape the contract allows, in any queue")
  void noCapByDefault() {
    ShapeCaps none = caps(Map.of(), Map.of());
    assertThat(none.any()).isFalse();
    assertThat(none.refusal(shape(1, JobShape.MAX_WORKERS_LIMIT, 64), "root.training")).isEmpty();
    assertThat(ShapeCaps.NONE.refusal(shape(1, JobShape.MAX_WORKERS_LIMIT, 64), "root.training"))
        .isEmpty();
  }

  @Test
  @DisplayName("cap() is the smallest in force: the queue's own, its ancestors', the cluster's")
  void capInForce() {
    assertThat(CAPS.cap(ShapeCaps.Limit.GPUS, "root.training.small"))
        .hasValue(new ShapeCaps.Cap(8, SMALL_GPUS));
    assertThat(CAPS.cap(ShapeCaps.Limit.GPUS, "root.training.big"))
        .hasValue(new ShapeCaps.Cap(32, TRAINING_GPUS));
    assertThat(CAPS.cap(ShapeCaps.Limit.GPUS, "root.inference"))
        .hasValue(new ShapeCaps.Cap(64, CLUSTER_GPUS));
    assertThat(CAPS.cap(ShapeCaps.Limit.WORKERS, "root.inference")).isEmpty();
    ShapeCaps equal = caps(Map.of(CLUSTER_GPUS, "32"), Map.of(TRAINING_GPUS, "32"));
    assertThat(equal.cap(ShapeCaps.Limit.GPUS, "root.training.big"))
        .as("of equal caps, the nearest is named")
        .hasValue(new ShapeCaps.Cap(32, TRAINING_GPUS));
  }

  @Test
  @DisplayName(
      "toString lists every cap set as key=value, as a refresh that fails reports the caps left in force")
  void listsTheCaps() {
    assertThat(CAPS)
        .hasToString(
            TRAINING_WORKERS
                + "=16, "
                + CLUSTER_GPUS
                + "=64, "
                + TRAINING_GPUS
                + "=32, "
                + SMALL_GPUS
                + "=8");
    assertThat(ShapeCaps.NONE).hasToString("none");
  }

  @Nested
  @DisplayName(
      "a wrong cap stops the start (or the queue refresh) with a message naming the key and the value")
  class Refused {
    static Stream<Arguments> wrongCaps() {
      return Stream.of(
          Arguments.of(
              "a negative per-queue cap",
              Map.of(),
              Map.of(TRAINING_GPUS, "-1"),
              TRAINING_GPUS + " must be an integer >= 0 (0: no cap of its own), was '-1'"),
          Arguments.of(
              "a per-queue cap that is not a number",
              Map.of(),
              Map.of(TRAINING_WORKERS, "eight"),
              TRAINING_WORKERS + " must be an integer >= 0 (0: no cap of its own), was 'eight'"),
          Arguments.of(
              "a per-queue cap that is not a whole number",
              Map.of(),
              Map.of(TRAINING_GPUS, "1.5"),
              "was '1.5'"),
          Arguments.of(
              "a misspelt per-queue key, which would cap nothing",
              Map.of(),
              Map.of("yarn.scheduler.capacity.root.training.aryl.max-gpu-per-job", "8"),
              "unknown queue key yarn.scheduler.capacity.root.training.aryl.max-gpu-per-job=8 (Aryl's keys of a queue:"
                  + " yarn.scheduler.capacity.<queue-path>.aryl.max-workers-per-job,"
                  + " yarn.scheduler.capacity.<queue-path>.aryl.max-gpus-per-job)"),
          Arguments.of(
              "a cap of a queue that does not exist, which would cap nothing",
              Map.of(),
              Map.of("yarn.scheduler.capacity.root.trainig.aryl.max-gpus-per-job", "8"),
              "yarn.scheduler.capacity.root.trainig.aryl.max-gpus-per-job=8: no queue root.trainig"),
          Arguments.of(
              "a cap of a queue named by its short name",
              Map.of(),
              Map.of("yarn.scheduler.capacity.training.aryl.max-gpus-per-job", "8"),
              "no queue training"),
          Arguments.of(
              "a queue's cap above its parent's",
              Map.of(),
              Map.of(TRAINING_GPUS, "32", BIG_GPUS, "64"),
              BIG_GPUS
                  + "=64 is more than "
                  + TRAINING_GPUS
                  + "=32 allows: a queue's cap may only lower the caps above"
                  + " it"),
          Arguments.of(
              "a queue's cap above the cluster-wide one",
              Map.of(CLUSTER_GPUS, "64"),
              Map.of(INFERENCE_GPUS, "128"),
              INFERENCE_GPUS + "=128 is more than " + CLUSTER_GPUS + "=64 allows"),
          Arguments.of(
              "a queue's worker cap above its grandparent's, past a parent without one",
              Map.of(CLUSTER_WORKERS, "10"),
              Map.of("yarn.scheduler.capacity.root.training.small.aryl.max-workers-per-job", "11"),
              "=11 is more than " + CLUSTER_WORKERS + "=10 allows"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("wrongCaps")
    @DisplayName("refused")
    void refused(
        String spec,
        Map<String, String> yarnSite,
        Map<String, String> capacityScheduler,
        String message) {
      assertThatIllegalArgumentException()
          .as(spec)
          .isThrownBy(() -> caps(yarnSite, capacityScheduler))
          .withMessageContaining(message);
    }
  }

  @Test
  @DisplayName(
      "keys of a queue, node label or user named aryl are the Capacity Scheduler's, not Aryl's")
  void othersNamedAryl() {
    Map<String, String> cs = new HashMap<>();
    cs.put("yarn.scheduler.capacity.root.aryl.capacity", "10");
    cs.put("yarn.scheduler.capacity.root.aryl.aryl.max-gpus-per-job", "4");
    cs.put("yarn.scheduler.capacity.root.training.accessible-node-labels.aryl.capacity", "100");
    cs.put("yarn.scheduler.capacity.root.training.user-settings.aryl.weight", "2");
    ShapeCaps caps = caps(Map.of(), cs);
    assertThat(caps.cap(ShapeCaps.Limit.GPUS, "root.aryl"))
        .as("the queue named aryl's own Aryl cap")
        .hasValue(new ShapeCaps.Cap(4, "yarn.scheduler.capacity.root.aryl.aryl.max-gpus-per-job"));
    assertThat(caps.cap(ShapeCaps.Limit.GPUS, "root.training")).isEmpty();
  }
}
