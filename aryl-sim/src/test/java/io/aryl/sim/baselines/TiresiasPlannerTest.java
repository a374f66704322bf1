package io.aryl.sim.baselines;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.aryl.core.model.Allocation;
import io.aryl.core.model.ClusterState;
import io.aryl.core.model.GpuType;
import io.aryl.core.model.Job;
import io.aryl.core.model.Plan;
import io.aryl.core.model.Server;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

@DisplayName("TiresiasPlanner: two-dimensional least attained service in discretised queues")
class TiresiasPlannerTest {
  private static final GpuType A100 = GpuType.of("A100");

  /**
   * A hand-made workload played through a planner round by round, as the simulator would: each
   * round's plan becomes the next round's allocations; a job arrives at its submit time and leaves
   * when the workload says so.
   */
  private static final class Workload {
    final TiresiasPlanner planner;
    List<Server> servers;
    final Map<String, Job> jobs = new LinkedHashMap<>();
    Map<String, Allocation> allocations = new TreeMap<>();
    Plan last;

    Workload(TiresiasPlanner planner, Server... servers) {
      this.planner = planner;
      this.servers = List.of(servers);
    }

    /** A job of {@code workers} workers of {@code gpusPerWorker} GPUs, arriving at {@code t}. */
    Workload arrive(String id, int gpusPerWorker, int workers, double predictedS) {
      jobs.put(
          id,
          Job.builder(id)
              .gpusPerWorker(gpusPerWorker)
              .workers(workers, workers)
              .remainingS(1e9)
              .predictedRemainingS(predictedS)
              .build());
      return this;
    }

    Workload finish(String id) {
      jobs.remove(id);
      allocations.remove(id);
      return this;
    }

    Plan round(double t) {
      last = planner.plan(ClusterState.of(t, servers, new ArrayList<>(jobs.values()), allocations));
      allocations = new TreeMap<>(last.targets());
      return last;
    }

    boolean runs(String id) {
      return allocations.containsKey(id);
    }
  }

  private static Workload fourGpus() {
    return new Workload(new TiresiasPlanner(), Server.training("s0", A100, 4));
  }

  @Test
  @DisplayName("demotes a long job below a new short one, and preempts it to start the new one")
  void demotesALongJobBelowANewShortOne() {
    Workload w = fourGpus().arrive("long", 4, 1, 1_000);
    w.round(0);
    assertThat(w.runs("long")).isTrue();
    // 1000 s on 4 GPUs: 4000 GPU-s, past the first threshold (3250).
    w.arrive("short", 4, 1, 100_000);
    Plan plan = w.round(1_000);
    assertThat(w.planner.queueOf("long")).isEqualTo(1);
    assertThat(w.planner.queueOf("short")).isZero();
    assertThat(plan.preempted()).containsExactly("long");
    assertThat(plan.started()).containsExactly("short");
  }

  /**
   * One running job and one arrival on 4 GPUs: whether the arrival preempts, by how much service
   * the running job has had (2 GPUs: it needs 1625 s for the first threshold, 3600 s for the
   * second).
   */
  static Stream<Arguments> serviceDecides() {
    return Stream.of(
        Arguments.of("same queue: FIFO, the running job keeps its GPUs", 1_000.0, 0, false),
        Arguments.of("one queue below: the arrival takes its GPUs", 2_000.0, 1, true),
        Arguments.of("two queues below: the arrival takes its GPUs", 4_000.0, 2, true));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("serviceDecides")
  void theArrivalPreemptsOnlyALowerQueue(
      String rule, double ranS, int queueOfRunning, boolean preempts) {
    Workload w = fourGpus().arrive("old", 1, 2, 1);
    w.round(0);
    w.arrive("new", 4, 1, 1);
    Plan plan = w.round(ranS);
    assertThat(w.planner.queueOf("old")).as(rule).isEqualTo(queueOfRunning);
    assertThat(plan.preempted().contains("old")).as(rule).isEqualTo(preempts);
    assertThat(w.runs("new")).as(rule).isEqualTo(preempts);
  }

  @Test
  @DisplayName("reads no runtime knowledge: the predicted remaining time changes nothing")
  void readsNoRuntimeKnowledge() {
    Workload a = fourGpus().arrive("x", 4, 1, 10).arrive("y", 4, 1, 1_000_000);
    Workload b = fourGpus().arrive("x", 4, 1, 1_000_000).arrive("y", 4, 1, 10);
    assertThat(a.round(0).targets()).isEqualTo(b.round(0).targets());
    assertThat(a.round(500).targets()).isEqualTo(b.round(500).targets());
  }

  @Test
  @DisplayName("attained service is GPUs x time: a wide job is demoted sooner than a narrow one")
  void attainedServiceIsGpusTimesTime() {
    Workload w =
        new Workload(new TiresiasPlanner(), Server.training("s0", A100, 8))
            .arrive("wide", 4, 1, 1)
            .arrive("narrow", 1, 1, 1);
    w.round(0);
    w.round(1_000); // wide: 4000 GPU-s, narrow: 1000
    assertThat(w.planner.attainedGpuS("wide")).isEqualTo(4_000);
    assertThat(w.planner.attainedGpuS("narrow")).isEqualTo(1_000);
    assertThat(w.planner.queueOf("wide")).isEqualTo(1);
    assertThat(w.planner.queueOf("narrow")).isZero();
  }

  @Test
  @DisplayName("a smaller job further back runs where a larger one ahead does not fit")
  void aSmallerJobFurtherBackRuns() {
    Workload w = fourGpus().arrive("running", 2, 1, 1);
    w.round(0);
    w.arrive("big", 4, 1, 1).arrive("small", 2, 1, 1);
    w.round(10);
    assertThat(w.runs("big")).isFalse();
    assertThat(w.runs("small")).isTrue();
    assertThat(w.runs("running")).isTrue();
  }

  @Test
  @DisplayName("the jobs preempted for a start that cannot be placed keep running")
  void aStartThatCannotBePlacedPreemptsNobody() {
    // Two servers of 4 GPUs, 3 used on each by jobs that will be demoted; s1 is then fenced (being
    // returned). The arrival's 4-GPU worker is counted to fit (8 - 3 = 5), but only s1 could take
    // it once b is preempted, and a fenced server takes no new workers.
    Workload w =
        new Workload(
            new TiresiasPlanner(), Server.training("s0", A100, 4), Server.training("s1", A100, 4));
    w.arrive("a", 3, 1, 1).arrive("b", 3, 1, 1);
    w.round(0);
    assertThat(w.allocations).containsEntry("b", Allocation.of("s1", 1));
    w.servers = List.of(w.servers.get(0), w.servers.get(1).withFenced(true));
    w.arrive("wide", 4, 1, 1);
    Plan plan = w.round(2_000); // a and b: 6000 GPU-s each, both in the second queue
    assertThat(plan.preempted()).isEmpty();
    assertThat(w.runs("wide")).isFalse();
    assertThat(w.runs("a") && w.runs("b")).isTrue();
    // Without the type, the same arrival preempts one of them and runs where it ran.
    Workload v =
        new Workload(
            new TiresiasPlanner(), Server.training("s0", A100, 4), Server.training("s1", A100, 4));
    v.arrive("a", 3, 1, 1).arrive("b", 3, 1, 1);
    v.round(0);
    v.arrive("plain", 4, 1, 1);
    Plan preempting = v.round(2_000);
    assertThat(preempting.preempted()).containsExactly("b");
    assertThat(preempting.target("plain")).isEqualTo(Allocation.of("s1", 1));
  }

  @Test
  @DisplayName("PROMOTE_KNOB: a job that waited knob x its service goes back to the first queue")
  void promoteKnobBoundsStarvation() {
    // Two queues, so that the young job, demoted too, stays in the old one's queue.
    TiresiasPlanner planner = new TiresiasPlanner(new double[] {3_250}, 2);
    Workload w = new Workload(planner, Server.training("s0", A100, 4)).arrive("old", 4, 1, 1);
    w.round(0);
    w.arrive("young", 4, 1, 1);
    w.round(1_000); // old: 4000 GPU-s, demoted; young preempts it
    assertThat(w.runs("old")).isFalse();
    w.round(2_000); // young: 4000 GPU-s, demoted too; old waits behind it in the same queue
    assertThat(w.runs("old")).isFalse();
    assertThat(planner.queueOf("young")).isEqualTo(1);
    w.round(8_999); // old has waited 7999 s, less than 2 x 4000
    assertThat(planner.queueOf("old")).isEqualTo(1);
    assertThat(w.runs("old")).isFalse();
    Plan plan = w.round(9_000); // 8000 s: promoted with its service reset, and runs
    assertThat(planner.queueOf("old")).isZero();
    assertThat(planner.attainedGpuS("old")).isZero();
    assertThat(plan.started()).containsExactly("old");
    assertThat(plan.preempted()).containsExactly("young");
  }

  @Test
  @DisplayName("without the knob (the public simulator's dlas-gpu) the waiting job stays behind")
  void withoutTheKnobAWaitingJobStaysBehind() {
    Workload w =
        new Workload(new TiresiasPlanner(new double[] {3_250}, 0), Server.training("s0", A100, 4))
            .arrive("old", 4, 1, 1);
    w.round(0);
    w.arrive("young", 4, 1, 1);
    w.round(1_000);
    w.round(2_000);
    w.round(100_000);
    assertThat(w.runs("old")).isFalse();
    assertThat(w.planner.queueOf("old")).isEqualTo(1);
  }

  @Test
  @DisplayName("a finished job is forgotten")
  void aFinishedJobIsForgotten() {
    Workload w = fourGpus().arrive("j", 4, 1, 1);
    w.round(0);
    w.round(100);
    w.finish("j").round(200);
    assertThat(w.planner.queueOf("j")).isEqualTo(-1);
  }

  @Test
  @DisplayName("bad settings are refused with the field and the value")
  void badSettingsAreRefused() {
    assertThatThrownBy(() -> new TiresiasPlanner(new double[] {3250, 1000}, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("tiresias.thresholdsGpuS[1]")
        .hasMessageContaining("1000");
    assertThatThrownBy(() -> new TiresiasPlanner(new double[] {0}, 0))
        .hasMessageContaining("tiresias.thresholdsGpuS[0]");
    assertThatThrownBy(() -> new TiresiasPlanner(new double[] {3250}, -1))
        .hasMessageContaining("tiresias.promoteKnob")
        .hasMessageContaining("-1");
  }
}
