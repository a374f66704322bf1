package io.aryl.serve;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.serve.core.ScalingSettings;
import io.aryl.yarnapp.StagedFile;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("ServeSpec: what the client writes is what the ApplicationMaster reads")
class ServeSpecTest {
  @Test
  @DisplayName("round trip through aryl-serve.json, staged files and scaling settings included")
  void roundTrip() throws Exception {
    ServeSpec spec =
        new ServeSpec(
                "s",
                "inference",
                "",
                new ScalingSettings(1, 3, 4.5, 3000, 10_000, 500, 2, 21_000, 21_999),
                1,
                256,
                1,
                500,
                "/health",
                "/metrics",
                "vllm:request_success_total",
                "exec python3 serve.py",
                List.of(),
                "",
                256)
            .withNodeLabel("inference")
            .withStaging(
                List.of(new StagedFile("serve.py", "file:/s/serve.py", 10, 20)), "file:/s");
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    spec.write(out);
    ServeSpec read = ServeSpec.read(new ByteArrayInputStream(out.toByteArray()));
    assertThat(read).isEqualTo(spec);
    assertThat(read.nodeLabel()).isEqualTo("inference");
    assertThat(read.scaling().replicasFor(10)).isEqualTo(3);
  }
}
