package io.aryl.sls;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@DisplayName(
    "SlsOutputs.read: SLS's timers from realtimetrack.json and its finished AMs from jobruntime.csv")
class SlsOutputsTest {
  @TempDir Path out;

  /** One second of SLS's metrics as SLS writes it, with the gauges around the two timers read. */
  private static String second(long time, double allocate, double nodeUpdate) {
    return "{\"time\":"
        + time
        + ",\"jvm.free.memory\":0.06,\"running.applications\":1,"
        + "\""
        + SlsOutputs.ALLOCATE
        + "\":"
        + allocate
        + ","
        + "\""
        + SlsOutputs.NODE_UPDATE
        + "\":"
        + nodeUpdate
        + ",\"nodes.vcores.full\":0}";
  }

  private void track(String... lines) throws IOException {
    Files.write(out.resolve("realtimetrack.json"), List.of(lines));
  }

  @Test
  @DisplayName(
      "reads the file as SLS writes it: '[' and the first object on the first line, then ',' and an object"
          + " a line, with no closing ']' while SLS runs")
  void slsFormat() throws IOException {
    // As in an SLS run's realtimetrack.json: [{"time":...}  ,{"time":...}  ,{"time":...}
    track(
        "[" + second(1000, 1.5, 0.25), "," + second(2000, 2.5, 0.5), "," + second(3000, 3.5, 0.75));

    SlsOutputs read = SlsOutputs.read(out);

    assertThat(read.allocateMs()).containsExactly(1.5, 2.5, 3.5);
    assertThat(read.nodeUpdateMs()).containsExactly(0.25, 0.5, 0.75);
  }

  @Test
  @DisplayName(
      "reads '[' alone on the first line, objects after commas, and the closing ']' of a torn-down SLS")
  void bracketOnItsOwnLineAndClosed() throws IOException {
    track(
        "[",
        second(1000, 1.5, 0.25),
        "," + second(2000, 2.5, 0.5),
        "," + second(3000, 3.5, 0.75) + "]");

    SlsOutputs read = SlsOutputs.read(out);

    assertThat(read.allocateMs()).containsExactly(1.5, 2.5, 3.5);
    assertThat(read.nodeUpdateMs()).containsExactly(0.25, 0.5, 0.75);
  }

  @Test
  @DisplayName("reads a closing ']' on a line of its own")
  void closingBracketOnItsOwnLine() throws IOException {
    track("[" + second(1000, 1.5, 0.25), "," + second(2000, 2.5, 0.5), "]");

    assertThat(SlsOutputs.read(out).allocateMs()).containsExactly(1.5, 2.5);
  }

  @ParameterizedTest(name = "the last line cut to ''{0}''")
  @ValueSource(
      strings = {
        ",",
        ",{",
        ",{\"time\":4000,\"jvm.free.memory\":0.0",
        ",{\"time\":4000,\"scheduler.allocate.timecost\":9.5",
        ",{\"time\":4000,\"scheduler.allocate.timecost\":9.5,\"scheduler.handle-NODE_UPDATE.timecost\":1.",
      })
  @DisplayName("skips a truncated last line, the one SLS was writing when it stopped")
  void truncatedLastLine(String cut) throws IOException {
    track("[" + second(1000, 1.5, 0.25), "," + second(2000, 2.5, 0.5), cut);

    SlsOutputs read = SlsOutputs.read(out);

    assertThat(read.allocateMs()).containsExactly(1.5, 2.5);
    assertThat(read.nodeUpdateMs()).containsExactly(0.25, 0.5);
  }

  @Test
  @DisplayName("skips zero values: a second with no call is idle, not a fast call")
  void zerosSkipped() throws IOException {
    track(
        "[" + second(1000, 0.0, 0.0),
        "," + second(2000, 4.0, 0.0),
        "," + second(3000, 0.0, 0.5),
        "," + second(4000, 2.0, 1.0));

    SlsOutputs read = SlsOutputs.read(out);

    assertThat(read.allocateMs()).containsExactly(4.0, 2.0);
    assertThat(read.nodeUpdateMs()).containsExactly(0.5, 1.0);
  }

  @Test
  @DisplayName("skips seconds without the timers and timers that are not numbers")
  void missingOrNonNumeric() throws IOException {
    track(
        "[{\"time\":1000,\"running.applications\":0}",
        ",{\"time\":2000,\""
            + SlsOutputs.ALLOCATE
            + "\":\"fast\",\""
            + SlsOutputs.NODE_UPDATE
            + "\":null}",
        "," + second(3000, 7.0, 0.125));

    SlsOutputs read = SlsOutputs.read(out);

    assertThat(read.allocateMs()).containsExactly(7.0);
    assertThat(read.nodeUpdateMs()).containsExactly(0.125);
  }

  @Test
  @DisplayName("counts jobruntime.csv's lines less its header: one per finished AM")
  void jobRuntime() throws IOException {
    Files.write(
        out.resolve("jobruntime.csv"),
        List.of(
            "JobID,real_start_time,real_end_time,simulate_start_time,simulate_end_time",
            "application_1796177034979_0001,0,9537,1796177037679,1796177046689",
            "application_1796177034979_0002,10520,19725,1796177048199,1796177055201"));

    assertThat(SlsOutputs.read(out).jobsInJobRuntime()).isEqualTo(2);
  }

  @Test
  @DisplayName("a jobruntime.csv with its header only, or empty, counts no job")
  void jobRuntimeHeaderOnlyOrEmpty() throws IOException {
    Files.write(out.resolve("jobruntime.csv"), List.of("JobID,real_start_time,real_end_time"));
    assertThat(SlsOutputs.read(out).jobsInJobRuntime()).isZero();

    Files.write(out.resolve("jobruntime.csv"), new byte[0]);
    assertThat(SlsOutputs.read(out).jobsInJobRuntime()).isZero();
  }

  @Test
  @DisplayName("an output directory with neither file reads as no timers and no jobs")
  void nothingThere() throws IOException {
    assertThat(SlsOutputs.read(out)).isEqualTo(new SlsOutputs(List.of(), List.of(), 0));
  }

  @Test
  @DisplayName("an empty realtimetrack.json, or one with '[' only, reads as no timers")
  void emptyTrack() throws IOException {
    track();
    assertThat(SlsOutputs.read(out).allocateMs()).isEmpty();

    track("[");
    assertThat(SlsOutputs.read(out).allocateMs()).isEmpty();
  }
}
