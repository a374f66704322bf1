package io.aryl.core.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import io.aryl.core.admission.Admission.Release;
import io.aryl.core.model.GpuType;
import io.aryl.core.model.Job;
import io.aryl.core.model.Server;
import io.aryl.core.placement.GpuBudget;
import io.aryl.core.placement.ServerTable;
import java.util.List;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

@DisplayName("Admission: base gangs, shortest first, with a starvation guard")
class AdmissionTest {
  static final GpuType A100 = GpuType.of("A100", 1.0);
  static final GpuType T4 = GpuType.of("T4", 0.5);
  static final double NOW = 10_000;
  static final double WAIT = 3_600; // a job submitted before NOW - WAIT = 6400 is starving
  static final double RECENT = 9_000; // waited 1000 s: not starving

  final Admission spf = new Admission(JobOrder.SHORTEST_PREDICTED_FIRST, WAIT);

  /**
   * An inelastic job whose predicted runtime at base width is {@code runtimeS} (linear speedup,
   * oracle).
   */
  static Job job(String id, int gpusPerWorker, int workers, double runtimeS, double submitS) {
    return Job.builder(id)
        .gpusPerWorker(gpusPerWorker)
        .workers(workers, workers)
        .remainingS(runtimeS)
        .submitTimeS(submitS)
        .build();
  }

  /** Own 8-GPU A100 servers s1, s2, ... with the given spare GPUs and no flexible ones. */
  static GpuBudget eightGpuServers(int... spare) {
    List<Server> servers =
        IntStream.rangeClosed(1, spare.length)
            .mapToObj(i -> Server.training("s" + i, A100, 8))
            .toList();
    return new GpuBudget(new ServerTable(servers), spare, new int[spare.length]);
  }

  static GpuBudget budget(List<Server> servers) {
    return new GpuBudget(
        new ServerTable(servers),
        servers.stream().mapToInt(Server::gpus).toArray(),
        new int[servers.size()]);
  }

  static int[] spares(GpuBudget b) {
    return IntStream.range(0, b.table().size()).map(b::spare).toArray();
  }

  static List<String> ids(List<Job> jobs) {
    return jobs.stream().map(Job::id).toList();
  }

  static List<String> ids(Admission.Result r) {
    return r.admitted().keySet().stream().map(Job::id).toList();
  }

  static int[] placement(Admission.Result r, String jobId) {
    return r.admitted().entrySet().stream()
        .filter(e -> e.getKey().id().equals(jobId))
        .findFirst()
        .orElseThrow()
        .getValue();
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Offer order

  /** Nobody starving (all submitted within the last 1000 s). */
  static final List<Job> FRESH =
      List.of(
          job("a", 1, 1, 300, 9_010),
          job("b", 1, 1, 100, 9_050),
          job("c", 1, 1, 100, 9_020),
          job("d", 1, 1, 300, 9_010),
          // elastic 2..8: 400 s at its base width of 2 (it would need only 100 s at 8)
          Job.builder("e").workers(2, 8).remainingS(400).submitTimeS(9_000).build(),
          // truly 10 s left, but predicted 500 s: the prediction orders it
          Job.builder("p").remainingS(10).predictedRemainingS(500).submitTimeS(9_000).build());

  @Test
  void shortest_predicted_runtime_at_base_width_goes_first_ties_by_submission_then_id() {
    // 100: c (9020) before b (9050); 300: a and d both 9010, so by id; then e (400 at base width);
    // then p (500)
    assertThat(ids(spf.offerOrder(FRESH, NOW))).containsExactly("c", "b", "a", "d", "e", "p");
  }

  @Test
  void fifo_offers_by_submission_then_id() {
    Admission fifo = new Admission(JobOrder.FIFO, WAIT);
    // e, p at 9000 (by id); a, d at 9010 (by id); c at 9020; b at 9050
    assertThat(ids(fifo.offerOrder(FRESH, NOW))).containsExactly("e", "p", "a", "d", "c", "b");
  }

  @Test
  void
      only_the_oldest_starving_job_jumps_the_queue_other_starving_jobs_keep_their_shortest_first_place() {
    List<Job> queued =
        List.of(
            job("q2", 1, 1, 700, 9_500),
            job("s2", 1, 1, 500, 200), // starving
            job("s1", 1, 1, 900, 100), // starving, oldest
            job("q1", 1, 1, 10, 9_000),
            job("s3", 1, 1, 50, 300)); // starving
    // shortest first: q1 (10), s3 (50), s2 (500), q2 (700), s1 (900); s1 alone moves to the front
    assertThat(ids(spf.offerOrder(queued, NOW))).containsExactly("s1", "q1", "s3", "s2", "q2");
    // FIFO already puts the oldest first
    assertThat(ids(new Admission(JobOrder.FIFO, WAIT).offerOrder(queued, NOW)))
        .containsExactly("s1", "s2", "s3", "q1", "q2");
  }

  @Test
  void among_equally_old_starving_jobs_the_lower_id_jumps() {
    List<Job> queued =
        List.of(job("x", 1, 1, 900, 100), job("w", 1, 1, 800, 100), job("q", 1, 1, 10, 9_000));
    // shortest first: q, w, x; w and x both waited since 100, w has the lower id
    assertThat(ids(spf.offerOrder(queued, NOW))).containsExactly("w", "q", "x");
  }

  @ParameterizedTest(name = "submitted at {0}: starving {1}")
  @CsvSource({
    "0,      true",
    "6399,   true", // waited 3601 > 3600
    "6400,   false", // waited exactly 3600: not yet
    "9000,   false",
    "10000,  false",
  })
  void a_job_starves_once_it_has_waited_longer_than_the_starvation_wait(
      double submitS, boolean starving) {
    assertThat(spf.isStarving(job("j", 1, 1, 60, submitS), NOW)).isEqualTo(starving);
  }

  @Test
  void refuses_a_missing_order_or_a_non_positive_starvation_wait() {
    assertThatIllegalArgumentException()
        .isThrownBy(() -> new Admission(null, WAIT))
        .withMessageContaining("admission.order");
    assertThatIllegalArgumentException()
        .isThrownBy(() -> new Admission(JobOrder.FIFO, 0))
        .withMessageContaining("admission.starvationWaitS")
        .withMessageContaining("0.0");
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Gangs

  @Test
  void a_gang_that_does_not_fit_gets_nothing_and_a_job_behind_it_starts() {
    GpuBudget b = eightGpuServers(8);
    Admission.Result r =
        spf.admit(List.of(job("big", 4, 3, 60, RECENT), job("small", 2, 2, 3_600, RECENT)), NOW, b);
    // big needs 3 x 4 = 12 > 8 GPUs; small's 2 x 2 fit
    assertThat(ids(r)).containsExactly("small");
    assertThat(placement(r, "small")).containsExactly(0, 0);
    assertThat(spares(b)).containsExactly(4);
    assertThat(r.reservedFor()).isEmpty(); // big is not starving
  }

  @Test
  void a_gang_that_does_not_fit_leaves_the_budget_untouched() {
    GpuBudget b = eightGpuServers(8, 2, 3);
    // 3 workers of 4: s1 holds 2, s2 and s3 none
    Admission.Result r = spf.admit(List.of(job("big", 4, 3, 60, RECENT)), NOW, b);
    assertThat(r.admitted()).isEmpty();
    assertThat(spares(b)).containsExactly(8, 2, 3);
  }

  @ParameterizedTest(name = "starvation wait {0}: admitted {1}")
  @CsvSource({
    "3600,  old", // old waited 10000 s > 3600: offered first, takes all 8 GPUs
    "20000, new", // nobody starving: new (10 s) goes first, and then old (8 GPUs) no longer fits
  })
  void a_starving_job_is_offered_before_shorter_ones(double waitS, String admitted) {
    Admission admission = new Admission(JobOrder.SHORTEST_PREDICTED_FIRST, waitS);
    Admission.Result r =
        admission.admit(
            List.of(job("old", 8, 1, 5_000, 0), job("new", 4, 1, 10, RECENT)),
            NOW,
            eightGpuServers(8));
    assertThat(ids(r)).containsExactly(admitted);
    assertThat(r.reservedFor()).isEmpty(); // the one that did not fit is not starving or not first
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Reservation for the oldest starving job

  /*
   * Four own 8-GPU servers whose running base workers end at different times:
   *
   *   server  spare  releases (in s, GPUs)   free at
   *   s1      0      500 x 8                 500
   *   s2      4      100 x 4                 100
   *   s3      2      400 x 6                 400
   *   s4      4       50 x 2, 200 x 2        200 (the later release)
   *
   * No server has 8 spare, so a starving 8-GPU gang does not fit. Sorted by when they free: s2, s4, s3, s1. A gang of
   * n 8-GPU workers reserves the first n of these; its shadow time is the latest of their free times:
   *   n = 2: {s2, s4}, shadow 200;  n = 3: {s2, s4, s3}, shadow 400;  n = 4: all, shadow 500.
   * A probe of one 4-GPU worker fits only on s2 or s4 (s3 has 2 spare), so it is admitted iff it may backfill.
   */
  static final List<Release> RELEASES =
      List.of(
          new Release(500, 0, 8),
          new Release(100, 1, 4),
          new Release(400, 2, 6),
          new Release(50, 3, 2),
          new Release(200, 3, 2));

  static GpuBudget staggered() {
    return eightGpuServers(0, 4, 2, 4);
  }

  @ParameterizedTest(name = "starving gang of {0} x 8 GPUs, probe of {1} s: admitted {2}")
  @CsvSource({
    "2, 150, true", // shadow 200 (were s4's earlier release used, it would be 100 and refuse this)
    "2, 200, true", // a probe ending right at the shadow time may backfill
    "2, 201, false",
    "2, 399, false", // s3 (free at 400) is not reserved: s4 frees sooner although its index is
    // higher
    "3, 201, true", // shadow 400
    "3, 400, true",
    "3, 401, false",
    "4, 500, true", // shadow 500
    "4, 501, false",
  })
  void
      a_starving_job_that_does_not_fit_reserves_the_servers_that_free_soonest_and_only_jobs_ending_by_then_backfill(
          int starvingWorkers, double probeRuntimeS, boolean admitted) {
    GpuBudget b = staggered();
    Admission.Result r =
        spf.admit(
            List.of(
                job("starving", 8, starvingWorkers, 5_000, 0),
                job("probe", 4, 1, probeRuntimeS, RECENT)),
            NOW,
            b,
            RELEASES);

    assertThat(r.reservedFor()).containsExactly("starving");
    if (admitted) {
      assertThat(ids(r)).containsExactly("probe");
      assertThat(placement(r, "probe"))
          .containsExactly(1); // s2: best fit among s2 and s4, lowest index
      assertThat(spares(b)).containsExactly(0, 0, 2, 4);
    } else {
      assertThat(r.admitted()).isEmpty();
      assertThat(spares(b)).containsExactly(0, 4, 2, 4);
    }
  }

  @Test
  void
      a_reservation_holds_GPUs_only_against_base_workers_the_real_budget_keeps_them_spare_for_flexible_ones() {
    GpuBudget b = staggered();
    // probe (10000 s) cannot backfill and finds no room elsewhere; small (2 GPUs) fits on the
    // unreserved s3
    Admission.Result r =
        spf.admit(
            List.of(
                job("starving", 8, 2, 5_000, 0),
                job("probe", 4, 1, 10_000, RECENT),
                job("small", 2, 1, 10_000, RECENT)),
            NOW,
            b,
            RELEASES);

    assertThat(r.reservedFor()).containsExactly("starving");
    assertThat(ids(r)).containsExactly("small");
    assertThat(placement(r, "small")).containsExactly(2);
    // s2 and s4 are still spare in the real budget: phase 2 may lend them to flexible workers
    assertThat(spares(b)).containsExactly(0, 4, 0, 4);
  }

  @Test
  void only_the_oldest_starving_job_reserves() {
    Admission.Result r =
        spf.admit(
            List.of(job("older", 8, 2, 5_000, 0), job("younger", 8, 2, 5_000, 100)),
            NOW,
            staggered(),
            RELEASES);
    assertThat(r.reservedFor()).containsExactly("older");
    assertThat(r.admitted()).isEmpty();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource
  void
      a_first_job_that_does_not_fit_reserves_nothing_unless_it_is_starving_and_fits_an_empty_cluster(
          String scenario, Job first) {
    GpuBudget b = staggered();
    // the probe would be refused if anything were reserved: it runs far longer than any shadow time
    Admission.Result r =
        spf.admit(List.of(first, job("probe", 4, 1, 10_000, RECENT)), NOW, b, RELEASES);
    assertThat(r.reservedFor()).isEmpty();
    assertThat(ids(r)).containsExactly("probe");
    assertThat(placement(r, "probe")).containsExactly(1);
  }

  static Stream<Arguments>
      a_first_job_that_does_not_fit_reserves_nothing_unless_it_is_starving_and_fits_an_empty_cluster() {
    return Stream.of(
        // 5 workers of 8 GPUs, 4 servers of 8: never fits
        Arguments.of("starving, larger than the whole cluster", job("huge", 8, 5, 5_000, 0)),
        // no server of its type exists
        Arguments.of(
            "starving, of a type the cluster lacks",
            Job.builder("t4only")
                .gpusPerWorker(8)
                .workers(2, 2)
                .allowedGpuTypes("T4")
                .remainingS(5_000)
                .build()),
        // shorter than the probe, so offered first, but has waited only 1000 s
        Arguments.of("not starving", job("young", 8, 2, 5_000, RECENT)));
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Final placement: best-fit decreasing

  @Test
  void admitted_gangs_are_placed_largest_worker_first() {
    // s1 has 4 GPUs, s2 8. Offered a (1 GPU, shorter) then b (4 GPUs).
    // Priority order would put a on s1 (tightest: 4 < 8) and then b on s2, leaving 3 + 4 GPUs in
    // two pieces.
    // Decreasing puts b on s1 (exact fit), then a on s2, leaving one piece of 7.
    GpuBudget b = budget(List.of(Server.training("s1", A100, 4), Server.training("s2", A100, 8)));
    Admission.Result r =
        spf.admit(List.of(job("a", 1, 1, 10, RECENT), job("b", 4, 1, 20, RECENT)), NOW, b);

    assertThat(ids(r)).containsExactly("a", "b"); // reported in admission order
    assertThat(placement(r, "b")).containsExactly(0);
    assertThat(placement(r, "a")).containsExactly(1);
    assertThat(spares(b)).containsExactly(0, 7);
  }

  @Test
  void among_equal_worker_sizes_the_larger_gang_is_placed_first() {
    // s1 has 2 GPUs, s2 4. x: 1 x 2 GPUs (shorter), y: 2 x 2 GPUs.
    // Priority order: x on s1, y on s2 twice. Decreasing: y first (s1, then s2), then x on s2.
    GpuBudget b = budget(List.of(Server.training("s1", A100, 2), Server.training("s2", A100, 4)));
    Admission.Result r =
        spf.admit(List.of(job("x", 2, 1, 10, RECENT), job("y", 2, 2, 20, RECENT)), NOW, b);

    assertThat(placement(r, "y")).containsExactly(0, 1);
    assertThat(placement(r, "x")).containsExactly(1);
    assertThat(spares(b)).containsExactly(0, 0);
  }

  @Test
  void where_decreasing_order_would_not_fit_the_priority_order_placement_is_kept() {
    // s1 has 4 GPUs, s2 5. Offered a (3 x 2 GPUs) then b (1 x 3 GPUs).
    // Priority order fits: a on s1, s1, s2 (5 -> 3), then b on s2 (exactly 3).
    // Decreasing would put b on s1 (4 -> 1), and then a's three 2-GPU workers find room for only
    // two, on s2.
    GpuBudget b = budget(List.of(Server.training("s1", A100, 4), Server.training("s2", A100, 5)));
    Admission.Result r =
        spf.admit(List.of(job("a", 2, 3, 10, RECENT), job("b", 3, 1, 20, RECENT)), NOW, b);

    assertThat(ids(r)).containsExactly("a", "b");
    assertThat(placement(r, "a")).containsExactly(0, 0, 1);
    assertThat(placement(r, "b")).containsExactly(1);
    assertThat(spares(b)).containsExactly(0, 0);
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Speed-aware placement

  @ParameterizedTest(name = "{0}, speed-aware {2}: {3}")
  @MethodSource
  void speed_aware_admission_puts_a_gang_whole_on_one_speed_tier_when_it_fits_there(
      String scenario, List<Server> servers, boolean speedAware, int[] expected) {
    Admission admission = new Admission(JobOrder.SHORTEST_PREDICTED_FIRST, WAIT, speedAware);
    Admission.Result r = admission.admit(List.of(job("g", 4, 2, 60, RECENT)), NOW, budget(servers));
    assertThat(placement(r, "g")).containsExactly(expected);
  }

  static Stream<Arguments>
      speed_aware_admission_puts_a_gang_whole_on_one_speed_tier_when_it_fits_there() {
    // A gang of 2 x 4 GPUs.
    List<Server> fastFits =
        List.of(
            Server.training("s1", A100, 4),
            Server.training("s2", T4, 4),
            Server.training("s3", A100, 8));
    List<Server> slowFits = List.of(Server.training("s1", A100, 4), Server.training("s2", T4, 8));
    List<Server> neither = List.of(Server.training("s1", A100, 4), Server.training("s2", T4, 4));
    return Stream.of(
        // best fit alone: s1 (A100, 4 free), then the tightest left is s2 (T4, 4) before s3 (A100,
        // 8): split
        Arguments.of("A100 tier holds it", fastFits, false, new int[] {0, 1}),
        // speed-aware: the A100 tier holds both workers (s1, then s3)
        Arguments.of("A100 tier holds it", fastFits, true, new int[] {0, 2}),
        // best fit alone: s1 (A100), then s2 (T4): split
        Arguments.of("only the T4 tier holds it", slowFits, false, new int[] {0, 1}),
        // speed-aware: the A100 tier holds one worker only; the slower T4 tier holds both, on s2
        Arguments.of("only the T4 tier holds it", slowFits, true, new int[] {1, 1}),
        // no single tier holds it: split either way
        Arguments.of("no tier holds it alone", neither, false, new int[] {0, 1}),
        Arguments.of("no tier holds it alone", neither, true, new int[] {0, 1}));
  }

  @Test
  @DisplayName(
      "the final largest-first placement keeps a job that may not backfill off the reserved servers")
  void decreasingPlacementRespectsTheReservation() {
    GpuType a100 = GpuType.of("A100");
    ServerTable table =
        new ServerTable(
            List.of(
                Server.training("s1", a100, 8),
                Server.training("s2", a100, 8),
                Server.training("s3", a100, 8)));
    GpuBudget budget = new GpuBudget(table, new int[] {4, 2, 8}, new int[3]);
    // s1 frees its 4 busy GPUs in 100 s, s2 its 6 in 50 s; s3 is empty.
    List<Release> releases = List.of(new Release(100, 0, 4), new Release(50, 1, 6));
    Job starving =
        Job.builder("starving")
            .gpusPerWorker(8)
            .workers(2, 2)
            .remainingS(5_000)
            .submitTimeS(0)
            .build();
    Job longJob =
        Job.builder("long")
            .gpusPerWorker(2)
            .workers(1, 1)
            .remainingS(1_000)
            .submitTimeS(9_000)
            .build();

    Admission.Result r =
        new Admission(JobOrder.SHORTEST_PREDICTED_FIRST, 3_600)
            .admit(List.of(starving, longJob), 10_000, budget, releases);

    // The starving gang (2 x 8) reserves s3 (free now) and s2 (free in 50 s): shadow 50 s. "long"
    // runs 1000 s, so
    // it may not backfill: it goes on s1, although best fit alone would prefer s2 (2 free GPUs, the
    // tightest).
    assertThat(r.reservedFor()).containsExactly("starving");
    assertThat(r.admitted().get(longJob)).containsExactly(0);
  }
}
