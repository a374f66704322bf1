package io.aryl.sim.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.aryl.sim.report.Plots;
import io.aryl.sim.report.TimeSeriesCsv;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

/** The {@code aryl-sim} command line, run in-process through {@link SimCli#commandLine()}. */
class SimCliTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * Four jobs over two days in the raw ITP layout. On 2 training servers (16 GPUs) without
   * inference, every job starts at the round of its own submission (each submission time is a
   * multiple of 60 s, each job fits beside the others): baseline queues nothing and JCT = duration,
   * avg JCT = (600 + 1200 + 1800 + 600) / 4 = 1050 s.
   */
  private static final String TINY_ITP =
      """
      job_id,submission_time,duration,num_gpu
      a,0,600,1
      b,60,1200,2
      c,3600,1800,8
      d,90000,600,4
      """;

  @TempDir Path tmp;

  private Path trace;
  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  @BeforeEach
  void writeTrace() throws IOException {
    trace = Files.writeString(tmp.resolve("tiny.csv"), TINY_ITP);
  }

  private int execute(String... args) {
    CommandLine cl = SimCli.commandLine();
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(err, true));
    return cl.execute(args);
  }

  /**
   * A run on the tiny trace, without inference unless the caller says otherwise, writing to {@code
   * dir}.
   */
  private int runTiny(Path dir, String... more) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "--trace",
                "itp:" + trace,
                "--training-servers",
                "2",
                "--inference",
                "none",
                "--policies",
                "baseline,aryl",
                "--out",
                dir.toString()));
    args.addAll(Arrays.asList(more));
    return execute(args.toArray(String[]::new));
  }

  @Test
  void helpDocumentsEveryOptionOfTheSpec() {
    int code = execute("--help");

    assertThat(code).isZero();
    assertThat(out.toString())
        .contains(
            "--trace",
            "--inference",
            "--training-servers",
            "--inference-servers",
            "--gpus-per-server",
            "--inference-gpu-speed",
            "--start-day",
            "--days",
            "--policies",
            "--elastic-fraction",
            "--prediction-error",
            "--relabel-s",
            "--replica-start-s",
            "--reclaim-lead-s",
            "--loan-margin",
            "--seed",
            "--out",
            "--no-plots",
            "sweep");
    assertThat(err.toString()).isEmpty();
  }

  @Test
  void sweepHasItsOwnHelp() {
    int code = execute("sweep", "--help");

    assertThat(code).isZero();
    assertThat(out.toString())
        .contains("sweep", "--errors", "--fractions", "--policies", "--trace", "--out");
  }

  @Test
  void listPoliciesNamesEveryPolicyAndRunsNothing() {
    int code = execute("--list-policies", "--out", tmp.resolve("unused").toString());

    assertThat(code).isZero();
    assertThat(out.toString())
        .contains("baseline", "loan-only", "elastic-only", "aryl", "yarn-nonexclusive");
    assertThat(tmp.resolve("unused")).doesNotExist();
  }

  // Bad input: exit code 2, nothing on stdout, one line on stderr naming the option and the value
  // given.
  @ParameterizedTest(name = "{0} {1}")
  @CsvSource({
    // option,            value
    "--policies,          'baseline,nope'",
    "--trace,             foo:bar",
    "--trace,             itp:MISSING",
    "--inference,         servegen:MISSING:m-small",
    "--elastic-fraction,  1.5",
    "--prediction-error,  1.0",
    "--inference-gpu-speed, 0",
    "--days,              0",
    "--start-day,         5",
    "--training-servers,  0",
    "--starvation-light-share, 1.5",
    "--relabel-s,         -1",
    "--replica-start-s,   -0.5",
    "--reclaim-lead-s,    -600",
    "--reclaim-lead-s,    86400",
    "--loan-margin,       -1",
    "--speedup,           amdahl",
    "--speedup,           profiles:MISSING",
  })
  void badInputIsOneLineNamingTheOptionAndTheValue(String option, String value) {
    String given = value.replace("MISSING", tmp.resolve("missing.csv").toString());
    // The value the message must show: a bad policy by its own name, anything else as given ("0" is
    // in "0.0").
    String shown = option.equals("--policies") ? "nope" : given;
    List<String> args =
        new ArrayList<>(
            List.of(option, given, "--no-plots", "--out", tmp.resolve("out").toString()));
    for (String[] dflt : new String[][] {{"--trace", "itp:" + trace}, {"--inference", "none"}}) {
      if (!option.equals(dflt[0])) {
        args.addAll(List.of(dflt));
      }
    }

    int code = execute(args.toArray(String[]::new));

    String message = err.toString().strip();
    assertThat(code).as(message).isEqualTo(2);
    assertThat(out.toString()).isEmpty();
    assertThat(message)
        .doesNotContain("\n")
        .startsWith("aryl-sim: ")
        .contains(option)
        .contains(shown);
    assertThat(tmp.resolve("out")).doesNotExist();
  }

  @Test
  void aRunWritesReportJsonWithEveryPolicyAndTheConfig() throws IOException {
    Path dir = tmp.resolve("report");

    int code =
        runTiny(
            dir,
            "--no-plots",
            "--seed",
            "7",
            "--elastic-fraction",
            "0.25",
            "--gpus-per-server",
            "8",
            "--starvation-share",
            "0.25",
            "--starvation-light-share",
            "0.25",
            "--relabel-s",
            "2",
            "--replica-start-s",
            "45",
            "--reclaim-lead-s",
            "1200",
            "--loan-margin",
            "3");

    assertThat(code).as(err.toString()).isZero();
    assertThat(out.toString()).contains("baseline", "aryl", "wrote");
    JsonNode report = JSON.readTree(dir.resolve("report.json").toFile());
    JsonNode policies = report.get("policies");
    assertThat(policies.fieldNames()).toIterable().containsExactly("baseline", "aryl");
    JsonNode baseline = policies.get("baseline");
    assertThat(baseline.get("jobs").asInt()).isEqualTo(4);
    assertThat(baseline.get("unfinished_jobs").asInt()).isZero();
    assertThat(baseline.get("avg_queue_s").asDouble()).isZero();
    assertThat(baseline.get("avg_jct_s").asDouble()).isEqualTo(1050);
    assertThat(baseline.get("loaned_gpu_hours").asDouble()).isZero();
    assertThat(policies.get("aryl").get("jobs").asInt()).isEqualTo(4);
    JsonNode config = report.get("config");
    assertThat(config.get("trace").asText()).isEqualTo("itp:" + trace);
    assertThat(config.get("jobs_in_window").asInt()).isEqualTo(4);
    assertThat(config.get("training_servers").asInt()).isEqualTo(2);
    assertThat(config.get("gpus_per_server").asInt()).isEqualTo(8);
    assertThat(config.get("seed").asLong()).isEqualTo(7);
    assertThat(config.get("elastic_fraction").asDouble()).isEqualTo(0.25);
    assertThat(config.get("starvation_share").asDouble()).isEqualTo(0.25);
    assertThat(config.get("starvation_light_share").asDouble()).isEqualTo(0.25);
    assertThat(config.get("relabel_s").asDouble()).isEqualTo(2);
    assertThat(config.get("replica_start_s").asDouble()).isEqualTo(45);
    assertThat(config.get("reclaim_lead_s").asDouble()).isEqualTo(1200);
    assertThat(config.get("loan_margin_servers").asInt()).isEqualTo(3);
    assertThat(config.get("window_start_s").asDouble()).isZero();
    // Without --days the window runs to just past the last submission (90000 s).
    assertThat(config.get("window_end_s").asDouble()).isEqualTo(90_001);
    assertThat(dir.resolve(TimeSeriesCsv.timeseriesFile("baseline"))).isRegularFile();
    assertThat(dir.resolve(TimeSeriesCsv.jobsFile("aryl"))).isRegularFile();
    assertThat(dir.resolve(Plots.UTILIZATION)).doesNotExist();
  }

  @Test
  void speedupProfilesGiveEachJobAMeasuredModelStatedInTheReport() throws IOException {
    Path dir = tmp.resolve("profiles");
    // The slice of the Pollux profiles aryl-core's tests read: bert and cifar10.
    Path profiles = Path.of("../aryl-core/src/test/resources/throughput_profiles");

    int code = runTiny(dir, "--no-plots", "--speedup", "profiles:" + profiles);

    assertThat(code).as(err.toString()).isZero();
    JsonNode config = JSON.readTree(dir.resolve("report.json").toFile()).get("config");
    assertThat(config.get("speedup").asText())
        .startsWith("measured profiles from " + profiles)
        .contains("[bert, cifar10]", "seed 1");
    JsonNode counts = config.get("speedup_models_in_window");
    assertThat(counts.fieldNames()).toIterable().containsExactly("bert", "cifar10");
    assertThat(counts.get("bert").asInt() + counts.get("cifar10").asInt()).isEqualTo(4);
  }

  @Test
  void summarizeTurnsAReportIntoAMarkdownTableAgainstTheBaseline() {
    Path dir = tmp.resolve("summary");
    assertThat(runTiny(dir, "--no-plots")).as(err.toString()).isZero();
    out.getBuffer().setLength(0);

    assertThat(execute("summarize", dir.toString())).as(err.toString()).isZero();

    // Baseline: nothing queued, avg JCT 1050 s = 0.29 h, its own ratio 1.00x and 0% of its queuing
    // removed. The
    // tail beside the averages: the documentation's tables show fairness in every row.
    assertThat(out.toString())
        .contains(
            "| policy | avg queue (h) | queue removed | avg JCT (h) | JCT vs baseline | JCT / bound "
                + "| JCT / capacity bound | GPU util | GPU-s per work | preemptions | lost GPU-h | p95 queue (h) "
                + "| p99 queue (h) | max queue (h) | starved | worst slowdown |")
        .contains("| baseline | 0.00 | 0% | 0.29 | 1.00x |")
        .contains("| aryl |");
    assertThat(execute("summarize", tmp.resolve("nothing-here").toString())).isEqualTo(2);
    assertThat(err.toString()).contains("REPORT").contains("nothing-here");
  }

  @Test
  void summarizeCompareTabulatesRunsOfOneSliceRowByRow() {
    Path first = tmp.resolve("guard-off");
    Path second = tmp.resolve("guard-lane10");
    assertThat(runTiny(first, "--no-plots")).as(err.toString()).isZero();
    assertThat(runTiny(second, "--no-plots", "--starvation-share", "0.1"))
        .as(err.toString())
        .isZero();
    out.getBuffer().setLength(0);

    assertThat(
            execute(
                "summarize",
                "--compare",
                first.toString(),
                second.resolve("report.json").toString()))
        .as(err.toString())
        .isZero();

    // One header, then a row per report and policy in the order given, named by the report's
    // directory.
    String[] lines = out.toString().split("\\R");
    assertThat(lines[0])
        .isEqualTo(
            "| run | avg queue (h) | avg JCT (h) | JCT / bound | JCT / capacity bound "
                + "| p95 queue (h) | p99 queue (h) | max queue (h) | starved | worst slowdown |");
    assertThat(lines).filteredOn(l -> l.startsWith("| run ")).hasSize(1);
    assertThat(lines[2]).startsWith("| guard-off: baseline | 0.00 | 0.29 | ");
    assertThat(lines[3]).startsWith("| guard-off: aryl | ");
    assertThat(lines[4]).startsWith("| guard-lane10: baseline | 0.00 | 0.29 | ");
    assertThat(lines).hasSize(6);
  }

  @Test
  void summarizeRefusesAFileThatIsNoReportNamingIt() throws IOException {
    Path table = Files.writeString(tmp.resolve("results.txt"), "policy   jobs\n");
    Path other = Files.writeString(tmp.resolve("other.json"), "{\"config\": {}}");

    assertThat(execute("summarize", "--compare", table.toString())).isEqualTo(2);
    assertThat(err.toString())
        .contains("REPORT is not JSON: '" + table + "' (line 1, column ")
        .doesNotContain("\tat ");
    assertThat(execute("summarize", other.toString())).isEqualTo(2);
    assertThat(err.toString()).contains("no \"policies\"").contains("other.json");
  }

  @Test
  void startDayAndDaysChooseTheWindow() throws IOException {
    // Day 1 = [86400, 172800): only job d (at 90000) is measured.
    Path dir = tmp.resolve("day1");

    int code = runTiny(dir, "--no-plots", "--start-day", "1", "--days", "1");

    assertThat(code).as(err.toString()).isZero();
    JsonNode report = JSON.readTree(dir.resolve("report.json").toFile());
    assertThat(report.get("config").get("window_start_s").asDouble()).isEqualTo(86_400);
    assertThat(report.get("config").get("window_end_s").asDouble()).isEqualTo(172_800);
    assertThat(report.get("policies").get("baseline").get("jobs").asInt()).isEqualTo(1);
  }

  @Test
  void aRunWithPlotsWritesThePngs() throws IOException {
    Path dir = tmp.resolve("plots");

    int code = runTiny(dir);

    assertThat(code).as(err.toString()).isZero();
    for (String png : List.of(Plots.UTILIZATION, Plots.JCT_CDF, Plots.QUEUE_CDF, Plots.LOANS)) {
      Path file = dir.resolve(png);
      assertThat(file).as(png).isRegularFile();
      byte[] head = Arrays.copyOf(Files.readAllBytes(file), 8);
      assertThat(head)
          .as(png)
          .isEqualTo(new byte[] {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'});
    }
  }

  @Test
  void withNoArgumentsItRunsTheBundledSliceEndToEnd() throws IOException {
    // The default trace and curve (about 4 s for these two policies).
    Path dir = tmp.resolve("bundled");

    int code = execute("--out", dir.toString(), "--no-plots", "--policies", "baseline,aryl");

    assertThat(code).as(err.toString()).isZero();
    JsonNode report = JSON.readTree(dir.resolve("report.json").toFile());
    assertThat(report.get("config").get("trace").asText()).isEqualTo("bundled");
    assertThat(report.get("config").get("jobs_in_window").asInt()).isEqualTo(2571);
    for (String policy : List.of("baseline", "aryl")) {
      assertThat(report.get("policies").get(policy).get("jobs").asInt()).as(policy).isPositive();
    }
    assertThat(report.get("policies").get("aryl").get("loaned_gpu_hours").asDouble()).isPositive();
  }

  @Test
  void benchTimesEveryRunAndChecksEachAgainstTheFirst() {
    int code =
        execute(
            "bench",
            "--trace",
            "itp:" + trace,
            "--training-servers",
            "2",
            "--inference",
            "none",
            "--runs",
            "3");

    assertThat(code).isZero();
    assertThat(out.toString())
        .contains(
            "run 1:",
            "run 2:",
            "run 3:",
            "on its thread's CPU",
            "MB allocated",
            "4 jobs finished",
            "fastest after the first:",
            "identical results: yes");
  }

  @Test
  void benchRefusesFewerThanTwoRuns() {
    int code =
        execute("bench", "--trace", "itp:" + trace, "--training-servers", "2", "--runs", "1");

    assertThat(code).isEqualTo(2);
    assertThat(err.toString()).contains("--runs must be at least 2, was 1");
  }
}
