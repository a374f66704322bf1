package io.aryl.conf;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.api.conf.PoolConf;
import io.aryl.yarn.PlanAwareOrderingPolicy;
import io.aryl.yarn.conf.ArylConf;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.records.QueueState;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacitySchedulerConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.QueuePath;
import org.apache.hadoop.yarn.util.resource.DominantResourceCalculator;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The existing-cluster variant of capacity-scheduler.xml, read through Hadoop's own
 * CapacitySchedulerConfiguration: root.default kept for the jobs already submitted there, the two
 * GPU pools beside it, and the teams example at its end applied as it says.
 */
@DisplayName("existing-cluster capacity-scheduler.xml template")
class ExistingClusterTemplateTest {

  private static final String PREFIX = CapacitySchedulerConfiguration.PREFIX;
  private static final String INFERENCE = PoolConf.INFERENCE_LABEL.defaultValue();
  private static final String TRAINING = PoolConf.TRAINING_LABEL.defaultValue();

  /** The default partition: the unlabelled nodes, where the cluster's existing queues run. */
  private static final String DEFAULT_PARTITION = "";

  private static final QueuePath ROOT = new QueuePath("root");

  /** The queue MapReduce (and most other frameworks) submit to unless told otherwise. */
  private static final QueuePath DEFAULT_QUEUE = new QueuePath("root.default");

  private static final QueuePath INFERENCE_QUEUE =
      new QueuePath(ArylConf.INFERENCE_QUEUE.defaultValue());
  private static final QueuePath TRAINING_QUEUE =
      new QueuePath(ArylConf.TRAINING_QUEUE.defaultValue());

  private static Configuration raw() {
    return Templates.load(Templates.EXISTING_CLUSTER_CAPACITY_SCHEDULER);
  }

  /** false: do not also load a capacity-scheduler.xml that happens to be on the classpath. */
  private static CapacitySchedulerConfiguration cs(Configuration conf) {
    return new CapacitySchedulerConfiguration(conf, false);
  }

  private static List<QueuePath> children(CapacitySchedulerConfiguration cs, QueuePath parent) {
    List<QueuePath> out = new ArrayList<>();
    for (String name : cs.getQueues(parent)) {
      out.add(new QueuePath(parent.getFullPath() + "." + name));
    }
    return out;
  }

  /** The leaf queues at and below a queue. */
  private static List<QueuePath> leaves(CapacitySchedulerConfiguration cs, QueuePath queue) {
    List<QueuePath> kids = children(cs, queue);
    if (kids.isEmpty()) {
      return List.of(queue);
    }
    List<QueuePath> out = new ArrayList<>();
    kids.forEach(k -> out.addAll(leaves(cs, k)));
    return out;
  }

  /** The children's capacities in one partition, added up; the default partition is "". */
  private static float childCapacitySum(
      CapacitySchedulerConfiguration cs, QueuePath parent, String partition) {
    float sum = 0;
    for (QueuePath child : children(cs, parent)) {
      sum +=
          partition.isEmpty()
              ? cs.getNonLabeledQueueCapacity(child)
              : cs.getLabeledQueueCapacity(child, partition);
    }
    return sum;
  }

  /** Every queue that has children: the parents whose children's capacities must add up. */
  private static List<QueuePath> parents(CapacitySchedulerConfiguration cs, QueuePath queue) {
    List<QueuePath> out = new ArrayList<>();
    List<QueuePath> kids = children(cs, queue);
    if (!kids.isEmpty()) {
      out.add(queue);
      kids.forEach(k -> out.addAll(parents(cs, k)));
    }
    return out;
  }

  @Nested
  @DisplayName("read as raw properties")
  class RawProperties {
    private final Configuration raw = raw();

    @Test
    @DisplayName("has root.queues = default,inference,training: root.default kept, first")
    void rootQueues() {
      assertThat(raw.get(PREFIX + "root.queues")).isEqualTo("default,inference,training");
    }

    @Test
    @DisplayName("sets only yarn.scheduler.capacity.* properties")
    void onlySchedulerProperties() {
      assertThat(Templates.properties(Templates.EXISTING_CLUSTER_CAPACITY_SCHEDULER))
          .extracting(Templates.Property::name)
          .allSatisfy(name -> assertThat(name).startsWith(PREFIX));
    }

    @Test
    @DisplayName(
        "changes only root.default's capacity, maximum-capacity and labels: its ACLs, limits and state stay")
    void leavesTheRestOfRootDefaultAlone() {
      List<String> defaultKeys =
          Templates.properties(Templates.EXISTING_CLUSTER_CAPACITY_SCHEDULER).stream()
              .map(Templates.Property::name)
              .filter(n -> n.startsWith(PREFIX + "root.default."))
              .toList();
      assertThat(defaultKeys)
          .containsExactlyInAnyOrder(
              PREFIX + "root.default.capacity",
              PREFIX + "root.default.maximum-capacity",
              PREFIX + "root.default.accessible-node-labels");
    }

    @Test
    @DisplayName(
        "leaves the cluster-wide AM limit alone (existing queues keep theirs); the GPU queues set their own")
    void amLimitPerQueueOnly() {
      assertThat(
              raw.get(CapacitySchedulerConfiguration.MAXIMUM_APPLICATION_MASTERS_RESOURCE_PERCENT))
          .isNull();
      assertThat(raw.get(PREFIX + "root.inference.maximum-am-resource-percent")).isNotNull();
      assertThat(raw.get(PREFIX + "root.training.maximum-am-resource-percent")).isNotNull();
    }

    @Test
    @DisplayName("gives root 100% of both labels but does NOT set root.accessible-node-labels")
    void rootLabels() {
      assertThat(raw.get(PREFIX + "root.accessible-node-labels")).isNull();
      assertThat(raw.get(PREFIX + "root.accessible-node-labels." + INFERENCE + ".capacity"))
          .isEqualTo("100");
      assertThat(raw.get(PREFIX + "root.accessible-node-labels." + TRAINING + ".capacity"))
          .isEqualTo("100");
    }

    @Test
    @DisplayName(
        "sets root.default's labels to a single space, which the Capacity Scheduler reads as none")
    void defaultQueueLabelsAreASpace() {
      assertThat(raw.get(PREFIX + "root.default.accessible-node-labels")).isEqualTo(" ");
    }

    @Test
    @DisplayName("the resource calculator and per-heartbeat limits are the new-cluster template's")
    void sameSchedulingSettingsAsTheNewClusterTemplate() {
      Configuration newCluster = Templates.load(Templates.CAPACITY_SCHEDULER);
      for (String key :
          List.of(
              CapacitySchedulerConfiguration.RESOURCE_CALCULATOR_CLASS,
              CapacitySchedulerConfiguration.ASSIGN_MULTIPLE_ENABLED,
              CapacitySchedulerConfiguration.OFFSWITCH_PER_HEARTBEAT_LIMIT)) {
        assertThat(raw.get(key)).as(key).isNotNull().isEqualTo(newCluster.get(key));
      }
    }
  }

  @Nested
  @DisplayName("read through CapacitySchedulerConfiguration")
  class ThroughCapacitySchedulerConfiguration {
    private final CapacitySchedulerConfiguration cs = cs(raw());

    @Test
    @DisplayName("the calculator instantiated is a DominantResourceCalculator")
    void calculator() {
      assertThat(cs.getResourceCalculator()).isInstanceOf(DominantResourceCalculator.class);
    }

    @Test
    @DisplayName(
        "root's children are default and the two queues Aryl's defaults name, all three leaves")
    void queues() {
      assertThat(children(cs, ROOT))
          .containsExactly(DEFAULT_QUEUE, INFERENCE_QUEUE, TRAINING_QUEUE);
      assertThat(leaves(cs, ROOT)).containsExactly(DEFAULT_QUEUE, INFERENCE_QUEUE, TRAINING_QUEUE);
    }

    @Test
    @DisplayName(
        "in the default partition the top-level capacities add up to 100, each queue's positive")
    void defaultPartitionAddsUp() {
      assertThat(childCapacitySum(cs, ROOT, DEFAULT_PARTITION)).isEqualTo(100f);
      for (QueuePath q : children(cs, ROOT)) {
        assertThat(cs.getNonLabeledQueueCapacity(q))
            .as("default-partition capacity of %s", q)
            .isPositive();
      }
    }

    @ParameterizedTest(name = "partition {0}")
    @ValueSource(strings = {"inference", "training"})
    @DisplayName(
        "in each GPU partition the top-level capacities add up to 100, all of it the pool's own queue's")
    void gpuPartitionsAddUp(String label) {
      assertThat(childCapacitySum(cs, ROOT, label)).isEqualTo(100f);
      QueuePath owner = new QueuePath("root." + label);
      assertThat(cs.getLabeledQueueCapacity(owner, label)).isEqualTo(100f);
      assertThat(cs.getLabeledQueueMaximumCapacity(owner, label)).isEqualTo(100f);
      assertThat(cs.getLabeledQueueCapacity(DEFAULT_QUEUE, label)).isZero();
    }

    @Test
    @DisplayName("each GPU queue accesses exactly its own label and defaults to it")
    void gpuQueueLabels() {
      assertThat(cs.getAccessibleNodeLabels(INFERENCE_QUEUE)).containsExactly(INFERENCE);
      assertThat(cs.getAccessibleNodeLabels(TRAINING_QUEUE)).containsExactly(TRAINING);
      assertThat(cs.getDefaultNodeLabelExpression(INFERENCE_QUEUE)).isEqualTo(INFERENCE);
      assertThat(cs.getDefaultNodeLabelExpression(TRAINING_QUEUE)).isEqualTo(TRAINING);
    }

    @Test
    @DisplayName(
        "root.default is present, RUNNING, with most of the default partition and room to grow to all of it")
    void defaultQueueRuns() {
      assertThat(cs.getState(DEFAULT_QUEUE)).isEqualTo(QueueState.RUNNING);
      assertThat(cs.getNonLabeledQueueCapacity(DEFAULT_QUEUE))
          .isGreaterThan(
              cs.getNonLabeledQueueCapacity(INFERENCE_QUEUE)
                  + cs.getNonLabeledQueueCapacity(TRAINING_QUEUE));
      assertThat(cs.getNonLabeledQueueMaximumCapacity(DEFAULT_QUEUE)).isEqualTo(100f);
    }

    @Test
    @DisplayName(
        "root.training's AMs may fill its default-partition room, which then holds an elastic job's AM"
            + " (1 vcore) per 100 / capacity default-partition vcores; the training partition keeps 0.5")
    void trainingAmRoomScalesWithItsCapacity() {
      // aryl-am puts each job's AM in the default partition and the workers on the training label:
      // the queue's default-partition room holds nothing but AMs.
      assertThat(cs.getMaximumAMResourcePercentPerPartition(TRAINING_QUEUE, DEFAULT_PARTITION))
          .isEqualTo(1.0f);
      assertThat(cs.getMaximumAMResourcePercentPerPartition(TRAINING_QUEUE, TRAINING))
          .isEqualTo(0.5f);
      // As the template's comment says: 10 unlabelled nodes of 16 vcores fit 8 AMs of 1 vcore.
      float amVcores =
          160
              * cs.getNonLabeledQueueMaximumCapacity(TRAINING_QUEUE)
              / 100
              * cs.getMaximumAMResourcePercentPerPartition(TRAINING_QUEUE, DEFAULT_PARTITION);
      assertThat((int) amVcores).isEqualTo(8);
    }

    @Test
    @DisplayName(
        "root.default can run MapReduce: no label of its own, none by default, an AM limit above zero")
    void defaultQueueCanRunMapReduce() {
      // An empty set, not null: null would mean "inherit root's *", and the queue could take idle
      // GPU nodes.
      assertThat(cs.getAccessibleNodeLabels(DEFAULT_QUEUE)).isNotNull().isEmpty();
      assertThat(cs.getDefaultNodeLabelExpression(DEFAULT_QUEUE)).isNull();
      // Nothing set for it here: it keeps the cluster-wide limit (the stock 0.1 in this file
      // alone).
      assertThat(cs.getMaximumAMResourcePercentPerPartition(DEFAULT_QUEUE, DEFAULT_PARTITION))
          .isEqualTo(cs.getMaximumApplicationMasterResourcePercent())
          .isPositive();
    }

    @Test
    @DisplayName(
        "the GPU queues keep room for ApplicationMasters in the default partition, and cannot take it over")
    void gpuQueuesInTheDefaultPartition() {
      for (QueuePath q : List.of(INFERENCE_QUEUE, TRAINING_QUEUE)) {
        assertThat(cs.getNonLabeledQueueCapacity(q)).as("capacity of %s", q).isPositive();
        assertThat(cs.getNonLabeledQueueMaximumCapacity(q))
            .as("maximum capacity of %s", q)
            .isEqualTo(cs.getNonLabeledQueueCapacity(q));
      }
    }

    @Test
    @DisplayName(
        "ApplicationMasters may use more than the stock 10% of both GPU queues, in every partition")
    void amLimitRaised() {
      assertThat(cs.getMaximumAMResourcePercentPerPartition(INFERENCE_QUEUE, INFERENCE))
          .isGreaterThan(0.1f);
      assertThat(cs.getMaximumAMResourcePercentPerPartition(INFERENCE_QUEUE, DEFAULT_PARTITION))
          .isGreaterThan(0.1f);
      assertThat(cs.getMaximumAMResourcePercentPerPartition(TRAINING_QUEUE, TRAINING))
          .isGreaterThan(0.1f);
      assertThat(cs.getMaximumAMResourcePercentPerPartition(TRAINING_QUEUE, DEFAULT_PARTITION))
          .isGreaterThan(0.1f);
    }

    @Test
    @DisplayName(
        "every leaf queue of the training pool orders its applications with PlanAwareOrderingPolicy")
    void trainingLeavesArePlanAware() {
      assertThat(leaves(cs, TRAINING_QUEUE))
          .containsExactly(TRAINING_QUEUE)
          .allSatisfy(
              leaf ->
                  assertThat(
                          cs
                              .<org.apache.hadoop.yarn.server.resourcemanager.scheduler.policy
                                      .SchedulableEntity>
                                  getAppOrderingPolicy(leaf))
                      .as("ordering policy of %s", leaf)
                      .isInstanceOf(PlanAwareOrderingPolicy.class));
    }

    @Test
    @DisplayName(
        "per node heartbeat: multiple assignments on and the off-switch limit above the stock 1")
    void heartbeatAssignments() {
      assertThat(cs.getAssignMultipleEnabled()).isTrue();
      assertThat(cs.getOffSwitchPerHeartbeatLimit())
          .isGreaterThan(CapacitySchedulerConfiguration.DEFAULT_OFFSWITCH_PER_HEARTBEAT_LIMIT);
    }
  }

  @Nested
  @DisplayName("the teams example at its end, applied as it says")
  class TeamsExample {
    private final TemplateConf.TeamsExample block = TemplateConf.TeamsExample.read();
    private final CapacitySchedulerConfiguration cs = cs(block.applyTo(new Configuration(raw())));
    private final QueuePath vision = new QueuePath("root.training.vision");
    private final QueuePath nlp = new QueuePath("root.training.nlp");

    @Test
    @DisplayName("is commented out: the template itself keeps root.training a leaf")
    void notActive() {
      assertThat(raw().get(PREFIX + "root.training.queues")).isNull();
      assertThat(block.properties()).isNotEmpty();
      assertThat(block.removed()).isNotEmpty();
    }

    @Test
    @DisplayName("removes only properties the template sets, and only root.training's")
    void removesWhatIsThere() {
      assertThat(block.removed())
          .allSatisfy(
              key -> {
                assertThat(raw().get(key)).as(key).isNotNull();
                assertThat(key).startsWith(PREFIX + "root.training.");
              });
    }

    @Test
    @DisplayName("sets only properties the template does not set, all below root.training")
    void addsOnlyNewProperties() {
      assertThat(block.properties().keySet())
          .allSatisfy(
              key -> {
                assertThat(raw().get(key)).as(key).isNull();
                assertThat(key).startsWith(PREFIX + "root.training.");
              });
    }

    @Test
    @DisplayName(
        "splits root.training into the leaf queues vision and nlp; the top level is unchanged")
    void teams() {
      assertThat(children(cs, ROOT))
          .containsExactly(DEFAULT_QUEUE, INFERENCE_QUEUE, TRAINING_QUEUE);
      assertThat(children(cs, TRAINING_QUEUE)).containsExactly(vision, nlp);
      assertThat(leaves(cs, ROOT)).containsExactly(DEFAULT_QUEUE, INFERENCE_QUEUE, vision, nlp);
    }

    @Test
    @DisplayName(
        "gives vision 60 and nlp 40 of the training partition: each team's guaranteed share")
    void guarantees() {
      assertThat(cs.getLabeledQueueCapacity(vision, TRAINING)).isEqualTo(60f);
      assertThat(cs.getLabeledQueueCapacity(nlp, TRAINING)).isEqualTo(40f);
    }

    @ParameterizedTest(name = "partition \"{0}\"")
    @ValueSource(strings = {"", "inference", "training"})
    @DisplayName("in every partition, the children of every parent queue add up to 100")
    void everyLevelAddsUp(String partition) {
      List<QueuePath> parents = parents(cs, ROOT);
      assertThat(parents).containsExactly(ROOT, TRAINING_QUEUE);
      for (QueuePath parent : parents) {
        boolean accessible =
            parent.equals(ROOT) || cs.getAccessibleNodeLabels(parent).contains(partition);
        if (partition.isEmpty() || accessible) {
          assertThat(childCapacitySum(cs, parent, partition))
              .as("children of %s in \"%s\"", parent, partition)
              .isEqualTo(100f);
        }
      }
    }

    @Test
    @DisplayName(
        "each team runs on the training pool, may borrow all of it, and one user of it may borrow too")
    void teamsUseTheTrainingPool() {
      for (QueuePath team : List.of(vision, nlp)) {
        assertThat(cs.getAccessibleNodeLabels(team))
            .as("labels of %s", team)
            .containsExactly(TRAINING);
        assertThat(cs.getDefaultNodeLabelExpression(team))
            .as("default label of %s", team)
            .isEqualTo(TRAINING);
        assertThat(cs.getLabeledQueueMaximumCapacity(team, TRAINING))
            .as("maximum of %s", team)
            .isEqualTo(100f);
        assertThat(cs.getUserLimitFactor(team))
            .as("user-limit-factor of %s (-1: no user limit)", team)
            .isEqualTo(-1f);
      }
    }

    @Test
    @DisplayName(
        "each team's jobs' ApplicationMasters fit its default-partition room: all of it for AMs,"
            + " room to grow into what the other team leaves, half of the training partition")
    void teamsHaveRoomForTheirAms() {
      for (QueuePath team : List.of(vision, nlp)) {
        assertThat(cs.getNonLabeledQueueCapacity(team)).as("capacity of %s", team).isPositive();
        assertThat(cs.getNonLabeledQueueMaximumCapacity(team))
            .as("maximum-capacity of %s", team)
            .isEqualTo(100f);
        assertThat(cs.getMaximumAMResourcePercentPerPartition(team, DEFAULT_PARTITION))
            .as("AM share of %s in the default partition, where only AMs run", team)
            .isEqualTo(1.0f);
        assertThat(cs.getMaximumAMResourcePercentPerPartition(team, TRAINING))
            .as("AM share of %s in the training partition", team)
            .isEqualTo(0.5f);
      }
    }

    @Test
    @DisplayName(
        "on the 10 unlabelled nodes of 16 vcores the template sizes for, vision runs 4 jobs at"
            + " once and nlp 3, as its comment says")
    void sizedAsTheCommentSays() {
      float defaultVcores = 10 * 16;
      float training = cs.getNonLabeledQueueCapacity(TRAINING_QUEUE) / 100f;
      Map<QueuePath, Integer> jobs = Map.of(vision, 4, nlp, 3);
      jobs.forEach(
          (team, n) -> {
            float amVcores =
                defaultVcores
                    * training
                    * cs.getNonLabeledQueueCapacity(team)
                    / 100f
                    * cs.getMaximumAMResourcePercentPerPartition(team, DEFAULT_PARTITION);
            assertThat((int) Math.floor(amVcores + 1e-3))
                .as("AMs of one vcore %s holds at once", team)
                .isEqualTo(n);
          });
      assertThat(block.text().replaceAll("\\s+", " "))
          .contains("vision at 60 holds 4 jobs at once and nlp at 40 holds 3");
    }

    @Test
    @DisplayName(
        "every leaf queue of the training pool orders with PlanAwareOrderingPolicy, root.training sets none")
    void orderingPolicyOnTheLeaves() {
      assertThat(leaves(cs, TRAINING_QUEUE))
          .containsExactly(vision, nlp)
          .allSatisfy(
              leaf ->
                  assertThat(
                          cs
                              .<org.apache.hadoop.yarn.server.resourcemanager.scheduler.policy
                                      .SchedulableEntity>
                                  getAppOrderingPolicy(leaf))
                      .as("ordering policy of %s", leaf)
                      .isInstanceOf(PlanAwareOrderingPolicy.class));
      // On a parent queue ordering-policy names a queue ordering policy; the class there would stop
      // the start.
      assertThat(cs.get(PREFIX + "root.training." + CapacitySchedulerConfiguration.ORDERING_POLICY))
          .isNull();
    }

    @Test
    @DisplayName("explains each team property after the properties, and points to the tenants page")
    void explained() {
      assertThat(block.text()).contains("tenants.md");
      String explanation = block.text().substring(block.text().lastIndexOf("</property>"));
      for (String suffix :
          List.of(
              "queues",
              "capacity",
              "accessible-node-labels",
              "default-node-label-expression",
              "accessible-node-labels.training.capacity",
              "accessible-node-labels.training.maximum-capacity",
              "user-limit-factor",
              "maximum-am-resource-percent",
              "ordering-policy")) {
        assertThat(explanation).as("explanation of %s", suffix).contains(suffix);
      }
    }
  }
}
