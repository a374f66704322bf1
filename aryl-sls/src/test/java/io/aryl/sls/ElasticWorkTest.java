package io.aryl.sls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@DisplayName(
    "ElasticWork: min x runtime worker-ms, done at one per worker held per ms, from min up to max workers")
class ElasticWorkTest {

  @ParameterizedTest(name = "min {0}, max {1}: holding {2} makes {3} work")
  @CsvSource({
    // min, max, held, working
    "2,    6,    0,    0",
    "2,    6,    1,    0",
    "2,    6,    2,    2",
    "2,    6,    3,    3",
    "2,    6,    6,    6",
    "2,    6,    7,    6",
    "2,    6,    100,  6",
    "4,    4,    3,    0",
    "4,    4,    4,    4",
    "4,    4,    5,    4",
    "1,    1,    1,    1",
  })
  @DisplayName(
      "none work below the minimum, every worker held works from min to max, no more than max work")
  void workingWorkers(int min, int max, int held, int working) {
    assertThat(new ElasticWork(min, max, 1000).working(held)).isEqualTo(working);
  }

  @ParameterizedTest(
      name = "min 2, max 6, runtime 1000 ms: {0} held for 100 ms leaves {1} worker-ms")
  @CsvSource({
    "0, 2000",
    "1, 2000",
    "2, 1800",
    "3, 1700",
    "4, 1600",
    "6, 1400",
    "7, 1400",
    "60, 1400",
  })
  @DisplayName(
      "progress is zero below the minimum, linear in workers from min to max, and capped at max")
  void progressPerAdvance(int held, double remaining) {
    ElasticWork work = new ElasticWork(2, 6, 1000);

    work.advance(100, held);

    assertThat(work.remainingWorkerMs()).isEqualTo(remaining);
  }

  @Test
  @DisplayName("a job short of its minimum never finishes, however long it waits")
  void belowMinimumNeverFinishes() {
    ElasticWork work = new ElasticWork(4, 8, 10);

    for (int i = 0; i < 1000; i++) {
      work.advance(1_000_000, 3);
    }

    assertThat(work.done()).isFalse();
    assertThat(work.remainingWorkerMs()).isEqualTo(40);
  }

  @ParameterizedTest(
      name = "min 2, max 6, runtime 3000 ms, {0} workers: done after {1} ms and not 1 ms before")
  @CsvSource({
    // held, ms to finish = 2 x 3000 / min(held, 6)
    "2,      3000",
    "3,      2000",
    "6,      1000",
    "12,     1000",
  })
  @DisplayName(
      "the work is done exactly when min x runtime worker-ms are done: twice the workers, half the time")
  void doneExactly(int held, long msToFinish) {
    ElasticWork early = new ElasticWork(2, 6, 3000);
    early.advance(msToFinish - 1, held);
    assertThat(early.done()).isFalse();
    assertThat(early.remainingWorkerMs()).isEqualTo(Math.min(held, 6));

    ElasticWork onTime = new ElasticWork(2, 6, 3000);
    onTime.advance(msToFinish, held);
    assertThat(onTime.done()).isTrue();
    assertThat(onTime.remainingWorkerMs()).isZero();
  }

  @Test
  @DisplayName(
      "the work done adds up over advances with different workers held, and never goes below zero")
  void accumulates() {
    ElasticWork work = new ElasticWork(2, 4, 1000); // 2000 worker-ms

    work.advance(250, 2); // 500
    work.advance(100, 1); // nothing: short of the gang
    work.advance(250, 4); // 1000
    assertThat(work.remainingWorkerMs()).isEqualTo(500);
    assertThat(work.done()).isFalse();

    work.advance(10_000, 4);
    assertThat(work.remainingWorkerMs()).isZero();
    assertThat(work.done()).isTrue();
  }

  @Test
  @DisplayName("holding more than the maximum is no faster than holding the maximum")
  void moreThanMaxIsNoFaster() {
    ElasticWork atMax = new ElasticWork(2, 6, 5000);
    ElasticWork aboveMax = new ElasticWork(2, 6, 5000);

    atMax.advance(700, 6);
    aboveMax.advance(700, 48);

    assertThat(aboveMax.remainingWorkerMs())
        .isEqualTo(atMax.remainingWorkerMs())
        .isEqualTo(10_000 - 6 * 700);
  }

  @Test
  @DisplayName("a negative elapsed time does no work and undoes none")
  void negativeElapsed() {
    ElasticWork work = new ElasticWork(1, 2, 100);

    work.advance(-50, 2);

    assertThat(work.remainingWorkerMs()).isEqualTo(100);
  }

  @Test
  @DisplayName("a runtime of zero is done from the start")
  void zeroRuntime() {
    assertThat(new ElasticWork(3, 5, 0).done()).isTrue();
  }

  @Test
  @DisplayName("work of large jobs is counted without overflow")
  void large() {
    ElasticWork work = new ElasticWork(1_000, 2_000, Long.MAX_VALUE / 1_000);

    assertThat(work.remainingWorkerMs()).isGreaterThan(Long.MAX_VALUE / 2.0);
    assertThat(work.done()).isFalse();
  }

  @ParameterizedTest(name = "min {0}, max {1}, runtime {2} ms is refused")
  @CsvSource({
    "0,  4,  100",
    "-1, 4,  100",
    "3,  2,  100",
    "2,  4,  -1",
  })
  @DisplayName("bad arguments are refused with every value named")
  void badArguments(int min, int max, long runtime) {
    assertThatThrownBy(() -> new ElasticWork(min, max, runtime))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("min " + min)
        .hasMessageContaining("max " + max)
        .hasMessageContaining("runtime " + runtime + " ms");
  }
}
