package io.aryl.sim.baselines;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class WorkersByServerTest {
  private static List<String> pairs(WorkersByServer w) {
    List<String> out = new ArrayList<>();
    w.forEach((s, n) -> out.add(s + "x" + n));
    return out;
  }

  private static WorkersByServer of(int... serverThenCount) {
    int[] servers = new int[serverThenCount.length / 2];
    int[] counts = new int[servers.length];
    for (int i = 0; i < servers.length; i++) {
      servers[i] = serverThenCount[2 * i];
      counts[i] = serverThenCount[2 * i + 1];
    }
    return WorkersByServer.of(servers, counts);
  }

  @Test
  void addKeepsServersInIndexOrderAndSumsOnOneServer() {
    WorkersByServer w = new WorkersByServer();
    w.add(5, 1);
    w.add(2, 2);
    w.add(9, 1);
    w.add(5, 3);
    assertThat(pairs(w)).containsExactly("2x2", "5x4", "9x1");
  }

  @Test
  void writingACopyLeavesTheOriginalAsItWas() {
    WorkersByServer original = of(1, 2, 4, 1);
    WorkersByServer copy = original.copy();
    copy.add(3, 1);
    copy.setCount(0, 7);
    assertThat(pairs(original)).containsExactly("1x2", "4x1");
    assertThat(pairs(copy)).containsExactly("1x7", "3x1", "4x1");
  }

  @Test
  void writingTheOriginalLeavesItsCopiesAsTheyWere() {
    WorkersByServer original = of(1, 2);
    WorkersByServer first = original.copy();
    WorkersByServer second = first.copy();
    original.setCount(0, 5);
    first.add(0, 1);
    assertThat(pairs(original)).containsExactly("1x5");
    assertThat(pairs(first)).containsExactly("0x1", "1x2");
    assertThat(pairs(second)).containsExactly("1x2");
  }
}
