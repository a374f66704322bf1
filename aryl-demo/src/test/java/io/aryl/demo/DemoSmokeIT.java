package io.aryl.demo;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole demo, short: both runs of 40 s on 2 inference + 2 training nodes, real
 * ApplicationMasters and workers, and the real inference service (serve.py replicas) under the load
 * generator. Checks the table's two columns, that values are sane, and the JSON file: every request
 * accounted for, and lending costs the inference objective at most half a point.
 */
class DemoSmokeIT {
  @TempDir Path dir;

  @Test
  @Timeout(420)
  @DisplayName(
      "bin/aryl demo --duration 40s --nodes 2+2: both runs, a summary with both columns, the JSON written")
  void shortDemo() throws Exception {
    Path json = dir.resolve("out/summary.json");
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(new TeeStream(buf, System.out), true, StandardCharsets.UTF_8);
    int code =
        ArylDemo.run(
            out,
            System.err,
            "--duration",
            "40s",
            "--nodes",
            "2+2",
            "--web-port",
            "0",
            "--json",
            json.toString(),
            "--log",
            dir.resolve("demo.log").toString(),
            "--progress-every",
            "10s");
    String text = buf.toString(StandardCharsets.UTF_8);
    assertThat(code).as(text).isZero();

    assertThat(text)
        .contains("ResourceManager web UI: http://localhost:")
        .contains("[Aryl on ")
        .contains("[Aryl off");
    String table = text.substring(text.indexOf("Summary ("));
    List<String> lines = table.lines().toList();
    assertThat(lines.get(2)).contains("Aryl on").contains("Aryl off");
    assertThat(table)
        .contains(
            "jobs finished",
            "avg queuing time",
            "avg JCT",
            "training work (GPUs busy, average)",
            "GPUs lent by inference (average)",
            "training GPUs in use",
            "loaned GPU-hours",
            "reclaims",
            "preemptions",
            "inference requests within 500 ms",
            "inference latency p99",
            "inference requests failed",
            "replicas that waited for a reclaim");

    JsonNode doc = new ObjectMapper().readTree(Files.readString(json));
    int jobs = doc.path("jobs").size();
    assertThat(jobs).isPositive();
    for (String run : List.of("arylOn", "arylOff")) {
      JsonNode r = doc.path("runs").path(run);
      assertThat(r.isObject()).as(run + " in " + doc).isTrue();
      assertThat(r.path("jobs").asInt()).isEqualTo(jobs);
      assertThat(r.path("submitted").asInt()).as(run + " submitted").isEqualTo(jobs);
      assertThat(r.path("finished").asInt()).as(run + " finished some jobs").isPositive();
      assertThat(r.path("avgQueuingS").asDouble()).isBetween(0.0, 60.0);
      assertThat(r.path("avgJctS").asDouble()).isBetween(1.0, 60.0);
      assertThat(r.path("trainingUtilization").asDouble()).isBetween(0.01, 1.0);
      assertThat(r.path("runS").asDouble()).isBetween(5.0, 60.0);
      assertThat(r.path("outcomes").size()).isEqualTo(jobs);

      JsonNode inf = r.path("inference");
      assertThat(inf.isObject()).as(run + " inference in " + r).isTrue();
      long requests = inf.path("requests").asLong();
      assertThat(requests).as(run + " requests sent on the curve").isGreaterThan(100);
      assertThat(
              inf.path("ok").asLong()
                  + inf.path("errors").asLong()
                  + inf.path("timeouts").asLong()
                  + inf.path("noReplica").asLong())
          .as(run + ": every request accounted for")
          .isEqualTo(requests);
      assertThat(inf.path("noReplica").asLong() + inf.path("timeouts").asLong())
          .as(run + ": no request without a replica or unanswered")
          .isZero();
      assertThat(inf.path("withinSlo").asDouble()).as(run + " within 500 ms").isBetween(0.9, 1.0);
      assertThat(inf.path("p99Ms").asDouble()).isPositive().isLessThan(10_000.0);
      assertThat(inf.path("p50Ms").asDouble())
          .isPositive()
          .isLessThanOrEqualTo(inf.path("p99Ms").asDouble());
      assertThat(inf.path("replicasBehindReclaim").asInt())
          .isBetween(0, inf.path("replicasStarted").asInt());
    }
    JsonNode on = doc.path("runs").path("arylOn").path("inference");
    JsonNode offInf = doc.path("runs").path("arylOff").path("inference");
    assertThat(on.path("requests").asLong())
        .as("the same traffic in both runs")
        .isEqualTo(offInf.path("requests").asLong());
    assertThat(on.path("withinSlo").asDouble())
        .as("lending keeps the inference objective within half a point of the static pool's")
        .isCloseTo(offInf.path("withinSlo").asDouble(), org.assertj.core.data.Offset.offset(0.005));
    assertThat(offInf.path("replicasBehindReclaim").asInt())
        .as("nothing is lent with Aryl off, so no replica waits for a reclaim")
        .isZero();
    JsonNode off = doc.path("runs").path("arylOff");
    assertThat(off.path("loanedGpuHours").asDouble())
        .as("nothing is loaned with Aryl off")
        .isZero();
    assertThat(off.path("reclaims").asLong()).isZero();
    assertThat(doc.path("runs").path("arylOn").path("loanedGpuHours").asDouble())
        .as("the loan controller loans idle inference nodes at night")
        .isPositive();
  }

  /** Writes to both streams: the test's output shows the demo's progress. */
  private static final class TeeStream extends java.io.OutputStream {
    private final java.io.OutputStream a;
    private final java.io.OutputStream b;

    TeeStream(java.io.OutputStream a, java.io.OutputStream b) {
      this.a = a;
      this.b = b;
    }

    @Override
    public void write(int c) throws java.io.IOException {
      a.write(c);
      b.write(c);
    }

    @Override
    public void write(byte[] bytes, int off, int len) throws java.io.IOException {
      a.write(bytes, off, len);
      b.write(bytes, off, len);
    }
  }
}
