package io.aryl.labels;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.labels.LoanDecider.Observation;
import io.aryl.labels.LoanLedger.Versioned;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@DisplayName("PoolCensus: the inference pool as the decider counts it")
class PoolCensusTest {
  private final FakePools pools = new FakePools();

  private static Versioned<LoanEntry> entry(String node, LoanState state) {
    LoanEntry e = switch (state) {
      case HOME -> LoanEntry.home(node, 1, 1, "home");
      case LOANED -> LoanEntry.loaned(node, 1, 1, "loaned");
      case RECLAIMING -> LoanEntry.reclaiming(node, 1, 1, "asked back", 7, 100_000);
    };
    return new Versioned<>(e, 0);
  }

  @ParameterizedTest(name = "[{index}] {6}")
  @CsvSource(delimiter = '|', nullValues = "-", textBlock = """
      # ledger     | label     | containers | owned | loaned | reclaiming | idle | case
        HOME       | inference | 0          | 1     | 0      | 0          | 1    | at home and idle: may be loaned
        HOME       | inference | 2          | 1     | 0      | 0          | 0    | at home and busy: may not
        HOME       | training  | 0          | 1     | 0      | 0          | 0    | HOME, but labelled training: may not
        LOANED     | training  | 0          | 1     | 1      | 0          | 0    | on loan
        RECLAIMING | training  | 3          | 1     | 0      | 1          | 0    | coming back
        LOANED     | -         | 0          | 0     | 0      | 0          | 0    | not running: not counted at all
        -          | training  | 0          | 0     | 0      | 0          | 0    | the training pool's own node
      """)
  @DisplayName("counts one node by its ledger state, its label and its containers")
  void counts(LoanState state, String label, int containers, int owned, int loaned, int reclaiming, int idle,
      String why) throws IOException {
    if (label != null) {
      pools.node("inf-0:1", label, containers);
    }
    List<Versioned<LoanEntry>> ledger = state == null ? List.of() : List.of(entry("inf-0:1", state));

    PoolCensus c = PoolCensus.of(ledger, pools.nodes(), "inference");

    assertThat(c.owned()).as(why).isEqualTo(owned);
    assertThat(c.loaned()).as(why).isEqualTo(loaned);
    assertThat(c.reclaiming()).as(why).isEqualTo(reclaiming);
    assertThat(c.idle()).as(why).hasSize(idle);
  }

  @Test
  @DisplayName("idle nodes come in name order, and the observation carries the counts")
  void idleInOrderAndObservation() throws IOException {
    List<Versioned<LoanEntry>> ledger = new ArrayList<>();
    for (String n : List.of("inf-3:1", "inf-1:1", "inf-2:1", "inf-0:1")) {
      pools.node(n, "inference", 0);
      ledger.add(entry(n, LoanState.HOME));
    }
    pools.node("inf-4:1", "training", 0);
    ledger.add(entry("inf-4:1", LoanState.LOANED));
    pools.node("inf-5:1", "training", 0);
    ledger.add(entry("inf-5:1", LoanState.RECLAIMING));

    PoolCensus c = PoolCensus.of(ledger, pools.nodes(), "inference");

    assertThat(c.idle()).containsExactly("inf-0:1", "inf-1:1", "inf-2:1", "inf-3:1");
    assertThat(c.observation(1_000, 250, false)).isEqualTo(new Observation(1_000, 250, false, 6, 4, 1, 1));
  }
}
