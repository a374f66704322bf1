package io.aryl.core.job;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The checkpoint contract: how a job's workers say that a checkpoint is complete, and how its
 * ApplicationMaster tells the scheduler when that was. Both sides use these names only.
 *
 * <ol>
 *   <li>The ApplicationMaster gives every worker {@value #MARKER_ENV}, the path of the marker file
 *       {@value #MARKER_FILE} inside {@code $ARYL_CHECKPOINT_DIR} ({@link #markerPath}).
 *   <li>After a checkpoint is complete (every file of it written and closed), a worker writes the
 *       marker atomically: a temporary file renamed over it. Its content is optional: the step the
 *       checkpoint holds, a decimal integer. The marker's modification time is the checkpoint's
 *       time.
 *   <li>The ApplicationMaster reads the marker and reports it in its status JSON: {@value
 *       #LAST_CHECKPOINT_MS} (epoch milliseconds) and {@value #LAST_CHECKPOINT_STEP}, both -1 when
 *       unknown ({@link #statusFields}).
 *   <li>The scheduler prices a preemption of the job by the work done since then ({@link
 *       #sinceCheckpointS}).
 * </ol>
 *
 * @param timeMs when the last checkpoint completed, epoch milliseconds; -1 when the job never wrote
 *     the marker
 * @param step the step that checkpoint holds; -1 when the marker did not say
 */
public record CheckpointReport(long timeMs, long step) {
  /**
   * Environment variable of every worker: the marker's path (set only when the job has a checkpoint
   * directory).
   */
  public static final String MARKER_ENV = "ARYL_CHECKPOINT_MARKER";

  /** The marker's file name, inside the job's checkpoint directory. */
  public static final String MARKER_FILE = "aryl-checkpoint";

  /**
   * Field of the ApplicationMaster's status JSON: epoch milliseconds of the last checkpoint, -1 for
   * none.
   */
  public static final String LAST_CHECKPOINT_MS = "lastCheckpointMs";

  /**
   * Field of the ApplicationMaster's status JSON: the step of the last checkpoint, -1 when unknown.
   */
  public static final String LAST_CHECKPOINT_STEP = "lastCheckpointStep";

  /** No checkpoint known. */
  public static final CheckpointReport NONE = new CheckpointReport(-1, -1);

  /**
   * @throws IllegalArgumentException naming the field and value when one is below -1
   */
  public CheckpointReport {
    if (timeMs < -1) {
      throw new IllegalArgumentException(
          LAST_CHECKPOINT_MS + " must be epoch milliseconds or -1, was " + timeMs);
    }
    if (step < -1) {
      throw new IllegalArgumentException(LAST_CHECKPOINT_STEP + " must be >= 0 or -1, was " + step);
    }
  }

  public boolean known() {
    return timeMs >= 0;
  }

  /**
   * The marker's path in {@code checkpointDir}; "" when the job has no checkpoint directory. The
   * directory is kept as given (a URI such as {@code hdfs:///ckpt/bert}, or a local path), so the
   * worker opens the marker as it opens its checkpoints.
   */
  public static String markerPath(String checkpointDir) {
    if (checkpointDir == null || checkpointDir.isBlank()) {
      return "";
    }
    String dir = checkpointDir.strip();
    // Trailing slashes go, but not the root's: "/" or a URI's "scheme://authority/".
    int scheme = dir.indexOf("://");
    int slash = scheme < 0 ? 0 : dir.indexOf('/', scheme + 3);
    int root = slash < 0 ? dir.length() : slash + 1;
    while (dir.length() > root && dir.endsWith("/")) {
      dir = dir.substring(0, dir.length() - 1);
    }
    return dir.endsWith("/") ? dir + MARKER_FILE : dir + "/" + MARKER_FILE;
  }

  /**
   * The step a marker's content names: a decimal integer >= 0 with blanks around it; -1 for
   * anything else.
   */
  public static long parseStep(String content) {
    String s = content == null ? "" : content.strip();
    if (s.isEmpty() || s.length() > 18 || !s.chars().allMatch(Character::isDigit)) {
      return -1;
    }
    return Long.parseLong(s);
  }

  /** The fields the ApplicationMaster's status JSON carries, in the order it shows them. */
  public Map<String, Object> statusFields() {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put(LAST_CHECKPOINT_MS, timeMs);
    out.put(LAST_CHECKPOINT_STEP, step);
    return out;
  }

  /**
   * Seconds of work a preemption at {@code nowMs} throws away: the work since the later of the last
   * checkpoint and the last change of the job's workers ({@code sinceChangeS} ago). Every
   * generation restarts every worker from its checkpoint directory, so a job that checkpointed long
   * ago but changed its workers since has lost the work before the change already, at the change; a
   * job that checkpointed after its last change loses only what came after the checkpoint. With no
   * checkpoint known it is {@code sinceChangeS}, as if workers checkpointed on every change. A
   * checkpoint time ahead of {@code nowMs} (the file system's clock ahead of the scheduler's)
   * counts as now.
   */
  public double sinceCheckpointS(long nowMs, double sinceChangeS) {
    if (!known()) {
      return sinceChangeS;
    }
    double since = Math.max(0, nowMs - timeMs) / 1000.0;
    return Math.min(sinceChangeS, since);
  }
}
