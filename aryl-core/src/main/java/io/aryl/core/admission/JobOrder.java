package io.aryl.core.admission;

import io.aryl.core.model.Job;
import java.util.Comparator;

/** The order in which queued jobs are offered their base gang. */
public enum JobOrder {
  /**
   * Shortest predicted runtime at base width first (the paper's choice); ties by submission, then
   * id.
   */
  SHORTEST_PREDICTED_FIRST(
      Comparator.comparingDouble((Job j) -> j.predictedRuntimeAt(j.minWorkers()))
          .thenComparingDouble(Job::submitTimeS)
          .thenComparing(Job::id)),
  /** First come, first served; ties by id. */
  FIFO(Comparator.comparingDouble(Job::submitTimeS).thenComparing(Job::id));

  @SuppressWarnings("ImmutableEnumChecker") // built above from method references; holds no state
  private final Comparator<Job> comparator;

  JobOrder(Comparator<Job> comparator) {
    this.comparator = comparator;
  }

  public Comparator<Job> comparator() {
    return comparator;
  }
}
