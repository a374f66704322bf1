package io.aryl.serve.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("PrometheusText: one counter of a replica's metrics")
class PrometheusTextTest {
  private static final String TEXT =
      """
      # HELP aryl_serve_requests_total Requests answered.
      # TYPE aryl_serve_requests_total counter
      aryl_serve_requests_total 42
      aryl_serve_requests_total_created 1.7e9
      vllm:request_success_total{finished_reason="stop",model_name="m"} 10
      vllm:request_success_total{finished_reason="length",model_name="m"} 2.0 1712345678
      """;

  @Test
  @DisplayName("reads a plain sample, and not a metric whose name only starts the same")
  void plain() {
    assertThat(PrometheusText.counter(TEXT, "aryl_serve_requests_total")).isEqualTo(42);
  }

  @Test
  @DisplayName("sums the samples of every label set (vLLM's counter), timestamps ignored")
  void labelled() {
    assertThat(PrometheusText.counter(TEXT, "vllm:request_success_total")).isEqualTo(12);
  }

  @Test
  @DisplayName("-1 for a metric that is not there")
  void absent() {
    assertThat(PrometheusText.counter(TEXT, "nv_inference_request_success")).isEqualTo(-1);
  }

  @Test
  @DisplayName("a value that is not a number is refused, naming metric and value")
  void bad() {
    assertThatThrownBy(() -> PrometheusText.counter("x_total abc\n", "x_total"))
        .hasMessageContaining("metric x_total: value 'abc' is not a number");
  }
}
