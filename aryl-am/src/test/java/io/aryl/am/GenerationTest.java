package io.aryl.am;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class GenerationTest {
  private static Generation.Member m(String id, String host) {
    return new Generation.Member(id, host);
  }

  @Test
  void ranksNewMembersByHostThenIdAndLocalRanksPerHost() {
    Generation g =
        Generation.assign(
            1, List.of(m("c3", "b"), m("c1", "a"), m("c2", "b"), m("c4", "a")), null, 7);
    assertThat(g.ranks())
        .containsExactly(
            java.util.Map.entry("c1", 0),
            java.util.Map.entry("c4", 1),
            java.util.Map.entry("c2", 2),
            java.util.Map.entry("c3", 3));
    assertThat(g.localRank("c1")).isZero();
    assertThat(g.localRank("c4")).isEqualTo(1);
    assertThat(g.localRank("c2")).isZero();
    assertThat(g.localWorldSize("c3")).isEqualTo(2);
    assertThat(g.masterAddr()).isEqualTo("a");
    assertThat(g.hostSlots()).containsExactly("a:2", "b:2");
    assertThat(g.env("c3"))
        .containsEntry("WORLD_SIZE", "4")
        .containsEntry("RANK", "3")
        .containsEntry("LOCAL_RANK", "1")
        .containsEntry("MASTER_ADDR", "a")
        .containsEntry("ARYL_GENERATION", "1")
        .containsEntry("ARYL_HOSTS", "a:2,b:2")
        .containsEntry("MASTER_PORT", Integer.toString(g.masterPort()));
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
    assertThat(g2.masterPort())
        .as("below Linux's ephemeral ports, which any outbound connection may hold")
        .isNotEqualTo(g1.masterPort())
        .isBetween(20_000, 32_767);
  }

  @Test
  @DisplayName("a generation is immutable: changing the maps it was made from changes nothing")
  void immutable() {
    Map<String, Integer> ranks = new LinkedHashMap<>(Map.of("c1", 0));
    Map<String, String> hosts = new LinkedHashMap<>(Map.of("c1", "a"));
    Generation g = new Generation(1, ranks, hosts, "a", 20_001);
    ranks.put("c2", 1);
    hosts.put("c2", "b");
    assertThat(g.ranks()).containsOnlyKeys("c1");
    assertThat(g.hosts()).containsOnlyKeys("c1");
    assertThatThrownBy(() -> g.ranks().put("c3", 2))
        .isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  @DisplayName("an inconsistent generation is refused with a message naming the field and value")
  void refusesInconsistent() {
    Map<String, Integer> two = new LinkedHashMap<>();
    two.put("c1", 0);
    two.put("c2", 1);
    Map<String, String> hosts = Map.of("c1", "a", "c2", "b");
    assertThatThrownBy(() -> new Generation(0, two, hosts, "a", 20_001))
        .hasMessage("generation number must be >= 1, was 0");
    assertThatThrownBy(() -> new Generation(1, Map.of(), Map.of(), "a", 20_001))
        .hasMessage("generation 1: ranks must not be empty, was {}");
    assertThatThrownBy(() -> new Generation(1, Map.of("c1", 1), Map.of("c1", "a"), "a", 20_001))
        .hasMessage("generation 1: ranks must be 0..0 in order, was {c1=1}");
    assertThatThrownBy(() -> new Generation(1, two, Map.of("c1", "a"), "a", 20_001))
        .hasMessage("generation 1: hosts must name the host of each ranked container, was {c1=a}");
    assertThatThrownBy(() -> new Generation(1, two, hosts, "b", 20_001))
        .hasMessage("generation 1: masterAddr must be rank 0's host a, was b");
    assertThatThrownBy(() -> new Generation(1, two, hosts, "a", 0))
        .hasMessage("generation 1: masterPort must be 1-65535, was 0");
  }
}
