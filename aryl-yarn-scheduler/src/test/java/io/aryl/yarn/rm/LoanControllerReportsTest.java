package io.aryl.yarn.rm;

import io.aryl.yarn.engine.ArylUnavailableException;
import io.aryl.yarn.engine.StaleEpochException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.aryl.yarn.state.ControllerLeader;
import io.aryl.yarn.state.DurableState;
import io.aryl.yarn.state.MemoryStateStore;
import io.aryl.yarn.state.StateStore;
import java.io.IOException;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class LoanControllerReportsTest {
  private final MemoryStateStore store = new MemoryStateStore();

  private LoanControllerReports reportsOnActiveScheduler() throws IOException {
    return new LoanControllerReports(DurableState.open(store, 0));
  }

  @Test
  @DisplayName("the first report is shown and its epoch stored")
  void firstReportIsShownAndStored() throws IOException {
    LoanControllerReports reports = reportsOnActiveScheduler();

    reports.accept(3, "c1", Map.of("ticks", 1), 1_000);

    assertThat(reports.latest().status()).isEqualTo(Map.of("ticks", 1));
    assertThat(reports.inForce()).isEqualTo(new ControllerLeader(3, "c1", 1_000));
  }

  @Test
  @DisplayName("the same leader's later reports replace what is shown; the epoch's first acceptance is kept")
  void sameEpochReplacesTheReport() throws IOException {
    LoanControllerReports reports = reportsOnActiveScheduler();
    reports.accept(3, "c1", Map.of("ticks", 1), 1_000);

    reports.accept(3, "c1", Map.of("ticks", 2), 2_000);

    assertThat(reports.latest().status()).isEqualTo(Map.of("ticks", 2));
    assertThat(reports.inForce().acceptedMs()).isEqualTo(1_000);
  }

  @Test
  @DisplayName("a successor's report is shown; the deposed leader's next one is refused with both epochs")
  void deposedLeaderIsRefused() throws IOException {
    LoanControllerReports reports = reportsOnActiveScheduler();
    reports.accept(3, "c1", Map.of("from", "c1"), 1_000);
    reports.accept(4, "c2", Map.of("from", "c2"), 2_000);

    assertThatThrownBy(() -> reports.accept(3, "c1", Map.of("from", "c1 again"), 3_000))
        .isInstanceOfSatisfying(StaleEpochException.class, e -> {
          assertThat(e.reported()).isEqualTo(3);
          assertThat(e.current()).isEqualTo(4);
        })
        .hasMessageContaining("epoch 3 refused: the leader in force is c2 with epoch 4");
    assertThat(reports.latest().status()).as("what is shown does not change").isEqualTo(Map.of("from", "c2"));
  }

  @Test
  @DisplayName("a newly active scheduler refuses the leader its predecessor saw deposed")
  void epochSurvivesFailover() throws IOException {
    reportsOnActiveScheduler().accept(5, "c2", Map.of(), 1_000);

    LoanControllerReports successor = reportsOnActiveScheduler();

    assertThat(successor.latest()).as("no report shown before the leader reports again").isNull();
    assertThatThrownBy(() -> successor.accept(4, "c1", Map.of(), 2_000)).isInstanceOf(StaleEpochException.class);
    successor.accept(5, "c2", Map.of("ticks", 9), 3_000);
    assertThat(successor.latest().status()).isEqualTo(Map.of("ticks", 9));
  }

  @Test
  @DisplayName("a newer epoch is stored before it is shown: a store that refuses the write shows nothing new")
  void newerEpochIsStoredFirst() throws IOException {
    StoreThatStopsWriting failing = new StoreThatStopsWriting();
    LoanControllerReports reports = new LoanControllerReports(DurableState.open(failing, 0));
    reports.accept(1, "c1", Map.of("from", "c1"), 1_000);
    failing.refuse = true;

    assertThatThrownBy(() -> reports.accept(2, "c2", Map.of("from", "c2"), 2_000))
        .isInstanceOf(ArylUnavailableException.class)
        .hasMessageContaining("could not store its epoch");
    assertThat(reports.latest().status()).isEqualTo(Map.of("from", "c1"));
    assertThat(reports.inForce().epoch()).isEqualTo(1);
  }

  /** A memory store whose writes fail once {@code refuse} is set, as a ZooKeeper that lost its quorum. */
  private static final class StoreThatStopsWriting implements StateStore {
    private final MemoryStateStore memory = new MemoryStateStore();
    volatile boolean refuse;

    @Override
    public long claim() {
      return memory.claim();
    }

    @Override
    public Map<String, byte[]> readAll() {
      return memory.readAll();
    }

    @Override
    public void write(String section, byte[] data) throws IOException {
      if (refuse) {
        throw new IOException("no quorum");
      }
      memory.write(section, data);
    }

    @Override
    public String kind() {
      return memory.kind();
    }

    @Override
    public String location() {
      return memory.location();
    }

    @Override
    public String location(String section) {
      return memory.location(section);
    }

    @Override
    public String deleteCommand(String section) {
      return memory.deleteCommand(section);
    }

    @Override
    public void close() {}
  }
}
