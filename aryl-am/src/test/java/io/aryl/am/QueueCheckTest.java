package io.aryl.am;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.aryl.am.QueueCheck.Queue;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

@DisplayName("QueueCheck: a job goes to a leaf queue the ResourceManager knows")
class QueueCheckTest {
  /**
   * root -> inference, training -> training.vision, training.nlp; and a second 'nlp' under
   * research.
   */
  static final List<Queue> TREE =
      List.of(
          new Queue("root", List.of("root.inference", "root.training", "root.research"), ""),
          new Queue("root.inference", List.of(), "inference"),
          new Queue(
              "root.training", List.of("root.training.vision", "root.training.nlp"), "training"),
          new Queue("root.training.vision", List.of(), "training"),
          new Queue("root.training.nlp", List.of(), "training"),
          new Queue("root.research", List.of("root.research.nlp"), ""),
          new Queue("root.research.nlp", List.of(), null));

  static Stream<Arguments> accepted() {
    return Stream.of(
        Arguments.of("a short name", "vision", "root.training.vision", "training"),
        Arguments.of("a full path", "root.training.vision", "root.training.vision", "training"),
        Arguments.of(
            "a top-level leaf by its short name", "inference", "root.inference", "inference"),
        Arguments.of(
            "a short name shared with another queue, by its full path",
            "root.research.nlp",
            "root.research.nlp",
            ""));
  }

  @ParameterizedTest(name = "{0}: --queue {1}")
  @MethodSource("accepted")
  @DisplayName(
      "a leaf queue is found by its full path or its unique short name, with its default label")
  void accepted(String description, String asked, String path, String label) {
    Queue q = QueueCheck.leaf(asked, TREE);
    assertThat(q.path()).isEqualTo(path);
    assertThat(q.defaultNodeLabel()).as("the partition its workers go to").isEqualTo(label);
  }

  static Stream<Arguments> refused() {
    return Stream.of(
        Arguments.of(
            "root",
            "--queue: 'root' is a parent queue (of root.inference, root.training, root.research);"
                + " jobs are submitted to a leaf queue"),
        Arguments.of(
            "training",
            "--queue: 'training' is a parent queue (of root.training.vision,"
                + " root.training.nlp); jobs are submitted to a leaf queue"),
        Arguments.of(
            "root.training",
            "--queue: 'root.training' is a parent queue (of root.training.vision,"
                + " root.training.nlp); jobs are submitted to a leaf queue"),
        Arguments.of("nosuchqueue", "--queue: unknown queue 'nosuchqueue'"),
        Arguments.of("Vision", "--queue: unknown queue 'Vision'"),
        Arguments.of("training.vision", "--queue: unknown queue 'training.vision'"),
        Arguments.of(
            "nlp",
            "--queue: 'nlp' is the name of more than one queue (root.training.nlp,"
                + " root.research.nlp); give its full path"));
  }

  @ParameterizedTest(name = "--queue {0}")
  @MethodSource("refused")
  @DisplayName("a parent, unknown or ambiguous queue is refused, naming the option and the value")
  void refused(String asked, String message) {
    assertThatThrownBy(() -> QueueCheck.leaf(asked, TREE))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(message);
  }
}
