package io.aryl.yarn.reclaim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.within;

import io.aryl.core.job.JobShape;
import io.aryl.core.model.Allocation;
import io.aryl.core.model.ClusterState;
import io.aryl.core.model.GpuType;
import io.aryl.core.model.Job;
import io.aryl.core.model.Server;
import io.aryl.core.reclaim.ReclaimCostModel;
import io.aryl.core.reclaim.ReclaimPlan;
import io.aryl.core.reclaim.ReclaimPlanner;
import io.aryl.core.reclaim.ReclaimRequest;
import io.aryl.core.victim.Fate;
import io.aryl.yarn.round.AppView;
import io.aryl.yarn.round.ContainerView;
import io.aryl.yarn.round.NodeView;
import io.aryl.yarn.round.PlanBook;
import io.aryl.yarn.round.RoundInput;
import io.aryl.yarn.round.SnapshotTranslator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

@DisplayName("ReclaimTracker and Reclaim: returning loaned nodes to inference")
class ReclaimTrackerTest {
  private static final GpuType GPU = GpuType.of("gpu");

  /**
   * Training node t1 and loaned nodes i1, i2. app-elastic (1..3) runs on t1 and i1: returning i1
   * shrinks it. app-gang (2..2) runs both workers on i2: returning i2 preempts it.
   */
  private static final ClusterState STATE =
      ClusterState.of(
          0,
          List.of(
              Server.training("t1", GPU, 4),
              Server.loaned("i1", GPU, 4),
              Server.loaned("i2", GPU, 4)),
          List.of(
              Job.builder("app-elastic").workers(1, 3).remainingS(3600).build(),
              Job.builder("app-gang").workers(2, 2).remainingS(3600).sinceCheckpointS(600).build()),
          Map.of(
              "app-elastic",
              Allocation.of(Map.of("t1", 1, "i1", 1)),
              "app-gang",
              Allocation.of("i2", 2)));

  private static final ReclaimPlanner PLANNER = new ReclaimPlanner(ReclaimCostModel.defaults());

  private static ReclaimPlan plan(int servers) {
    ReclaimPlan plan = PLANNER.plan(STATE, ReclaimRequest.any(servers));
    assertThat(plan.isFeasible()).as("test plan feasible: %s", plan).isTrue();
    return plan;
  }

  @Nested
  @DisplayName("starting a reclaim")
  class Start {
    @Test
    @DisplayName(
        "records the plan's nodes, deadline, cost and per-job actions, and fences the nodes")
    void recordsThePlan() {
      ReclaimTracker tracker = new ReclaimTracker();
      ReclaimPlan plan = plan(2);
      Reclaim r = tracker.start(plan, 1_000, 61_000);

      assertThat(r.id()).isEqualTo(1);
      assertThat(r.nodes()).containsExactlyInAnyOrder("i1", "i2");
      assertThat(r.requestedMs()).isEqualTo(1_000);
      assertThat(r.deadlineMs()).isEqualTo(61_000);
      assertThat(r.plannedCostGpuS()).isEqualTo(plan.costGpuS()).isPositive();
      assertThat(r.jobActions())
          .containsExactlyInAnyOrderEntriesOf(
              Map.of("app-elastic", "SHRINK", "app-gang", "PREEMPT"));
      assertThat(r.phase()).isEqualTo(Reclaim.Phase.DRAINING);
      assertThat(r.pendingNodes()).containsExactlyInAnyOrder("i1", "i2");
      assertThat(r.returnedNodes()).isEmpty();
      assertThat(r.finishedMs()).isEqualTo(-1);
      assertThat(r.tookMs()).isEqualTo(-1);
      assertThat(r.late()).as("not late while draining").isFalse();
      assertThat(tracker.inFlight()).containsExactly(r);
      assertThat(tracker.finished()).isEmpty();
      assertThat(tracker.fencedNodes()).containsExactlyInAnyOrder("i1", "i2");
    }

    @Test
    @DisplayName("gives every reclaim a new, increasing id")
    void increasingIds() {
      ReclaimTracker tracker = new ReclaimTracker();
      ReclaimPlan onlyI1 = PLANNER.plan(STATE, ReclaimRequest.any(1));
      Reclaim first = tracker.start(onlyI1, 0, 10);
      tracker.nodeReturned(first, onlyI1.servers().get(0), 5);
      Reclaim second = tracker.start(onlyI1, 6, 20);
      assertThat(second.id()).isGreaterThan(first.id());
    }

    @Test
    @DisplayName("refuses an infeasible plan with its reason")
    void refusesInfeasiblePlan() {
      ReclaimPlan infeasible = PLANNER.plan(STATE, ReclaimRequest.any(3));
      assertThat(infeasible.isFeasible()).isFalse();
      ReclaimTracker tracker = new ReclaimTracker();
      assertThatIllegalArgumentException()
          .isThrownBy(() -> tracker.start(infeasible, 0, 10))
          .withMessage(infeasible.infeasibleReason().orElseThrow());
      assertThat(tracker.inFlight()).isEmpty();
      assertThat(tracker.fencedNodes()).isEmpty();
    }

    @Test
    @DisplayName("refuses a node already being returned, naming it")
    void refusesANodeAlreadyReturning() {
      ReclaimTracker tracker = new ReclaimTracker();
      ReclaimPlan one = plan(1);
      tracker.start(one, 0, 10);
      String node = one.servers().get(0);
      assertThatIllegalStateException()
          .isThrownBy(() -> tracker.start(plan(2), 1, 10))
          .withMessageContaining(node);
      assertThat(tracker.inFlight()).hasSize(1);
    }

    @Test
    @DisplayName("accepts a node again once its earlier reclaim has returned it")
    void acceptsANodeReturnedEarlier() {
      ReclaimTracker tracker = new ReclaimTracker();
      ReclaimPlan one = plan(1);
      Reclaim first = tracker.start(one, 0, 10);
      tracker.nodeReturned(first, one.servers().get(0), 5);
      Reclaim again = tracker.start(one, 6, 20);
      assertThat(tracker.inFlight()).containsExactly(again);
      assertThat(tracker.fencedNodes()).containsExactlyElementsOf(one.servers());
    }
  }

  @Nested
  @DisplayName("returning nodes")
  class Returning {
    @Test
    @DisplayName(
        "a returned node is no longer fenced; the reclaim drains on until its last node is back")
    void partialReturn() {
      ReclaimTracker tracker = new ReclaimTracker();
      Reclaim r = tracker.start(plan(2), 1_000, 61_000);
      tracker.nodeReturned(r, "i2", 5_000);

      assertThat(r.phase()).isEqualTo(Reclaim.Phase.DRAINING);
      assertThat(r.returnedNodes()).containsExactly("i2");
      assertThat(r.pendingNodes()).containsExactly("i1");
      assertThat(r.finishedMs()).isEqualTo(-1);
      assertThat(tracker.fencedNodes()).containsExactly("i1");
      assertThat(tracker.inFlight()).containsExactly(r);
      assertThat(tracker.finished()).isEmpty();
    }

    @Test
    @DisplayName("the last node back makes it DONE and moves it to the finished list")
    void lastNodeFinishes() {
      ReclaimTracker tracker = new ReclaimTracker();
      Reclaim r = tracker.start(plan(2), 1_000, 61_000);
      tracker.nodeReturned(r, "i2", 5_000);
      tracker.nodeReturned(r, "i1", 9_000);

      assertThat(r.phase()).isEqualTo(Reclaim.Phase.DONE);
      assertThat(r.returnedNodes()).containsExactly("i2", "i1");
      assertThat(r.pendingNodes()).isEmpty();
      assertThat(r.finishedMs()).isEqualTo(9_000);
      assertThat(r.tookMs()).isEqualTo(8_000);
      assertThat(r.late()).isFalse();
      assertThat(tracker.fencedNodes()).isEmpty();
      assertThat(tracker.inFlight()).isEmpty();
      assertThat(tracker.finished()).containsExactly(r);
    }

    @Test
    @DisplayName("returning the same node twice, or a node not in the reclaim, changes nothing")
    void repeatedOrForeignNodeIgnored() {
      ReclaimTracker tracker = new ReclaimTracker();
      Reclaim r = tracker.start(plan(2), 0, 60_000);
      tracker.nodeReturned(r, "i1", 1_000);
      tracker.nodeReturned(r, "i1", 2_000);
      tracker.nodeReturned(r, "t1", 3_000);
      assertThat(r.phase()).isEqualTo(Reclaim.Phase.DRAINING);
      assertThat(r.returnedNodes()).containsExactly("i1");
      assertThat(tracker.fencedNodes()).containsExactly("i2");

      tracker.nodeReturned(r, "i2", 4_000);
      tracker.nodeReturned(r, "i2", 9_000);
      assertThat(r.finishedMs())
          .as("the first return of the last node finishes it")
          .isEqualTo(4_000);
      assertThat(tracker.finished()).containsExactly(r);
    }

    static Stream<Arguments> lateness() {
      return Stream.of(
          Arguments.of("well before the deadline", 30_000L, false),
          Arguments.of("exactly at the deadline", 60_000L, false),
          Arguments.of("one millisecond after", 60_001L, true),
          Arguments.of("long after", 600_000L, true));
    }

    @ParameterizedTest(name = "{0}: late = {2}")
    @MethodSource("lateness")
    @DisplayName("is late when its last node came back after the deadline")
    void lateAfterDeadline(String description, long finishedMs, boolean late) {
      ReclaimTracker tracker = new ReclaimTracker();
      ReclaimPlan one = plan(1);
      Reclaim r = tracker.start(one, 0, 60_000);
      tracker.nodeReturned(r, one.servers().get(0), finishedMs);
      assertThat(r.late()).isEqualTo(late);
    }
  }

  @Nested
  @DisplayName("recording containers taken")
  class Recording {
    @Test
    @DisplayName("a shrunk container is counted once, with its loss")
    void shrunkOnce() {
      ReclaimTracker tracker = new ReclaimTracker();
      Reclaim r = tracker.start(plan(2), 0, 60_000);
      assertThat(tracker.recordShrunk(r, "c1", 30)).isTrue();
      assertThat(tracker.recordShrunk(r, "c1", 30)).isFalse();
      assertThat(tracker.recordShrunk(r, "c2", 60)).isTrue();
      assertThat(r.containersShrunk()).isEqualTo(2);
      assertThat(r.containersPreempted()).isZero();
      assertThat(r.gpuSecondsLost()).isCloseTo(90, within(1e-9));
    }

    @Test
    @DisplayName("a preempted container is counted once, with its loss")
    void preemptedOnce() {
      ReclaimTracker tracker = new ReclaimTracker();
      Reclaim r = tracker.start(plan(2), 0, 60_000);
      assertThat(tracker.recordPreempted(r, "c1", 720)).isTrue();
      assertThat(tracker.recordPreempted(r, "c1", 720)).isFalse();
      assertThat(r.containersPreempted()).isEqualTo(1);
      assertThat(r.gpuSecondsLost()).isCloseTo(720, within(1e-9));
    }

    @Test
    @DisplayName("a container is either shrunk or preempted, whichever was recorded first")
    void shrunkOrPreemptedNotBoth() {
      ReclaimTracker tracker = new ReclaimTracker();
      Reclaim r = tracker.start(plan(2), 0, 60_000);
      assertThat(tracker.recordShrunk(r, "c1", 30)).isTrue();
      assertThat(tracker.recordPreempted(r, "c1", 720)).isFalse();
      assertThat(tracker.recordPreempted(r, "c2", 720)).isTrue();
      assertThat(tracker.recordShrunk(r, "c2", 30)).isFalse();
      assertThat(r.containersShrunk()).isEqualTo(1);
      assertThat(r.containersPreempted()).isEqualTo(1);
      assertThat(r.gpuSecondsLost()).isCloseTo(750, within(1e-9));
    }

    @Test
    @DisplayName("each reclaim keeps its own record")
    void separateRecords() {
      ReclaimTracker tracker = new ReclaimTracker();
      ReclaimPlan one = plan(1);
      Reclaim first = tracker.start(one, 0, 10);
      tracker.nodeReturned(first, one.servers().get(0), 5);
      Reclaim second = tracker.start(one, 6, 20);
      assertThat(tracker.recordShrunk(first, "c1", 30)).isTrue();
      assertThat(tracker.recordShrunk(second, "c1", 30)).isTrue();
      assertThat(first.containersShrunk()).isEqualTo(1);
      assertThat(second.containersShrunk()).isEqualTo(1);
    }
  }

  @Nested
  @DisplayName("history")
  class History {
    @Test
    @DisplayName("keeps the last " + ReclaimTracker.HISTORY + " finished reclaims, newest first")
    void boundedNewestFirst() {
      ReclaimTracker tracker = new ReclaimTracker();
      ReclaimPlan one = plan(1);
      String node = one.servers().get(0);
      int total = ReclaimTracker.HISTORY + 5;
      for (int i = 0; i < total; i++) {
        Reclaim r = tracker.start(one, i * 10L, i * 10L + 100);
        tracker.nodeReturned(r, node, i * 10L + 1);
      }
      List<Reclaim> finished = tracker.finished();
      assertThat(finished).hasSize(ReclaimTracker.HISTORY);
      assertThat(finished)
          .extracting(Reclaim::id)
          .containsExactlyElementsOf(
              LongStream.iterate(total, id -> id - 1)
                  .limit(ReclaimTracker.HISTORY)
                  .boxed()
                  .toList());
      assertThat(tracker.inFlight()).isEmpty();
    }

    @Test
    @DisplayName(
        "lists are snapshots: changing the tracker later does not change a list already returned")
    void snapshots() {
      ReclaimTracker tracker = new ReclaimTracker();
      ReclaimPlan one = plan(1);
      Reclaim r = tracker.start(one, 0, 100);
      List<Reclaim> inFlight = tracker.inFlight();
      List<Reclaim> finished = tracker.finished();
      tracker.nodeReturned(r, one.servers().get(0), 1);
      assertThat(inFlight).containsExactly(r);
      assertThat(finished).isEmpty();
    }
  }

  @Nested
  @DisplayName("a node lost before it is returned")
  class LostNodes {
    @Test
    @DisplayName("a substitute takes its place: fenced, pending, and named in the record")
    void substituteTakesItsPlace() {
      ReclaimTracker tracker = new ReclaimTracker();
      ReclaimPlan one = PLANNER.plan(STATE, ReclaimRequest.any(1));
      Reclaim r = tracker.start(one, 0, 60_000);
      String lost = one.servers().get(0);
      String substitute = lost.equals("i1") ? "i2" : "i1";

      assertThat(tracker.nodeLost(r, lost, substitute, Map.of("app-gang", "PREEMPT"), 1_000))
          .isFalse();

      assertThat(r.phase()).isEqualTo(Reclaim.Phase.DRAINING);
      assertThat(r.lostNodes()).containsExactly(lost);
      assertThat(r.replacements()).containsExactly(Map.entry(lost, substitute));
      assertThat(r.pendingNodes()).containsExactly(substitute);
      assertThat(tracker.fencedNodes()).containsExactly(substitute);
      assertThat(r.nodes()).containsExactly(lost, substitute);
      assertThat(r.plannedFate("app-gang")).isEqualTo(Fate.PREEMPT);

      assertThat(tracker.nodeReturned(r, substitute, 5_000))
          .as("the substitute's return finishes it")
          .isTrue();
      assertThat(r.returnedNodes()).containsExactly(substitute);
      assertThat(r.shortBy()).isZero();
      assertThat(tracker.finished()).containsExactly(r);
    }

    @Test
    @DisplayName("with no other node on loan, the reclaim ends one short, and says so")
    void noSubstituteEndsShort() {
      ReclaimTracker tracker = new ReclaimTracker();
      Reclaim r = tracker.start(plan(2), 0, 60_000);
      tracker.nodeReturned(r, "i1", 1_000);

      assertThat(tracker.nodeLost(r, "i2", null, Map.of(), 2_000)).isTrue();

      assertThat(r.phase()).isEqualTo(Reclaim.Phase.DONE);
      assertThat(r.shortBy()).isEqualTo(1);
      assertThat(r.returnedNodes()).containsExactly("i1");
      assertThat(r.finishedMs()).isEqualTo(2_000);
      assertThat(tracker.fencedNodes()).isEmpty();
    }

    @Test
    @DisplayName("a substitute already being returned by another reclaim is refused")
    void substituteMustBeFree() {
      ReclaimTracker tracker = new ReclaimTracker();
      ReclaimPlan one = PLANNER.plan(STATE, ReclaimRequest.any(1));
      Reclaim r = tracker.start(one, 0, 60_000);
      String node = one.servers().get(0);
      assertThatIllegalStateException()
          .isThrownBy(() -> tracker.nodeLost(r, "elsewhere", node, Map.of(), 1))
          .withMessageContaining(node);
    }
  }

  @Nested
  @DisplayName("what a reclaim does to a job with a worker on its nodes")
  class Fates {
    private static final SnapshotTranslator TRANSLATOR =
        new SnapshotTranslator("training", GPU, node -> node.startsWith("inf"));

    private static ContainerView worker(String id, String app, long seq) {
      return new ContainerView(id, app, seq, 1, false);
    }

    /**
     * The reclaim of inf-1, planned as the executor plans it: on the round's translation of {@code
     * nodes}.
     */
    private static Reclaim reclaimInf1(
        List<NodeView> nodes, Map<String, JobShape> shapes, Set<String> draining) {
      Map<String, AppView> apps = new TreeMap<>();
      shapes.forEach((id, shape) -> apps.put(id, new AppView(id, shape, 0, 0)));
      RoundInput in =
          TRANSLATOR.translate(
              1_000, nodes, apps, PlanBook.EMPTY, draining, Set.of(), Map.of(), (id, p) -> 0);
      ReclaimPlan plan = PLANNER.plan(in.state(), ReclaimRequest.any(1));
      assertThat(plan.servers()).as("the only loaned node").containsExactly("inf-1");
      return new ReclaimTracker().start(plan, 0, 60_000);
    }

    @Test
    @DisplayName("a job the plan named: what the plan decided, whatever runs now")
    void plannedJobs() {
      Reclaim r = new ReclaimTracker().start(plan(2), 0, 60_000);
      List<NodeView> nothingRunsNow = List.of();

      assertThat(r.fateOf("app-elastic", 1, nothingRunsNow)).isEqualTo(Fate.SHRINK);
      assertThat(r.fateOf("app-gang", 2, nothingRunsNow)).isEqualTo(Fate.PREEMPT);
    }

    /**
     * app-x (2..4) runs x1 and x2 on t1 and x3 on the loaned inf-1, which a round is shrinking
     * (draining). The round's snapshot leaves draining workers out, so the reclaim's plan does not
     * name app-x. The job keeps its minimum without x3: it is shrunk (x3 drained for the reclaim),
     * not preempted whole.
     */
    @Test
    @DisplayName(
        "a job the plan did not name, its worker there draining, keeps its minimum: shrunk, not preempted")
    void unnamedJobThatKeepsItsMinimumIsShrunk() {
      List<NodeView> nodes =
          List.of(
              new NodeView(
                  "t1", "training", 4, List.of(worker("x1", "app-x", 1), worker("x2", "app-x", 2))),
              new NodeView("inf-1", "training", 4, List.of(worker("x3", "app-x", 3))));
      Reclaim r =
          reclaimInf1(nodes, Map.of("app-x", new JobShape(2, 4, 1, 3600, "")), Set.of("x3"));

      assertThat(r.jobActions()).as("the plan saw no worker of app-x on inf-1").isEmpty();
      assertThat(r.plannedFate("app-x")).isNull();
      assertThat(r.fateOf("app-x", 2, nodes)).isEqualTo(Fate.SHRINK);
    }

    /**
     * app-y (2..2) had y1 on t1 when the plan was made; y2 reached inf-1 since. Without y2 it is
     * below its minimum.
     */
    @Test
    @DisplayName(
        "a job the plan did not name that the reclaim leaves below its minimum is preempted")
    void unnamedJobBelowItsMinimumIsPreempted() {
      List<NodeView> planned =
          List.of(
              new NodeView("t1", "training", 4, List.of(worker("y1", "app-y", 1))),
              new NodeView("inf-1", "training", 4, List.of()));
      Reclaim r = reclaimInf1(planned, Map.of("app-y", new JobShape(2, 2, 1, 3600, "")), Set.of());
      List<NodeView> now =
          List.of(
              new NodeView("t1", "training", 4, List.of(worker("y1", "app-y", 1))),
              new NodeView("inf-1", "training", 4, List.of(worker("y2", "app-y", 2))));

      assertThat(r.plannedFate("app-y")).isNull();
      assertThat(r.fateOf("app-y", 2, now)).isEqualTo(Fate.PREEMPT);
    }

    @Test
    @DisplayName(
        "a job the plan did not name is judged by its workers: its ApplicationMaster is none of them")
    void applicationMasterIsNoWorker() {
      List<NodeView> nodes =
          List.of(
              new NodeView("t1", "training", 4, List.of(worker("z1", "app-z", 1))),
              new NodeView(
                  "inf-1",
                  "training",
                  4,
                  List.of(worker("z2", "app-z", 2), worker("z3", "app-z", 3))));
      Reclaim r =
          reclaimInf1(nodes, Map.of("app-z", new JobShape(1, 3, 1, 3600, "")), Set.of("z2", "z3"));
      List<NodeView> withAm =
          List.of(
              new NodeView(
                  "t1",
                  "training",
                  4,
                  List.of(worker("z1", "app-z", 1), new ContainerView("am", "app-z", 0, 0, true))),
              new NodeView(
                  "inf-1",
                  "training",
                  4,
                  List.of(worker("z2", "app-z", 2), worker("z3", "app-z", 3))));

      assertThat(r.fateOf("app-z", 1, withAm))
          .as("3 workers (its AM is none), 2 taken, min 1")
          .isEqualTo(Fate.SHRINK);
      assertThat(r.fateOf("app-z", 2, withAm)).as("min 2: 1 left").isEqualTo(Fate.PREEMPT);
    }
  }

  @Nested
  @DisplayName("stored and restored")
  class Durable {
    @Test
    @DisplayName(
        "a tracker restored from its record resumes every reclaim where it was, and its ids go on")
    void restoredTrackerResumes() {
      ReclaimTracker before = new ReclaimTracker();
      ReclaimPlan one = PLANNER.plan(STATE, ReclaimRequest.any(1));
      Reclaim done = before.start(one, 0, 10);
      before.nodeReturned(done, one.servers().get(0), 5);
      Reclaim flying = before.start(plan(2), 100, 60_100);
      before.recordShrunk(flying, "c1", 30);
      before.chargeJob(flying, "app-elastic");
      before.nodeReturned(flying, "i2", 200);

      ReclaimTracker after = new ReclaimTracker();
      after.restore(before.toRecord());

      assertThat(after.toRecord()).isEqualTo(before.toRecord());
      assertThat(after.fencedNodes()).containsExactly("i1");
      Reclaim resumed = after.inFlight().get(0);
      assertThat(resumed.id()).isEqualTo(flying.id());
      assertThat(resumed.containersShrunk()).isEqualTo(1);
      assertThat(after.chargeJob(resumed, "app-elastic"))
          .as("already charged before the restart")
          .isFalse();
      assertThat(after.finished()).extracting(Reclaim::id).containsExactly(done.id());
      after.nodeReturned(resumed, "i1", 300);
      assertThat(after.finished())
          .extracting(Reclaim::id)
          .as("recorded once")
          .containsExactly(flying.id(), done.id());
      Reclaim next = after.start(PLANNER.plan(STATE, ReclaimRequest.any(1)), 400, 500);
      assertThat(next.id()).isGreaterThan(flying.id());
    }

    @Test
    @DisplayName(
        "a record with a job action other than SHRINK or PREEMPT is refused, naming the job and the value")
    void unknownJobActionIsRefused() {
      io.aryl.yarn.state.ReclaimRecord rec = new ReclaimTracker().start(plan(2), 0, 10).toRecord();
      io.aryl.yarn.state.ReclaimRecord broken =
          new io.aryl.yarn.state.ReclaimRecord(
              rec.id(),
              rec.requested(),
              rec.nodes(),
              rec.requestedMs(),
              rec.deadlineMs(),
              rec.plannedCostGpuS(),
              Map.of("app-gang", "STOP"),
              rec.returned(),
              rec.lost(),
              rec.replacements(),
              rec.shortBy(),
              rec.shrunk(),
              rec.preempted(),
              rec.chargedJobs(),
              rec.gpuSecondsLost(),
              rec.phase(),
              rec.finishedMs());
      io.aryl.yarn.state.Reclaims stored =
          new io.aryl.yarn.state.Reclaims(rec.id() + 1, List.of(broken), List.of());
      assertThatIllegalArgumentException()
          .isThrownBy(() -> new ReclaimTracker().restore(stored))
          .withMessage("reclaim 1: jobActions[app-gang] must be SHRINK or PREEMPT, was STOP");
    }

    @Test
    @DisplayName("a record whose next id is not above every stored id is refused")
    void nextIdMustBeAboveStoredIds() {
      ReclaimTracker before = new ReclaimTracker();
      before.start(plan(1), 0, 10);
      io.aryl.yarn.state.Reclaims rec = before.toRecord();
      io.aryl.yarn.state.Reclaims broken =
          new io.aryl.yarn.state.Reclaims(1, rec.inFlight(), rec.finished());
      assertThatIllegalArgumentException()
          .isThrownBy(() -> new ReclaimTracker().restore(broken))
          .withMessageContaining("nextId")
          .withMessageContaining("was 1");
    }

    @Test
    @DisplayName("a record with one node in two reclaims in flight is refused")
    void oneNodeInTwoReclaimsIsRefused() {
      ReclaimPlan one = PLANNER.plan(STATE, ReclaimRequest.any(1));
      io.aryl.yarn.state.ReclaimRecord first = new ReclaimTracker().start(one, 0, 10).toRecord();
      io.aryl.yarn.state.ReclaimRecord second =
          new io.aryl.yarn.state.ReclaimRecord(
              2,
              1,
              first.nodes(),
              0,
              10,
              0,
              Map.of(),
              List.of(),
              List.of(),
              Map.of(),
              0,
              List.of(),
              List.of(),
              List.of(),
              0,
              "DRAINING",
              -1);
      io.aryl.yarn.state.Reclaims both =
          new io.aryl.yarn.state.Reclaims(3, List.of(first, second), List.of());
      assertThatIllegalArgumentException()
          .isThrownBy(() -> new ReclaimTracker().restore(both))
          .withMessageContaining(first.nodes().get(0))
          .withMessageContaining("two reclaims");
    }
  }
}
