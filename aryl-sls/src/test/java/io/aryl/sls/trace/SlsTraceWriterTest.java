package io.aryl.sls.trace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.aryl.sim.engine.JobShape;
import io.aryl.sim.trace.TraceJob;
import io.aryl.sls.SlsJobFormat;
import io.aryl.sls.trace.SlsTraceWriter.JobOptions;
import io.aryl.sls.trace.SlsTraceWriter.NodeOptions;
import io.aryl.sls.trace.SlsTraceWriter.SlsJobs;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.apache.hadoop.yarn.api.records.NodeLabel;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.sls.SLSRunner.NodeDetails;
import org.apache.hadoop.yarn.sls.conf.SLSConfiguration;
import org.apache.hadoop.yarn.sls.utils.SLSUtils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

/**
 * How a slice of the ITP trace becomes the SLS job trace and node file of the workload aryl-sim
 * judges.
 */
class SlsTraceWriterTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final double ORIGIN = 1_000_000;
  private static final double HOUR = 3600;

  /**
   * No compression, no floor: SLS times are trace times in ms. Every job elastic (1) or none (0).
   */
  private static JobOptions options(double elasticFraction) {
    return new JobOptions(1, 1, elasticFraction, 1, 8, 4096);
  }

  private static TraceJob job(String id, double submitS, double durationS, int gpus) {
    return new TraceJob(id, submitS, durationS, gpus, "", "01");
  }

  /** The objects of a file written as SLS reads it: one after another. */
  private static List<JsonNode> readAll(Path file) throws IOException {
    return JSON.readerFor(JsonNode.class).<JsonNode>readValues(file.toFile()).readAll();
  }

  @SuppressWarnings("unchecked")
  private static List<Map<String, Object>> tasks(Map<String, Object> job) {
    return (List<Map<String, Object>>) job.get(SLSConfiguration.JOB_TASKS);
  }

  // The shape is aryl-sim's (JobShape) on 8-GPU nodes; the base entry runs the trace duration x
  // requested / min
  // workers, the flexible entry (elastic jobs only) holds max - min workers of the same size and
  // duration.
  @ParameterizedTest(
      name =
          "{0}-GPU {1} job: {2} base + {3} flexible workers of {4} GPUs, runtime {5}x the trace's")
  @CsvSource({
    // gpus, kind,     base, flexible, gpus/worker, runtime at min / trace duration
    "1,      inelastic, 1,   0,        1,           1",
    "8,      inelastic, 1,   0,        8,           1",
    "64,     inelastic, 8,   0,        8,           1",
    "1,      elastic,   1,   1,        1,           1",
    "2,      elastic,   1,   3,        1,           2",
    "8,      elastic,   2,   6,        2,           2",
    "64,     elastic,   4,   12,       8,           2",
  })
  void aJobBecomesABaseTaskAndForAnElasticJobAFlexibleOne(
      int gpus, String kind, int base, int flexible, int gpusPerWorker, double runtimeFactor) {
    Map<String, Object> job =
        SlsTraceWriter.job(
            job("a", ORIGIN, 1000, gpus), ORIGIN, options(kind.equals("elastic") ? 1 : 0));

    List<Map<String, Object>> tasks = tasks(job);
    assertThat(tasks).hasSize(flexible == 0 ? 1 : 2);
    assertThat(tasks.get(0))
        .containsEntry(SLSConfiguration.TASK_TYPE, SlsJobFormat.BASE)
        .containsEntry(SLSConfiguration.COUNT, base);
    if (flexible > 0) {
      assertThat(tasks.get(1))
          .containsEntry(SLSConfiguration.TASK_TYPE, SlsJobFormat.FLEXIBLE)
          .containsEntry(SLSConfiguration.COUNT, flexible);
    }
    for (Map<String, Object> task : tasks) {
      assertThat(task)
          .containsEntry(SLSConfiguration.TASK_PREFIX + SlsJobFormat.GPU, gpusPerWorker)
          .containsEntry(SLSConfiguration.TASK_PREFIX + "memory-mb", gpusPerWorker * 4096)
          .containsEntry(SLSConfiguration.TASK_PREFIX + "vcores", 1)
          .containsEntry(
              SLSConfiguration.TASK_DURATION_MS, Math.round(1000 * 1000 * runtimeFactor));
    }
  }

  @Test
  void aJobNamesItsClusterInItsIdAndUserAndRunsInTheTrainingQueueAsAnArylAm() {
    Map<String, Object> job =
        SlsTraceWriter.job(job("965d744f", ORIGIN, 1000, 1), ORIGIN, options(0));

    assertThat(job)
        .containsEntry(
            SlsJobFormat.AM_TYPE_KEY,
            SlsJobFormat.AM_TYPE) // as SLS documents it; AMRunner reads it
        .doesNotContainKey(SLSConfiguration.AM_TYPE)
        .containsEntry(SLSConfiguration.JOB_ID, "itp-01-965d744f")
        .containsEntry(SLSConfiguration.JOB_USER, "itp01")
        .containsEntry(SLSConfiguration.JOB_QUEUE_NAME, SlsTraceWriter.QUEUE);
  }

  // 360 trace seconds per simulated second: an hour after the slice start is 10 s, an hour of
  // running is 10 s.
  @ParameterizedTest(
      name =
          "submitted {0} s after the start, running {1} s, at scale {2}: starts at {3} ms,"
              + " runs {4} ms")
  @CsvSource({
    // submit after start s, duration s, time scale, start ms, duration ms
    "0,                      3600,       360,        0,        10000",
    "3600,                   3600,       360,        10000,    10000",
    "3600,                   36000,      3600,       1000,     10000",
    "1.5,                    7.25,       1,          1500,     7250",
    "3600,                   10,         360,        10000,    2000", // 28 ms, raised to
    // --min-duration-ms
  })
  void timesAreCompressedByTheTimeScaleAndNoContainerIsShorterThanTheFloor(
      double afterS, double durationS, double scale, long startMs, long durationMs) {
    JobOptions o = new JobOptions(scale, 2000, 0, 1, 8, 4096);

    Map<String, Object> job =
        SlsTraceWriter.job(job("a", ORIGIN + afterS, durationS, 1), ORIGIN, o);

    assertThat(job)
        .containsEntry(SLSConfiguration.JOB_START_MS, startMs)
        .containsEntry(SLSConfiguration.JOB_END_MS, startMs + durationMs);
    assertThat(tasks(job).get(0)).containsEntry(SLSConfiguration.TASK_DURATION_MS, durationMs);
  }

  @Test
  void theJobsArylSimMakesElasticAreTheElasticOnes() {
    JobOptions o = new JobOptions(1, 1, 0.5, 7, 8, 4096);
    List<TraceJob> trace =
        IntStream.range(0, 400).mapToObj(i -> job("job" + i, ORIGIN + i, 100, 8)).toList();

    SlsJobs jobs = SlsTraceWriter.jobs(trace, ORIGIN, o);

    for (int i = 0; i < trace.size(); i++) {
      boolean elastic = JobShape.isElastic("job" + i, 0.5, 7);
      assertThat(tasks(jobs.jobs().get(i))).as("job%d", i).hasSize(elastic ? 2 : 1);
    }
    assertThat(jobs.elastic()).isBetween(150, 250);
  }

  @Test
  void aSliceReportsItsElasticJobsItsTraceGpuHoursAndItsSimulatedSpan() {
    List<TraceJob> trace = List.of(job("a", ORIGIN, HOUR, 8), job("b", ORIGIN + HOUR, 2 * HOUR, 4));

    SlsJobs jobs = SlsTraceWriter.jobs(trace, ORIGIN, new JobOptions(360, 2000, 1, 1, 8, 4096));

    assertThat(jobs.jobs()).hasSize(2);
    assertThat(jobs.elastic()).isEqualTo(2);
    assertThat(jobs.gpuHours()).isEqualTo(8 + 8);
    // b: submitted at 10 s, 2 h at 4 GPUs is 4 h on its minimum of 2 = 40 s; a ends at 20 s.
    assertThat(jobs.spanMs()).isEqualTo(50_000);
  }

  @Test
  void theJobFileIsAStreamOfObjectsWhoseNumbersAreJsonNumbers(@TempDir Path dir)
      throws IOException {
    SlsJobs jobs =
        SlsTraceWriter.jobs(
            List.of(job("a", ORIGIN, 100, 8), job("b", ORIGIN + 1, 100, 1)), ORIGIN, options(1));

    SlsTraceWriter.write(
        dir, jobs.jobs(), SlsTraceWriter.nodes(new NodeOptions(1, 8, 1, 40960, 16, 0)));

    List<JsonNode> read = readAll(dir.resolve(SlsTraceWriter.JOBS_FILE));
    assertThat(read).hasSize(2);
    JsonNode a = read.get(0);
    assertThat(a.get(SLSConfiguration.JOB_START_MS).isIntegralNumber()).isTrue();
    assertThat(a.get(SLSConfiguration.JOB_END_MS).isIntegralNumber()).isTrue();
    for (JsonNode task : a.get(SLSConfiguration.JOB_TASKS)) {
      assertThat(task.get(SLSConfiguration.COUNT).isIntegralNumber()).isTrue();
      assertThat(task.get(SLSConfiguration.TASK_PREFIX + SlsJobFormat.GPU).isIntegralNumber())
          .isTrue();
      assertThat(task.get(SLSConfiguration.TASK_DURATION_MS).isIntegralNumber()).isTrue();
    }
    try (var files = Files.list(dir)) {
      assertThat(files.map(p -> p.getFileName().toString()))
          .as("no temporary file is left behind")
          .containsExactlyInAnyOrder(SlsTraceWriter.JOBS_FILE, SlsTraceWriter.NODES_FILE);
    }
  }

  // The node file as SLS reads it (SLSUtils.parseNodesFromNodeFile): racks in order, the last K
  // nodes lent by
  // inference.
  @Test
  void theNodeFileFillsRacksInOrderAndLabelsTheLastNodesInference(@TempDir Path dir)
      throws IOException {
    SlsTraceWriter.write(
        dir, List.of(), SlsTraceWriter.nodes(new NodeOptions(5, 8, 2, 40960, 16, 2)));

    Set<NodeDetails> nodes =
        SLSUtils.parseNodesFromNodeFile(
            dir.resolve(SlsTraceWriter.NODES_FILE).toString(), Resource.newInstance(1, 1));

    Map<String, String> labelOf =
        nodes.stream()
            .collect(
                Collectors.toMap(
                    NodeDetails::getHostname,
                    n ->
                        n.getLabels().stream()
                            .map(NodeLabel::getName)
                            .collect(Collectors.joining(","))));
    assertThat(labelOf)
        .containsOnly(
            Map.entry("/rack-1/node-1", "training"),
            Map.entry("/rack-1/node-2", "training"),
            Map.entry("/rack-2/node-3", "training"),
            Map.entry("/rack-2/node-4", "inference"),
            Map.entry("/rack-2/node-5", "inference"));
    assertThat(nodes)
        .allSatisfy(
            n -> {
              assertThat(n.getNodeResource().getMemorySize()).isEqualTo(40960);
              assertThat(n.getNodeResource().getVirtualCores()).isEqualTo(16);
            });
    // SLS reads a node's GPUs only once yarn.io/gpu is a resource type; here it is read as JSON.
    JsonNode rack = readAll(dir.resolve(SlsTraceWriter.NODES_FILE)).get(0);
    assertThat(rack.get("nodes").get(0).get(SlsJobFormat.GPU).intValue()).isEqualTo(8);
  }

  @Test
  void byDefaultARackHoldsFortyNodesAndANodeHasRoomForItsWorkersAndEightAms() {
    assertThat(NodeOptions.defaultRacks(2000)).isEqualTo(50);
    assertThat(NodeOptions.defaultRacks(10)).isEqualTo(1);
    assertThat(NodeOptions.defaultMemoryMb(8, 4096)).isEqualTo(8 * 4096 + 8 * 1024);
    assertThat(NodeOptions.defaultVcores(8)).isEqualTo(16);
  }

  @Test
  void aTimeScaleThatLeavesAJobLongerThanSlsReadsIsRefused() {
    JobOptions o = new JobOptions(0.001, 2000, 0, 1, 8, 4096);

    assertThatThrownBy(() -> SlsTraceWriter.job(job("a", ORIGIN, 86400, 1), ORIGIN, o))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--time-scale 0.001");
  }

  // ---- the command ----

  /**
   * A tiny ITP directory: cluster01 with jobs in hour 0 and hour 3 of its first day, cluster02 with
   * one.
   */
  private static Path itpDir(Path dir) throws IOException {
    Path itp = Files.createDirectories(dir.resolve("itp"));
    double day = 86400 * 10;
    Files.writeString(
        itp.resolve("cluster01.csv"),
        String.join(
            "\n",
            "job_id,submission_time,duration,num_gpu",
            "a," + (day + 100) + ",3600,8",
            "b," + (day + 200) + ",36,1",
            "c," + (day + 3 * HOUR + 5) + ",7200,64",
            ""));
    Files.writeString(
        itp.resolve("cluster02.csv"),
        String.join(
            "\n", "job_id,submission_time,duration,num_gpu", "a," + (day + 300) + ",3600,2", ""));
    return itp;
  }

  private record Run(int code, String out, String err) {}

  private static Run run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cl = SlsTraceCommand.commandLine();
    cl.setOut(new PrintWriter(out));
    cl.setErr(new PrintWriter(err));
    int code = cl.execute(args);
    return new Run(code, out.toString(), err.toString());
  }

  @Test
  void theCommandWritesTheSliceOfAClusterAndPrintsOneLine(@TempDir Path dir) throws IOException {
    Path out = dir.resolve("out");

    Run r =
        run(
            "--trace",
            "itp:" + itpDir(dir) + ":cluster=01",
            "--start-hour",
            "0",
            "--hours",
            "1",
            "--elastic-fraction",
            "0",
            "--nodes",
            "80",
            "--out",
            out.toString());

    assertThat(r.err()).isEmpty();
    assertThat(r.code()).isZero();
    // a (8 GPUs, 1 h) and b (1 GPU, 36 s); c is submitted in hour 3. b ends at 0.56 s + the 2 s
    // floor.
    assertThat(r.out())
        .startsWith(
            "2 jobs (0 elastic, 8.0 GPU-hours of trace time), 80 nodes, simulated span 10 s")
        .hasLineCount(1);
    assertThat(readAll(out.resolve(SlsTraceWriter.JOBS_FILE)))
        .extracting(j -> j.get(SLSConfiguration.JOB_ID).asText())
        .containsExactly("itp-01-a", "itp-01-b");
    assertThat(readAll(out.resolve(SlsTraceWriter.NODES_FILE))).as("racks of 40 nodes").hasSize(2);
  }

  @Test
  void aDirectoryWithoutAClusterMergesEveryClusterAndMaxJobsCapsTheSlice(@TempDir Path dir)
      throws IOException {
    Path out = dir.resolve("out");

    Run r =
        run(
            "--trace",
            "itp:" + itpDir(dir),
            "--max-jobs",
            "3",
            "--nodes",
            "4",
            "--out",
            out.toString());

    assertThat(r.code()).as(r.err()).isZero();
    assertThat(readAll(out.resolve(SlsTraceWriter.JOBS_FILE)))
        .extracting(j -> j.get(SLSConfiguration.JOB_ID).asText())
        .containsExactly("itp-01-a", "itp-01-b", "itp-02-a");
  }

  // Bad input: exit code 2, nothing on stdout, one line on stderr naming the option and the value;
  // nothing written.
  @ParameterizedTest(name = "{0} {1}")
  @CsvSource({
    // option,             value
    "--time-scale,         0",
    "--time-scale,         abc",
    "--min-duration-ms,    -5",
    "--elastic-fraction,   1.5",
    "--nodes,              0",
    "--racks,              500",
    "--inference-nodes,    99",
    "--node-memory-mb,     1000",
    "--max-jobs,           0",
    "--hours,              -1",
    "--start-hour,         9999",
    "--trace,              philly:x.csv",
    "--trace,              itp:MISSING",
    "--trace,              itp:DIR:cluster=07",
  })
  void aBadOptionValueNamesTheOptionAndTheValue(String option, String value, @TempDir Path dir)
      throws IOException {
    Path itp = itpDir(dir);
    Path out = dir.resolve("out");
    String given = value.replace("DIR", itp.toString());
    Map<String, String> args =
        new LinkedHashMap<>(
            Map.of(
                "--trace", "itp:" + itp + ":cluster=01", "--nodes", "40", "--out", out.toString()));
    args.put(option, given);

    Run r =
        run(
            args.entrySet().stream()
                .flatMap(e -> Stream.of(e.getKey(), e.getValue()))
                .toArray(String[]::new));

    assertThat(r.code()).isEqualTo(2);
    assertThat(r.out()).isEmpty();
    assertThat(r.err()).startsWith("aryl-sls-trace: ").contains(option, given).hasLineCount(1);
    assertThat(out).doesNotExist();
  }

  @Test
  void aMalformedTraceLineIsReportedWithItsFileAndLine(@TempDir Path dir) throws IOException {
    Path itp = itpDir(dir);
    Files.writeString(
        itp.resolve("cluster01.csv"),
        "job_id,submission_time,duration,num_gpu\na,1,10,8\nb,2,10,3x\n");

    Run r =
        run(
            "--trace",
            "itp:" + itp + ":cluster=01",
            "--nodes",
            "40",
            "--out",
            dir.resolve("out").toString());

    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err())
        .contains("cluster01.csv:3: num_gpu must be a whole number > 0, was '3x'")
        .hasLineCount(1);
  }
}
