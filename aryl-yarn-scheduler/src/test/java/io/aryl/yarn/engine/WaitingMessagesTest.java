package io.aryl.yarn.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import io.aryl.core.PolicyConfig;
import io.aryl.core.RoundPlanner;
import io.aryl.core.admission.JobOrder;
import io.aryl.core.job.JobShape;
import io.aryl.core.model.GpuType;
import io.aryl.core.model.Plan;
import io.aryl.core.model.QueuePlace;
import io.aryl.core.model.QueuePlace.Standing;
import io.aryl.yarn.engine.WaitingMessages.Room;
import io.aryl.yarn.round.AppView;
import io.aryl.yarn.round.ContainerView;
import io.aryl.yarn.round.NodeView;
import io.aryl.yarn.round.PlanBook;
import io.aryl.yarn.round.RoundInput;
import io.aryl.yarn.round.SnapshotTranslator;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

@DisplayName("WaitingMessages: a job whose base gang waits says why in its diagnostics")
class WaitingMessagesTest {

  @Nested
  @DisplayName("the message")
  class Message {
    static Stream<Arguments> messages() {
      return Stream.of(
          Arguments.of(
              "what it needs, what is free, its place in the queue",
              new JobShape(4, 8, 2, 600, ""),
              new Room(3, 2, 16),
              place(2, Standing.NOT_STARVING),
              JobOrder.SHORTEST_PREDICTED_FIRST,
              "Aryl: waiting for 4 workers x 2 GPUs (8 GPUs) on training; 3 GPUs free now, largest node 2 free;"
                  + " queued behind 2 jobs (shortest predicted first)"),
          Arguments.of(
              "one of each, first come first served",
              new JobShape(1, 1, 1, 600, ""),
              new Room(1, 1, 16),
              place(1, Standing.NOT_STARVING),
              JobOrder.FIFO,
              "Aryl: waiting for 1 worker x 1 GPU (1 GPU) on training; 1 GPU free now, largest node 1 free;"
                  + " queued behind 1 job (first come, first served)"),
          Arguments.of(
              "first in line: no queue to speak of",
              new JobShape(2, 2, 8, 600, ""),
              new Room(8, 8, 2),
              place(0, Standing.NOT_STARVING),
              JobOrder.SHORTEST_PREDICTED_FIRST,
              "Aryl: waiting for 2 workers x 8 GPUs (16 GPUs) on training; 8 GPUs free now, largest node 8 free"),
          Arguments.of(
              "a gang larger than the pool holds even empty",
              new JobShape(3, 3, 8, 600, ""),
              new Room(16, 8, 2),
              place(0, Standing.NOT_STARVING),
              JobOrder.SHORTEST_PREDICTED_FIRST,
              "Aryl: waiting for 3 workers x 8 GPUs (24 GPUs) on training; 16 GPUs free now, largest node 8 free;"
                  + " the training pool holds at most 2 workers of 8 GPUs now: it waits for more nodes (lent by"
                  + " inference)"),
          Arguments.of(
              "a starving job the senior lane puts first",
              new JobShape(4, 4, 4, 600, ""),
              new Room(6, 4, 8),
              place(0, Standing.IN_THE_LANE),
              JobOrder.SHORTEST_PREDICTED_FIRST,
              "Aryl: waiting for 4 workers x 4 GPUs (16 GPUs) on training; 6 GPUs free now, largest node 4 free;"
                  + " waited past aryl.scheduler.starvation-wait-s and is in the senior lane: it goes first, and"
                  + " nodes are held for it as they free"),
          Arguments.of(
              "a starving job in the senior lane behind older ones",
              new JobShape(4, 4, 4, 600, ""),
              new Room(6, 4, 8),
              place(2, Standing.IN_THE_LANE),
              JobOrder.SHORTEST_PREDICTED_FIRST,
              "Aryl: waiting for 4 workers x 4 GPUs (16 GPUs) on training; 6 GPUs free now, largest node 4 free;"
                  + " waited past aryl.scheduler.starvation-wait-s and is in the senior lane, behind 2 older jobs"),
          Arguments.of(
              "a starving job outside the full senior lane keeps its place in the job order",
              new JobShape(4, 4, 4, 600, ""),
              new Room(6, 4, 8),
              place(3, Standing.OUTSIDE_THE_LANE),
              JobOrder.SHORTEST_PREDICTED_FIRST,
              "Aryl: waiting for 4 workers x 4 GPUs (16 GPUs) on training; 6 GPUs free now, largest node 4 free;"
                  + " waited past aryl.scheduler.starvation-wait-s, but older jobs fill the senior lane: queued"
                  + " behind 3 jobs (shortest predicted first)"),
          Arguments.of(
              "a starving job outside the lane that the job order puts first still has nodes held",
              new JobShape(4, 4, 4, 600, ""),
              new Room(6, 4, 8),
              place(0, Standing.OUTSIDE_THE_LANE),
              JobOrder.SHORTEST_PREDICTED_FIRST,
              "Aryl: waiting for 4 workers x 4 GPUs (16 GPUs) on training; 6 GPUs free now, largest node 4 free;"
                  + " waited past aryl.scheduler.starvation-wait-s, but older jobs fill the senior lane: it is first"
                  + " in line by shortest predicted first, and nodes are held for it as they free"),
          Arguments.of(
              "no nodes are said to be held for a gang the pool cannot hold",
              new JobShape(3, 3, 8, 600, ""),
              new Room(16, 8, 2),
              place(0, Standing.IN_THE_LANE),
              JobOrder.SHORTEST_PREDICTED_FIRST,
              "Aryl: waiting for 3 workers x 8 GPUs (24 GPUs) on training; 16 GPUs free now, largest node 8 free;"
                  + " the training pool holds at most 2 workers of 8 GPUs now: it waits for more nodes (lent by"
                  + " inference); waited past aryl.scheduler.starvation-wait-s and is in the senior lane: it goes"
                  + " first"));
    }

    /**
     * Where the round put a job {@code ahead} waiting jobs behind the first, none admitted before
     * it: the first job offered, if starving, has nodes held for it.
     */
    static QueuePlace place(int ahead, Standing standing) {
      return new QueuePlace(
          ahead, ahead, standing, ahead == 0 && standing != Standing.NOT_STARVING);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("messages")
    @DisplayName("says what the gang needs, what is free now, and where the job stands")
    void says(
        String description,
        JobShape shape,
        Room room,
        QueuePlace place,
        JobOrder order,
        String expected) {
      assertThat(WaitingMessages.message("training", shape, room, place, order))
          .isEqualTo(expected);
    }

    @Test
    @DisplayName("nodes are said to be held only for a job the round held them for")
    void heldOnlyWhenReserved() {
      // First among the waiting, but a job admitted this round was offered before it: it reserved
      // nothing.
      QueuePlace notReserved = new QueuePlace(0, 1, Standing.OUTSIDE_THE_LANE, false);
      assertThat(
              WaitingMessages.message(
                  "training",
                  new JobShape(4, 4, 4, 600, ""),
                  new Room(6, 4, 8),
                  notReserved,
                  JobOrder.SHORTEST_PREDICTED_FIRST))
          .isEqualTo(
              "Aryl: waiting for 4 workers x 4 GPUs (16 GPUs) on training;"
                  + " 6 GPUs free now, largest node 4 free; waited past aryl.scheduler.starvation-wait-s, but older jobs fill"
                  + " the senior lane: it is first in line by shortest predicted first");
    }
  }

  @Nested
  @DisplayName("after a round")
  class AfterARound {
    static final SnapshotTranslator TRANSLATOR =
        new SnapshotTranslator("training", GpuType.of("gpu"), n -> false);
    static final RoundPlanner PLANNER = new RoundPlanner(PolicyConfig.defaults());

    final WaitingMessages diagnostics = new WaitingMessages("training", PolicyConfig.defaults());
    long seq;

    ContainerView worker(String app, int gpus) {
      return new ContainerView("c" + ++seq, app, seq, gpus, false);
    }

    NodeView node(String id, int gpus, ContainerView... containers) {
      return new NodeView(id, "training", gpus, Arrays.asList(containers));
    }

    AppView app(String id, int min, int max, int gpus, double runtimeS, int asked) {
      return new AppView(id, new JobShape(min, max, gpus, runtimeS, ""), 0, asked);
    }

    /**
     * Translates and plans as a round does, then publishes; returns the messages set (null:
     * cleared), in order.
     */
    Map<String, String> round(List<NodeView> nodes, AppView... apps) {
      return round(PLANNER, diagnostics, nodes, apps);
    }

    /** {@link #round(List, AppView...)} at 100 s with another policy's planner and diagnostics. */
    Map<String, String> round(
        RoundPlanner planner, WaitingMessages diagnostics, List<NodeView> nodes, AppView... apps) {
      Map<String, AppView> views = new TreeMap<>();
      for (AppView a : apps) {
        views.put(a.id(), a);
      }
      RoundInput input =
          TRANSLATOR.translate(100, nodes, views, PlanBook.EMPTY, Set.of(), Set.of(), Map.of());
      Plan plan = planner.plan(input.state());
      Map<String, String> out = new LinkedHashMap<>();
      for (Action a : diagnostics.publish(views, input, plan)) {
        Action.Diagnose d = (Action.Diagnose) a;
        out.put(d.appId(), d.message());
      }
      return out;
    }

    @Test
    @DisplayName("a job behind a full pool is told, and cleared once a round admits it")
    void toldThenCleared() {
      List<NodeView> busy = List.of(node("n1", 4, worker("a", 4)), node("n2", 4, worker("a", 4)));
      AppView a = app("a", 2, 2, 4, 600, 0);
      AppView b = app("b", 1, 1, 4, 600, 1);
      assertThat(round(busy, a, b))
          .containsExactly(
              entry(
                  "b",
                  "Aryl: waiting for 1 worker x 4 GPUs (4 GPUs) on training; 0 GPUs free now, largest node 0 free"));
      assertThat(round(busy, a, b))
          .as("told again every round while it waits")
          .containsOnlyKeys("b");

      List<NodeView> freed = List.of(node("n1", 4), node("n2", 4));
      assertThat(round(freed, b))
          .as("a ended: b is admitted and its message cleared")
          .containsExactly(entry("b", null));
      assertThat(round(freed, b)).as("cleared once, then left alone").isEmpty();
    }

    @Test
    @DisplayName("GPUs held by another job's extra workers count as free: a gang takes them back")
    void extraWorkersCountAsFree() {
      List<NodeView> nodes = List.of(node("n1", 4, worker("e", 4)), node("n2", 4, worker("e", 4)));
      AppView elastic = app("e", 1, 2, 4, 600, 0);
      AppView gang = app("g", 2, 2, 4, 600, 2);
      assertThat(round(nodes, elastic, gang))
          .containsExactly(
              entry(
                  "g",
                  "Aryl: waiting for 2 workers x 4 GPUs (8 GPUs) on training; 4 GPUs free now, largest node 4 free"));
    }

    @Test
    @DisplayName("jobs waiting ahead in the queue are counted")
    void queuePosition() {
      List<NodeView> busy = List.of(node("n1", 4, worker("a", 4)), node("n2", 4, worker("a", 4)));
      Map<String, String> told =
          round(
              busy,
              app("a", 2, 2, 4, 600, 0),
              app("short", 1, 1, 4, 60, 1),
              app("long", 1, 1, 4, 6000, 1));
      assertThat(told.get("short")).doesNotContain("queued behind");
      assertThat(told.get("long")).endsWith("; queued behind 1 job (shortest predicted first)");
    }

    /**
     * With a 50 s starvation wait, at 100 s: a full pool of 8 GPUs held by job a (submitted at
     * {@code aSubmitS}), two starving one-worker gangs s1 (submitted at 10 s, 600 s predicted) and
     * s2 (20 s, 60 s) of {@code gpus} GPUs each. What s1 and s2 are told.
     */
    Map<String, String> starving(double aSubmitS, int gpus) {
      PolicyConfig policy = PolicyConfig.defaults().withStarvationWaitS(50);
      WaitingMessages d = new WaitingMessages("training", policy);
      List<NodeView> busy = List.of(node("n1", 4, worker("a", 4)), node("n2", 4, worker("a", 4)));
      return round(
          new RoundPlanner(policy),
          d,
          busy,
          new AppView("a", new JobShape(2, 2, 4, 6000, ""), aSubmitS, 0),
          new AppView("s1", new JobShape(1, 1, gpus, 600, ""), 10, 1),
          new AppView("s2", new JobShape(1, 1, gpus, 60, ""), 20, 1));
    }

    @Test
    @DisplayName(
        "a starving job is told whether the senior lane holds it, and what that means for its place")
    void starvingJobsAndTheSeniorLane() {
      // a is younger than both: the lane (half the pool, 4 GPUs, while the 8 starving GPUs fit in
      // it) holds s1
      // only; s2 keeps its place behind s1 although it is shorter
      Map<String, String> younger = starving(60, 4);
      assertThat(younger.get("s1"))
          .endsWith(
              "; waited past aryl.scheduler.starvation-wait-s and is in the senior"
                  + " lane: it goes first, and nodes are held for it as they free");
      assertThat(younger.get("s2"))
          .endsWith(
              "; waited past aryl.scheduler.starvation-wait-s, but older jobs fill the"
                  + " senior lane: queued behind 1 job (shortest predicted first)");

      // 2-GPU gangs: both fit in the lane, oldest first
      Map<String, String> both = starving(60, 2);
      assertThat(both.get("s1"))
          .endsWith(
              "and is in the senior lane: it goes first, and nodes are held for it as"
                  + " they free");
      assertThat(both.get("s2"))
          .endsWith(
              "; waited past aryl.scheduler.starvation-wait-s and is in the senior lane,"
                  + " behind 1 older job");

      // a is older than both and fills the lane: shortest-first decides, and its first job still
      // has nodes held
      Map<String, String> full = starving(0, 4);
      assertThat(full.get("s2"))
          .endsWith(
              "; waited past aryl.scheduler.starvation-wait-s, but older jobs fill the"
                  + " senior lane: it is first in line by shortest predicted first, and nodes are held for it as they free");
      assertThat(full.get("s1"))
          .endsWith(
              "but older jobs fill the senior lane: queued behind 1 job (shortest"
                  + " predicted first)");
    }

    @Test
    @DisplayName(
        "a job whose ApplicationMaster has not asked for its whole gang yet is not said to wait")
    void notAskingYet() {
      assertThat(round(List.of(node("n1", 4)), app("b", 2, 2, 4, 600, 1))).isEmpty();
    }

    @Test
    @DisplayName("a running job is told nothing")
    void runningJob() {
      assertThat(round(List.of(node("n1", 4, worker("a", 4))), app("a", 1, 1, 4, 600, 0)))
          .isEmpty();
    }

    @Test
    @DisplayName(
        "a job that ended while waiting is forgotten, not cleared: its application has its own diagnostics")
    void endedWhileWaiting() {
      List<NodeView> busy = List.of(node("n1", 4, worker("a", 4)));
      assertThat(round(busy, app("a", 1, 1, 4, 600, 0), app("b", 1, 1, 4, 600, 1)))
          .containsOnlyKeys("b");
      assertThat(round(busy, app("a", 1, 1, 4, 600, 0))).isEmpty();
    }
  }
}
