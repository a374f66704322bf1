package io.aryl.sim.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.aryl.sim.report.TenantTable;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code aryl-sim tenants} end to end, on three days of four real Philly virtual clusters (a test
 * resource, see {@code src/test/resources/traces/README.md}) and on hand-written bad input.
 */
@DisplayName("aryl-sim tenants: teams sharing a pool against fixed quotas")
class TenantsCommandTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String HEADER = "timestamp,duration,num_gpus,gpu_time,cluster\n";

  @TempDir Path tmp;

  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int execute(String... args) {
    CommandLine cl = SimCli.commandLine();
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(err, true));
    return cl.execute(args);
  }

  private static Path slice() throws URISyntaxException {
    return Path.of(TenantsCommandTest.class.getResource("/traces/philly-4teams-slice.csv").toURI());
  }

  @Test
  void helpNamesTheRegimesAndTheOptions() {
    assertThat(execute("tenants", "--help")).isZero();
    assertThat(out.toString().replaceAll("\\s+", " "))
        .contains(
            "(a) fixed quotas",
            "(b) one shared pool",
            "(c) the shared pool",
            "--clusters",
            "--busiest",
            "--tenant-reclaim-delay",
            "--trace",
            "--sizing");
    out.getBuffer().setLength(0);
    assertThat(execute("--help")).isZero();
    assertThat(out.toString()).contains("tenants");
  }

  @Test
  @DisplayName(
      "on a Philly slice: one row per team, guarantees summing to the pool, and sharing pays for every team")
  void onAPhillySlice() throws Exception {
    Path dir = tmp.resolve("tenants");
    int code =
        execute(
            "tenants",
            "--trace",
            "philly:" + slice(),
            "--inference",
            "none",
            "--out",
            dir.toString(),
            "--threads",
            "2");
    assertThat(code).as(err.toString()).isZero();

    // The teams and their jobs, from the slice itself.
    Map<String, Integer> jobsPerTeam = new TreeMap<>();
    List<String> lines = Files.readAllLines(slice());
    for (String line : lines.subList(1, lines.size())) {
      jobsPerTeam.merge(line.split(",", -1)[4], 1, Integer::sum);
    }

    String table = out.toString();
    List<String> rows = table.lines().filter(l -> l.startsWith("| ")).toList();
    assertThat(rows.get(0)).isEqualTo(TenantTable.HEADER);
    assertThat(rows).hasSize(1 + jobsPerTeam.size() + 2); // header, teams, all, spread
    for (String row : rows) {
      assertThat(row.split("\\|", -1)).as(row).hasSize(11); // 9 cells between 10 bars
    }
    assertThat(rows.get(rows.size() - 2))
        .startsWith("| all | " + lines.subList(1, lines.size()).size() + " | ");
    assertThat(rows.get(rows.size() - 1)).startsWith("| spread (max / min) |");

    JsonNode doc = JSON.readTree(dir.resolve("tenants.json").toFile());
    int pool = doc.path("config").path("training_gpus").asInt();
    int guaranteed = 0;
    int previous = Integer.MAX_VALUE;
    for (JsonNode t : doc.path("tenants")) {
      String team = t.path("tenant").asText();
      assertThat(t.path("jobs").asInt()).as(team).isEqualTo(jobsPerTeam.get(team));
      assertThat(t.path("guarantee_gpus").asInt())
          .as("largest guarantee first")
          .isLessThanOrEqualTo(previous);
      previous = t.path("guarantee_gpus").asInt();
      guaranteed += previous;
      assertThat(
              t.path("unfinished_quota").asInt()
                  + t.path("unfinished_shared").asInt()
                  + t.path("unfinished_ignoring").asInt())
          .as(team)
          .isZero();
      // Sharing pays: no team's average JCT is worse with the pool shared (b) than alone on its
      // quota (a).
      assertThat(t.path("jct_shared_s").asDouble())
          .as("%s: (b) against (a)", team)
          .isLessThanOrEqualTo(t.path("jct_quota_s").asDouble());
    }
    assertThat(guaranteed).isEqualTo(pool);
    assertThat(doc.path("tenants")).hasSize(jobsPerTeam.size());
    assertThat(doc.path("sharing_pays_for_every_tenant").asBoolean()).isTrue();
    assertThat(doc.path("runs").fieldNames())
        .toIterable()
        .contains("shared", "ignoring", "quota:7f04ca");
    assertThat(table).contains("sharing pays for every team (b <= a): yes");
    assertThat(Files.readAllLines(dir.resolve("tenants.csv"))).hasSize(1 + jobsPerTeam.size());
  }

  @Test
  void aMalformedTraceLineIsReportedWithItsFileAndLine() throws IOException {
    Path bad =
        Files.writeString(
            tmp.resolve("bad.csv"),
            HEADER
                + "2017-10-09 07:01:55,66.0,1,66.0,11cb48\n"
                + "2017-10-09 07:02:00,60.0,x,60.0,6214e9\n");
    assertBadInput(
        List.of("--trace", "philly:" + bad),
        bad + ":3: num_gpus must be a whole number > 0, was 'x'");
  }

  @Test
  void aTraceWithoutTeamsIsRefused() throws IOException {
    Path itp =
        Files.writeString(
            tmp.resolve("itp.csv"), "job_id,submission_time,duration,num_gpu\na,0,600,1\n");
    assertBadInput(List.of("--trace", "itp:" + itp), "names no teams");
  }

  @Test
  void unknownOrTooFewClustersAreRefusedNamingThoseThatExist() throws IOException {
    Path two =
        Files.writeString(
            tmp.resolve("two.csv"),
            HEADER
                + "2017-10-09 07:01:55,66.0,1,66.0,11cb48\n"
                + "2017-10-09 07:02:00,60.0,1,60.0,6214e9\n");
    assertBadInput(
        List.of("--trace", "philly:" + two, "--clusters", "11cb48,nope"),
        "--clusters names 'nope', not a team of the trace; teams: 11cb48, 6214e9");
    err.getBuffer().setLength(0);
    assertBadInput(
        List.of("--trace", "philly:" + two, "--clusters", "11cb48"), "at least 2 distinct teams");
  }

  private void assertBadInput(List<String> args, String expected) {
    List<String> all =
        new ArrayList<>(
            List.of("tenants", "--inference", "none", "--out", tmp.resolve("out").toString()));
    all.addAll(args);
    int code = execute(all.toArray(String[]::new));
    String message = err.toString().strip();
    assertThat(code).as(message).isEqualTo(2);
    assertThat(message).doesNotContain("\n").startsWith("aryl-sim: ").contains(expected);
    assertThat(tmp.resolve("out")).doesNotExist();
    assertThat(Arrays.asList(out.toString().split("\n"))).allMatch(String::isEmpty);
  }
}
