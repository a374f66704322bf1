package io.aryl.yarn.engine;

import io.aryl.core.job.JobShape;
import io.aryl.core.model.BelowMax;
import io.aryl.core.model.Plan;
import io.aryl.yarn.round.RoundInput;
import java.util.Locale;

/**
 * Why the last round runs an elastic job below its declared {@code aryl.max-workers}, in words: the
 * round's own reason ({@link Plan#belowMax()}), or, when the round ran it at the maximum its
 * snapshot allowed, that its ApplicationMaster asks for fewer (the snapshot caps a job's maximum at
 * the workers it holds and asks for, {@link io.aryl.yarn.round.SnapshotTranslator}). The status's
 * {@code belowMaxBecause} and the scheduler's log say it alike.
 *
 * @param targetWorkers the workers the plan gives the job
 * @param maxWorkers its declared maximum
 * @param round the round's reason; null when its ApplicationMaster asks for fewer
 * @param wanted the workers it holds and asks for
 * @param gpusPerWorker GPUs of each of its workers
 */
public record WhyBelowMax(
    int targetWorkers, int maxWorkers, BelowMax round, int wanted, int gpusPerWorker) {

  /**
   * Why the plan runs the job below its declared maximum; null when it runs it at that maximum,
   * does not run it, or did not plan it.
   *
   * @param held the worker containers it holds, as the round saw them
   * @param asked the workers its ApplicationMaster asks for beyond those
   */
  public static WhyBelowMax of(
      String appId, JobShape shape, int held, int asked, RoundInput input, Plan plan) {
    if (input == null || plan == null || !input.state().hasJob(appId)) {
      return null;
    }
    int target = plan.target(appId).totalWorkers();
    if (target == 0 || target >= shape.maxWorkers()) {
      return null;
    }
    BelowMax round = plan.belowMax().get(appId);
    if (round == null && input.state().job(appId).maxWorkers() >= shape.maxWorkers()) {
      return null; // the round had its whole maximum to plan, and gave no reason: nothing to say
      // that would be true
    }
    return new WhyBelowMax(target, shape.maxWorkers(), round, held + asked, shape.gpusPerWorker());
  }

  /**
   * Whether the two say the same kind of reason, whatever their numbers (which move every round).
   */
  public boolean sameReasonAs(WhyBelowMax other) {
    return other != null
        && (round == null
            ? other.round == null
            : other.round != null && round.getClass() == other.round.getClass());
  }

  /** The reason in words, for the status's {@code belowMaxBecause} and the log. */
  public String words() {
    if (round == null) {
      return "its ApplicationMaster asks for no more: it holds and asks for "
          + workers(wanted)
          + " in all";
    }
    if (round instanceof BelowMax.NoRoom r) {
      String types = String.join(", ", r.gpuTypes());
      if (r.spareGpus() == 0) {
        return "no spare GPUs of the types it may use (" + types + ")";
      }
      return "no room for one more worker of "
          + gpus(gpusPerWorker)
          + ": "
          + gpus(r.spareGpus())
          + " of the types it may use ("
          + types
          + ") spare, at most "
          + r.largestSpare()
          + " on one node";
    }
    if (round instanceof BelowMax.NotWorthThePause r) {
      if (r.pauseS() <= 0) {
        return "one more worker would not shorten its predicted runtime (it saves "
            + seconds(r.gainS())
            + ")";
      }
      return "one more worker would save "
          + seconds(r.gainS())
          + " of its predicted runtime, no more than the "
          + seconds(r.pauseS())
          + " re-scale pause it costs (aryl.scheduler.rescale-overhead-s)";
    }
    if (round instanceof BelowMax.OthersWorthMore r) {
      return "the spare GPUs it may use went to jobs whose extra workers are worth more per GPU ("
          + r.workers()
          + " more worker"
          + (r.workers() == 1 ? "" : "s")
          + " would save "
          + seconds(r.gainS())
          + (r.pauseS() > 0 ? ", for a " + seconds(r.pauseS()) + " re-scale pause" : "")
          + ")";
    }
    if (round instanceof BelowMax.MovedWhole) {
      return "moved whole to GPUs of another speed this round, at the width that gains most there";
    }
    return "elastic growth is off (aryl.scheduler.elastic=false): every job runs at its minimum";
  }

  /** The log's line: which job, how wide, and why. */
  String logLine(String appId) {
    return "Aryl: "
        + appId
        + " runs "
        + targetWorkers
        + " of its "
        + workers(maxWorkers)
        + ": "
        + words();
  }

  private static String workers(int n) {
    return n + " worker" + (n == 1 ? "" : "s");
  }

  private static String gpus(int n) {
    return n + " GPU" + (n == 1 ? "" : "s");
  }

  /** Predicted seconds as a person reads them: whole seconds from 100 s, one decimal below. */
  static String seconds(double s) {
    return String.format(Locale.ROOT, Math.abs(s) >= 100 ? "%.0f s" : "%.1f s", s);
  }
}
