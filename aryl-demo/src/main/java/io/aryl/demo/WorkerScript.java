package io.aryl.demo;

/**
 * The demo's worker: a sleep that checkpoints. Rank 0 counts the job's work down, {@code WORLD_SIZE} worker-seconds
 * per second, in {@code $ARYL_CHECKPOINT_DIR/left}, and writes {@code done} at zero; the other ranks wait for
 * {@code done}. A job thus sleeps for its scaled run time at its trace width, longer when narrower, shorter when
 * wider, and a new generation (after a grow, shrink or preemption) resumes where the last one stopped, losing at most a
 * second — what a real elastic job with per-step checkpoints does.
 */
public final class WorkerScript {
  private WorkerScript() {}

  /** The worker command line for a job of {@code workUnits} worker-seconds. */
  public static String command(long workUnits) {
    if (workUnits < 1) {
      throw new IllegalArgumentException("workUnits must be >= 1, was " + workUnits);
    }
    return "d=\"$ARYL_CHECKPOINT_DIR\"; mkdir -p \"$d\"; "
        + "if [ \"$RANK\" = 0 ]; then "
        + "left=$(cat \"$d/left\" 2>/dev/null || echo " + workUnits + "); "
        + "while [ \"$left\" -gt 0 ]; do sleep 1; left=$((left - WORLD_SIZE)); "
        + "echo \"$left\" > \"$d/left.tmp\" && mv \"$d/left.tmp\" \"$d/left\"; done; "
        + "touch \"$d/done\"; "
        + "else while [ ! -e \"$d/done\" ]; do sleep 0.2; done; fi";
  }
}
