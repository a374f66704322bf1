package io.aryl.core.victim;

/**
 * What becomes of a running job that loses workers: it shrinks, or it is preempted. Decided by one
 * rule, {@link #of}, wherever workers are taken away: the reclaim planner when it prices and plans
 * a reclaim, the ResourceManager's reclaim executor for a job its plan did not name, and the
 * simulator when a reclaimed server goes back.
 */
public enum Fate {
  /**
   * Keeps at least its minimum: loses only the workers taken, and runs on after a re-scale pause.
   */
  SHRINK,
  /**
   * Falls below its minimum: stops as a whole and returns to the queue, to restart from its last
   * checkpoint.
   */
  PREEMPT;

  /**
   * The shrink-or-preempt rule: a job running {@code workers} workers that loses {@code removed} of
   * them shrinks if it keeps at least {@code minWorkers}, and is otherwise preempted, since a
   * synchronous gang cannot run below its base.
   *
   * @throws IllegalArgumentException naming the value when {@code removed} is not within 1..{@code
   *     workers} or {@code minWorkers} is below 1
   */
  public static Fate of(int workers, int removed, int minWorkers) {
    if (removed < 1 || removed > workers) {
      throw new IllegalArgumentException(
          "fate.removed must be within 1.." + workers + " (the job's workers), was " + removed);
    }
    if (minWorkers < 1) {
      throw new IllegalArgumentException("fate.minWorkers must be > 0, was " + minWorkers);
    }
    return workers - removed >= minWorkers ? SHRINK : PREEMPT;
  }
}
