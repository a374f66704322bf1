package io.aryl.yarn.rm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName(
    "UnplannedDemand: whether an application outside the plan may be asking for containers")
class UnplannedDemandTest {
  private long nowNanos = 1_000_000_000L;
  private boolean asking;
  private final AtomicInteger scans = new AtomicInteger();
  private final UnplannedDemand demand =
      new UnplannedDemand(
          () -> {
            scans.incrementAndGet();
            return asking;
          },
          () -> nowNanos,
          20,
          1_000);

  private void advanceMs(long ms) {
    nowNanos += TimeUnit.MILLISECONDS.toNanos(ms);
  }

  @Test
  @DisplayName("no one asking at the first scan: no one asking, without scanning again")
  void noOneAsking() {
    assertThat(demand.mayBeAsking()).isFalse();
    advanceMs(500);
    assertThat(demand.mayBeAsking()).isFalse();
    assertThat(scans).hasValue(1);
  }

  @Test
  @DisplayName(
      "an ask raises the flag at once, and a scan after the rescan interval that finds none lowers it")
  void askRaisesScanLowers() {
    assertThat(demand.mayBeAsking()).isFalse();
    demand.changed();
    assertThat(demand.mayBeAsking())
        .isTrue(); // scans now: still within no interval since the change
    asking = false;
    advanceMs(5);
    assertThat(demand.mayBeAsking()).isTrue(); // within the rescan interval: not scanned again
    advanceMs(20);
    assertThat(demand.mayBeAsking()).isFalse();
  }

  @Test
  @DisplayName("someone asking keeps the flag up, scanned once per rescan interval")
  void askingKeepsItUp() {
    asking = true;
    assertThat(demand.mayBeAsking()).isTrue();
    for (int i = 0; i < 10; i++) {
      advanceMs(4);
      assertThat(demand.mayBeAsking()).isTrue();
    }
    assertThat(scans).hasValue(3); // at 0, 20 and 40 ms
    asking = false;
    advanceMs(20);
    assertThat(demand.mayBeAsking()).isFalse();
  }

  @Test
  @DisplayName("a change during a scan that finds no one keeps the flag up until the next scan")
  void changeDuringScan() {
    UnplannedDemand[] self = new UnplannedDemand[1];
    self[0] =
        new UnplannedDemand(
            () -> {
              self[0].changed(); // an ask arrives while the applications are being read, after this
              // one was read
              return false;
            },
            () -> nowNanos,
            20,
            1_000);
    assertThat(self[0].mayBeAsking()).isTrue();
  }

  @Test
  @DisplayName("a request pending without a reported change is found within the maximum age")
  void maxAge() {
    assertThat(demand.mayBeAsking()).isFalse();
    asking = true;
    advanceMs(999);
    assertThat(demand.mayBeAsking()).isFalse();
    advanceMs(1);
    assertThat(demand.mayBeAsking()).isTrue();
  }

  @Test
  @DisplayName("a rescan interval of 0 or a maximum age below it is refused, naming both")
  void badIntervals() {
    assertThatThrownBy(() -> new UnplannedDemand(() -> false, System::nanoTime, 0, 1_000))
        .hasMessageContaining("0 ms")
        .hasMessageContaining("1000 ms");
    assertThatThrownBy(() -> new UnplannedDemand(() -> false, System::nanoTime, 20, 10))
        .hasMessageContaining("20 ms")
        .hasMessageContaining("10 ms");
  }
}
