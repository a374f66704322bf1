package io.aryl.yarn.conf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import io.aryl.core.model.GpuType;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

@DisplayName(
    "GpuCatalog: each node's GPU type from its attribute or its name, each type's speed from the settings")
class GpuCatalogTest {
  private static final String SPEED_A100 = "aryl.scheduler.gpu-type.a100.speed";
  private static final String SPEED_T4 = "aryl.scheduler.gpu-type.t4.speed";

  private static ArylSettings settings(String... keyValues) {
    Map<String, String> raw = new HashMap<>();
    for (int i = 0; i < keyValues.length; i += 2) {
      raw.put(keyValues[i], keyValues[i + 1]);
    }
    return ArylSettings.from(raw);
  }

  private static final GpuCatalog MIXED =
      settings(
              "aryl.scheduler.gpu-types",
              "a100,t4",
              SPEED_T4,
              "0.5",
              "aryl.scheduler.gpu-type.nodes",
              "t4=gpu-inf-.* a100=gpu-tr-.*")
          .gpus();

  @Test
  @DisplayName("one GPU type by default: every node has it at speed 1, whatever its attributes say")
  void oneTypeByDefault() {
    GpuCatalog one = ArylSettings.defaults().gpus();
    assertThat(one.resolve("any:1", Map.of("gpu-type", "h100")).type())
        .isEqualTo(GpuType.of("gpu", 1.0));
    assertThat(one.types()).containsOnlyKeys("gpu");
  }

  @Test
  @DisplayName("declared types train at their configured speed, 1.0 unless set")
  void speeds() {
    assertThat(MIXED.types())
        .containsEntry("a100", GpuType.of("a100", 1.0))
        .containsEntry("t4", GpuType.of("t4", 0.5));
  }

  @Test
  @DisplayName("the node attribute names the type first, lower-cased as YARN tags are")
  void attributeFirst() {
    assertThat(MIXED.resolve("gpu-inf-1:8041", Map.of("gpu-type", "A100")).type().name())
        .isEqualTo("a100");
  }

  @Test
  @DisplayName("without the attribute, the first node-name rule that matches")
  void rulesNext() {
    assertThat(MIXED.resolve("gpu-inf-1:8041", Map.of()).type()).isEqualTo(GpuType.of("t4", 0.5));
    assertThat(MIXED.resolve("gpu-tr-7", Map.of()).type().name()).isEqualTo("a100");
  }

  @Test
  @DisplayName("type names are read lower-cased, as YARN reads application tags")
  void namesAreLowerCased() {
    GpuCatalog c =
        settings("aryl.scheduler.gpu-types", "A100,T4", "aryl.scheduler.gpu-type.T4.speed", "0.5")
            .gpus();
    assertThat(c.types()).containsOnlyKeys("a100", "t4");
    assertThat(c.type("t4")).contains(GpuType.of("t4", 0.5));
  }

  @Test
  @DisplayName(
      "a node of an undeclared type has none, and the error names the node, the type and the key")
  void undeclaredTypeIsAnError() {
    GpuCatalog.Resolution r = MIXED.resolve("gpu-tr-1:8041", Map.of("gpu-type", "v100"));
    assertThat(r.known()).isFalse();
    assertThat(r.error())
        .contains("gpu-tr-1:8041")
        .contains("'v100'")
        .contains("aryl.scheduler.gpu-types");
  }

  @Test
  @DisplayName(
      "a node nothing names a type for has none unless aryl.scheduler.gpu-type is a declared type")
  void noSilentDefault() {
    GpuCatalog.Resolution r = MIXED.resolve("other-1", Map.of());
    assertThat(r.known()).isFalse();
    assertThat(r.error())
        .contains("other-1")
        .contains("aryl.scheduler.gpu-type.nodes")
        .contains("aryl.scheduler.gpu-type=gpu");
    GpuCatalog withFallback =
        settings("aryl.scheduler.gpu-types", "a100,t4", "aryl.scheduler.gpu-type", "a100").gpus();
    assertThat(withFallback.resolve("other-1", Map.of()).type().name()).isEqualTo("a100");
  }

  static Stream<Arguments> badSettings() {
    return Stream.of(
        Arguments.of(new String[] {"aryl.scheduler.gpu-types", "a100,t4/x"}, "'t4/x'"),
        Arguments.of(
            new String[] {"aryl.scheduler.gpu-types", "a100", SPEED_T4, "0.5"}, SPEED_T4 + "=0.5"),
        Arguments.of(
            new String[] {"aryl.scheduler.gpu-types", "a100", SPEED_A100, "fast"}, "'fast'"),
        Arguments.of(
            new String[] {"aryl.scheduler.gpu-types", "a100", SPEED_A100, "0"}, SPEED_A100),
        Arguments.of(
            new String[] {
              "aryl.scheduler.gpu-types", "a100", "aryl.scheduler.gpu-type.nodes", "t4=x.*"
            },
            "'t4=x.*'"),
        Arguments.of(
            new String[] {
              "aryl.scheduler.gpu-types", "a100", "aryl.scheduler.gpu-type.nodes", "a100=("
            },
            "not a regular expression"),
        Arguments.of(
            new String[] {
              "aryl.scheduler.gpu-types", "a100", "aryl.scheduler.gpu-type.nodes", "a100"
            },
            "type=regular-expression"),
        Arguments.of(
            new String[] {"aryl.scheduler.policy", "fastest"},
            "aryl.scheduler.policy must be aryl or aryl+"));
  }

  @ParameterizedTest(name = "{1}")
  @MethodSource("badSettings")
  @DisplayName("a bad GPU setting stops start-up naming the key and the value")
  void badSettingsAreRefused(String[] keyValues, String message) {
    assertThatIllegalArgumentException()
        .isThrownBy(() -> settings(keyValues))
        .withMessageContaining(message);
  }

  @Test
  @DisplayName(
      "aryl.scheduler.policy=aryl+ runs aryl-core's speed-aware policy; aryl, the default, the paper's")
  void policy() {
    assertThat(ArylSettings.defaults().policy().speedAware()).isFalse();
    assertThat(settings("aryl.scheduler.policy", "aryl+").policy().speedAware()).isTrue();
  }
}
