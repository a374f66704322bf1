package io.aryl.labels;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.aryl.api.conf.PoolConf;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

class LabelsConfTest {
  @Test
  void theReadmeDocumentsEveryKeyWithItsDefaultAndMeaning() throws Exception {
    String readme = Files.readString(Path.of("README.md"));
    for (LabelsConf k : LabelsConf.values()) {
      assertThat(readme)
          .as(k.key())
          .contains("| `" + k.key() + "` | `" + k.defaultValue() + "` | " + k.doc() + " |");
    }
    for (PoolConf k : PoolConf.values()) {
      assertThat(readme)
          .as(k.key())
          .contains("| `" + k.key() + "` | `" + k.defaultValue() + "` | " + k.doc() + " |");
    }
  }

  @Test
  void readsThePoolsLabelsFromTheKeysTheSchedulerReads() {
    Configuration c = new Configuration(false);
    c.set(PoolConf.INFERENCE_LABEL.key(), " serve ");
    c.set(PoolConf.TRAINING_LABEL.key(), "train");
    LabelsSettings s = LabelsSettings.from(c);
    assertThat(s.inferenceLabel()).isEqualTo("serve");
    assertThat(s.trainingLabel()).isEqualTo("train");
    assertThat(LabelsSettings.from(new Configuration(false)).inferenceLabel())
        .isEqualTo(PoolConf.INFERENCE_LABEL.defaultValue());
  }

  @Test
  void refusesALabelUnderItsOldKeyInOneLineNamingTheNewKey() {
    for (String old :
        new String[] {"aryl.labels.inference.label", "aryl.scheduler.inference.label"}) {
      Configuration c = new Configuration(false);
      c.set(old, "serve");
      assertThatThrownBy(() -> LabelsSettings.from(c))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage(
              "configuration key "
                  + old
                  + "=serve was renamed to aryl.pools.inference.label: set"
                  + " aryl.pools.inference.label=serve instead (the scheduler, the loan controller and aryl-am all read it)");
    }
    Configuration typo = new Configuration(false);
    typo.set("aryl.pools.training.lable", "train");
    assertThatThrownBy(() -> LabelsSettings.from(typo))
        .hasMessageContaining("aryl.pools.training.lable=train");
    Configuration same = new Configuration(false);
    same.set(PoolConf.TRAINING_LABEL.key(), "inference");
    assertThatThrownBy(() -> LabelsSettings.from(same))
        .hasMessageContaining(PoolConf.INFERENCE_LABEL.key())
        .hasMessageContaining(PoolConf.TRAINING_LABEL.key());
  }

  @Test
  void defaultsAreValid() {
    LabelsSettings s = LabelsSettings.from(new Configuration(false));
    assertThat(s.policy().serversNeeded(100)).isEqualTo(2); // 100 * 1.2 / 100
    assertThat(s.controllerConfig().intervalMs()).isEqualTo(5000);
    assertThat(s.controllerConfig().decider().returnWithinMs()).isEqualTo(120_000);
  }

  @Test
  void refusesAKeyThatIsGoneInOneLineNamingItAndWhy() {
    Configuration c = new Configuration(false);
    c.set("aryl.labels.reclaim.unknown-grace-ms", "15000");
    assertThatThrownBy(() -> LabelsSettings.from(c))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "configuration key aryl.labels.reclaim.unknown-grace-ms is gone: the loan controller keeps no"
                + " ledger of reclaims any more: it sends a loan target, and the scheduler tracks the reclaims that meet"
                + " it itself; remove it");
    assertThat(LabelsConf.GONE.keySet())
        .as("a key that is gone is not a key any more")
        .doesNotContainAnyElementsOf(LabelsConf.keys());
  }

  @Test
  void refusesUnknownKeysAndBadValuesNamingThem() {
    Configuration c = new Configuration(false);
    c.set("aryl.labels.interval", "5");
    assertThatThrownBy(() -> LabelsSettings.from(c)).hasMessageContaining("aryl.labels.interval");
    Configuration d = new Configuration(false);
    d.set(LabelsConf.LOAN_HOLD_MS.key(), "soon");
    assertThatThrownBy(() -> LabelsSettings.from(d))
        .hasMessageContaining(LabelsConf.LOAN_HOLD_MS.key())
        .hasMessageContaining("soon");
    Configuration e = new Configuration(false);
    e.set(LabelsConf.DEMAND_SOURCES.key(), "replay");
    assertThatThrownBy(() -> LabelsSettings.from(e))
        .hasMessageContaining(LabelsConf.REPLAY_FILE.key());
  }

  @Test
  void theServeSourceNeedsNoKeyOfItsOwnAndAnUnknownSourceIsNamed() throws Exception {
    Configuration c = new Configuration(false);
    c.set(LabelsConf.DEMAND_SOURCES.key(), "serve,yarn-queue");
    LabelsSettings s = LabelsSettings.from(c);
    assertThat(s.demandSources()).containsExactly("serve", "yarn-queue");
    ActiveRmWebApp web =
        ActiveRmWebApp.of(java.util.List.of(java.net.URI.create("http://127.0.0.1:1")));
    assertThat(ArylLabels.Run.demandSources(s, web))
        .extracting(DemandSource::name)
        .containsExactly("serve", "yarn-queue root.inference");
    Configuration bad = new Configuration(false);
    bad.set(LabelsConf.DEMAND_SOURCES.key(), "serve,service");
    assertThatThrownBy(() -> LabelsSettings.from(bad))
        .hasMessage(
            LabelsConf.DEMAND_SOURCES.key()
                + " must list replay, http, yarn-queue or serve, was service");
  }
}
