package io.aryl.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.yarn.ArylScheduler;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.service.Service;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.MiniYARNCluster;
import org.apache.hadoop.yarn.util.resource.ResourceUtils;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The ResourceManager refuses to start on a wrong Aryl set-up, with a message naming the key and
 * the value; with Aryl switched off the same queue set-up starts as the stock Capacity Scheduler
 * would. Each case starts a one-node MiniYARNCluster from the templates plus the one wrong setting.
 */
@DisplayName(
    "Start-up checks: a wrong Aryl set-up stops the ResourceManager's start with the key and value")
class StartupChecksIT {
  private static final String TRAINING_ACCESS =
      "yarn.scheduler.capacity.root.training.accessible-node-labels";
  private static final String TRAINING_DEFAULT_LABEL =
      "yarn.scheduler.capacity.root.training.default-node-label-expression";

  @TempDir Path dir;

  private YarnConfiguration conf(String name) {
    return ArylMiniCluster.testConf(dir.resolve(name).toFile());
  }

  /**
   * Starts a one-node cluster and stops it again; returns what the start threw, or null if it
   * started.
   */
  private static Throwable start(YarnConfiguration conf, boolean expectArylOff) {
    ResourceUtils.resetResourceTypes(conf);
    MiniYARNCluster cluster = new MiniYARNCluster("startup", 1, 1, 1, false);
    try {
      cluster.init(conf);
      cluster.start();
      assertThat(cluster.getResourceManager().getServiceState()).isEqualTo(Service.STATE.STARTED);
      ArylScheduler s = (ArylScheduler) cluster.getResourceManager().getResourceScheduler();
      assertThat(s.aryl().running()).isEqualTo(!expectArylOff);
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

  /**
   * A wrong set-up: the settings it makes (a null value unsets the key) and what the refusal must
   * say. Each starts a cluster of its own.
   */
  private record Wrong(String name, Map<String, String> settings, List<String> says) {
    @Override
    public String toString() {
      return name;
    }
  }

  private static Map<String, String> settings(String... keysAndValues) {
    Map<String, String> m = new LinkedHashMap<>();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      m.put(keysAndValues[i], keysAndValues[i + 1]);
    }
    return m;
  }

  static List<Wrong> wrongSetUps() {
    return List.of(
        new Wrong(
            "aryl.scheduler.training.queue=root.nosuch: names the key and the missing queue",
            settings("aryl.scheduler.training.queue", "root.nosuch"),
            List.of("aryl.scheduler.training.queue=root.nosuch names no queue")),
        // A blank list is the default partition only; the default label expression goes too, else
        // the Capacity
        // Scheduler refuses that expression itself.
        new Wrong(
            "root.training may use no node label: names the queue, the label and the key to set",
            settings(TRAINING_ACCESS, " ", TRAINING_DEFAULT_LABEL, null),
            List.of(
                "queue root.training (aryl.scheduler.training.queue) cannot use node label 'training'",
                TRAINING_ACCESS + "=training")),
        new Wrong(
            "unknown key aryl.scheduler.round-intervall-ms: names the key, its value and the known key",
            settings("aryl.scheduler.round-intervall-ms", "500"),
            List.of(
                "unknown configuration key aryl.scheduler.round-intervall-ms=500",
                "aryl.scheduler.round-interval-ms")),
        new Wrong(
            "aryl.scheduler.round-interval-ms=abc: names the key and the value",
            settings("aryl.scheduler.round-interval-ms", "abc"),
            List.of("aryl.scheduler.round-interval-ms must be an integer, was 'abc'")),
        new Wrong(
            "aryl.scheduler.max-gpus-per-job=-8: names the key and the value",
            settings("aryl.scheduler.max-gpus-per-job", "-8"),
            List.of("aryl.scheduler.max-gpus-per-job must be an integer >= 0, was '-8'")),
        new Wrong(
            "a queue's cap that is not a number (capacity-scheduler.xml): names the key and the value",
            settings("yarn.scheduler.capacity.root.training.aryl.max-workers-per-job", "lots"),
            List.of(
                "yarn.scheduler.capacity.root.training.aryl.max-workers-per-job must be an integer >= 0 (0: no"
                    + " cap of its own), was 'lots'")),
        new Wrong(
            "no state directory, nothing to follow, hadoop.tmp.dir in /tmp: names the key and the path",
            settings(
                "aryl.scheduler.state-store.dir",
                null,
                "hadoop.tmp.dir",
                "/tmp/aryl-startup-checks"),
            List.of(
                "Aryl would keep its state in /tmp/aryl-startup-checks/yarn/system/aryl",
                "set aryl.scheduler.state-store.dir to a durable directory")),
        new Wrong(
            "node labels disabled: names yarn.node-labels.enabled and the value it needs",
            settings(YarnConfiguration.NODE_LABELS_ENABLED, "false"),
            List.of("Aryl needs node labels", "yarn.node-labels.enabled=true")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("wrongSetUps")
  @DisplayName("a wrong set-up is refused")
  void refused(Wrong wrong) {
    YarnConfiguration c = conf("wrong-" + wrongSetUps().indexOf(wrong));
    wrong
        .settings()
        .forEach(
            (key, value) -> {
              if (value == null) {
                c.unset(key);
              } else {
                c.set(key, value);
              }
            });
    assertRefused(c, wrong.says().toArray(String[]::new));
  }

  @Test
  @DisplayName(
      "root.training without accessible-node-labels inherits root's '*': it may use its label, the start goes on")
  void inheritedWildcardIsAccess() {
    YarnConfiguration c = conf("inherit");
    c.unset(TRAINING_ACCESS);
    assertThat(start(c, false)).as("start with root.training inheriting '*'").isNull();
  }

  @Test
  @DisplayName(
      "aryl.scheduler.enabled=false: the same wrong queue settings do not stop the start (Aryl off = stock)")
  void arylOffIgnoresItsQueueSettings() {
    YarnConfiguration missingQueue = conf("off-nosuch");
    missingQueue.setBoolean("aryl.scheduler.enabled", false);
    missingQueue.set("aryl.scheduler.training.queue", "root.nosuch");
    assertThat(start(missingQueue, true))
        .as("start with a missing training queue, Aryl off")
        .isNull();

    YarnConfiguration noAccess = conf("off-access");
    noAccess.setBoolean("aryl.scheduler.enabled", false);
    noAccess.set(TRAINING_ACCESS, " ");
    noAccess.unset(TRAINING_DEFAULT_LABEL);
    assertThat(start(noAccess, true))
        .as("start with root.training lacking its label, Aryl off")
        .isNull();

    YarnConfiguration noLabels = conf("off-nolabels");
    noLabels.setBoolean("aryl.scheduler.enabled", false);
    noLabels.setBoolean(YarnConfiguration.NODE_LABELS_ENABLED, false);
    assertThat(start(noLabels, true)).as("start with node labels disabled, Aryl off").isNull();
  }
}
