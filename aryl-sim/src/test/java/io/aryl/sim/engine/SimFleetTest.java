package io.aryl.sim.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.core.model.Pool;
import io.aryl.core.model.Server;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("SimFleet: the simulated servers and their loans")
class SimFleetTest {
  private final SimFleet fleet = new SimFleet(SimConfig.defaults(2, 3));

  @Test
  @DisplayName(
      "training servers first, then inference servers, each named by its position; none on loan")
  void servers() {
    assertThat(fleet.size()).isEqualTo(5);
    assertThat(List.of(fleet.id(0), fleet.id(1), fleet.id(2), fleet.id(4)))
        .containsExactly("t00000", "t00001", "i00000", "i00002");
    assertThat(fleet.isInference(1)).isFalse();
    assertThat(fleet.isInference(2)).isTrue();
    assertThat(fleet.indexOf("i00001")).isEqualTo(3);
    assertThat(fleet.servers())
        .extracting(Server::pool)
        .containsExactly(
            Pool.INFERENCE, Pool.INFERENCE, Pool.INFERENCE, Pool.TRAINING, Pool.TRAINING);
    assertThat(fleet.servers()).noneMatch(Server::loaned);
    assertThat(fleet.earliestReturn()).isInfinite();
  }

  @Test
  @DisplayName("lends the highest-numbered inference servers first, never more than there are")
  void lends() {
    assertThat(fleet.lend(2)).isEqualTo(2);
    assertThat(fleet.servers())
        .filteredOn(Server::loaned)
        .extracting(Server::id)
        .containsExactly("i00001", "i00002");
    assertThat(fleet.lend(5)).isEqualTo(1);
    assertThat(fleet.loanedCount()).isEqualTo(3);
  }

  @Test
  @DisplayName("a fenced server trains until its grace ends, then goes home")
  void fencesAndReturns() {
    fleet.lend(2);
    fleet.fence("i00002", 100);
    assertThat(fleet.fencedCount()).isEqualTo(1);
    assertThat(fleet.earliestReturn()).isEqualTo(100);
    assertThat(fleet.due(99)).isEmpty();
    assertThat(fleet.due(100)).containsExactly(4);
    assertThat(fleet.servers())
        .filteredOn(Server::fenced)
        .extracting(Server::id)
        .containsExactly("i00002");

    fleet.returnHome(4);
    assertThat(fleet.loanedCount()).isEqualTo(1);
    assertThat(fleet.fencedCount()).isZero();
    assertThat(fleet.due(1000)).isEmpty();
    assertThat(fleet.servers())
        .filteredOn(Server::loaned)
        .extracting(Server::id)
        .containsExactly("i00001");
  }
}
