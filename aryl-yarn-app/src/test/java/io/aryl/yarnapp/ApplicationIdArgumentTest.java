package io.aryl.yarnapp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@DisplayName("ApplicationIdArgument: the APPLICATION_ID of status and kill")
class ApplicationIdArgumentTest {
  @Test
  @DisplayName("an application id is read as YARN writes it")
  void parses() {
    assertThat(ApplicationIdArgument.parse("status", "application_1764432000000_0042"))
        .isEqualTo(ApplicationId.newInstance(1764432000000L, 42));
  }

  @ParameterizedTest(name = "''{0}''")
  @ValueSource(
      strings = {
        "application_x",
        "application_",
        "application_123",
        "application_123_x",
        "app_123_0001",
        "container_123_0001_01_000001",
        "",
        "application_123_99999999999"
      })
  @DisplayName("anything else is refused, naming the command, the text and the form an id has")
  void refused(String text) {
    assertThatThrownBy(() -> ApplicationIdArgument.parse("status", text))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "status: '"
                + text
                + "' is not an application id (application_<cluster timestamp>_<number>)");
  }

  @Test
  @DisplayName("an id the ResourceManager does not know is said to be absent from it")
  void unknown() {
    assertThat(ApplicationIdArgument.unknown("kill", ApplicationId.newInstance(123, 1)))
        .isEqualTo("kill: no application application_123_0001 in the ResourceManager");
  }
}
