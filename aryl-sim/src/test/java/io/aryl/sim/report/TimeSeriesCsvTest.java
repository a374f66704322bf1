package io.aryl.sim.report;

import static io.aryl.sim.report.Fixtures.aryl;
import static io.aryl.sim.report.Fixtures.empty;
import static io.aryl.sim.report.Fixtures.fifo;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import io.aryl.sim.engine.JobRecord;
import io.aryl.sim.engine.PolicyResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("TimeSeriesCsv")
class TimeSeriesCsvTest {
  @TempDir Path dir;

  private List<String> lines(String file) throws Exception {
    return Files.readAllLines(dir.resolve(file));
  }

  @Test
  void writes_one_timeseries_row_per_sample_under_the_header() throws Exception {
    TimeSeriesCsv.write(dir, List.of(fifo(), aryl()));

    assertThat(lines("timeseries-fifo.csv"))
        .containsExactly(
            "time_s,training_pool_busy_gpus,loaned_busy_gpus,inference_busy_gpus,loaned_servers,queued_jobs,running_jobs",
            "0,4,0,1.5,0,3,1",
            "300,8,0,2,0,2,2",
            "600,8,0,2.25,0,1,2");
    assertThat(lines("timeseries-aryl.csv"))
        .hasSize(1 + aryl().samples().size())
        .element(1)
        .isEqualTo("0,8,2,1.5,1,1,3");
  }

  @Test
  void writes_one_jobs_row_per_finished_job_under_the_header() throws Exception {
    TimeSeriesCsv.write(dir, List.of(fifo(), aryl()));

    assertThat(lines("jobs-fifo.csv"))
        .containsExactly(
            "id,submit_s,first_start_s,end_s,queue_s,jct_s,requested_gpus,elastic,bound_s",
            "j1,0,100,1000,100,1000,4,false,900",
            "j2,10,310,2010,300,2000,4,false,1700",
            "j3,20,620,3020,600,3000,4,false,2400",
            "j4,30,1830,3630,1800,3600,4,false,1800");
    assertThat(lines("jobs-aryl.csv"))
        .hasSize(1 + aryl().jobs().size())
        .element(1)
        .isEqualTo("j1,0,0,800,0,800,4,true,700");
  }

  @Test
  void writes_header_only_files_for_a_policy_without_samples_or_jobs() throws Exception {
    TimeSeriesCsv.write(dir.resolve("new/dir"), List.of(empty("idle")));

    assertThat(Files.readAllLines(dir.resolve("new/dir/timeseries-idle.csv")))
        .containsExactly(TimeSeriesCsv.TIMESERIES_HEADER);
    assertThat(Files.readAllLines(dir.resolve("new/dir/jobs-idle.csv")))
        .containsExactly(TimeSeriesCsv.JOBS_HEADER);
  }

  @Test
  void quotes_job_ids_that_need_it_and_writes_plain_numbers() throws Exception {
    JobRecord odd = new JobRecord("a,\"b\"", 1.0 / 3, 1e7, 1e7 + 0.0004, 8, true, Double.NaN);
    PolicyResult r =
        new PolicyResult("p", List.of(odd), List.of(), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);

    TimeSeriesCsv.write(dir, List.of(r));

    assertThat(lines("jobs-p.csv"))
        .element(1)
        .isEqualTo("\"a,\"\"b\"\"\",0.333,10000000,10000000,9999999.667,9999999.667,8,true,");
  }

  @Test
  void keeps_policy_file_names_safe_and_distinct() throws Exception {
    assertThat(TimeSeriesCsv.timeseriesFile("loan+elastic"))
        .isEqualTo("timeseries-loan+elastic.csv");
    assertThat(TimeSeriesCsv.jobsFile("../a b")).isEqualTo("jobs-.._a_b.csv");

    assertThatIllegalArgumentException()
        .isThrownBy(() -> TimeSeriesCsv.write(dir, List.of(empty("a/b"), empty("a:b"))))
        .withMessageContaining("a/b")
        .withMessageContaining("a:b");
  }

  @Test
  void formats_numbers_the_same_in_every_locale() {
    assertThat(TimeSeriesCsv.num(2)).isEqualTo("2");
    assertThat(TimeSeriesCsv.num(2.5)).isEqualTo("2.5");
    assertThat(TimeSeriesCsv.num(1234567.891234)).isEqualTo("1234567.891");
    assertThat(TimeSeriesCsv.num(-0.0001)).isEqualTo("0");
    assertThat(TimeSeriesCsv.num(Double.POSITIVE_INFINITY)).isEmpty();
  }
}
