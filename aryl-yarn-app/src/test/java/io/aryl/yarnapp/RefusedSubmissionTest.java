package io.aryl.yarnapp;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

@DisplayName(
    "RefusedSubmission: the ResourceManager's reason for refusing a submission, in its own words")
class RefusedSubmissionTest {
  static Stream<Arguments> messages() {
    return Stream.of(
        Arguments.of(
            "a queue ACL's refusal loses the class names the remote exception put before it",
            "org.apache.hadoop.security.AccessControlException: User bob does not have permission to submit"
                + " application_1_0002 to queue training",
            "User bob does not have permission to submit application_1_0002 to queue training"),
        Arguments.of(
            "nested class names go too",
            "org.apache.hadoop.yarn.exceptions.YarnException: java.io.IOException: queue full",
            "queue full"),
        Arguments.of(
            "a rejection's diagnostics stay as they are, tags and values included",
            "invalid Aryl job shape: aryl.max-workers=64 x aryl.gpus-per-worker=8 = 512 GPUs is more than queue"
                + " root.training allows (aryl.scheduler.max-gpus-per-job=64)",
            "invalid Aryl job shape: aryl.max-workers=64 x aryl.gpus-per-worker=8 = 512 GPUs is more than queue"
                + " root.training allows (aryl.scheduler.max-gpus-per-job=64)"),
        Arguments.of(
            "only the first line: a stack trace after it is not shown",
            "Invalid resource request\n\tat org.apache.hadoop.yarn.Foo.bar(Foo.java:1)",
            "Invalid resource request"),
        Arguments.of("no message reads as null, not as a crash", null, "null"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("messages")
  @DisplayName("plain()")
  void plain(String spec, String message, String expected) {
    assertThat(RefusedSubmission.plain(message)).as(spec).isEqualTo(expected);
  }
}
