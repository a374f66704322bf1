package io.aryl.sim.trace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@DisplayName("PhillyTrace")
class PhillyTraceTest {
  private static final String HEADER = "timestamp,duration,num_gpus,gpu_time,cluster\n";

  /** Not sorted by time, as in the real file; lines 2, 3, 4, 5. */
  private static final String SMALL =
      HEADER
          + "2017-10-09 07:01:55,66.0,1,66.0,11cb48\n"
          + "2017-10-09 06:13:03,2951.0,2,5902.0,6214e9\n"
          + "2017-10-09 08:00:00,10.0,4,40.0,11cb48\n"
          + "2017-10-09 06:13:03,1.0,1,1.0,6c71a0\n";

  @TempDir Path dir;

  private Path write(String name, String text) throws IOException {
    return Files.writeString(dir.resolve(name), text);
  }

  @Test
  @DisplayName(
      "reads every cluster: ids from line numbers, times from the earliest timestamp, sorted, the cluster"
          + " as tenant")
  void all() throws IOException {
    Path f = write("philly.csv", SMALL);

    // 06:13:03 is 0; 07:01:55 is 2,932 s later; 08:00:00 is 6,417 s later.
    assertThat(PhillyTrace.read(f, null))
        .containsExactly(
            new TraceJob("philly-3", 0, 2951, 2, "", "6214e9"),
            new TraceJob("philly-5", 0, 1, 1, "", "6c71a0"),
            new TraceJob("philly-2", 2932, 66, 1, "", "11cb48"),
            new TraceJob("philly-4", 6417, 10, 4, "", "11cb48"));
  }

  @Test
  @DisplayName("keeps one cluster, timing from its own earliest job, ids unchanged")
  void clusterFilter() throws IOException {
    Path f = write("philly.csv", SMALL);

    assertThat(PhillyTrace.read(f, "11cb48"))
        .containsExactly(
            new TraceJob("philly-2", 0, 66, 1, "", "11cb48"),
            new TraceJob("philly-4", 3485, 10, 4, "", "11cb48"));
  }

  @Test
  @DisplayName("refuses an unknown cluster, listing those that exist with their job counts")
  void unknownCluster() throws IOException {
    Path f = write("philly.csv", SMALL);

    assertThatThrownBy(() -> PhillyTrace.read(f, "ffffff"))
        .isInstanceOf(IllegalArgumentException.class)
        .isNotInstanceOf(TraceFormatException.class)
        .hasMessage(
            f
                + ": no job in cluster 'ffffff'; clusters present (jobs): 11cb48 (2), 6214e9 (1), 6c71a0 (1)");
    assertThatThrownBy(() -> PhillyTrace.read(f, " ")).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  @DisplayName("reads timestamps as UTC, across midnight and month ends")
  void utc() throws IOException {
    Path f =
        write(
            "philly.csv",
            HEADER
                + "2017-10-31 23:59:59,5.0,1,5.0,a\n"
                + "2017-11-01 00:00:01,5.0,1,5.0,a\n"
                + "2017-11-05 01:30:00,5.0,1,5.0,a\n");

    assertThat(PhillyTrace.read(f, null))
        .extracting(TraceJob::submitS)
        .containsExactly(0.0, 2.0, 4 * 86400 + 5401.0);
  }

  @Test
  @DisplayName("ignores blank lines at the end, as in the real file")
  void blankTail() throws IOException {
    assertThat(PhillyTrace.read(write("philly.csv", SMALL + "\n"), null)).hasSize(4);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "too few columns | 2017-10-09 09:00:00,5.0,1,5.0 | 2017-10-09 09:00:00,5.0,1,5.0 | expected 5 comma-separated",
        "timestamp with T | 2017-10-09T09:00:00,5.0,1,5.0,11cb48 | 2017-10-09T09:00:00 | yyyy-MM-dd HH:mm:ss",
        "no such date | 2017-02-30 09:00:00,5.0,1,5.0,11cb48 | 2017-02-30 09:00:00 | timestamp must be",
        "no such month | 2017-13-01 09:00:00,5.0,1,5.0,11cb48 | 2017-13-01 09:00:00 | timestamp must be",
        "timestamp empty | ,5.0,1,5.0,11cb48 | '' | timestamp must be",
        "duration zero | 2017-10-09 09:00:00,0.0,1,0.0,11cb48 | 0.0 | duration must be > 0",
        "duration negative | 2017-10-09 09:00:00,-3.0,1,3.0,11cb48 | -3.0 | duration must be > 0",
        "duration not a number | 2017-10-09 09:00:00,long,1,5.0,11cb48 | long | duration must be a number",
        "gpus zero | 2017-10-09 09:00:00,5.0,0,0.0,11cb48 | 0 | num_gpus must be a whole number > 0",
        "gpus fractional | 2017-10-09 09:00:00,5.0,1.0,5.0,11cb48 | 1.0 | num_gpus must be a whole number > 0",
        "gpu_time negative | 2017-10-09 09:00:00,5.0,1,-5.0,11cb48 | -5.0 | gpu_time must be >= 0",
        "cluster blank | 2017-10-09 09:00:00,5.0,1,5.0, | '' | cluster must not be blank",
        "line of another cluster | 2017-10-09 09:00:00,5.0,-1,5.0,6c71a0 | -1 | num_gpus must be a whole number > 0",
      })
  void malformed(String what, String line, String value, String problem) throws IOException {
    Path f =
        write("philly-bad.csv", HEADER + "2017-10-09 07:01:55,66.0,1,66.0,11cb48\n" + line + "\n");

    // Checked whatever the filter: a damaged line of another cluster is not silently passed over.
    for (String cluster : new String[] {null, "11cb48"}) {
      assertThatThrownBy(() -> PhillyTrace.read(f, cluster))
          .as(what)
          .isInstanceOf(TraceFormatException.class)
          .hasMessageStartingWith(f + ":3: ")
          .hasMessageContaining(problem)
          .hasMessageEndingWith(", was '" + value + "'");
    }
  }

  @Test
  @DisplayName("refuses a header that is not Philly's")
  void badHeader() throws IOException {
    Path f = write("itp.csv", "job_id,submission_time,duration,num_gpu\nj1,0,1,1\n");

    assertThatThrownBy(() -> PhillyTrace.read(f, null))
        .isInstanceOf(TraceFormatException.class)
        .hasMessageStartingWith(f + ":1: header has no column 'timestamp'");
  }
}
