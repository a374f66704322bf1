package io.aryl.yarn.round;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.within;

import io.aryl.core.job.JobShape;
import io.aryl.core.model.Allocation;
import io.aryl.core.model.ClusterState;
import io.aryl.core.model.GpuType;
import io.aryl.core.model.Job;
import io.aryl.core.model.Pool;
import io.aryl.core.model.Server;
import java.util.Arrays;
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

@DisplayName(
    "SnapshotTranslator: the ResourceManager's view and the last promises become one valid ClusterState")
class SnapshotTranslatorTest {
  static final String TRAINING = "training";
  static final GpuType GPU = GpuType.of("gpu");
  static final SnapshotTranslator TRANSLATOR =
      new SnapshotTranslator(TRAINING, GPU, node -> node.startsWith("inf"));

  // ---------------------------------------------------------------------------------------------------------------
  // A small language for the RM's view.

  private static long seq;

  static ContainerView worker(String id, String app, int gpus) {
    return new ContainerView(id, app, ++seq, gpus, false);
  }

  static ContainerView am(String id, String app, int gpus) {
    return new ContainerView(id, app, ++seq, gpus, true);
  }

  static NodeView node(String id, int gpus, ContainerView... containers) {
    return new NodeView(id, TRAINING, gpus, Arrays.asList(containers));
  }

  static NodeView labelled(String id, String label, int gpus, ContainerView... containers) {
    return new NodeView(id, label, gpus, Arrays.asList(containers));
  }

  static AppView app(String id, int min, int max, int gpusPerWorker, int asked) {
    return new AppView(id, new JobShape(min, max, gpusPerWorker, 3600, "kind-" + id), 10, asked);
  }

  static Map<String, AppView> apps(AppView... apps) {
    Map<String, AppView> m = new TreeMap<>();
    for (AppView a : apps) {
      m.put(a.id(), a);
    }
    return m;
  }

  static Allocation on(Object... nodeAndWorkers) {
    Map<String, Integer> m = new TreeMap<>();
    for (int i = 0; i < nodeAndWorkers.length; i += 2) {
      m.put((String) nodeAndWorkers[i], (Integer) nodeAndWorkers[i + 1]);
    }
    return Allocation.of(m);
  }

  static PlanBook book(Object... appAndAllocation) {
    Map<String, Allocation> m = new TreeMap<>();
    for (int i = 0; i < appAndAllocation.length; i += 2) {
      m.put((String) appAndAllocation[i], (Allocation) appAndAllocation[i + 1]);
    }
    return new PlanBook(m, 1);
  }

  static RoundInput translate(List<NodeView> nodes, Map<String, AppView> apps, PlanBook book) {
    return translate(nodes, apps, book, Set.of(), Set.of());
  }

  static RoundInput translate(
      List<NodeView> nodes,
      Map<String, AppView> apps,
      PlanBook book,
      Set<String> draining,
      Set<String> fenced) {
    return TRANSLATOR.translate(100, nodes, apps, book, draining, fenced, Map.of());
  }

  static int serverGpus(ClusterState s, String id) {
    return s.server(id).gpus();
  }

  // ---------------------------------------------------------------------------------------------------------------

  @Nested
  @DisplayName("live workers")
  class LiveWorkers {
    @Test
    @DisplayName(
        "beyond the job's maximum are surplus: the newest, out of the job, their GPUs held until drained")
    void beyondMaxAreSurplus() {
      ContainerView w1 = worker("w1", "app-a", 2);
      ContainerView w2 = worker("w2", "app-a", 2);
      ContainerView w3 =
          worker("w3", "app-a", 2); // e.g. the new worker of a move that was given up
      RoundInput in =
          translate(
              List.of(node("n1", 4, w1, w2), node("n2", 4, w3)),
              apps(app("app-a", 1, 2, 2, 0)),
              PlanBook.EMPTY);

      assertThat(in.surplus()).containsExactly(w3);
      assertThat(in.state().allocation("app-a")).isEqualTo(on("n1", 2));
      assertThat(in.liveWorkers("app-a")).isEqualTo(2);
      assertThat(serverGpus(in.state(), "n2")).as("its GPUs are not the plan's").isEqualTo(2);
    }

    @Test
    @DisplayName(
        "of a job being moved: the old ones draining, its promise on the new nodes stands at its width")
    void movedJobKeepsItsWidth() {
      ContainerView w1 = worker("w1", "app-a", 1);
      ContainerView w2 = worker("w2", "app-a", 1);
      ContainerView w3 = worker("w3", "app-a", 1);
      // Width 3 of 1..4, moved from n1 to n2: the three old workers drain, the AM asks for nothing
      // more.
      RoundInput in =
          translate(
              List.of(node("n1", 4, w1, w2, w3), node("n2", 4)),
              apps(app("app-a", 1, 4, 1, 0).askingMore(3)),
              book("app-a", on("n2", 3)),
              Set.of("w1", "w2", "w3"),
              Set.of());

      assertThat(in.state().allocation("app-a")).isEqualTo(on("n2", 3));
      assertThat(serverGpus(in.state(), "n1")).as("held by the draining workers").isEqualTo(1);
    }

    @Test
    @DisplayName("become the job's allocation, node by node, and the round's worker list")
    void becomeTheAllocation() {
      ContainerView w1 = worker("w1", "app-a", 1);
      ContainerView w2 = worker("w2", "app-a", 1);
      ContainerView w3 = worker("w3", "app-a", 1);
      RoundInput in =
          translate(
              List.of(node("n1", 4, am("am", "app-a", 0), w1, w2), node("n2", 4, w3)),
              apps(app("app-a", 2, 4, 1, 0)),
              PlanBook.EMPTY);

      assertThat(in.state().allocation("app-a")).isEqualTo(on("n1", 2, "n2", 1));
      assertThat(in.workers().get("app-a")).containsOnlyKeys("n1", "n2");
      assertThat(in.workers().get("app-a").get("n1")).containsExactly(w1, w2);
      assertThat(in.liveWorkers("app-a")).isEqualTo(3);
      assertThat(in.orphans()).isEmpty();
      assertThat(in.state().freeGpus("n1")).isEqualTo(2);
    }

    @Test
    @DisplayName("count with the job's GPUs per worker")
    void countWithGpusPerWorker() {
      RoundInput in =
          translate(
              List.of(node("n1", 8, worker("w1", "app-a", 2), worker("w2", "app-a", 2))),
              apps(app("app-a", 2, 2, 2, 0)),
              PlanBook.EMPTY);
      assertThat(in.state().usedGpus("n1")).isEqualTo(4);
      assertThat(in.state().freeGpus("n1")).isEqualTo(4);
    }

    static Stream<Arguments> widths() {
      // min, max, live, asked -> the job's max in the snapshot
      return Stream.of(
          Arguments.of(2, 8, 3, 0, 3),
          Arguments.of(2, 8, 3, 2, 5),
          Arguments.of(2, 8, 3, 9, 8),
          Arguments.of(2, 2, 2, 0, 2),
          Arguments.of(1, 4, 2, 0, 2));
    }

    @ParameterizedTest(name = "min {0}, max {1}, holding {2}, asking {3} more: modelled max {4}")
    @MethodSource("widths")
    @DisplayName("a running job's max is what its ApplicationMaster wants, capped by its shape")
    void maxIsWhatTheAmWants(int min, int max, int live, int asked, int modelledMax) {
      ContainerView[] ws = new ContainerView[live];
      for (int i = 0; i < live; i++) {
        ws[i] = worker("w" + i, "app-a", 1);
      }
      RoundInput in =
          translate(
              List.of(node("n1", 16, ws)), apps(app("app-a", min, max, 1, asked)), PlanBook.EMPTY);
      Job job = in.state().job("app-a");
      assertThat(job.minWorkers()).isEqualTo(min);
      assertThat(job.maxWorkers()).isEqualTo(modelledMax);
    }

    @Test
    @DisplayName(
        "the job carries its shape, submission time, and remaining work after its progress")
    void jobFields() {
      AppView a = new AppView("app-a", new JobShape(1, 2, 2, 1000, "bert"), 250, 1);
      RoundInput in =
          TRANSLATOR.translate(
              100,
              List.of(node("n1", 4)),
              apps(a),
              PlanBook.EMPTY,
              Set.of(),
              Set.of(),
              Map.of("app-a", new JobProgress(400, 25)));
      Job job = in.state().job("app-a");
      assertThat(job.kind()).isEqualTo("bert");
      assertThat(job.gpusPerWorker()).isEqualTo(2);
      assertThat(job.submitTimeS()).as("never after now").isEqualTo(100);
      assertThat(job.remainingS()).isCloseTo(600, within(1e-9));
      assertThat(job.attainedS()).isEqualTo(400);
      assertThat(job.sinceCheckpointS()).isEqualTo(25);
    }

    @Test
    @DisplayName("a job in the last tenth of its predicted runtime has what the prediction leaves")
    void nearlyDoneJobKeepsItsPrediction() {
      RoundInput in =
          TRANSLATOR.translate(
              5000,
              List.of(node("n1", 4, worker("w1", "app-a", 1))),
              apps(app("app-a", 1, 1, 1, 0)),
              PlanBook.EMPTY,
              Set.of(),
              Set.of(),
              Map.of("app-a", new JobProgress(3500, 10)));
      assertThat(in.state().job("app-a").remainingS()).isCloseTo(100, within(1e-9));
    }

    @Test
    @DisplayName("a job past its predicted runtime still has a tenth of it left")
    void overrunningJobKeepsATenth() {
      RoundInput in =
          TRANSLATOR.translate(
              5000,
              List.of(node("n1", 4, worker("w1", "app-a", 1))),
              apps(app("app-a", 1, 1, 1, 0)),
              PlanBook.EMPTY,
              Set.of(),
              Set.of(),
              Map.of("app-a", new JobProgress(9000, 10)));
      assertThat(in.state().job("app-a").remainingS()).isCloseTo(360, within(1e-9));
    }
  }

  @Nested
  @DisplayName("a gang whose promised room containers being drained still hold")
  class GangsWaitingForDrains {
    @Test
    @DisplayName(
        "counts as started on its promise, the GPUs of the drains that make its room its own already")
    void startedOnItsPromise() {
      // P's drained worker P3 holds 2 of the 4 GPUs promised to Q; the other 2 are free.
      RoundInput in =
          translate(
              List.of(
                  node(
                      "n1",
                      8,
                      worker("p1", "app-p", 2),
                      worker("p2", "app-p", 2),
                      worker("p3", "app-p", 2))),
              apps(app("app-p", 2, 4, 2, 0), app("app-q", 2, 2, 2, 2)),
              book("app-p", on("n1", 2), "app-q", on("n1", 2)),
              Set.of("p3"),
              Set.of());
      assertThat(in.awaitingDrains()).containsExactly("app-q");
      assertThat(in.state().isRunning("app-q")).as("Q is modelled as running").isTrue();
      assertThat(in.state().allocation("app-q")).isEqualTo(on("n1", 2));
      assertThat(in.roomFromDrains()).isEqualTo(Map.of("n1", 2));
      assertThat(serverGpus(in.state(), "n1"))
          .as("8 less P3 draining, plus P3's 2 GPUs that are Q's")
          .isEqualTo(8);
      assertThat(in.state().allocation("app-p")).isEqualTo(on("n1", 2));
      assertThat(in.orphans()).isEmpty();
    }

    @Test
    @DisplayName("holding part of its gang, its workers are modelled with its promise, not orphans")
    void partOfItsGang() {
      RoundInput in =
          translate(
              List.of(
                  node(
                      "n1",
                      8,
                      worker("p1", "app-p", 2),
                      worker("p2", "app-p", 2),
                      worker("p3", "app-p", 2),
                      worker("q1", "app-q", 2))),
              apps(app("app-p", 2, 4, 2, 0), app("app-q", 2, 2, 2, 1)),
              book("app-p", on("n1", 2), "app-q", on("n1", 2)),
              Set.of("p3"),
              Set.of());
      assertThat(in.awaitingDrains()).containsExactly("app-q");
      assertThat(in.orphans()).isEmpty();
      assertThat(in.workers().get("app-q").get("n1"))
          .extracting(ContainerView::id)
          .containsExactly("q1");
      assertThat(in.state().allocation("app-q")).isEqualTo(on("n1", 2));
      assertThat(in.roomFromDrains()).isEqualTo(Map.of("n1", 2));
      assertThat(serverGpus(in.state(), "n1"))
          .as("8 less P3 draining, plus the 2 of them that are Q's")
          .isEqualTo(8);
    }

    @Test
    @DisplayName("is modelled queued when the drains would not make room enough")
    void drainsTooSmall() {
      RoundInput in =
          translate(
              List.of(
                  node(
                      "n1",
                      8,
                      worker("p1", "app-p", 2),
                      worker("p2", "app-p", 2),
                      worker("p3", "app-p", 2),
                      worker("x1", "other", 1))),
              apps(app("app-p", 2, 4, 2, 0), app("app-q", 2, 2, 2, 2)),
              book("app-p", on("n1", 2), "app-q", on("n1", 2)),
              Set.of("p3"),
              Set.of());
      assertThat(in.awaitingDrains()).isEmpty();
      assertThat(in.state().hasJob("app-q")).isTrue();
      assertThat(in.state().isRunning("app-q")).isFalse();
    }

    @Test
    @DisplayName("is modelled queued when its ApplicationMaster no longer asks for its gang")
    void noLongerAsks() {
      RoundInput in =
          translate(
              List.of(
                  node(
                      "n1",
                      8,
                      worker("p1", "app-p", 2),
                      worker("p2", "app-p", 2),
                      worker("p3", "app-p", 2))),
              apps(app("app-p", 2, 4, 2, 0), app("app-q", 2, 2, 2, 1)),
              book("app-p", on("n1", 2), "app-q", on("n1", 2)),
              Set.of("p3"),
              Set.of());
      assertThat(in.awaitingDrains()).isEmpty();
      assertThat(in.state().isRunning("app-q")).isFalse();
    }

    @Test
    @DisplayName("on a fenced node, is dropped as any promise there")
    void fencedNode() {
      RoundInput in =
          translate(
              List.of(
                  node(
                      "n1",
                      8,
                      worker("p1", "app-p", 2),
                      worker("p2", "app-p", 2),
                      worker("p3", "app-p", 2))),
              apps(app("app-p", 2, 4, 2, 0), app("app-q", 2, 2, 2, 2)),
              book("app-p", on("n1", 2), "app-q", on("n1", 2)),
              Set.of("p3"),
              Set.of("n1"));
      assertThat(in.awaitingDrains()).isEmpty();
      assertThat(in.state().isRunning("app-q")).isFalse();
    }
  }

  @Nested
  @DisplayName("promises of the last round")
  class Promises {
    @Test
    @DisplayName("an admitted gang's unfilled promise counts as allocated")
    void unfilledPromiseCountsAsAllocated() {
      RoundInput in =
          translate(
              List.of(node("n1", 4), node("n2", 4)),
              apps(app("app-a", 3, 3, 1, 3)),
              book("app-a", on("n1", 2, "n2", 1)));
      assertThat(in.state().allocation("app-a")).isEqualTo(on("n1", 2, "n2", 1));
      assertThat(in.state().freeGpus("n1")).isEqualTo(2);
      assertThat(in.liveWorkers("app-a")).as("promised workers are not live workers").isZero();
      assertThat(in.orphans()).isEmpty();
    }

    @Test
    @DisplayName("a gang half started counts as started: per node, the larger of live and promised")
    void halfStartedGang() {
      RoundInput in =
          translate(
              List.of(node("n1", 4, worker("w1", "app-a", 1)), node("n2", 4)),
              apps(app("app-a", 3, 3, 1, 2)),
              book("app-a", on("n1", 2, "n2", 1)));
      assertThat(in.state().allocation("app-a")).isEqualTo(on("n1", 2, "n2", 1));
      assertThat(in.liveWorkers("app-a")).isEqualTo(1);
      assertThat(in.orphans()).isEmpty();
    }

    @Test
    @DisplayName("a promise on a fenced node is dropped")
    void fencedPromiseDropped() {
      RoundInput in =
          translate(
              List.of(node("n1", 4), node("n2", 4)),
              apps(app("app-a", 2, 2, 1, 2)),
              book("app-a", on("n1", 2)),
              Set.of(),
              Set.of("n1"));
      assertThat(in.state().isRunning("app-a")).isFalse();
      assertThat(in.state().hasJob("app-a")).as("modelled queued").isTrue();
      assertThat(in.state().server("n1").fenced()).isTrue();
      assertThat(in.state().server("n2").fenced()).isFalse();
    }

    @Test
    @DisplayName("a promise on a node that left the cluster is dropped")
    void promiseOnLostNodeDropped() {
      RoundInput in =
          translate(
              List.of(node("n1", 4)), apps(app("app-a", 1, 2, 1, 2)), book("app-a", on("gone", 2)));
      assertThat(in.state().isRunning("app-a")).isFalse();
      assertThat(in.state().servers()).extracting(Server::id).containsExactly("n1");
    }

    @Test
    @DisplayName("a promise on a node no longer labelled training is dropped")
    void promiseOnRelabelledNodeDropped() {
      RoundInput in =
          translate(
              List.of(labelled("n1", "inference", 4), node("n2", 4)),
              apps(app("app-a", 1, 2, 1, 2)),
              book("app-a", on("n1", 2)));
      assertThat(in.state().isRunning("app-a")).isFalse();
    }

    @Test
    @DisplayName("a promise counts only as far as the room left once others took GPUs")
    void promiseLimitedByRoom() {
      // Another application took 3 of n1's 4 GPUs: one of the two promised workers still fits
      // there.
      RoundInput in =
          translate(
              List.of(node("n1", 4, worker("x1", "other", 3)), node("n2", 4)),
              apps(app("app-a", 1, 4, 1, 3)),
              book("app-a", on("n1", 2, "n2", 1)));
      assertThat(in.state().allocation("app-a")).isEqualTo(on("n1", 1, "n2", 1));
      assertThat(in.state().freeGpus("n1")).isZero();
    }

    @Test
    @DisplayName("a gang whose promise no longer fits and that holds nothing is modelled queued")
    void gangThatNoLongerFitsIsQueued() {
      RoundInput in =
          translate(
              List.of(node("n1", 4, worker("x1", "other", 3))),
              apps(app("app-a", 2, 2, 1, 2)),
              book("app-a", on("n1", 2)));
      assertThat(in.state().isRunning("app-a")).isFalse();
      assertThat(in.state().hasJob("app-a")).isTrue();
      assertThat(in.orphans()).isEmpty();
      assertThat(in.state().freeGpus("n1")).isEqualTo(1);
    }

    @Test
    @DisplayName(
        "promises of two jobs on one node: the first in id order fills first, the second gets what is left")
    void competingPromises() {
      RoundInput in =
          translate(
              List.of(node("n1", 4)),
              apps(app("app-a", 1, 3, 1, 3), app("app-b", 1, 3, 1, 3)),
              book("app-a", on("n1", 3), "app-b", on("n1", 3)));
      assertThat(in.state().allocation("app-a")).isEqualTo(on("n1", 3));
      assertThat(in.state().allocation("app-b")).isEqualTo(on("n1", 1));
      assertThat(in.state().usedGpus("n1")).isEqualTo(4);
    }

    @Test
    @DisplayName("live workers come first: a promise never displaces another job's live workers")
    void liveBeforePromises() {
      RoundInput in =
          translate(
              List.of(
                  node(
                      "n1",
                      4,
                      worker("b1", "app-b", 1),
                      worker("b2", "app-b", 1),
                      worker("b3", "app-b", 1))),
              apps(app("app-a", 1, 3, 1, 3), app("app-b", 3, 3, 1, 0)),
              book("app-a", on("n1", 3)));
      assertThat(in.state().allocation("app-b")).isEqualTo(on("n1", 3));
      assertThat(in.state().allocation("app-a")).isEqualTo(on("n1", 1));
    }

    @Test
    @DisplayName("a promise of an application that is gone is ignored")
    void promiseOfGoneAppIgnored() {
      RoundInput in = translate(List.of(node("n1", 4)), apps(), book("app-gone", on("n1", 4)));
      assertThat(in.state().jobs()).isEmpty();
      assertThat(in.state().freeGpus("n1")).isEqualTo(4);
    }

    @Test
    @DisplayName(
        "live workers on one node and a promise on another never model more than the job's max")
    void liveAndPromiseElsewhereCappedAtMax() {
      // The book (an earlier round) moved app-a's flexible worker from n2 to n3, but a worker
      // reached n2 under the
      // book before it: live n1:1 + n2:1 is already the job's max of 2, so n3's promise cannot be
      // counted on top.
      RoundInput in =
          translate(
              List.of(
                  node("n1", 4, worker("w1", "app-a", 1)),
                  node("n2", 4, worker("w2", "app-a", 1)),
                  node("n3", 4)),
              apps(app("app-a", 1, 2, 1, 0)),
              book("app-a", on("n1", 1, "n3", 1)));
      Allocation a = in.state().allocation("app-a");
      assertThat(a.totalWorkers()).isEqualTo(2);
      assertThat(a.workersOn("n1")).isEqualTo(1);
      assertThat(a.workersOn("n2")).as("live workers are never hidden").isEqualTo(1);
      assertThat(in.state().freeGpus("n3")).isEqualTo(4);
    }
  }

  @Nested
  @DisplayName("GPUs the plan does not own")
  class BlockedGpus {
    @Test
    @DisplayName(
        "other applications', ApplicationMasters' and draining workers' GPUs leave the server's capacity")
    void takenOutOfCapacity() {
      ContainerView draining = worker("w-draining", "app-a", 1);
      ContainerView live = worker("w-live", "app-a", 1);
      RoundInput in =
          translate(
              List.of(
                  node(
                      "n1",
                      8,
                      worker("x1", "not-elastic", 2),
                      am("am-a", "app-a", 1),
                      draining,
                      live)),
              apps(app("app-a", 1, 4, 1, 0)),
              PlanBook.EMPTY,
              Set.of("w-draining"),
              Set.of());
      assertThat(serverGpus(in.state(), "n1")).isEqualTo(8 - 2 - 1 - 1);
      assertThat(in.state().allocation("app-a")).isEqualTo(on("n1", 1));
      assertThat(in.workers().get("app-a").get("n1")).containsExactly(live);
    }

    @Test
    @DisplayName("a node wholly taken by others is no server at all")
    void fullNodeIsNoServer() {
      RoundInput in =
          translate(
              List.of(node("n1", 4, worker("x1", "not-elastic", 4)), node("n2", 2)),
              apps(app("app-a", 1, 1, 1, 1)),
              PlanBook.EMPTY);
      assertThat(in.state().servers()).extracting(Server::id).containsExactly("n2");
    }

    @Test
    @DisplayName("a job too wide for the room any server has now is left out")
    void tooWideLeftOut() {
      RoundInput in =
          translate(
              List.of(node("n1", 8, worker("x1", "not-elastic", 6)), node("n2", 4)),
              apps(app("app-a", 1, 1, 8, 1)),
              PlanBook.EMPTY);
      assertThat(in.state().hasJob("app-a")).isFalse();
    }

    @Test
    @DisplayName("containers with no GPUs take nothing")
    void zeroGpuContainers() {
      RoundInput in =
          translate(
              List.of(node("n1", 4, worker("x1", "not-elastic", 0), am("am-a", "app-a", 0))),
              apps(app("app-a", 1, 1, 1, 1)),
              PlanBook.EMPTY);
      assertThat(serverGpus(in.state(), "n1")).isEqualTo(4);
    }
  }

  @Nested
  @DisplayName("partial gangs")
  class PartialGangs {
    @Test
    @DisplayName(
        "a partial gang with no promise is drained: its workers are orphans and the job is modelled queued")
    void partialGangWithoutPromiseIsDrained() {
      ContainerView w1 = worker("w1", "app-a", 1);
      // Its ApplicationMaster asks again for the whole gang.
      RoundInput in =
          translate(
              List.of(node("n1", 4, w1), node("n2", 4)),
              apps(app("app-a", 2, 2, 1, 2)),
              PlanBook.EMPTY);
      assertThat(in.orphans()).containsExactly(w1);
      assertThat(in.workers()).doesNotContainKey("app-a");
      assertThat(in.liveWorkers("app-a")).isZero();
      assertThat(in.state().hasJob("app-a")).isTrue();
      assertThat(in.state().isRunning("app-a")).isFalse();
      assertThat(serverGpus(in.state(), "n1"))
          .as("the orphan holds its GPU until drained")
          .isEqualTo(3);
    }

    @Test
    @DisplayName("a partial gang whose promise was on a fenced node is drained")
    void partialGangWithFencedPromise() {
      ContainerView w1 = worker("w1", "app-a", 1);
      RoundInput in =
          translate(
              List.of(node("n1", 4, w1), node("n2", 4)),
              apps(app("app-a", 2, 2, 1, 1)),
              book("app-a", on("n1", 1, "n2", 1)),
              Set.of(),
              Set.of("n2"));
      assertThat(in.orphans()).containsExactly(w1);
      assertThat(in.state().isRunning("app-a")).isFalse();
    }

    @Test
    @DisplayName(
        "a partial gang spread over nodes is drained on every node, and none of its promise is kept")
    void partialGangOnSeveralNodes() {
      ContainerView w1 = worker("w1", "app-a", 2);
      ContainerView w2 = worker("w2", "app-a", 2);
      // Promised 3 workers of 2 GPUs; the room for the third (on n3) was taken by another
      // application.
      RoundInput in =
          translate(
              List.of(node("n1", 4, w1), node("n2", 4, w2), node("n3", 4, worker("x", "o", 3))),
              apps(app("app-a", 3, 3, 2, 3)),
              book("app-a", on("n1", 1, "n2", 1, "n3", 1)));
      assertThat(in.orphans()).containsExactlyInAnyOrder(w1, w2);
      assertThat(in.state().allocations()).isEmpty();
      assertThat(serverGpus(in.state(), "n1")).isEqualTo(2);
      assertThat(serverGpus(in.state(), "n2")).isEqualTo(2);
      assertThat(serverGpus(in.state(), "n3")).isEqualTo(1);
    }

    @Test
    @DisplayName(
        "a partial gang whose ApplicationMaster asks only for the missing workers is left out while it drains")
    void partialGangAskingOnlyTheRestIsLeftOut() {
      // Holding 1 of 2 and asking 1 more: once its worker is an orphan, it asks for fewer than its
      // minimum.
      ContainerView w1 = worker("w1", "app-a", 1);
      RoundInput in =
          translate(List.of(node("n1", 4, w1)), apps(app("app-a", 2, 2, 1, 1)), PlanBook.EMPTY);
      assertThat(in.orphans()).containsExactly(w1);
      assertThat(in.state().hasJob("app-a")).isFalse();
    }

    @Test
    @DisplayName(
        "a partial gang's orphans are seen by every other job's fit, whatever the order of applications")
    void orphansSeenByEarlierJobs() {
      // app-a (one 4-GPU worker) sorts before app-b, whose lone worker on n1 is an orphan still
      // holding a GPU
      // there: no server has room for app-a's worker now.
      ContainerView orphan = worker("b1", "app-b", 1);
      Map<String, AppView> views = apps(app("app-a", 1, 1, 4, 1), app("app-b", 2, 2, 1, 1));
      assertThatCode(() -> translate(List.of(node("n1", 4, orphan)), views, PlanBook.EMPTY))
          .doesNotThrowAnyException();
      RoundInput in = translate(List.of(node("n1", 4, orphan)), views, PlanBook.EMPTY);
      assertThat(in.orphans()).containsExactly(orphan);
      assertThat(in.state().hasJob("app-a")).isFalse();
      assertThat(serverGpus(in.state(), "n1")).isEqualTo(3);
    }

    @Test
    @DisplayName("a gang at its minimum is not partial")
    void gangAtMinimum() {
      RoundInput in =
          translate(
              List.of(node("n1", 4, worker("w1", "app-a", 1), worker("w2", "app-a", 1))),
              apps(app("app-a", 2, 4, 1, 0)),
              PlanBook.EMPTY);
      assertThat(in.orphans()).isEmpty();
      assertThat(in.state().isRunning("app-a")).isTrue();
    }
  }

  @Nested
  @DisplayName("jobs not ready")
  class NotReady {
    static Stream<Arguments> asks() {
      // min, asked -> modelled?
      return Stream.of(
          Arguments.of(2, 0, false),
          Arguments.of(2, 1, false),
          Arguments.of(2, 2, true),
          Arguments.of(2, 5, true),
          Arguments.of(1, 1, true));
    }

    @ParameterizedTest(name = "min {0}, asking {1}: modelled {2}")
    @MethodSource("asks")
    @DisplayName(
        "a job holding nothing is modelled only once its ApplicationMaster asks for its whole gang")
    void modelledOnceWholeGangAsked(int min, int asked, boolean modelled) {
      RoundInput in =
          translate(List.of(node("n1", 4)), apps(app("app-a", min, 4, 1, asked)), PlanBook.EMPTY);
      assertThat(in.state().hasJob("app-a")).isEqualTo(modelled);
      assertThat(in.state().isRunning("app-a")).isFalse();
    }

    @Test
    @DisplayName(
        "an admitted gang still starting is modelled even before its ApplicationMaster asks")
    void admittedGangModelledBeforeAsking() {
      RoundInput in =
          translate(
              List.of(node("n1", 4)), apps(app("app-a", 2, 2, 1, 0)), book("app-a", on("n1", 2)));
      assertThat(in.state().isRunning("app-a")).isTrue();
    }
  }

  @Nested
  @DisplayName("nodes")
  class Nodes {
    @Test
    @DisplayName("nodes labelled other than training are ignored, with what runs on them")
    void otherLabelsIgnored() {
      RoundInput in =
          translate(
              List.of(
                  labelled("i1", "inference", 4, worker("w1", "app-a", 1)),
                  labelled("d1", "", 8),
                  node("n1", 4)),
              apps(app("app-a", 1, 2, 1, 0)),
              PlanBook.EMPTY);
      assertThat(in.state().servers()).extracting(Server::id).containsExactly("n1");
      assertThat(in.workers()).doesNotContainKey("app-a");
    }

    @Test
    @DisplayName(
        "inference-owned nodes labelled training become loaned servers of the inference pool")
    void inferenceOwnedAreLoaned() {
      RoundInput in =
          translate(
              List.of(node("inf-1", 4), node("n1", 4)),
              apps(),
              PlanBook.EMPTY,
              Set.of(),
              Set.of("inf-1"));
      Server loaned = in.state().server("inf-1");
      assertThat(loaned.pool()).isEqualTo(Pool.INFERENCE);
      assertThat(loaned.loaned()).isTrue();
      assertThat(loaned.fenced()).isTrue();
      assertThat(loaned.gpuType()).isEqualTo(GPU);
      Server own = in.state().server("n1");
      assertThat(own.pool()).isEqualTo(Pool.TRAINING);
      assertThat(own.loaned()).isFalse();
      assertThat(own.fenced()).isFalse();
    }

    @Test
    @DisplayName(
        "live workers on a fenced node stay in the allocation; only new promises there are dropped")
    void fencedNodeKeepsLiveWorkers() {
      RoundInput in =
          translate(
              List.of(node("inf-1", 4, worker("w1", "app-a", 1)), node("n1", 4)),
              apps(app("app-a", 1, 3, 1, 0)),
              book("app-a", on("inf-1", 3)),
              Set.of(),
              Set.of("inf-1"));
      assertThat(in.state().allocation("app-a")).isEqualTo(on("inf-1", 1));
    }

    @Test
    @DisplayName(
        "a node learnt to be inference's is loaned from the round after its owners' count moves")
    void ownersLearntBetweenRounds() {
      Set<String> inference = new java.util.HashSet<>();
      java.util.concurrent.atomic.AtomicLong changes = new java.util.concurrent.atomic.AtomicLong();
      SnapshotTranslator translator =
          new SnapshotTranslator(
              TRAINING,
              GPU,
              inference::contains,
              changes::get,
              io.aryl.core.speedup.SpeedupModel.linear());
      List<NodeView> nodes = List.of(node("n1", 4), node("n2", 4));

      assertThat(
              translator
                  .translate(100, nodes, apps(), PlanBook.EMPTY, Set.of(), Set.of(), Map.of())
                  .state()
                  .server("n2")
                  .loaned())
          .isFalse();
      inference.add("n2");
      changes.incrementAndGet();
      Server n2 =
          translator
              .translate(101, nodes, apps(), PlanBook.EMPTY, Set.of(), Set.of(), Map.of())
              .state()
              .server("n2");

      assertThat(n2.loaned()).isTrue();
      assertThat(n2.pool()).isEqualTo(Pool.INFERENCE);
    }

    @Test
    @DisplayName("no nodes and no applications: an empty, valid snapshot")
    void empty() {
      RoundInput in = translate(List.of(), apps(), PlanBook.EMPTY);
      assertThat(in.state().servers()).isEmpty();
      assertThat(in.state().jobs()).isEmpty();
      assertThat(in.state().nowS()).isEqualTo(100);
    }
  }
}
