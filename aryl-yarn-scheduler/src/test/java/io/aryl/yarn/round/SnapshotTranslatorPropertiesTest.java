package io.aryl.yarn.round;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import io.aryl.core.PolicyConfig;
import io.aryl.core.RoundPlanner;
import io.aryl.core.job.JobShape;
import io.aryl.core.model.Allocation;
import io.aryl.core.model.ClusterState;
import io.aryl.core.model.GpuType;
import io.aryl.core.model.Plan;
import io.aryl.core.model.Pool;
import io.aryl.core.model.Server;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import net.jqwik.api.ForAll;
import net.jqwik.api.Label;
import net.jqwik.api.Property;

/**
 * What must hold for every snapshot the translator builds, on random clusters: any mix of training,
 * inference and unlabelled nodes, loaned and fenced nodes, elastic applications (queued, starting,
 * running, partial), their ApplicationMasters, other applications' containers, draining containers,
 * and promises of an earlier round that may no longer fit (nodes gone, fenced, relabelled, or
 * filled by others since).
 *
 * <p>The RM's side is physically consistent: no node holds more GPUs than it has, every worker
 * container has its job's GPUs per worker, and no job holds more workers than its max (the job
 * contract). The promises are any plan an earlier round could have made: per job between min and
 * max workers, on any node.
 *
 * <p>The translator must never throw on such input: a round that throws plans nothing, and the next
 * round reads the same state.
 */
class SnapshotTranslatorPropertiesTest {
  private static final String TRAINING = "training";
  private static final GpuType GPU = GpuType.of("gpu");
  private static final SnapshotTranslator TRANSLATOR =
      new SnapshotTranslator(TRAINING, GPU, SnapshotTranslatorPropertiesTest::inferenceOwned);

  /** Inference owns the nodes whose names say so. */
  private static boolean inferenceOwned(String node) {
    return node.startsWith("inf");
  }

  /** One random input of {@link SnapshotTranslator#translate}. */
  record Scenario(
      double nowS,
      List<NodeView> nodes,
      Map<String, AppView> apps,
      PlanBook book,
      Set<String> draining,
      Set<String> fenced,
      Map<String, JobProgress> progress) {

    RoundInput translate() {
      return translateWith(TRANSLATOR);
    }

    RoundInput translateWith(SnapshotTranslator translator) {
      return translator.translate(nowS, nodes, apps, book, draining, fenced, progress);
    }

    @Override
    public String toString() {
      StringBuilder b = new StringBuilder("\nnow ").append(nowS).append('\n');
      nodes.forEach(
          n ->
              b.append("node ")
                  .append(n.id())
                  .append(" '")
                  .append(n.label())
                  .append("' ")
                  .append(n.gpus())
                  .append(" GPUs ")
                  .append(n.containers())
                  .append('\n'));
      apps.values().forEach(a -> b.append("app ").append(a).append('\n'));
      b.append("book ").append(book.targets()).append('\n');
      b.append("draining ")
          .append(new TreeSet<>(draining))
          .append("\nfenced ")
          .append(new TreeSet<>(fenced));
      return b.toString();
    }

    static Scenario random(long seed) {
      Random r = new Random(seed);
      long[] seq = {0};

      List<String> nodeIds = new ArrayList<>();
      int nodeCount = 1 + r.nextInt(6);
      for (int i = 0; i < nodeCount; i++) {
        nodeIds.add((r.nextInt(3) == 0 ? "inf-" : "n") + i);
      }

      Map<String, AppView> apps = new TreeMap<>();
      int appCount = r.nextInt(6);
      double nowS = r.nextInt(3) == 0 ? 0 : r.nextDouble() * 10_000;
      for (int j = 0; j < appCount; j++) {
        int min = 1 + r.nextInt(3);
        int max = min + r.nextInt(4);
        int gpus = r.nextInt(8) == 0 ? 8 : 1 + r.nextInt(4);
        String id = "app-" + j;
        JobShape shape =
            new JobShape(min, max, gpus, 1 + r.nextInt(10_000), r.nextBoolean() ? "" : "k" + j);
        apps.put(id, new AppView(id, shape, r.nextDouble() * (nowS + 100), r.nextInt(max + 2)));
      }
      List<String> appIds = new ArrayList<>(apps.keySet());

      Map<String, Integer> held = new HashMap<>();
      Set<String> withAm = new HashSet<>();
      List<NodeView> nodes = new ArrayList<>();
      Set<String> draining = new HashSet<>();
      for (String id : nodeIds) {
        int gpus = r.nextInt(10) == 0 ? 0 : 1 + r.nextInt(8);
        int free = gpus;
        List<ContainerView> cs = new ArrayList<>();
        int attempts = r.nextInt(8);
        for (int k = 0; k < attempts; k++) {
          ContainerView c;
          int kind = r.nextInt(10);
          if (kind < 6 && !appIds.isEmpty()) {
            AppView a = apps.get(appIds.get(r.nextInt(appIds.size())));
            if (held.getOrDefault(a.id(), 0) >= a.shape().maxWorkers()) {
              continue;
            }
            c =
                new ContainerView(
                    id + "-c" + k, a.id(), ++seq[0], a.shape().gpusPerWorker(), false);
          } else if (kind < 8 && !appIds.isEmpty()) {
            String app = appIds.get(r.nextInt(appIds.size()));
            if (!withAm.add(app)) {
              continue;
            }
            c = new ContainerView(id + "-am" + k, app, ++seq[0], r.nextInt(2), true);
          } else {
            c =
                new ContainerView(
                    id + "-x" + k,
                    "other-" + r.nextInt(3),
                    ++seq[0],
                    r.nextInt(4),
                    r.nextInt(4) == 0);
          }
          if (c.gpus() > free) {
            continue;
          }
          free -= c.gpus();
          cs.add(c);
          if (!c.amContainer() && apps.containsKey(c.appId())) {
            held.merge(c.appId(), 1, Integer::sum);
          }
          if (r.nextInt(6) == 0) {
            draining.add(c.id());
          }
        }
        int label = r.nextInt(10);
        nodes.add(new NodeView(id, label < 8 ? TRAINING : label == 8 ? "inference" : "", gpus, cs));
      }

      Set<String> fenced = new HashSet<>();
      for (String id : nodeIds) {
        if (r.nextInt(5) == 0) {
          fenced.add(id);
        }
      }
      if (r.nextInt(10) == 0) {
        fenced.add("gone");
      }

      List<String> promiseNodes = new ArrayList<>(nodeIds);
      promiseNodes.add("gone");
      Map<String, Allocation> targets = new TreeMap<>();
      Map<String, JobProgress> progress = new HashMap<>();
      for (AppView a : apps.values()) {
        if (r.nextInt(5) < 3) {
          int total =
              a.shape().minWorkers()
                  + r.nextInt(a.shape().maxWorkers() - a.shape().minWorkers() + 1);
          Map<String, Integer> t = new TreeMap<>();
          for (int w = 0; w < total; w++) {
            t.merge(promiseNodes.get(r.nextInt(promiseNodes.size())), 1, Integer::sum);
          }
          targets.put(a.id(), Allocation.of(t));
        }
        if (r.nextBoolean()) {
          progress.put(a.id(), new JobProgress(r.nextDouble() * 12_000, r.nextDouble() * 600));
        }
      }
      if (r.nextInt(10) == 0) {
        targets.put("app-finished", Allocation.of(nodeIds.get(0), 1));
      }
      return new Scenario(
          nowS, nodes, apps, new PlanBook(targets, 1 + r.nextInt(100)), draining, fenced, progress);
    }
  }

  private static boolean isLiveWorker(Scenario s, NodeView n, ContainerView c) {
    return TRAINING.equals(n.label())
        && s.apps().containsKey(c.appId())
        && !c.amContainer()
        && !s.draining().contains(c.id());
  }

  @Property(tries = 1000)
  @Label(
      "a translator that translated other rounds before, or this very one, makes the snapshot a new one makes")
  void keptStateChangesNothing(@ForAll long seed, @ForAll long earlier) {
    Scenario s = Scenario.random(seed);
    SnapshotTranslator used =
        new SnapshotTranslator(TRAINING, GPU, SnapshotTranslatorPropertiesTest::inferenceOwned);
    Scenario.random(earlier).translateWith(used);
    RoundInput fresh =
        s.translateWith(
            new SnapshotTranslator(
                TRAINING, GPU, SnapshotTranslatorPropertiesTest::inferenceOwned));
    RoundInput afterAnother = s.translateWith(used);
    RoundInput again = s.translateWith(used);
    for (RoundInput in : List.of(afterAnother, again)) {
      assertThat(in.state().nowS()).as("%s", s).isEqualTo(fresh.state().nowS());
      assertThat(in.state().servers()).as("%s", s).isEqualTo(fresh.state().servers());
      assertThat(in.state().jobs()).as("%s", s).isEqualTo(fresh.state().jobs());
      assertThat(in.state().tenants()).as("%s", s).isEqualTo(fresh.state().tenants());
      for (var job : fresh.state().jobs()) {
        assertThat(in.state().allocation(job.id()))
            .as("%s of %s", job.id(), s)
            .isEqualTo(fresh.state().allocation(job.id()));
      }
      assertThat(in.workers()).isEqualTo(fresh.workers());
      assertThat(in.orphans()).isEqualTo(fresh.orphans());
      assertThat(in.surplus()).isEqualTo(fresh.surplus());
      assertThat(in.awaitingDrains()).isEqualTo(fresh.awaitingDrains());
      assertThat(in.roomFromDrains()).isEqualTo(fresh.roomFromDrains());
    }
    assertThat(again.state().servers())
        .as("an unchanged cluster keeps its very servers")
        .zipSatisfy(afterAnother.state().servers(), (a, b) -> assertThat(a).isSameAs(b));
  }

  @Property(tries = 3000)
  @Label("translate never throws: every snapshot is a valid ClusterState")
  void neverThrows(@ForAll long seed) {
    Scenario s = Scenario.random(seed);
    assertThatCode(s::translate).as("%s", s).doesNotThrowAnyException();
  }

  @Property(tries = 3000)
  @Label(
      "a server offers exactly its node's GPUs not held by containers outside the plan, but for those of drains a"
          + " gang waits for, which are the gang's: nothing is over-committed once the drains are gone")
  void neverOverCommits(@ForAll long seed) {
    Scenario s = Scenario.random(seed);
    RoundInput in = s.translate();
    ClusterState state = in.state();
    Set<ContainerView> modelled = new HashSet<>();
    in.workers().values().forEach(byNode -> byNode.values().forEach(modelled::addAll));

    Set<String> expectedServers = new TreeSet<>();
    for (NodeView n : s.nodes()) {
      if (!TRAINING.equals(n.label())) {
        continue;
      }
      int heldOutside =
          n.containers().stream()
              .filter(c -> !modelled.contains(c))
              .mapToInt(ContainerView::gpus)
              .sum();
      int fromDrains = in.roomFromDrains().getOrDefault(n.id(), 0);
      int offered = n.gpus() - heldOutside + fromDrains;
      if (offered <= 0) {
        continue;
      }
      expectedServers.add(n.id());
      Server server = state.server(n.id());
      assertThat(server.gpus()).as("GPUs offered by %s in %s", n.id(), s).isEqualTo(offered);
      assertThat(state.usedGpus(n.id()) + heldOutside - fromDrains)
          .as("GPUs in use on %s in %s", n.id(), s)
          .isLessThanOrEqualTo(n.gpus());
      boolean owned = inferenceOwned(n.id());
      assertThat(server.pool()).isEqualTo(owned ? Pool.INFERENCE : Pool.TRAINING);
      assertThat(server.loaned()).isEqualTo(owned);
      assertThat(server.fenced()).isEqualTo(s.fenced().contains(n.id()));
    }
    assertThat(state.servers())
        .extracting(Server::id)
        .as("servers of %s", s)
        .containsExactlyElementsOf(expectedServers);
  }

  @Property(tries = 3000)
  @Label(
      "every live worker is modelled in its job's allocation or reported as an orphan, never hidden")
  void everyLiveWorkerIsAccountedFor(@ForAll long seed) {
    Scenario s = Scenario.random(seed);
    RoundInput in = s.translate();
    ClusterState state = in.state();
    Set<String> orphanApps = new HashSet<>();
    in.orphans().forEach(c -> orphanApps.add(c.appId()));

    for (NodeView n : s.nodes()) {
      Map<String, Integer> liveByApp = new HashMap<>();
      for (ContainerView c : n.containers()) {
        boolean inWorkers =
            in.workers()
                .getOrDefault(c.appId(), Map.of())
                .getOrDefault(n.id(), List.of())
                .contains(c);
        boolean orphan = in.orphans().contains(c);
        if (isLiveWorker(s, n, c)) {
          assertThat(Stream.of(inWorkers, orphan).filter(b -> b).count())
              .as("%s on %s is a worker or an orphan, one only, in %s", c, n.id(), s)
              .isEqualTo(1);
          liveByApp.merge(c.appId(), 1, Integer::sum);
        } else {
          assertThat(inWorkers || orphan)
              .as("%s on %s is not a live worker in %s", c, n.id(), s)
              .isFalse();
        }
      }
      liveByApp.forEach(
          (app, live) -> {
            if (!orphanApps.contains(app)) {
              assertThat(state.allocation(app).workersOn(n.id()))
                  .as("%s on %s in %s", app, n.id(), s)
                  .isGreaterThanOrEqualTo(live);
            }
          });
    }
    for (String app : orphanApps) {
      assertThat(state.isRunning(app))
          .as("%s has orphans, so it does not run, in %s", app, s)
          .isFalse();
      assertThat(in.workers()).doesNotContainKey(app);
    }
    in.awaitingDrains()
        .forEach(
            app ->
                s.book()
                    .target(app)
                    .workersByServer()
                    .forEach(
                        (node, w) ->
                            assertThat(state.allocation(app).workersOn(node))
                                .as("%s waits for drains on its promise on %s, in %s", app, node, s)
                                .isGreaterThanOrEqualTo(w)));
  }

  @Property(tries = 3000)
  @Label(
      "a running job holds min..max workers, each node at most the larger of its live and promised workers")
  void allocationsFollowLiveWorkersAndPromises(@ForAll long seed) {
    Scenario s = Scenario.random(seed);
    RoundInput in = s.translate();
    in.state()
        .allocations()
        .forEach(
            (app, a) -> {
              JobShape shape = s.apps().get(app).shape();
              assertThat(a.totalWorkers())
                  .as("%s in %s", app, s)
                  .isBetween(shape.minWorkers(), shape.maxWorkers());
              a.workersByServer()
                  .forEach(
                      (node, w) -> {
                        int live =
                            in.workers()
                                .getOrDefault(app, Map.of())
                                .getOrDefault(node, List.of())
                                .size();
                        int promised = s.book().target(app).workersOn(node);
                        assertThat(w)
                            .as("%s on %s in %s", app, node, s)
                            .isLessThanOrEqualTo(Math.max(live, promised));
                        if (s.fenced().contains(node)) {
                          assertThat(w)
                              .as("%s on fenced %s takes no promised worker in %s", app, node, s)
                              .isEqualTo(live);
                        }
                      });
            });
    in.state().jobs().forEach(j -> assertThat(s.apps()).containsKey(j.id()));
  }

  @Property(tries = 1000)
  @Label("the round planner plans on every snapshot, and a shrink takes only modelled live workers")
  void plannableAndShrinkTakesOnlyModelledWorkers(@ForAll long seed) {
    Scenario s = Scenario.random(seed);
    RoundInput in = s.translate();
    Plan plan = new RoundPlanner(PolicyConfig.defaults()).plan(in.state());
    Set<ContainerView> modelled = new HashSet<>();
    in.workers().values().forEach(byNode -> byNode.values().forEach(modelled::addAll));
    List<ContainerView> shrink = ShrinkChooser.choose(in, plan);
    assertThat(modelled).as("%s", s).containsAll(shrink);
    assertThat(shrink).doesNotHaveDuplicates().noneMatch(in.orphans()::contains);
  }
}
