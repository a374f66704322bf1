package io.aryl.conf;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.api.conf.PoolConf;
import io.aryl.yarn.conf.ArylConf;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.records.QueueState;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacitySchedulerConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.QueuePath;
import org.apache.hadoop.yarn.util.resource.DominantResourceCalculator;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@DisplayName("capacity-scheduler.xml template")
class CapacitySchedulerTemplateTest {

  private static final String PREFIX = CapacitySchedulerConfiguration.PREFIX;
  private static final String INFERENCE = PoolConf.INFERENCE_LABEL.defaultValue();
  private static final String TRAINING = PoolConf.TRAINING_LABEL.defaultValue();

  private final Configuration raw = Templates.load(Templates.CAPACITY_SCHEDULER);

  @Nested
  @DisplayName("read as raw properties")
  class RawProperties {

    @Test
    @DisplayName("uses the DominantResourceCalculator")
    void calculatorIsDominant() {
      assertThat(raw.get(CapacitySchedulerConfiguration.RESOURCE_CALCULATOR_CLASS))
          .isEqualTo(DominantResourceCalculator.class.getName());
    }

    @Test
    @DisplayName("has root.queues = default,inference,training")
    void rootQueues() {
      assertThat(raw.get(PREFIX + "root.queues")).isEqualTo("default,inference,training");
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

    @ParameterizedTest(name = "root.{0} accesses label {0} with capacity 100 and defaults to it")
    @CsvSource({"inference", "training"})
    @DisplayName("each queue has its label, capacity 100 in it, and default-node-label-expression")
    void queueLabel(String label) {
      String queue = PREFIX + "root." + label;
      assertThat(raw.get(queue + ".accessible-node-labels")).isEqualTo(label);
      assertThat(raw.get(queue + ".accessible-node-labels." + label + ".capacity"))
          .isEqualTo("100");
      assertThat(raw.get(queue + ".default-node-label-expression")).isEqualTo(label);
    }

    @Test
    @DisplayName(
        "lets one node heartbeat place many off-switch containers, so a gang lands at once")
    void gangFitsInOneHeartbeat() {
      assertThat(raw.getBoolean(CapacitySchedulerConfiguration.ASSIGN_MULTIPLE_ENABLED, false))
          .isTrue();
      assertThat(raw.getInt(CapacitySchedulerConfiguration.OFFSWITCH_PER_HEARTBEAT_LIMIT, 1))
          .isGreaterThanOrEqualTo(8);
    }
  }

  @Nested
  @DisplayName("read through CapacitySchedulerConfiguration")
  class ThroughCapacitySchedulerConfiguration {

    // false: do not also load a capacity-scheduler.xml that happens to be on the classpath
    private final CapacitySchedulerConfiguration cs =
        new CapacitySchedulerConfiguration(raw, false);

    private final QueuePath root = new QueuePath("root");
    private final QueuePath inference = new QueuePath(ArylConf.INFERENCE_QUEUE.defaultValue());
    private final QueuePath training = new QueuePath(ArylConf.TRAINING_QUEUE.defaultValue());
    // Where MapReduce, Spark and the `yarn` tools submit unless told otherwise.
    private final QueuePath defaultQueue = new QueuePath("root.default");

    @Test
    @DisplayName("the calculator instantiated is a DominantResourceCalculator")
    void calculator() {
      assertThat(cs.getResourceCalculator()).isInstanceOf(DominantResourceCalculator.class);
    }

    @Test
    @DisplayName("root's children are default and exactly the queues Aryl's defaults name")
    void queues() {
      assertThat(cs.getQueues(root))
          .containsExactly(
              defaultQueue.getLeafName(), inference.getLeafName(), training.getLeafName());
      assertThat(cs.getQueues(defaultQueue)).as("root.default is a leaf").isNullOrEmpty();
      assertThat(inference.getParent()).isEqualTo("root");
      assertThat(training.getParent()).isEqualTo("root");
    }

    @Test
    @DisplayName("each queue accesses exactly its own label, the one Aryl's defaults name")
    void accessibleLabels() {
      assertThat(cs.getAccessibleNodeLabels(inference)).containsExactly(INFERENCE);
      assertThat(cs.getAccessibleNodeLabels(training)).containsExactly(TRAINING);
    }

    @Test
    @DisplayName(
        "root.default runs on the unlabelled nodes only: no label (not root's inherited *), none by default")
    void defaultQueueHasNoLabel() {
      assertThat(cs.getState(defaultQueue)).isEqualTo(QueueState.RUNNING);
      // An empty set, not null: null would mean "inherit root's *".
      assertThat(cs.getAccessibleNodeLabels(defaultQueue)).isNotNull().isEmpty();
      assertThat(cs.getDefaultNodeLabelExpression(defaultQueue)).isNull();
      assertThat(cs.getLabeledQueueCapacity(defaultQueue, INFERENCE)).isZero();
      assertThat(cs.getLabeledQueueCapacity(defaultQueue, TRAINING)).isZero();
      assertThat(cs.getNonLabeledQueueMaximumCapacity(defaultQueue)).isEqualTo(100f);
    }

    @Test
    @DisplayName("each queue owns 100% of its label's partition")
    void labelCapacities() {
      assertThat(cs.getLabeledQueueCapacity(inference, INFERENCE)).isEqualTo(100f);
      assertThat(cs.getLabeledQueueCapacity(training, TRAINING)).isEqualTo(100f);
      assertThat(cs.getLabeledQueueMaximumCapacity(inference, INFERENCE)).isEqualTo(100f);
      assertThat(cs.getLabeledQueueMaximumCapacity(training, TRAINING)).isEqualTo(100f);
    }

    @Test
    @DisplayName("each queue defaults requests without a label expression to its own label")
    void defaultLabelExpressions() {
      assertThat(cs.getDefaultNodeLabelExpression(inference)).isEqualTo(INFERENCE);
      assertThat(cs.getDefaultNodeLabelExpression(training)).isEqualTo(TRAINING);
    }

    @Test
    @DisplayName(
        "every queue has default-partition capacity (aryl-am's AMs and AM limits count there), adding up to 100")
    void defaultPartitionCapacity() {
      float defaultCapacity = cs.getNonLabeledQueueCapacity(defaultQueue);
      float inferenceCapacity = cs.getNonLabeledQueueCapacity(inference);
      float trainingCapacity = cs.getNonLabeledQueueCapacity(training);
      assertThat(defaultCapacity).isPositive();
      assertThat(inferenceCapacity).isPositive();
      assertThat(trainingCapacity).isPositive();
      assertThat(defaultCapacity + inferenceCapacity + trainingCapacity).isEqualTo(100f);
    }

    @Test
    @DisplayName(
        "ApplicationMasters may use more than the stock 10% in every partition of both queues")
    void amLimitRaised() {
      assertThat(cs.getMaximumApplicationMasterResourcePercent())
          .isGreaterThan(
              CapacitySchedulerConfiguration.DEFAULT_MAXIMUM_APPLICATIONMASTERS_RESOURCE_PERCENT);
      assertThat(cs.getMaximumAMResourcePercentPerPartition(inference, INFERENCE))
          .isGreaterThan(0.1f);
      assertThat(cs.getMaximumAMResourcePercentPerPartition(inference, "")).isGreaterThan(0.1f);
      assertThat(cs.getMaximumAMResourcePercentPerPartition(training, TRAINING))
          .isGreaterThan(0.1f);
      assertThat(cs.getMaximumAMResourcePercentPerPartition(training, "")).isGreaterThan(0.1f);
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
}
