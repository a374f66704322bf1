package io.aryl.am;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class GenerationTest {
  private static Generation.Member m(String id, String host) {
    return new Generation.Member(id, host);
  }

  @Test
  void ranksNewMembersByHostThenIdAndLocalRanksPerHost() {
    Generation g = Generation.assign(1, List.of(m("c3", "b"), m("c1", "a"), m("c2", "b"), m("c4", "a")), null, 7);
    assertThat(g.ranks()).containsExactly(java.util.Map.entry("c1", 0), java.util.Map.entry("c4", 1),
        java.util.Map.entry("c2", 2), java.util.Map.entry("c3", 3));
    assertThat(g.localRank("c1")).isZero();
    assertThat(g.localRank("c4")).isEqualTo(1);
    assertThat(g.localRank("c2")).isZero();
    assertThat(g.localWorldSize("c3")).isEqualTo(2);
    assertThat(g.masterAddr()).isEqualTo("a");
    assertThat(g.hostSlots()).containsExactly("a:2", "b:2");
    assertThat(g.env("c3")).containsEntry("WORLD_SIZE", "4").containsEntry("RANK", "3")
        .containsEntry("LOCAL_RANK", "1").containsEntry("MASTER_ADDR", "a").containsEntry("ARYL_GENERATION", "1")
        .containsEntry("ARYL_HOSTS", "a:2,b:2").containsEntry("MASTER_PORT", Integer.toString(g.masterPort()));
  }

  @Test
  void survivorsKeepTheirOrderAndRankZeroStaysMaster() {
    Generation g1 = Generation.assign(1, List.of(m("c1", "z"), m("c2", "a")), null, 0);
    assertThat(g1.rank("c2")).isZero();
    Generation g2 = Generation.assign(2, List.of(m("c1", "z"), m("c2", "a"), m("c0", "a")), g1, 0);
    assertThat(g2.rank("c2")).isZero();
    assertThat(g2.rank("c1")).isEqualTo(1);
    assertThat(g2.rank("c0")).isEqualTo(2);
    assertThat(g2.masterAddr()).isEqualTo("a");
    assertThat(g2.masterPort()).isNotEqualTo(g1.masterPort()).isBetween(20_000, 39_999);
  }
}
