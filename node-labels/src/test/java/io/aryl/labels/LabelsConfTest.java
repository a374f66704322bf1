package io.aryl.labels;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

class LabelsConfTest {
  @Test
  void theReadmeDocumentsEveryKeyWithItsDefaultAndMeaning() throws Exception {
    String readme = Files.readString(Path.of("README.md"));
    for (LabelsConf k : LabelsConf.values()) {
      assertThat(readme).as(k.key()).contains("| `" + k.key() + "` | `" + k.defaultValue() + "` | " + k.doc() + " |");
    }
  }

  @Test
  void defaultsAreValid() {
    LabelsSettings s = LabelsSettings.from(new Configuration(false));
    assertThat(s.policy().serversNeeded(100)).isEqualTo(2); // 100 * 1.2 / 100
    assertThat(s.controllerConfig().intervalMs()).isEqualTo(5000);
    assertThat(s.controllerConfig().reclaimUnknownGraceMs()).isEqualTo(60_000);
  }

  @Test
  void readsTheReclaimGraceAndRefusesABadOneNamingKeyAndValue() {
    Configuration c = new Configuration(false);
    c.set(LabelsConf.RECLAIM_UNKNOWN_GRACE_MS.key(), "15000");
    assertThat(LabelsSettings.from(c).controllerConfig().reclaimUnknownGraceMs()).isEqualTo(15_000);
    for (String bad : new String[] {"-1", "a minute"}) {
      Configuration d = new Configuration(false);
      d.set(LabelsConf.RECLAIM_UNKNOWN_GRACE_MS.key(), bad);
      assertThatThrownBy(() -> LabelsSettings.from(d)).hasMessageContaining(LabelsConf.RECLAIM_UNKNOWN_GRACE_MS.key())
          .hasMessageContaining(bad);
    }
  }

  @Test
  void refusesUnknownKeysAndBadValuesNamingThem() {
    Configuration c = new Configuration(false);
    c.set("aryl.labels.interval", "5");
    assertThatThrownBy(() -> LabelsSettings.from(c)).hasMessageContaining("aryl.labels.interval");
    Configuration d = new Configuration(false);
    d.set(LabelsConf.LOAN_HOLD_MS.key(), "soon");
    assertThatThrownBy(() -> LabelsSettings.from(d)).hasMessageContaining(LabelsConf.LOAN_HOLD_MS.key())
        .hasMessageContaining("soon");
    Configuration e = new Configuration(false);
    e.set(LabelsConf.DEMAND_SOURCES.key(), "replay");
    assertThatThrownBy(() -> LabelsSettings.from(e)).hasMessageContaining(LabelsConf.REPLAY_FILE.key());
  }
}
