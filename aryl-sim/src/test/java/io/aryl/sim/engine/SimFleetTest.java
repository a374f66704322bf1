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

    fleet.returnHome(4, 191);
    assertThat(fleet.loanedCount()).isEqualTo(1);
    assertThat(fleet.fencedCount()).isZero();
    assertThat(fleet.due(1000)).isEmpty();
    assertThat(fleet.servers())
        .filteredOn(Server::loaned)
        .extracting(Server::id)
        .containsExactly("i00001");
  }

  @Test
  @DisplayName(
      "servers on loan serve nothing; one home from a reclaim serves from its time to serve on")
  void shortfall() {
    fleet.lend(2); // i00001 and i00002 lent, i00000 home
    assertThat(fleet.shortfall(3, 0, 100)).containsExactly(2 * 100, 100);
    assertThat(fleet.shortfall(1, 0, 100)).containsExactly(0, 0);

    fleet.fence("i00002", 100);
    assertThat(fleet.shortfall(3, 0, 100)).containsExactly(2 * 100, 100); // fenced: still training
    fleet.returnHome(4, 191); // relabelled and its replica started by 191
    // [100, 191): 1 serving, 2 short; [191, 300): 2 serving, 1 short.
    assertThat(fleet.shortfall(3, 100, 300)).containsExactly(2 * 91 + 109, 200);
    // Once it serves, it is no longer warming.
    assertThat(fleet.shortfall(2, 300, 400)).containsExactly(0, 0);
  }

  @Test
  @DisplayName("a server lent again before it serves is on loan, not warming")
  void lentAgainWhileWarming() {
    fleet.lend(1); // i00002
    fleet.fence("i00002", 100);
    fleet.returnHome(4, 500);
    assertThat(fleet.shortfall(3, 100, 200)).containsExactly(100, 100);

    fleet.lend(1); // i00002 again
    assertThat(fleet.loanedCount()).isEqualTo(1);
    assertThat(fleet.shortfall(2, 200, 300)).containsExactly(0, 0);
    assertThat(fleet.shortfall(3, 300, 600)).containsExactly(300, 300);
  }
}
