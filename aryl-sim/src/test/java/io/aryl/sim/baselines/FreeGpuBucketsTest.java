package io.aryl.sim.baselines;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.core.model.GpuType;
import io.aryl.core.model.Server;
import io.aryl.core.placement.ServerTable;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("FreeGpuBuckets: free GPUs by type and count")
class FreeGpuBucketsTest {
  private static final GpuType A100 = GpuType.of("A100");
  private static final GpuType T4 = GpuType.of("T4", 0.5);

  @Test
  @DisplayName(
      "best fit takes the tightest open server that fits, roomiest the roomiest, each the lowest index on ties")
  void bestFitAndRoomiest() {
    ServerTable table =
        new ServerTable(
            List.of(
                Server.training("a", A100, 8),
                Server.training("b", A100, 8),
                Server.training("c", T4, 8),
                Server.inference("d", A100, 8),
                Server.training("e", A100, 8).withFenced(true)));
    FreeGpuBuckets free = new FreeGpuBuckets(table, new int[] {5, 3, 3, 8, 8});
    boolean[] a100 = {true, false};
    boolean[] both = {true, true};
    assertThat(free.bestFit(2, a100)).isEqualTo(1); // b: 3 free; d serves no training, e is fenced
    assertThat(free.bestFit(4, a100)).isEqualTo(0);
    assertThat(free.bestFit(6, a100)).isEqualTo(-1);
    assertThat(free.roomiest(1, both)).isEqualTo(0);
    assertThat(free.bestFit(3, both)).isEqualTo(1); // b and c both have 3: the lower index
    assertThat(free.total()).isEqualTo(11);
    assertThat(free.capacity(2, both)).isEqualTo(2 + 1 + 1);
    free.set(0, 1);
    assertThat(free.roomiest(1, both)).isEqualTo(1);
    assertThat(free.total()).isEqualTo(7);
  }

  @Test
  @DisplayName(
      "over random tables of more than one word of servers, every answer is a plain scan's")
  void sameAsScan() {
    Random random = new Random(11);
    for (int trial = 0; trial < 50; trial++) {
      List<Server> servers = new ArrayList<>();
      int n = 1 + random.nextInt(200);
      for (int s = 0; s < n; s++) {
        Server server = Server.training("s" + s, random.nextBoolean() ? A100 : T4, 8);
        servers.add(random.nextInt(8) == 0 ? server.withFenced(true) : server);
      }
      ServerTable table = new ServerTable(servers);
      int[] counts = new int[n];
      for (int s = 0; s < n; s++) {
        counts[s] = random.nextInt(9);
      }
      FreeGpuBuckets free = new FreeGpuBuckets(table, counts);
      for (int step = 0; step < 100; step++) {
        int s = random.nextInt(n);
        counts[s] = random.nextInt(9);
        free.set(s, counts[s]);
        boolean[] types = new boolean[table.types().size()];
        for (int t = 0; t < types.length; t++) {
          types[t] = random.nextBoolean();
        }
        int gpus = 1 + random.nextInt(8);
        assertThat(free.bestFit(gpus, types)).isEqualTo(scan(table, counts, gpus, types, true));
        assertThat(free.roomiest(gpus, types)).isEqualTo(scan(table, counts, gpus, types, false));
        int capacity = 0;
        long total = 0;
        for (int k = 0; k < n; k++) {
          if (table.open(k)) {
            total += counts[k];
            capacity += types[table.typeIndex(k)] ? counts[k] / gpus : 0;
          }
        }
        assertThat(free.capacity(gpus, types)).isEqualTo(capacity);
        assertThat(free.total()).isEqualTo(total);
      }
    }
  }

  private static int scan(
      ServerTable table, int[] counts, int gpus, boolean[] types, boolean tightest) {
    int found = -1;
    for (int s = 0; s < counts.length; s++) {
      if (!table.open(s) || !types[table.typeIndex(s)] || counts[s] < gpus) {
        continue;
      }
      if (found < 0 || (tightest ? counts[s] < counts[found] : counts[s] > counts[found])) {
        found = s;
      }
    }
    return found;
  }
}
