package io.aryl.sim.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.offset;

import java.util.BitSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The elasticity assumption: how a trace job asking for g GPUs becomes a schedulable shape on 8-GPU
 * servers, and which jobs are elastic.
 */
class JobShapeTest {
  private static final int SERVER = 8;
  private static final int IDS = 20_000;

  // Elastic: the worker is the largest power of two dividing g that is at most max(1, g/4) and at
  // most a server;
  // min = ceil(g/2 / worker), max = 2g / worker (at least min + 1).
  //   g=1:  g/4 < 1, worker 1            -> min ceil(0.5)=1, max 2    -> 1..2 GPUs
  //   g=2:  g/4 < 1, worker 1            -> min 1, max 4              -> 1..4 GPUs
  //   g=3:  odd, worker 1                -> min ceil(1.5)=2, max 6    -> 2..6 GPUs
  //   g=4:  g/4 = 1, worker 1            -> min 2, max 8              -> 2..8 GPUs
  //   g=8:  g/4 = 2, worker 2            -> min 4/2=2, max 16/2=8     -> 4..16 GPUs
  //   g=12: g/4 = 3, worker 2 (4 > 3)    -> min 6/2=3, max 24/2=12    -> 6..24 GPUs (Philly has
  // g=12)
  //   g=16: g/4 = 4, worker 4            -> min 8/4=2, max 32/4=8     -> 8..32 GPUs
  //   g=24: g/4 = 6, worker 4 (8 > 6)    -> min 12/4=3, max 48/4=12   -> 12..48 GPUs (Philly has
  // g=24)
  //   g=32: g/4 = 8, worker 8            -> min 16/8=2, max 64/8=8    -> 16..64 GPUs
  //   g=64: g/4 = 16, worker capped at 8 -> min 32/8=4, max 128/8=16  -> 32..128 GPUs
  @ParameterizedTest(name = "elastic g={0}: {1} GPUs x {2}..{3} workers")
  @CsvSource({
    // g, gpusPerWorker, minWorkers, maxWorkers
    "1,  1, 1, 2",
    "2,  1, 1, 4",
    "3,  1, 2, 6",
    "4,  1, 2, 8",
    "8,  2, 2, 8",
    "12, 2, 3, 12",
    "16, 4, 2, 8",
    "24, 4, 3, 12",
    "32, 8, 2, 8",
    "64, 8, 4, 16",
  })
  void elasticShapeRunsOnHalfToTwiceTheRequestedGpusInAtMostSixteenWorkers(
      int g, int gpusPerWorker, int minWorkers, int maxWorkers) {
    JobShape s = JobShape.elastic(g, SERVER);

    assertThat(s.gpusPerWorker()).isEqualTo(gpusPerWorker);
    assertThat(s.minWorkers()).isEqualTo(minWorkers);
    assertThat(s.maxWorkers()).isEqualTo(maxWorkers);
    assertThat(s.requestedWorkers()).isEqualTo((double) g / gpusPerWorker);
    // The assumption in GPUs: ceil(g/2) .. 2g, no worker bigger than a server, at most 16 workers.
    assertThat(s.minWorkers() * s.gpusPerWorker()).isEqualTo((g + 1) / 2);
    assertThat(s.maxWorkers() * s.gpusPerWorker()).isEqualTo(2 * g);
    assertThat(s.gpusPerWorker()).isLessThanOrEqualTo(SERVER);
    assertThat(s.maxWorkers()).isLessThanOrEqualTo(16).isGreaterThan(s.minWorkers());
    assertThat(s.requestedWorkers()).isBetween((double) s.minWorkers(), (double) s.maxWorkers());
  }

  // Inelastic: exactly g GPUs, one worker when it fits a server, else gcd(g, 8)-GPU workers (one
  // per server for the
  // multiples of 8 the traces use).
  @ParameterizedTest(name = "inelastic g={0}: {1} GPUs x {2} workers")
  @CsvSource({
    // g, gpusPerWorker, workers
    "1,  1, 1",
    "2,  2, 1",
    "3,  3, 1",
    "4,  4, 1",
    "8,  8, 1",
    "12, 4, 3", // gcd(12, 8) = 4
    "16, 8, 2",
    "24, 8, 3",
    "32, 8, 4",
    "64, 8, 8",
  })
  void inelasticShapeRunsOnExactlyTheRequestedGpus(int g, int gpusPerWorker, int workers) {
    JobShape s = JobShape.inelastic(g, SERVER);

    assertThat(s.gpusPerWorker()).isEqualTo(gpusPerWorker);
    assertThat(s.minWorkers()).isEqualTo(workers);
    assertThat(s.maxWorkers()).isEqualTo(workers);
    assertThat(s.requestedWorkers()).isEqualTo(workers);
    assertThat(s.minWorkers() * s.gpusPerWorker()).isEqualTo(g);
  }

  @Test
  void workersFollowTheServerSize() {
    // On 4-GPU servers a 16-GPU inelastic job is 4 workers of gcd(16, 4) = 4 GPUs, and a 32-GPU
    // elastic job's
    // worker is capped at the server's 4 GPUs (not 8): 16/4 = 4 .. 64/4 = 16 workers, 8 requested.
    assertThat(JobShape.inelastic(16, 4)).isEqualTo(new JobShape(4, 4, 4, 4));
    assertThat(JobShape.elastic(32, 4)).isEqualTo(new JobShape(4, 4, 16, 8));
  }

  @ParameterizedTest
  @ValueSource(ints = {0, -1})
  void aJobWithoutGpusHasNoShape(int g) {
    assertThatThrownBy(() -> JobShape.elastic(g, SERVER))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> JobShape.inelastic(g, SERVER))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @ParameterizedTest(name = "fraction {0}")
  @ValueSource(doubles = {0.05, 0.25, 0.5, 0.75, 0.95})
  void theShareOfElasticJobsIsTheFractionWithinTwoPercent(double fraction) {
    for (long seed : new long[] {1, 2, 42}) {
      int elastic = elasticIds(fraction, seed).cardinality();
      assertThat((double) elastic / IDS).as("seed %d", seed).isCloseTo(fraction, offset(0.02));
    }
  }

  @Test
  void noJobIsElasticAtFractionZeroAndEveryJobAtFractionOne() {
    assertThat(elasticIds(0, 1).cardinality()).isZero();
    assertThat(elasticIds(1, 1).cardinality()).isEqualTo(IDS);
  }

  @Test
  void theChoiceIsAFunctionOfSeedAndIdOnly() {
    // Asked again, in another order, the answer is the same.
    BitSet first = elasticIds(0.5, 7);
    for (int i = IDS - 1; i >= 0; i--) {
      assertThat(JobShape.isElastic(id(i), 0.5, 7)).isEqualTo(first.get(i));
    }
  }

  @Test
  void aLargerFractionKeepsEveryJobThatASmallerOneMadeElastic() {
    // One hash per (seed, id) compared with the fraction: the elastic set grows with the fraction.
    BitSet quarter = elasticIds(0.25, 3);
    BitSet half = elasticIds(0.5, 3);
    BitSet notInHalf = (BitSet) quarter.clone();
    notInHalf.andNot(half);
    assertThat(notInHalf.cardinality()).isZero();
  }

  @Test
  void anotherSeedChoosesOtherJobsIndependently() {
    BitSet a = elasticIds(0.5, 1);
    BitSet b = elasticIds(0.5, 2);
    assertThat(b).isNotEqualTo(a);
    // Independent choices agree on about half the jobs at fraction 0.5 (0.5^2 + 0.5^2), not on
    // nearly all of them.
    BitSet same = (BitSet) a.clone();
    same.xor(b);
    double agreement = 1 - (double) same.cardinality() / IDS;
    assertThat(agreement).isCloseTo(0.5, offset(0.03));
  }

  private static String id(int i) {
    return "job-" + i;
  }

  private static BitSet elasticIds(double fraction, long seed) {
    BitSet set = new BitSet(IDS);
    for (int i = 0; i < IDS; i++) {
      if (JobShape.isElastic(id(i), fraction, seed)) {
        set.set(i);
      }
    }
    return set;
  }
}
