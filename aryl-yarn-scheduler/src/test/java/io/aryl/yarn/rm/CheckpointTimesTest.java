package io.aryl.yarn.rm;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.core.job.CheckpointReport;
import io.aryl.yarn.round.JobProgress;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName(
    "CheckpointTimes: the last checkpoint of each elastic job, as its ApplicationMaster reports it")
class CheckpointTimesTest {
  private static final long NOW = 1_700_000_000_000L;

  /** ApplicationMasters by URL: a report, or an IOException to throw. */
  private final Map<String, Object> ams = new HashMap<>();

  private final List<String> asked = new CopyOnWriteArrayList<>();
  private final List<String> running = new ArrayList<>();
  private final Map<String, String> urls = new HashMap<>();

  private CheckpointTimes times(long pollMs) {
    return new CheckpointTimes(
        pollMs,
        () -> (Collection<String>) List.copyOf(running),
        urls::get,
        url -> {
          asked.add(url);
          Object answer = ams.get(url);
          if (answer instanceof IOException e) {
            throw e;
          }
          return (CheckpointReport) answer;
        });
  }

  private void app(String id, Object answer) {
    running.add(id);
    urls.put(id, "http://am-" + id + ":1234/");
    ams.put("http://am-" + id + ":1234/", answer);
  }

  @Test
  @DisplayName("a poll asks every elastic application's ApplicationMaster and keeps each answer")
  void keepsEachAnswer() {
    app("app-1", new CheckpointReport(NOW - 5000, 10));
    app("app-2", CheckpointReport.NONE);
    CheckpointTimes t = times(1000);
    t.poll();
    assertThat(asked).containsExactlyInAnyOrder("http://am-app-1:1234/", "http://am-app-2:1234/");
    assertThat(t.get("app-1")).isEqualTo(new CheckpointReport(NOW - 5000, 10));
    assertThat(t.get("app-2")).isEqualTo(CheckpointReport.NONE);
    assertThat(t.get("app-never-seen")).isEqualTo(CheckpointReport.NONE);
  }

  @Test
  @DisplayName(
      "an application whose ApplicationMaster has not registered (no tracking URL) is not asked")
  void noUrlNotAsked() {
    running.add("app-1");
    CheckpointTimes t = times(1000);
    t.poll();
    assertThat(asked).isEmpty();
    assertThat(t.get("app-1")).isEqualTo(CheckpointReport.NONE);
  }

  @Test
  @DisplayName("a failed read keeps the previous answer; the next good one replaces it")
  void failureKeepsPrevious() {
    app("app-1", new CheckpointReport(NOW - 5000, 10));
    CheckpointTimes t = times(1000);
    t.poll();
    ams.put("http://am-app-1:1234/", new IOException("connect timed out"));
    t.poll();
    t.poll();
    assertThat(t.get("app-1")).isEqualTo(new CheckpointReport(NOW - 5000, 10));
    ams.put("http://am-app-1:1234/", new CheckpointReport(NOW - 1000, 20));
    t.poll();
    assertThat(t.get("app-1")).isEqualTo(new CheckpointReport(NOW - 1000, 20));
  }

  @Test
  @DisplayName("one ApplicationMaster failing does not keep the others from being read")
  void oneFailureDoesNotStopTheRest() {
    app("app-1", new IOException("connection refused"));
    app("app-2", new CheckpointReport(NOW - 3000, -1));
    CheckpointTimes t = times(1000);
    t.poll();
    assertThat(t.get("app-2")).isEqualTo(new CheckpointReport(NOW - 3000, -1));
  }

  @Test
  @DisplayName("applications that ended are forgotten: at the next poll, or at once when told")
  void forgetsEndedApps() {
    app("app-1", new CheckpointReport(NOW - 5000, 10));
    app("app-2", new CheckpointReport(NOW - 6000, 11));
    CheckpointTimes t = times(1000);
    t.poll();
    running.remove("app-1");
    t.poll();
    assertThat(t.get("app-1")).isEqualTo(CheckpointReport.NONE);
    t.forget("app-2");
    assertThat(t.get("app-2")).isEqualTo(CheckpointReport.NONE);
  }

  @Test
  @DisplayName(
      "the seconds a preemption loses: since the checkpoint when reported, since the change otherwise")
  void sinceCheckpoint() {
    app("app-1", new CheckpointReport(NOW - 5000, 10));
    app("app-2", CheckpointReport.NONE);
    CheckpointTimes t = times(1000);
    t.poll();
    assertThat(t.sinceCheckpointS("app-1", new JobProgress(0, 3000), NOW)).isEqualTo(5.0);
    assertThat(t.sinceCheckpointS("app-2", new JobProgress(0, 3000), NOW)).isEqualTo(3000.0);
    assertThat(t.sinceCheckpointS("app-3", new JobProgress(0, 42), NOW))
        .as("never polled")
        .isEqualTo(42.0);
  }

  @Test
  @DisplayName(
      "with polling off (0) nothing is ever asked: every job is priced by the time since its change")
  void offNeverAsks() throws InterruptedException {
    app("app-1", new CheckpointReport(NOW - 5000, 10));
    try (CheckpointTimes t = times(0)) {
      t.start();
      Thread.sleep(200);
      assertThat(asked).isEmpty();
      assertThat(t.sinceCheckpointS("app-1", new JobProgress(0, 3000), NOW)).isEqualTo(3000.0);
    }
  }

  @Test
  @DisplayName("started, it polls at once and then every interval, on a thread of its own")
  void pollsOnItsOwnThread() throws InterruptedException {
    app("app-1", new CheckpointReport(NOW - 5000, 10));
    try (CheckpointTimes t = times(50)) {
      t.start();
      long until = System.currentTimeMillis() + 5000;
      while (asked.size() < 3 && System.currentTimeMillis() < until) {
        Thread.sleep(10);
      }
      assertThat(asked).hasSizeGreaterThanOrEqualTo(3);
      assertThat(t.get("app-1")).isEqualTo(new CheckpointReport(NOW - 5000, 10));
    }
  }
}
