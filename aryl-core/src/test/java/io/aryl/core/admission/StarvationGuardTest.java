package io.aryl.core.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import io.aryl.core.admission.Admission.Release;
import io.aryl.core.model.GpuType;
import io.aryl.core.model.Job;
import io.aryl.core.model.Server;
import io.aryl.core.placement.GpuBudget;
import io.aryl.core.placement.ServerTable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

@DisplayName(
    "StarvationGuard: starving jobs in the senior lane jump shortest-first, at most a share of the GPUs")
class StarvationGuardTest {
  static final double NOW = 100_000;
  static final double WAIT = 3_600;

  /**
   * An inelastic job of {@code gpus} GPUs (one worker) submitted {@code agoS} before NOW, 1000 s
   * predicted.
   */
  static Job job(String id, int gpus, double agoS) {
    return Job.builder(id)
        .gpusPerWorker(gpus)
        .workers(1, 1)
        .remainingS(1_000)
        .submitTimeS(NOW - agoS)
        .build();
  }

  static List<String> ids(List<Job> jobs) {
    return jobs.stream().map(Job::id).toList();
  }

  /** Queued: q1..q4, 1 GPU each, waited 4, 3, 2 and 1.5 h (all starving), f0 fresh. */
  static final List<Job> QUEUED =
      List.of(
          job("q3", 1, 2 * 3600),
          job("f0", 1, 60),
          job("q1", 1, 4 * 3600),
          job("q4", 1, 1.5 * 3600),
          job("q2", 1, 3 * 3600));

  @ParameterizedTest(name = "pool {0} GPUs, share {1}, running {2}: jumpers {3}")
  @CsvSource(
      delimiter = ';',
      value = {
        // The four starving jobs need 4 GPUs. Running jobs are GPUS@AGE: submitted AGE hours ago,
        // however long they
        // waited. share 0: the single oldest starving job, whatever runs
        "16; 0;      ;          q1",
        "16; 0;      8@5;       q1",
        // a pool of 3 GPUs cannot clear the 4 GPUs of starving jobs: the lane is the share. 1 GPU:
        // the oldest job met on
        // the walk is always in, then the lane is full
        "3;  0.3333; ;          q1",
        // 2 GPUs: two of them, oldest first; the fresh one never jumps
        "3;  0.6666; ;          q1 q2",
        // a pool of 16 could clear them: the lane is at least half the pool (8 GPUs), every
        // starving job
        "16; 0.1;    ;          q1 q2 q3 q4",
        // older running jobs take their place first: 6 GPUs submitted 5 h ago leave room for two
        "16; 0.1;    6@5;       q1 q2",
        // a running job older than q2 but younger than q1 is counted where it falls
        "16; 0.1;    6@3.5;     q1 q2",
        // a lane already full of older running work lets nobody jump
        "16; 0.1;    8@5;       ''",
        // running jobs younger than every starving job do not count
        "16; 0.1;    8@1;       q1 q2 q3 q4",
        // a gang larger than what is left of the lane still goes (the lane overruns by one gang)
        "16; 0.1;    7@5;       q1",
        // a share above half the pool is the lane either way
        "16; 1;      12@5;      q1 q2 q3 q4"
      })
  void jumpers_are_the_starving_jobs_met_walking_the_oldest_jobs_until_their_GPUs_reach_the_lane(
      int pool, double share, String running, String jumpers) {
    List<Job> run = new ArrayList<>();
    if (running != null && !running.isBlank()) {
      int n = 0;
      for (String r : running.trim().split("\\s+", -1)) {
        String[] p = r.split("@", -1);
        run.add(job("r" + n++, Integer.parseInt(p[0]), Double.parseDouble(p[1]) * 3600));
      }
    }
    List<Job> out = new StarvationGuard(WAIT, share).jumpers(QUEUED, run, NOW, pool);
    assertThat(String.join(" ", ids(out))).isEqualTo(jumpers.trim());
  }

  @ParameterizedTest(name = "pool {0} GPUs, share {1}, light share {2}: jumpers {3}")
  @CsvSource(
      delimiter = ';',
      value = {
        // a pool of 16 could clear the 4 starving GPUs; the default light share (half) lets all
        // four in
        "16; 0.125; 0.5;    q1 q2 q3 q4",
        // a light share at or below the share: a fixed lane of 2 GPUs
        "16; 0.125; 0.125;  q1 q2",
        "16; 0.125; 0;      q1 q2",
        // a light share between: 3 GPUs while the backlog fits
        "16; 0.125; 0.1875; q1 q2 q3",
        // once the backlog does not fit (pool of 3) the light share does not count
        "3;  0.3333; 1;     q1"
      })
  void
      the_light_share_is_the_lane_while_the_backlog_fits_and_at_or_below_the_share_the_lane_is_fixed(
          int pool, double share, double lightShare, String jumpers) {
    List<Job> out =
        new StarvationGuard(WAIT, share, lightShare).jumpers(QUEUED, List.of(), NOW, pool);
    assertThat(String.join(" ", ids(out))).isEqualTo(jumpers.trim());
  }

  @ParameterizedTest(name = "share {0}")
  @ValueSource(doubles = {0, 0.1, 0.25, 1})
  void with_nobody_starving_the_offer_order_is_exactly_shortest_first(double share) {
    List<Job> queued =
        List.of(
            Job.builder("a").remainingS(300).submitTimeS(NOW - 100).build(),
            Job.builder("b").remainingS(100).submitTimeS(NOW - 50).build(),
            Job.builder("c")
                .gpusPerWorker(4)
                .workers(2, 2)
                .remainingS(100)
                .submitTimeS(NOW - 80)
                .build(),
            Job.builder("d").remainingS(300).submitTimeS(NOW - 3_000).build(),
            Job.builder("e").workers(2, 8).remainingS(400).submitTimeS(NOW - 3_500).build());
    List<Job> running = List.of(Job.builder("old").remainingS(10).submitTimeS(0).build());
    Admission admission =
        new Admission(JobOrder.SHORTEST_PREDICTED_FIRST, new StarvationGuard(WAIT, share), false);
    List<Job> expected = new ArrayList<>(queued);
    expected.sort(JobOrder.SHORTEST_PREDICTED_FIRST.comparator());
    assertThat(admission.offerOrder(queued, running, NOW, 16)).containsExactlyElementsOf(expected);
  }

  @Test
  void with_nobody_starving_admission_is_the_same_as_with_the_guard_off() {
    List<Job> queued = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      queued.add(
          Job.builder("j" + i)
              .gpusPerWorker(1 + i % 3)
              .workers(1 + i % 2, 1 + i % 2)
              .remainingS(100 + 37 * ((i * 7) % 11))
              .submitTimeS(NOW - 60 * i)
              .build());
    }
    Map<String, String> byGuard = new LinkedHashMap<>();
    for (StarvationGuard g :
        List.of(
            new StarvationGuard(1e9, 0.25),
            new StarvationGuard(WAIT, 0.25),
            new StarvationGuard(WAIT, 0),
            new StarvationGuard(WAIT, 1))) {
      GpuBudget budget = cluster(3);
      Admission.Result r =
          new Admission(JobOrder.SHORTEST_PREDICTED_FIRST, g, false)
              .admit(queued, List.of(), NOW, budget, List::of, null);
      StringBuilder sb = new StringBuilder();
      r.admitted().forEach((j, s) -> sb.append(j.id()).append(Arrays.toString(s)).append(' '));
      byGuard.put(g.toString(), sb.toString());
    }
    assertThat(byGuard.values()).as("%s", byGuard).containsOnly(byGuard.values().iterator().next());
  }

  @Test
  void refuses_a_share_outside_zero_to_one_or_a_non_positive_wait() {
    assertThatIllegalArgumentException()
        .isThrownBy(() -> new StarvationGuard(WAIT, 1.5))
        .withMessageContaining("starvationGuard.share");
    assertThatIllegalArgumentException()
        .isThrownBy(() -> new StarvationGuard(WAIT, -0.1))
        .withMessageContaining("starvationGuard.share");
    assertThatIllegalArgumentException()
        .isThrownBy(() -> new StarvationGuard(0, 0.25))
        .withMessageContaining("starvationGuard.waitS");
    assertThatIllegalArgumentException()
        .isThrownBy(() -> new StarvationGuard(WAIT, 0.1, 1.5))
        .withMessageContaining("starvationGuard.lightShare");
  }

  // ---------------------------------------------------------------------------------------------------------------
  // A large job behind a stream of small ones

  /** {@code n} empty 8-GPU servers. */
  static GpuBudget cluster(int n) {
    List<Server> servers =
        IntStream.rangeClosed(1, n)
            .mapToObj(i -> Server.training("s" + i, GpuType.of("A100", 1.0), 8))
            .toList();
    int[] free = new int[n];
    Arrays.fill(free, 8);
    return new GpuBudget(new ServerTable(servers), free, new int[n]);
  }

  /**
   * Two 8-GPU servers kept busy by 1-GPU jobs of 2 h (predictions exact): sixteen at time 0 and
   * then one every 5 minutes, more than the servers finish, so a small one is always queued and
   * shortest-first always prefers it; at time 0 an 8-GPU job of 10 h is submitted too. Rounds every
   * 60 s. Returns when the large job started, or NaN if not within the horizon.
   */
  static double largeJobStart(StarvationGuard guard, double horizonS) {
    Admission admission = new Admission(JobOrder.SHORTEST_PREDICTED_FIRST, guard, false);
    double smallS = 2 * 3600;
    List<Job> queued = new ArrayList<>();
    queued.add(
        Job.builder("large")
            .gpusPerWorker(8)
            .workers(1, 1)
            .remainingS(10 * 3600)
            .submitTimeS(0)
            .build());
    Map<Job, double[]> running = new LinkedHashMap<>(); // job -> {server, end}
    int next = 0;
    for (double now = 0; now <= horizonS; now += 60) {
      while (Math.max(0, next - 15) * 300.0 <= now) {
        queued.add(
            Job.builder(String.format("small%05d", next))
                .remainingS(smallS)
                .submitTimeS(Math.max(0, next - 15) * 300.0)
                .build());
        next++;
      }
      final double t = now;
      running.entrySet().removeIf(e -> e.getValue()[1] <= t);
      int[] spare = {8, 8};
      List<Release> releases = new ArrayList<>();
      List<Job> runningNow = new ArrayList<>();
      for (Map.Entry<Job, double[]> e : running.entrySet()) {
        Job j = e.getKey();
        int s = (int) e.getValue()[0];
        spare[s] -= j.gpusPerWorker();
        releases.add(new Release(e.getValue()[1] - now, s, j.gpusPerWorker()));
        runningNow.add(j.toBuilder().remainingS(e.getValue()[1] - now).build());
      }
      List<Server> servers =
          List.of(
              Server.training("s1", GpuType.of("A100", 1.0), 8),
              Server.training("s2", GpuType.of("A100", 1.0), 8));
      GpuBudget budget = new GpuBudget(new ServerTable(servers), spare, new int[2]);
      Admission.Result r = admission.admit(queued, runningNow, now, budget, () -> releases, null);
      for (Map.Entry<Job, int[]> e : r.admitted().entrySet()) {
        if (e.getKey().id().equals("large")) {
          return now;
        }
        running.put(e.getKey(), new double[] {e.getValue()[0], now + e.getKey().remainingS()});
        queued.remove(e.getKey());
      }
    }
    return Double.NaN;
  }

  @ParameterizedTest(name = "wait {0} h, share {1}: starts by {2} h")
  @CsvSource({
    // bound: the wait, plus the 2 h the reserved server's small jobs take to drain, plus a round
    "12, 0.25, 14.02",
    "12, 0.1,  14.02",
    "12, 0,    14.02",
    "6,  0.25,  8.02",
    "24, 0.25, 26.02"
  })
  void
      a_large_job_behind_a_stream_of_small_ones_starts_within_the_wait_plus_the_drain_of_its_reserved_server(
          double waitH, double share, double boundH) {
    double start = largeJobStart(new StarvationGuard(waitH * 3600, share), 48 * 3600);
    assertThat(start).isLessThanOrEqualTo(boundH * 3600).isGreaterThan(waitH * 3600);
  }

  @Test
  void with_the_guard_off_the_same_large_job_never_starts() {
    assertThat(largeJobStart(new StarvationGuard(1e9, 0.25), 48 * 3600)).isNaN();
  }
}
