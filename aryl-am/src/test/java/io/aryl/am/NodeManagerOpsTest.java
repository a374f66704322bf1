package io.aryl.am;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.ConnectException;
import java.util.stream.Stream;
import org.apache.hadoop.ipc.RemoteException;
import org.apache.hadoop.security.token.SecretManager.InvalidToken;
import org.apache.hadoop.yarn.exceptions.YarnException;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

@DisplayName("NodeManagerOps: which failed calls mean the NodeManager no longer has the container")
class NodeManagerOpsTest {
  private static final String ILLEGAL =
      "Given NMToken for application : appattempt_1700000000000_0001_000001 seems to have been"
          + " generated illegally.";

  static Stream<Arguments> failures() {
    return Stream.of(
        Arguments.of("the NMToken refused, as thrown", new InvalidToken(ILLEGAL), true),
        Arguments.of(
            "the NMToken refused, over RPC",
            new RemoteException(InvalidToken.class.getName(), ILLEGAL),
            true),
        Arguments.of(
            "the NMToken refused, as the cause of a YarnException",
            new YarnException(new IOException(new InvalidToken(ILLEGAL))),
            true),
        Arguments.of(
            "a re-initialisation of a container the NodeManager does not know",
            new YarnException("Container container_1700000000000_0001_01_000002 does not exist"),
            true),
        Arguments.of(
            "a container of another NodeManager",
            new YarnException(
                "Container container_1700000000000_0001_01_000002 is not handled by this"
                    + " NodeManager"),
            true),
        Arguments.of(
            "the NodeManager unreachable: no proof the container is gone",
            new ConnectException("Connection refused"),
            false),
        Arguments.of("a failure without a message", new IOException((String) null), false));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("failures")
  @DisplayName("gone only when the NodeManager says it does not have the container")
  void containerGone(String what, Throwable failure, boolean gone) {
    assertThat(NodeManagerOps.containerGone(failure)).as(what).isEqualTo(gone);
  }

  @Test
  @DisplayName("a failure is logged in one line: class, message, and its cause's")
  void oneLine() {
    assertThat(
            NodeManagerOps.oneLine(
                new YarnException("signal refused\nat somewhere", new InvalidToken(ILLEGAL))))
        .isEqualTo("YarnException: signal refused");
    assertThat(
            NodeManagerOps.oneLine(new YarnException("signal refused", new InvalidToken(ILLEGAL))))
        .isEqualTo("YarnException: signal refused (InvalidToken: " + ILLEGAL + ")");
  }
}
