package io.aryl.sim.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The bundled week (ITP cluster04 and ServeGen m-small) with lent inference GPUs training at half
 * speed: where the paper's placement parks flexible workers on slow GPUs and loses to elastic-only,
 * aryl+ must win.
 */
@DisplayName("the bundled week with inference GPUs at half speed")
class HalfSpeedWeekTest {
  @TempDir static Path tmp;

  private static JsonNode policies;

  @BeforeAll
  static void run() throws IOException {
    StringWriter out = new StringWriter();
    int code =
        SimCli.commandLine()
            .setOut(new PrintWriter(out, true))
            .setErr(new PrintWriter(new StringWriter(), true))
            .execute(
                "--inference-gpu-speed",
                "0.5",
                "--policies",
                "elastic-only,aryl,aryl+",
                "--no-plots",
                "--out",
                tmp.toString());
    assertThat(code).as(out.toString()).isZero();
    policies = new ObjectMapper().readTree(tmp.resolve("report.json").toFile()).get("policies");
  }

  private static double jct(String policy) {
    return policies.get(policy).get("avg_jct_s").asDouble();
  }

  @Test
  @DisplayName(
      "the paper's placement is worse than elastic-only: flexible workers sit on slow GPUs")
  void thePaperLosesToElasticOnly() {
    assertThat(jct("aryl")).isGreaterThan(jct("elastic-only"));
  }

  @Test
  @DisplayName("aryl+ beats both, and comes closer to the bound")
  void arylPlusBeatsBoth() {
    assertThat(jct("aryl+")).isLessThan(jct("elastic-only")).isLessThan(jct("aryl"));
    assertThat(policies.get("aryl+").get("jct_vs_bound").asDouble())
        .isLessThan(policies.get("elastic-only").get("jct_vs_bound").asDouble());
  }

  @Test
  @DisplayName("aryl+ starves no job and spends less GPU time per unit of work than aryl")
  void arylPlusStarvesNoneAndWastesLess() {
    assertThat(policies.get("aryl+").get("starved_jobs").asInt()).isZero();
    assertThat(policies.get("aryl+").get("gpu_s_per_work").asDouble())
        .isLessThan(policies.get("aryl").get("gpu_s_per_work").asDouble());
  }
}
