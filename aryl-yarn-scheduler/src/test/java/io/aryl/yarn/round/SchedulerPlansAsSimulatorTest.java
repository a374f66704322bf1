package io.aryl.yarn.round;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.aryl.core.ArylPolicy;
import io.aryl.core.RoundPlanner;
import io.aryl.core.job.JobShape;
import io.aryl.core.model.Allocation;
import io.aryl.core.model.ClusterState;
import io.aryl.core.model.GpuType;
import io.aryl.core.model.Job;
import io.aryl.core.model.Plan;
import io.aryl.core.model.Server;
import io.aryl.sim.engine.PolicySpec;
import io.aryl.sim.engine.SimConfig;
import io.aryl.sim.engine.Simulator;
import io.aryl.sim.trace.InferenceCurve;
import io.aryl.sim.trace.TraceJob;
import io.aryl.yarn.conf.ArylSettings;
import io.aryl.yarn.conf.GpuCatalog;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The scheduler decides as the simulator does. The simulator runs a seeded trace on a cluster of
 * two GPU types (inference GPUs train at half speed) with loans, reclaims, elastic and rigid jobs;
 * every round it plans is recorded. Each recorded snapshot is then shown to the scheduler as the
 * ResourceManager would show it (nodes with their label, GPU type and one container per worker;
 * applications with their job shape, their AM's asks and their measured progress), translated by
 * {@link SnapshotTranslator}, and planned by aryl-core with the settings an operator would write
 * for the same policy. The translated snapshot must hold what the simulator's held, in everything
 * the planner reads, and the plan must be the simulator's.
 *
 * <p>What legitimately differs is mapped explicitly, see {@link RmView}: names (YARN's node and
 * application ids), inference servers not on loan (the ResourceManager shows them in the inference
 * partition, which the translator leaves out of the training plan), and the true remaining work
 * (only a simulator knows it; both sides plan on the prediction). What the scheduler then does —
 * the promises, the workers it asks back, the reclaims it starts — is held to what the simulator
 * did by {@link SchedulerActsAsSimulatorTest}, on the same runs and through the same mapping.
 */
@DisplayName("the scheduler's translated snapshot plans as the simulator's")
class SchedulerPlansAsSimulatorTest {
  private static final double INFERENCE_SPEED = 0.5;
  static final double END_S = 30_000;
  private static final double EPS = 1e-6;

  /**
   * 3 training and 4 inference servers of 8 GPUs; demand swings between low (lend 2) and peak (take
   * them back).
   */
  static final SimConfig CFG = SimConfig.defaults(3, 4).withInferenceGpuSpeed(INFERENCE_SPEED);

  static final InferenceCurve CURVE =
      new InferenceCurve("m", 2_700, new double[] {10, 100, 10, 55, 25});

  /** One snapshot the simulator planned, and its plan. */
  private record Round(ClusterState state, Plan plan) {}

  @ParameterizedTest(name = "{0}")
  @EnumSource(ArylPolicy.class)
  @DisplayName("for every round of a seeded run, both sides see the same cluster and plan the same")
  void samePlans(ArylPolicy named) {
    String policy = named.policyName();
    int compared = 0;
    int withLoans = 0;
    int withFenced = 0;
    int changes = 0;
    for (long seed = 1; seed <= 2; seed++) {
      List<TraceJob> trace = trace(seed);
      Names names = new Names(trace);
      List<Round> rounds = new ArrayList<>();
      new Simulator(CFG, PolicySpec.named(policy), CURVE, 0, 0.5, 0.3, seed)
          .observeRounds((state, plan) -> rounds.add(new Round(state, plan)))
          .run(trace, 0, END_S, 4 * END_S, null);

      ArylSettings settings = settings(policy);
      SnapshotTranslator translator =
          new SnapshotTranslator(
              settings.trainingLabel(),
              GpuType.of(settings.gpuType()),
              settings::configuredAsInference,
              settings.speedup());
      RoundPlanner planner = new RoundPlanner(settings.policy());
      for (Round r : rounds) {
        RmView rm = RmView.of(r.state(), names, settings);
        ClusterState translated =
            translator
                .translate(
                    r.state().nowS(),
                    rm.nodes,
                    rm.apps,
                    PlanBook.EMPTY,
                    Set.of(),
                    rm.fenced,
                    rm.progress)
                .state();
        String at = policy + " seed " + seed + " t=" + r.state().nowS() + ": ";

        assertSameCluster(at, r.state(), translated, names);
        Plan plan = planner.plan(translated);
        assertThat(names.targetsBack(plan.targets()))
            .as(at + "targets")
            .isEqualTo(r.plan().targets());
        assertThat(names.jobsBack(plan.changes())).as(at + "changes").isEqualTo(r.plan().changes());

        compared++;
        withLoans += r.state().servers().stream().anyMatch(Server::loaned) ? 1 : 0;
        withFenced += r.state().servers().stream().anyMatch(Server::fenced) ? 1 : 0;
        changes += r.plan().changes().size();
      }
    }
    // The runs must have exercised what the comparison is about, or it proves little (each policy
    // plans some 270
    // rounds, most with servers on loan, a dozen with one being returned).
    assertThat(compared).as("rounds compared").isGreaterThanOrEqualTo(150);
    assertThat(withLoans).as("rounds with servers on loan").isGreaterThan(compared / 4);
    assertThat(withFenced).as("rounds with a loaned server on its way back").isPositive();
    assertThat(changes).as("changes planned").isGreaterThan(compared);
  }

  /** What an operator sets to run the simulator's policy on the simulator's cluster. */
  static ArylSettings settings(String policy) {
    Map<String, String> conf = new HashMap<>();
    conf.put("aryl.scheduler.policy", policy);
    // The simulator's aryl+ is speed-aware and values spare GPUs shortest remaining first
    // (PolicySpec.ARYL_CORE_PLUS);
    // the scheduler sets the two apart.
    conf.put(
        "aryl.scheduler.elastic-value",
        policy.equals(ArylPolicy.ARYL_PLUS.policyName())
            ? "shortest-remaining-first"
            : "jct-reduction");
    conf.put("aryl.scheduler.gpu-types", "training-gpu,inference-gpu");
    conf.put("aryl.scheduler.gpu-type.inference-gpu.speed", Double.toString(INFERENCE_SPEED));
    conf.put("aryl.scheduler.inference.nodes", "i\\d+\\.gpu\\.example:8041");
    conf.put("aryl.scheduler.starvation-wait-s", Double.toString(CFG.starvationWaitS()));
    conf.put("aryl.scheduler.rescale-overhead-s", Double.toString(CFG.rescaleOverheadS()));
    conf.put("aryl.scheduler.speedup-exponent", Double.toString(CFG.speedupExponent()));
    return ArylSettings.from(conf);
  }

  /**
   * A seeded trace: a few rigid multi-server gangs among many small and mid-size jobs of three
   * model families.
   */
  static List<TraceJob> trace(long seed) {
    Random rnd = new Random(seed);
    int[] sizes = {1, 1, 2, 2, 4, 4, 8, 16};
    String[] models = {"resnet50", "bert", "gpt2"};
    List<TraceJob> jobs = new ArrayList<>();
    for (int i = 0; i < 70; i++) {
      double submit = Math.floor(rnd.nextDouble() * END_S * 0.8);
      double duration = 300 + Math.floor(-Math.log(1 - rnd.nextDouble()) * 3_000);
      jobs.add(
          new TraceJob(
              String.format("job%03d", i),
              submit,
              duration,
              sizes[rnd.nextInt(sizes.length)],
              models[rnd.nextInt(models.length)]));
    }
    return jobs;
  }

  // --- (a) the same cluster
  // ----------------------------------------------------------------------------------------

  static void assertSameCluster(String at, ClusterState sim, ClusterState rm, Names names) {
    assertThat(rm.nowS()).as(at + "now").isEqualTo(sim.nowS());
    assertThat(rm.tenants()).as(at + "tenants").isEqualTo(sim.tenants());

    Map<String, Server> rmServers = new TreeMap<>();
    rm.servers().forEach(s -> rmServers.put(names.serverBack(s.id()), s));
    Map<String, Server> simServers = new TreeMap<>();
    sim.servers().stream().filter(Server::servesTraining).forEach(s -> simServers.put(s.id(), s));
    assertThat(rmServers.keySet())
        .as(at + "servers serving training")
        .isEqualTo(simServers.keySet());
    simServers.forEach(
        (id, s) -> {
          Server r = rmServers.get(id);
          String of = at + "server " + id + " ";
          assertThat(r.gpus()).as(of + "GPUs").isEqualTo(s.gpus());
          assertThat(r.gpuType()).as(of + "GPU type and speed").isEqualTo(s.gpuType());
          assertThat(r.pool()).as(of + "pool").isEqualTo(s.pool());
          assertThat(r.loaned()).as(of + "loaned").isEqualTo(s.loaned());
          assertThat(r.fenced()).as(of + "fenced").isEqualTo(s.fenced());
        });

    assertThat(rm.jobs()).as(at + "jobs").hasSameSizeAs(sim.jobs());
    for (Job s : sim.jobs()) {
      Job r = rm.job(names.app(s.id()));
      String of = at + "job " + s.id() + " ";
      assertThat(r.gpusPerWorker()).as(of + "GPUs per worker").isEqualTo(s.gpusPerWorker());
      assertThat(r.minWorkers()).as(of + "min workers").isEqualTo(s.minWorkers());
      assertThat(r.maxWorkers()).as(of + "max workers").isEqualTo(s.maxWorkers());
      assertThat(r.allowedGpuTypes()).as(of + "allowed GPU types").isEqualTo(s.allowedGpuTypes());
      assertThat(r.predictedRemainingS())
          .as(of + "predicted remaining")
          .isCloseTo(s.predictedRemainingS(), within(EPS * Math.max(1, s.predictedRemainingS())));
      assertThat(r.attainedS())
          .as(of + "attained")
          .isCloseTo(s.attainedS(), within(EPS * Math.max(1, s.attainedS())));
      assertThat(r.sinceCheckpointS())
          .as(of + "since checkpoint")
          .isCloseTo(s.sinceCheckpointS(), within(EPS));
      assertThat(r.submitTimeS()).as(of + "submitted").isEqualTo(s.submitTimeS());
      assertThat(r.kind()).as(of + "kind").isEqualTo(s.kind());
      assertThat(r.tenant()).as(of + "tenant").isEqualTo(s.tenant());
      assertThat(r.speedup()).as(of + "speed-up model").isEqualTo(s.speedup());
    }
    assertThat(names.targetsBack(rm.allocations()))
        .as(at + "allocations")
        .isEqualTo(sim.allocations());
  }

  // --- the ResourceManager's view of a simulated snapshot
  // ----------------------------------------------------------

  /**
   * A simulated snapshot as the ResourceManager shows it. Mapped on purpose:
   *
   * <ul>
   *   <li>Names: a server {@code t00001} is node {@code t00001.gpu.example:8041}, a job is an
   *       application id numbered in the order of the trace's ids. Both keep the simulator's order,
   *       which the planner breaks ties by.
   *   <li>Clock: the scheduler's clock starts when it became active, the simulator's at its time 0;
   *       the two are taken to be the same instant, so times pass through unchanged.
   *   <li>Loans: a training server and a loaned inference server carry the training label, an
   *       inference server not on loan the inference label; inference owns {@code i*} nodes ({@code
   *       aryl.scheduler.inference.nodes}). A fenced server is one the scheduler is returning.
   *   <li>Workers: one container per worker of every running job. The simulator applies a plan at
   *       once, so no promise is outstanding between rounds: the plan book is empty.
   *   <li>Asks: an ApplicationMaster asks for every worker up to its job's maximum beyond those it
   *       holds (the translator caps a job's width at what it asks).
   *   <li>Work: the job's tag announces the runtime the simulator predicts (work done plus
   *       predicted remaining); its progress is the work done and the seconds since its last
   *       checkpoint. The simulator's true remaining work is what no ResourceManager knows: the
   *       planner reads only the prediction.
   * </ul>
   */
  static final class RmView {
    final List<NodeView> nodes = new ArrayList<>();
    final Map<String, AppView> apps = new TreeMap<>();
    final Set<String> fenced = new HashSet<>();
    final Map<String, JobProgress> progress = new HashMap<>();

    static RmView of(ClusterState sim, Names names, ArylSettings settings) {
      RmView v = new RmView();
      long seq = 0;
      for (Server s : sim.servers()) {
        String node = names.node(s.id());
        List<ContainerView> containers = new ArrayList<>();
        for (Map.Entry<String, Integer> e : sim.workersOn(s.id()).entrySet()) {
          Job j = sim.job(e.getKey());
          for (int w = 0; w < e.getValue(); w++) {
            seq++;
            containers.add(
                new ContainerView(
                    "container_" + seq, names.app(j.id()), seq, j.gpusPerWorker(), false));
          }
        }
        String label = s.servesTraining() ? settings.trainingLabel() : settings.inferenceLabel();
        GpuCatalog.Resolution type =
            settings.gpus().resolve(node, Map.of("gpu-type", s.gpuType().name()));
        v.nodes.add(new NodeView(node, label, s.gpus(), containers, type.type(), type.error()));
        if (s.fenced()) {
          v.fenced.add(node);
        }
      }
      for (Job j : sim.jobs()) {
        String app = names.app(j.id());
        int live = sim.allocation(j.id()).totalWorkers();
        JobShape shape =
            new JobShape(
                j.minWorkers(),
                j.maxWorkers(),
                j.gpusPerWorker(),
                j.attainedS() + j.predictedRemainingS(),
                j.kind(),
                j.allowedGpuTypes());
        v.apps.put(
            app,
            new AppView(app, shape, j.submitTimeS(), j.maxWorkers() - live, j.tenant(), false));
        v.progress.put(app, new JobProgress(j.attainedS(), j.sinceCheckpointS(), j.preemptions()));
      }
      return v;
    }
  }

  /** The simulator's names and YARN's, both ways, keeping the simulator's order. */
  static final class Names {
    private final Map<String, String> apps = new HashMap<>();
    private final Map<String, String> jobs = new HashMap<>();

    Names(List<TraceJob> trace) {
      TreeSet<String> ids = new TreeSet<>();
      trace.forEach(t -> ids.add(t.id()));
      int n = 0;
      for (String id : ids) {
        String app = String.format("application_1700000000000_%06d", ++n);
        apps.put(id, app);
        jobs.put(app, id);
      }
    }

    String app(String job) {
      return apps.get(job);
    }

    String job(String app) {
      return jobs.get(app);
    }

    String node(String server) {
      return server + ".gpu.example:8041";
    }

    String serverBack(String node) {
      return node.substring(0, node.indexOf('.'));
    }

    Map<String, Allocation> targetsBack(Map<String, Allocation> byApp) {
      Map<String, Allocation> out = new TreeMap<>();
      byApp.forEach(
          (app, a) -> {
            Map<String, Integer> w = new TreeMap<>();
            a.workersByServer().forEach((node, n) -> w.put(serverBack(node), n));
            out.put(jobs.get(app), Allocation.of(w));
          });
      return out;
    }

    <V> Map<String, V> jobsBack(Map<String, V> byApp) {
      Map<String, V> out = new TreeMap<>();
      byApp.forEach((app, v) -> out.put(jobs.get(app), v));
      return out;
    }
  }
}
