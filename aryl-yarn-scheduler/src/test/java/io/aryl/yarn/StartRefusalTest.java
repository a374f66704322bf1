package io.aryl.yarn;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.test.GenericTestUtils.LogCapturer;
import org.apache.hadoop.yarn.exceptions.YarnRuntimeException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

@DisplayName(
    "A refused start: one ERROR line and the exit status in the ResourceManager daemon, the"
        + " exception elsewhere")
class StartRefusalTest {
  private static final String MESSAGE =
      "Aryl configuration: aryl.scheduler.round-interval-ms must be an integer, was 'abc'";

  private final Logger logger = LoggerFactory.getLogger("StartRefusalTest");
  private final LogCapturer log = LogCapturer.captureLogs(logger);
  private final List<Integer> halts = new ArrayList<>();

  @AfterEach
  void stopCapturing() {
    log.stopCapturing();
  }

  @Test
  @DisplayName("in the daemon's start: the message once, no stack trace, then the exit status")
  void daemonLogsOneLineAndHalts() {
    StartRefusal refusal = new StartRefusal(() -> true, halts::add, logger);
    refusal.refuse(new YarnRuntimeException(MESSAGE, new IllegalArgumentException("the cause")));
    assertThat(halts).containsExactly(StartRefusal.EXIT_STATUS);
    assertThat(log.getOutput().lines().toList())
        .singleElement()
        .asString()
        .contains(MESSAGE, "exit status " + StartRefusal.EXIT_STATUS)
        .doesNotContain("the cause", "Exception");
  }

  @Test
  @DisplayName("elsewhere (MiniYARNCluster, MockRM, an embedding program): the exception, no log")
  void elsewhereReturnsTheException() {
    StartRefusal refusal = new StartRefusal(() -> false, halts::add, logger);
    YarnRuntimeException e = new YarnRuntimeException(MESSAGE);
    assertThat(refusal.refuse(e)).isSameAs(e);
    assertThat(halts).isEmpty();
    assertThat(log.getOutput()).isEmpty();
  }

  @Test
  @DisplayName("Hadoop's launcher code for a bad configuration is the exit status")
  void exitStatusIsBadConfiguration() {
    assertThat(StartRefusal.EXIT_STATUS).isEqualTo(49);
  }

  @Test
  @DisplayName("a test's thread is not the ResourceManager daemon's main")
  void aTestIsNotTheDaemon() throws Exception {
    assertThat(StartRefusal.calledFromResourceManagerMain()).isFalse();
    boolean[] onOtherThread = {true};
    Thread t = new Thread(() -> onOtherThread[0] = StartRefusal.calledFromResourceManagerMain());
    t.start();
    t.join();
    assertThat(onOtherThread[0]).isFalse();
  }
}
