package io.aryl.demo;

/**
 * The demo's worker: a sleep that checkpoints. Rank 0 counts the job's work down in {@code
 * $ARYL_CHECKPOINT_DIR/left} and writes {@code done} at zero; the other ranks wait for {@code
 * done}. A job thus sleeps for its scaled run time at its trace width, longer when narrower,
 * shorter when wider, and a new generation (after a grow, shrink or preemption) resumes where the
 * last one stopped, losing at most a second — what a real elastic job with per-step checkpoints
 * does.
 *
 * <p>The pace is that of a synchronous job: {@code WORLD_SIZE} times the slowest worker's GPU
 * speed, in worker-seconds per second. Each rank looks its node's speed up in {@code $}{@value
 * #SPEEDS_ENV} (lines {@code NM_PORT SPEED}, speeds in thousandths; the NodeManager sets {@code
 * NM_PORT} for every container; a node not listed, or no file, is speed 1) and reports it as {@code
 * speed.g<generation>.r<rank>} in the checkpoint directory; rank 0 counts only once every rank of
 * its generation has reported, at the pace of the slowest.
 */
public final class WorkerScript {
  /** The environment variable naming the file of node speeds. */
  public static final String SPEEDS_ENV = "ARYL_DEMO_GPU_SPEEDS";

  private WorkerScript() {}

  /** The worker command line for a job of {@code workUnits} worker-seconds. */
  public static String command(long workUnits) {
    if (workUnits < 1) {
      throw new IllegalArgumentException("workUnits must be >= 1, was " + workUnits);
    }
    return "d=\"$ARYL_CHECKPOINT_DIR\"; mkdir -p \"$d\"; "
        // This worker's GPU speed (thousandths), from its NodeManager's port.
        + "sp=1000; if [ -n \"$"
        + SPEEDS_ENV
        + "\" ] && [ -r \"$"
        + SPEEDS_ENV
        + "\" ]; then "
        + "while read -r p s; do if [ \"$p\" = \"$NM_PORT\" ]; then sp=$s; fi; done < \"$"
        + SPEEDS_ENV
        + "\"; fi; "
        + "g=\"$ARYL_GENERATION\"; echo \"$sp\" > \"$d/speed.g$g.r$RANK.tmp\" "
        + "&& mv \"$d/speed.g$g.r$RANK.tmp\" \"$d/speed.g$g.r$RANK\"; "
        + "if [ \"$RANK\" = 0 ]; then "
        + "left=$(cat \"$d/left\" 2>/dev/null || echo "
        + workUnits
        + "); lm=$((left * 1000)); "
        + "while [ \"$lm\" -gt 0 ]; do sleep 1; "
        // The slowest reported speed of this generation; 0 (no progress) while a rank has not
        // reported.
        + "min=1000000; r=0; while [ \"$r\" -lt \"$WORLD_SIZE\" ]; do "
        + "s=$(cat \"$d/speed.g$g.r$r\" 2>/dev/null || echo 0); if [ \"$s\" -lt \"$min\" ]; then min=$s; fi; "
        + "r=$((r + 1)); done; "
        + "lm=$((lm - WORLD_SIZE * min)); left=$(( lm > 0 ? (lm + 999) / 1000 : lm / 1000 )); "
        + "echo \"$left\" > \"$d/left.tmp\" && mv \"$d/left.tmp\" \"$d/left\"; done; "
        + "touch \"$d/done\"; "
        + "else while [ ! -e \"$d/done\" ]; do sleep 0.2; done; fi";
  }
}
