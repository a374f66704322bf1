package io.aryl.core.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

@DisplayName("Server and GpuType")
class ServerTest {
  private static final GpuType A100 = GpuType.of("A100");

  @ParameterizedTest(name = "{0}")
  @MethodSource
  void refuses_a_bad_server_naming_the_field_and_value(
      String scenario, Executable bad, String field, String value) {
    assertThatIllegalArgumentException()
        .isThrownBy(bad::execute)
        .withMessageContaining(field)
        .withMessageContaining(value);
  }

  static Stream<Arguments> refuses_a_bad_server_naming_the_field_and_value() {
    return Stream.of(
        bad("blank id", () -> Server.training(" ", A100, 8), "server.id", "' '"),
        bad("null id", () -> Server.training(null, A100, 8), "server.id", "null"),
        bad("no GPU type", () -> Server.training("s1", null, 8), "server(s1).gpuType", "null"),
        bad("zero GPUs", () -> Server.training("s1", A100, 0), "server(s1).gpus", "0"),
        bad("negative GPUs", () -> Server.inference("s1", A100, -4), "server(s1).gpus", "-4"),
        bad(
            "no pool",
            () -> new Server("s1", A100, 8, null, false, false),
            "server(s1).pool",
            "null"),
        bad(
            "loaned flag on a training server",
            () -> new Server("s1", A100, 8, Pool.TRAINING, true, false),
            "server(s1).loaned",
            "TRAINING"),
        bad(
            "loaning a training server",
            () -> Server.training("s1", A100, 8).withLoaned(true),
            "server(s1).loaned",
            "TRAINING"),
        bad("blank GPU type name", () -> GpuType.of(""), "gpuType.name", "''"),
        bad("zero training speed", () -> GpuType.of("T4", 0), "gpuType(T4).trainingSpeed", "0.0"),
        bad(
            "NaN training speed",
            () -> GpuType.of("T4", Double.NaN),
            "gpuType(T4).trainingSpeed",
            "NaN"),
        bad(
            "infinite training speed",
            () -> GpuType.of("T4", Double.POSITIVE_INFINITY),
            "gpuType(T4).trainingSpeed",
            "Infinity"));
  }

  private static Arguments bad(String scenario, Executable bad, String field, String value) {
    return Arguments.of(scenario, bad, field, value);
  }

  @ParameterizedTest(name = "{0}: serves training {2}, accepts new workers {3}")
  @MethodSource
  void runs_training_only_in_the_training_pool_or_on_loan_and_takes_new_workers_only_unfenced(
      String scenario, Server server, boolean servesTraining, boolean acceptsNewWorkers) {
    assertThat(server.servesTraining()).isEqualTo(servesTraining);
    assertThat(server.acceptsNewWorkers()).isEqualTo(acceptsNewWorkers);
  }

  static Stream<Arguments>
      runs_training_only_in_the_training_pool_or_on_loan_and_takes_new_workers_only_unfenced() {
    return Stream.of(
        Arguments.of("training server", Server.training("s", A100, 8), true, true),
        Arguments.of(
            "fenced training server", Server.training("s", A100, 8).withFenced(true), true, false),
        Arguments.of("inference server", Server.inference("s", A100, 8), false, false),
        Arguments.of("loaned inference server", Server.loaned("s", A100, 8), true, true),
        Arguments.of(
            "loaned server being returned",
            Server.loaned("s", A100, 8).withFenced(true),
            true,
            false));
  }

  @Test
  void a_loaned_server_stays_in_the_inference_pool() {
    Server loaned = Server.inference("s", A100, 8).withLoaned(true);

    assertThat(loaned.pool()).isEqualTo(Pool.INFERENCE);
    assertThat(loaned).isEqualTo(Server.loaned("s", A100, 8));
  }

  @Test
  void returning_a_loaned_server_lifts_its_fence() {
    Server returned = Server.loaned("s", A100, 8).withFenced(true).withLoaned(false);

    assertThat(returned.loaned()).isFalse();
    assertThat(returned.fenced()).isFalse();
  }

  @Test
  void orders_gpu_types_fastest_first_then_by_name() {
    List<GpuType> types =
        new ArrayList<>(
            List.of(
                GpuType.of("T4", 0.3),
                GpuType.of("V100", 0.6),
                GpuType.of("H100", 2),
                GpuType.of("A100"),
                GpuType.of("A10", 0.6)));
    types.sort(null);

    assertThat(types)
        .extracting(GpuType::name)
        .containsExactly("H100", "A100", "A10", "V100", "T4");
  }
}
