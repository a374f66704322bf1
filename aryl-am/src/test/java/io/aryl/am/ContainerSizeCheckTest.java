package io.aryl.am;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@DisplayName(
    "ContainerSizeCheck: a worker fits the largest container the ResourceManager allocates")
class ContainerSizeCheckTest {
  @ParameterizedTest(name = "--gpus {0} with a largest container of {1} GPUs")
  @CsvSource({"1, 8", "8, 8", "3, 4", "16, -1"})
  @DisplayName("up to the limit, or when the limit is unknown, it passes")
  void passes(int gpus, long max) {
    assertThatCode(() -> ContainerSizeCheck.check(gpus, max)).doesNotThrowAnyException();
  }

  @ParameterizedTest(name = "--gpus {0} with a largest container of {1} GPUs")
  @CsvSource({"9, 8", "2, 1", "1, 0"})
  @DisplayName("above the limit it is refused, naming the option, the value and the limit")
  void refused(int gpus, long max) {
    assertThatThrownBy(() -> ContainerSizeCheck.check(gpus, max))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "--gpus "
                + gpus
                + " is more than the largest container holds ("
                + max
                + " GPUs, the ResourceManager's maximum allocation of yarn.io/gpu)");
  }
}
