package io.aryl.am;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.core.job.CheckpointReport;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("The ApplicationMaster's status JSON")
class AmStatusJsonTest {
  private static final JobSpec SPEC =
      JobSpecTest.spec("resnet", "training", 1, 2, 4, 3, "python train.py", Map.of());
  private static final ApplicationAttemptId ATTEMPT =
      ApplicationAttemptId.newInstance(ApplicationId.newInstance(1_700_000_000_000L, 7), 2);
  private static final Map<String, Object> ENV_LAUNCHER =
      AmStatusJson.launcher(SPEC, ATTEMPT, null, null, null);

  @Test
  @DisplayName(
      "while the AM starts: the job's shape, STARTING, no workers, and no checkpoint yet (-1)")
  void starting() {
    Map<String, Object> s =
        AmStatusJson.of(SPEC, ATTEMPT, null, CheckpointReport.NONE, ENV_LAUNCHER);

    assertThat(s)
        .containsEntry("name", "resnet")
        .containsEntry("application", "application_1700000000000_0007")
        .containsEntry("attempt", 2)
        .containsEntry("minWorkers", 1)
        .containsEntry("maxWorkers", 2)
        .containsEntry("gpusPerWorker", 4)
        .containsEntry("launcher", SPEC.launcher())
        .containsEntry("state", "STARTING")
        .containsEntry("held", 0)
        .containsEntry("maxRestarts", 3)
        .containsEntry("workers", List.of())
        .containsEntry("events", List.of());
    assertThat(s).containsAllEntriesOf(CheckpointReport.NONE.statusFields());
    assertThat(s).doesNotContainKey("rendezvous");
  }

  @Test
  @DisplayName(
      "a running generation: each worker with its host, state, generation and rank; the generation's hosts")
  void running() {
    WorkerGroup g = runningOneWorker(2, 3);

    Map<String, Object> s = AmStatusJson.of(SPEC, ATTEMPT, g, CheckpointReport.NONE, ENV_LAUNCHER);

    assertThat(s)
        .containsEntry("state", "RUNNING")
        .containsEntry("held", 1)
        .containsEntry("generation", 1)
        .containsEntry("outstandingAsks", g.outstandingAsks())
        .containsEntry("restartsUsed", 0);
    assertThat(s.get("workers"))
        .isEqualTo(
            List.of(
                Map.of(
                    "container",
                    "c1",
                    "host",
                    "host1",
                    "state",
                    "RUNNING",
                    "generation",
                    1,
                    "rank",
                    0)));
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> gens = (List<Map<String, Object>>) s.get("generations");
    assertThat(gens)
        .singleElement()
        .satisfies(
            gen ->
                assertThat(gen)
                    .containsEntry("number", 1)
                    .containsEntry("worldSize", 1)
                    .containsEntry("containers", List.of("c1")));
    assertThat((List<?>) s.get("events")).isNotEmpty();
  }

  @Test
  @DisplayName("a failed job is FAILED")
  void failed() {
    WorkerGroup g = runningOneWorker(1, 0);
    g.completed("c1", 3, "boom", 300);

    assertThat(AmStatusJson.of(SPEC, ATTEMPT, g, CheckpointReport.NONE, ENV_LAUNCHER))
        .containsEntry("state", "FAILED");
  }

  /** A group of 1..max workers whose first generation runs worker c1 on host1. */
  private static WorkerGroup runningOneWorker(int max, int restarts) {
    WorkerGroup g = new WorkerGroup(1, max, 1000, 100, restarts, 0, ATTEMPT.getAttemptId());
    g.tick(0);
    g.allocated("c1", "host1", 0);
    g.tick(200);
    g.launched("c1");
    return g;
  }
}
