package io.aryl.yarn.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.yarn.engine.Drains.Drain;
import io.aryl.yarn.engine.Drains.Reason;
import java.util.List;
import java.util.Set;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("Drains: recorded, then announced, then killed once the grace is over")
class DrainsTest {
  private static Drain shrink(String c, long killAt) {
    return new Drain(c, "app_1", "n1", killAt, Reason.SHRINK, 0);
  }

  @Test
  @DisplayName("a drain is announced once, and only an announced drain is ever killed")
  void announceThenKill() {
    Drains d = new Drains();
    assertThat(d.add(shrink("c1", 100))).isTrue();
    assertThat(d.due(1_000)).as("not announced yet: never killed").isEmpty();
    assertThat(d.announce()).extracting(Drain::container).containsExactly("c1");
    assertThat(d.announce()).as("announced once").isEmpty();
    assertThat(d.due(99)).isEmpty();
    assertThat(d.due(100)).extracting(Drain::container).containsExactly("c1");
    assertThat(d.due(200)).as("killed once").isEmpty();
  }

  @Test
  @DisplayName("the sooner kill time wins, and a reclaim's reason wins over a shrink's")
  void soonerKillAndReclaimReasonWin() {
    Drains d = new Drains();
    d.add(shrink("c1", 500));
    assertThat(d.add(new Drain("c1", "app_1", "n1", 300, Reason.RECLAIM, 7))).isFalse();
    d.add(shrink("c1", 900));
    d.announce();
    Drain due = d.due(300).get(0);
    assertThat(due.killAtMs()).isEqualTo(300);
    assertThat(due.reason()).isEqualTo(Reason.RECLAIM);
    assertThat(due.reclaimId()).isEqualTo(7);
  }

  @Test
  @DisplayName(
      "a drain once part of its job's stop stays so when a shrink or a reclaim drains it again, and"
          + " one a shrink started becomes so when the job is then stopped")
  void jobStopIsKeptThroughLaterDrains() {
    Drains d = new Drains();
    d.add(Drain.stop("c1", "app_1", "n1", 500, Reason.SHRINK, 0));
    d.add(shrink("c1", 400));
    d.add(new Drain("c1", "app_1", "n1", 300, Reason.RECLAIM, 7));
    d.add(shrink("c2", 500));
    d.add(Drain.stop("c2", "app_1", "n1", 600, Reason.RECLAIM, 7));
    d.add(shrink("c3", 500));
    d.announce();

    assertThat(d.due(600))
        .extracting(Drain::container, Drain::stopsJob)
        .containsExactly(
            Tuple.tuple("c1", true), Tuple.tuple("c2", true), Tuple.tuple("c3", false));
  }

  @Test
  @DisplayName("restored drains keep their kill times and are announced again")
  void restoredDrainsAreAnnouncedAgain() {
    Drains before = new Drains();
    before.add(shrink("c1", 100));
    before.add(new Drain("c2", "app_2", "n2", 200, Reason.ORPHAN, 0));
    before.add(Drain.stop("c3", "app_3", "n3", 300, Reason.RECLAIM, 4));
    before.announce();

    Drains after = new Drains();
    after.restore(before.toRecord());

    assertThat(after.toRecord()).isEqualTo(before.toRecord());
    assertThat(after.nodes()).containsExactlyInAnyOrder("n1", "n2", "n3");
    assertThat(after.announce()).extracting(Drain::container).containsExactly("c1", "c2", "c3");
    assertThat(after.due(150)).extracting(Drain::container).containsExactly("c1");
  }

  @Test
  @DisplayName("a cancelled drain, or one whose container is gone, is forgotten")
  void cancelledAndGoneAreForgotten() {
    Drains d = new Drains();
    d.add(shrink("c1", 100));
    d.add(shrink("c2", 100));
    d.add(shrink("c3", 100));
    d.cancel("c1");
    d.retainOnly(Set.of("c2"));
    assertThat(d.ids()).containsExactly("c2");
  }

  /**
   * A MOVE drain recorded at 0: it waits until 30_000 for the job's new workers, then has a 1_000
   * ms grace.
   */
  private static Drain move(String c) {
    return Drain.move(c, "app_1", "n1", 31_000, 30_000);
  }

  @Test
  @DisplayName(
      "a move is told only once its job's new workers are there, and its grace starts then")
  void moveWaitsForNewWorkers() {
    Drains d = new Drains();
    d.add(move("c1"));
    d.add(shrink("c2", 500));
    assertThat(d.moving("app_1")).isEqualTo(1);
    assertThat(d.announce(100, x -> Drains.Hold.WAIT))
        .as("the shrink goes out, the move waits")
        .extracting(Drain::container)
        .containsExactly("c2");
    assertThat(d.due(40_000))
        .extracting(Drain::container)
        .as("a move not told is never killed")
        .containsExactly("c2");
    List<Drain> told = d.announce(5_000, x -> Drains.Hold.ANNOUNCE);
    assertThat(told).extracting(Drain::container).containsExactly("c1");
    assertThat(told.get(0).killAtMs()).as("told at 5_000, killed a grace later").isEqualTo(6_000);
    assertThat(d.due(5_999)).isEmpty();
    assertThat(d.due(6_000)).extracting(Drain::container).containsExactly("c1");
  }

  @Test
  @DisplayName(
      "a move is given up when the plan no longer wants it, or when its new workers are late")
  void moveGivenUp() {
    Drains d = new Drains();
    d.add(move("c1"));
    d.add(move("c2"));
    assertThat(d.moving("app_1")).isEqualTo(2);
    assertThat(
            d.announce(
                100, x -> x.container().equals("c1") ? Drains.Hold.CANCEL : Drains.Hold.WAIT))
        .isEmpty();
    assertThat(d.ids()).as("c1 stays with its job").containsExactly("c2");
    assertThat(d.moving()).isEqualTo(java.util.Map.of("app_1", 1));
    assertThat(d.announce(30_000, x -> Drains.Hold.WAIT)).as("late: given up, not told").isEmpty();
    assertThat(d.ids()).isEmpty();
    assertThat(d.moving("app_1")).isZero();
  }

  @Test
  @DisplayName("a reclaim of a node does not wait for a move off it")
  void reclaimOverridesMove() {
    Drains d = new Drains();
    d.add(move("c1"));
    assertThat(d.moving("app_1")).isEqualTo(1);
    d.add(new Drain("c1", "app_1", "n1", 2_000, Reason.RECLAIM, 7));
    assertThat(d.moving("app_1")).as("no longer a move").isZero();
    assertThat(d.announce(100, x -> Drains.Hold.WAIT))
        .extracting(Drain::reason)
        .containsExactly(Reason.RECLAIM);
  }

  @Test
  @DisplayName("a stored move keeps waiting after a restart, until its time; a told one stays told")
  void restoredMoveKeepsItsHold() {
    Drains before = new Drains();
    before.add(move("c1"));
    before.add(Drain.move("c2", "app_1", "n1", 31_000, 30_000));
    before.announce(
        10_000, x -> x.container().equals("c2") ? Drains.Hold.ANNOUNCE : Drains.Hold.WAIT);

    Drains after = new Drains();
    after.restore(before.toRecord());
    assertThat(after.toRecord()).isEqualTo(before.toRecord());
    assertThat(after.announce(20_000, x -> Drains.Hold.WAIT))
        .as("c2 was told before: told again, c1 waits")
        .extracting(Drain::container)
        .containsExactly("c2");
    assertThat(after.announce(30_000, x -> Drains.Hold.WAIT)).isEmpty();
    assertThat(after.ids()).containsExactly("c2");
  }
}
