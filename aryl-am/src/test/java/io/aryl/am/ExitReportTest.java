package io.aryl.am;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ExitReportTest {
  @Test
  @DisplayName(
      "a supervisor's report names the container, the generation, the exit status and whether SIGTERM came"
          + " first")
  void readsTheQuery() {
    assertThat(
            ExitReport.fromQuery(
                "container=container_1_0001_01_000002&generation=4&status=143&stopped=1"))
        .isEqualTo(new ExitReport("container_1_0001_01_000002", 4, 143, true));
    assertThat(
            ExitReport.fromQuery(
                "stopped=0&status=3&generation=1&container=container_e7_1_0001_01_000009"))
        .isEqualTo(new ExitReport("container_e7_1_0001_01_000009", 1, 3, false));
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "generation=4&status=1&stopped=0|container must be a container id, was null",
        "container=c1&generation=4&status=1&stopped=0|container must be a container id, was c1",
        "container=container_1_2&generation=x&status=1&stopped=0|generation must be an integer, was x",
        "container=container_1_2&generation=4&stopped=0|status must be an integer, was null",
        "container=container_1_2&generation=4&status=1&stopped=yes|stopped must be 0 or 1, was yes"
      })
  @DisplayName("a malformed report is refused with a message naming the parameter and the value")
  void refusesMalformed(String query, String message) {
    assertThatThrownBy(() -> ExitReport.fromQuery(query))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(message);
  }
}
