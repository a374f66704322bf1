package io.aryl.core.model;

import java.util.List;

/**
 * Why a round runs an elastic job below its {@code maxWorkers}: what phase 2 found when it did not
 * widen the job, recorded by the round in its {@link Plan#belowMax()}. Times are predicted seconds
 * of the job itself, as its runtime prediction gives them (whatever weight the policy's elastic
 * value puts on them).
 *
 * <p>The job's {@code maxWorkers} is the snapshot's: whoever made the snapshot from a larger
 * declared maximum (a scheduler caps it at the workers the job asks for) says why the job runs
 * below that one.
 */
public sealed interface BelowMax {
  /**
   * Elastic allocation is off ({@code PolicyConfig.elastic()}): every job runs at its {@code
   * minWorkers}.
   */
  record ElasticOff() implements BelowMax {}

  /**
   * No room for one more of its workers: the GPUs of the types it may grow on that the round leaves
   * spare hold no worker of its size (none spare, or spread over servers with less than a worker
   * each). GPUs taken by gangs admitted this round, by other jobs' extra workers, or of other types
   * do not count.
   *
   * @param gpuTypes the GPU types phase 2 let it grow on, fastest first (with speed-aware rounds,
   *     those of its base workers' speed)
   * @param spareGpus GPUs of those types the round leaves spare
   * @param largestSpare the most of them on one server
   */
  record NoRoom(List<String> gpuTypes, int spareGpus, int largestSpare) implements BelowMax {
    public NoRoom {
      gpuTypes = List.copyOf(gpuTypes);
      Checks.nonNegative("noRoom.spareGpus", spareGpus);
      Checks.nonNegative("noRoom.largestSpare", largestSpare);
    }
  }

  /**
   * One more worker (the next knapsack item) is worth no more than what it costs: it saves {@code
   * gainS} of the job's predicted runtime, and widening the job pauses it {@code pauseS}.
   *
   * @param gainS predicted seconds one more worker saves
   * @param pauseS the re-scale pause one more worker adds: the policy's re-scale overhead for a
   *     running job that keeps its width otherwise, 0 for a job that starts this round or changes
   *     width anyway
   */
  record NotWorthThePause(double gainS, double pauseS) implements BelowMax {}

  /**
   * More workers would be worth their pause, but the knapsack gave the spare GPUs of the types the
   * job may grow on to jobs whose extra workers are worth more per GPU, and the GPUs left hold none
   * of its workers.
   *
   * @param workers the fewest more workers worth more than what the job got (mostly 1; 2 when one
   *     alone does not pay the pause and two do)
   * @param gainS predicted seconds those workers would save
   * @param pauseS the re-scale pause they would add (as in {@link NotWorthThePause})
   */
  record OthersWorthMore(int workers, double gainS, double pauseS) implements BelowMax {
    public OthersWorthMore {
      Checks.positive("othersWorthMore.workers", workers);
    }
  }

  /**
   * Moved whole to GPUs of another training speed this round (speed-aware rounds, {@code
   * SpeedTierMoves}), at the width the move gained most at; phase 2 leaves a job it moved as moved,
   * and may widen it next round.
   */
  record MovedWhole() implements BelowMax {}
}
