package io.aryl.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.yarn.ArylScheduler;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.service.Service;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.MiniYARNCluster;
import org.apache.hadoop.yarn.util.resource.ResourceUtils;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ResourceManager refuses to start on a wrong Aryl set-up, with a message naming the key and the value; with Aryl
 * switched off the same queue set-up starts as the stock Capacity Scheduler would. Each case starts a one-node
 * MiniYARNCluster from the templates plus the one wrong setting.
 */
@DisplayName("Start-up checks: a wrong Aryl set-up stops the ResourceManager's start with the key and value")
class StartupChecksIT {
  private static final String TRAINING_ACCESS = "yarn.scheduler.capacity.root.training.accessible-node-labels";
  private static final String TRAINING_DEFAULT_LABEL =
      "yarn.scheduler.capacity.root.training.default-node-label-expression";

  @TempDir Path dir;

  private YarnConfiguration conf(String name) {
    return ArylMiniCluster.testConf(dir.resolve(name).toFile());
  }

  /** Starts a one-node cluster and stops it again; returns what the start threw, or null if it started. */
  private static Throwable start(YarnConfiguration conf, boolean expectArylOff) {
    ResourceUtils.resetResourceTypes(conf);
    MiniYARNCluster cluster = new MiniYARNCluster("startup", 1, 1, 1, false);
    try {
      cluster.init(conf);
      cluster.start();
      assertThat(cluster.getResourceManager().getServiceState()).isEqualTo(Service.STATE.STARTED);
      ArylScheduler s = (ArylScheduler) cluster.getResourceManager().getResourceScheduler();
      assertThat(s.arylEnabled()).isEqualTo(!expectArylOff);
      return null;
    } catch (Exception e) {
      return e;
    } finally {
      cluster.stop();
    }
  }

  private static List<String> messages(Throwable t) {
    List<String> out = new ArrayList<>();
    for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
      out.add(c.getClass().getSimpleName() + ": " + c.getMessage());
    }
    return out;
  }

  private void assertRefused(YarnConfiguration conf, String... expected) {
    Throwable t = start(conf, false);
    assertThat(t).as("the ResourceManager started although it should not").isNotNull();
    String all = String.join("\n", messages(t));
    assertThat(all).as("messages of the start failure").contains(expected);
  }

  @Test
  @DisplayName("aryl.scheduler.training.queue=root.nosuch: refused, naming the key and the missing queue")
  void trainingQueueMissing() {
    YarnConfiguration c = conf("nosuch");
    c.set("aryl.scheduler.training.queue", "root.nosuch");
    assertRefused(c, "aryl.scheduler.training.queue=root.nosuch names no queue");
  }

  @Test
  @DisplayName("root.training may use no node label: refused, naming the queue, the label and the key to set")
  void trainingQueueCannotUseItsLabel() {
    YarnConfiguration c = conf("access");
    c.set(TRAINING_ACCESS, " "); // a blank list: the default partition only
    c.unset(TRAINING_DEFAULT_LABEL); // else the Capacity Scheduler refuses the label expression itself
    assertRefused(c, "queue root.training (aryl.scheduler.training.queue) cannot use node label 'training'",
        TRAINING_ACCESS + "=training");
  }

  @Test
  @DisplayName("root.training without accessible-node-labels inherits root's '*': it may use its label, the start goes on")
  void inheritedWildcardIsAccess() {
    YarnConfiguration c = conf("inherit");
    c.unset(TRAINING_ACCESS);
    assertThat(start(c, false)).as("start with root.training inheriting '*'").isNull();
  }

  @Test
  @DisplayName("unknown key aryl.scheduler.round-intervall-ms: refused, naming the key and its value")
  void unknownKey() {
    YarnConfiguration c = conf("typo");
    c.set("aryl.scheduler.round-intervall-ms", "500");
    assertRefused(c, "unknown configuration key aryl.scheduler.round-intervall-ms=500",
        "aryl.scheduler.round-interval-ms");
  }

  @Test
  @DisplayName("aryl.scheduler.round-interval-ms=abc: refused, naming the key and the value")
  void malformedValue() {
    YarnConfiguration c = conf("abc");
    c.set("aryl.scheduler.round-interval-ms", "abc");
    assertRefused(c, "aryl.scheduler.round-interval-ms must be an integer, was 'abc'");
  }

  @Test
  @DisplayName("aryl.scheduler.max-gpus-per-job=-8: refused, naming the key and the value")
  void negativeCap() {
    YarnConfiguration c = conf("negative-cap");
    c.set("aryl.scheduler.max-gpus-per-job", "-8");
    assertRefused(c, "aryl.scheduler.max-gpus-per-job must be an integer >= 0, was '-8'");
  }

  @Test
  @DisplayName("a queue's cap that is not a number (capacity-scheduler.xml): refused, naming the key and the value")
  void malformedQueueCap() {
    YarnConfiguration c = conf("queue-cap");
    c.set("yarn.scheduler.capacity.root.training.aryl.max-workers-per-job", "lots");
    assertRefused(c, "yarn.scheduler.capacity.root.training.aryl.max-workers-per-job must be an integer >= 0 (0: no"
        + " cap of its own), was 'lots'");
  }

  @Test
  @DisplayName("node labels disabled: refused, naming yarn.node-labels.enabled and the value it needs")
  void nodeLabelsDisabled() {
    YarnConfiguration c = conf("nolabels");
    c.setBoolean(YarnConfiguration.NODE_LABELS_ENABLED, false);
    assertRefused(c, "Aryl needs node labels", "yarn.node-labels.enabled=true");
  }

  @Test
  @DisplayName("aryl.scheduler.enabled=false: the same wrong queue settings do not stop the start (Aryl off = stock)")
  void arylOffIgnoresItsQueueSettings() {
    YarnConfiguration missingQueue = conf("off-nosuch");
    missingQueue.setBoolean("aryl.scheduler.enabled", false);
    missingQueue.set("aryl.scheduler.training.queue", "root.nosuch");
    assertThat(start(missingQueue, true)).as("start with a missing training queue, Aryl off").isNull();

    YarnConfiguration noAccess = conf("off-access");
    noAccess.setBoolean("aryl.scheduler.enabled", false);
    noAccess.set(TRAINING_ACCESS, " ");
    noAccess.unset(TRAINING_DEFAULT_LABEL);
    assertThat(start(noAccess, true)).as("start with root.training lacking its label, Aryl off").isNull();

    YarnConfiguration noLabels = conf("off-nolabels");
    noLabels.setBoolean("aryl.scheduler.enabled", false);
    noLabels.setBoolean(YarnConfiguration.NODE_LABELS_ENABLED, false);
    assertThat(start(noLabels, true)).as("start with node labels disabled, Aryl off").isNull();
  }
}
