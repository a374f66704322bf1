package io.aryl.yarn;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.yarn.Drains.Drain;
import io.aryl.yarn.Drains.Reason;
import java.util.Set;
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
  @DisplayName("restored drains keep their kill times and are announced again")
  void restoredDrainsAreAnnouncedAgain() {
    Drains before = new Drains();
    before.add(shrink("c1", 100));
    before.add(new Drain("c2", "app_2", "n2", 200, Reason.ORPHAN, 0));
    before.announce();

    Drains after = new Drains();
    after.restore(before.toRecord());

    assertThat(after.toRecord()).isEqualTo(before.toRecord());
    assertThat(after.nodes()).containsExactlyInAnyOrder("n1", "n2");
    assertThat(after.announce()).extracting(Drain::container).containsExactly("c1", "c2");
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
}
