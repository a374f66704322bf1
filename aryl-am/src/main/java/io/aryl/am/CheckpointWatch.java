package io.aryl.am;

import io.aryl.core.job.CheckpointReport;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Follows the job's checkpoint marker ({@link CheckpointReport}): when the workers last completed a
 * checkpoint, which the status JSON reports and the scheduler prices preemptions by. The marker is
 * read through Hadoop's FileSystem at most every {@link #EVERY_MS} ms, on a thread of its own: a
 * slow or unreachable file system delays nothing else the ApplicationMaster does. A missing marker
 * means the job never checkpointed; a failed read keeps the last report and is logged once until a
 * read succeeds again.
 *
 * <p>A directory with a scheme ({@code hdfs:///ckpt/bert}) is read on that file system; one without
 * is what workers open as a local path (a shared mount), so it is read on the local file system, as
 * {@link CheckpointDirCheck} checks it.
 */
final class CheckpointWatch implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(CheckpointWatch.class);

  /**
   * The marker is read at most this often: a checkpoint is minutes apart, a status poll seconds.
   */
  static final long EVERY_MS = 3000;

  /** Bytes of the marker read for its step: a number, not a checkpoint. */
  private static final int MAX_CONTENT = 64;

  private final Configuration conf;
  private final Path marker;
  private final long everyMs;
  private final Executor reads;
  private final AtomicBoolean reading = new AtomicBoolean();
  private volatile CheckpointReport last = CheckpointReport.NONE;
  private long nextReadMs = Long.MIN_VALUE;
  private boolean failing;

  /**
   * @param marker the marker's path ({@link CheckpointReport#markerPath}); "" when the job has no
   *     checkpoint directory: nothing is ever read
   * @param reads where reads run
   */
  CheckpointWatch(Configuration conf, String marker, long everyMs, Executor reads) {
    this.conf = conf;
    this.marker = marker.isEmpty() ? null : new Path(marker);
    this.everyMs = everyMs;
    this.reads = reads;
  }

  /** A watch of the marker in {@code checkpointDir}, reading on a daemon thread of its own. */
  static CheckpointWatch of(Configuration conf, String checkpointDir) {
    ExecutorService thread =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "aryl-checkpoint-watch");
              t.setDaemon(true);
              return t;
            });
    return new CheckpointWatch(conf, CheckpointReport.markerPath(checkpointDir), EVERY_MS, thread);
  }

  /**
   * What the marker said when last read; {@link CheckpointReport#NONE} before that, or for a job
   * without one.
   */
  CheckpointReport last() {
    return last;
  }

  /**
   * Called on the ApplicationMaster's tick: starts a read when the last one started {@code everyMs}
   * or more ago and none is running. Never waits for the file system.
   */
  void tick(long nowMs) {
    if (marker == null || nowMs < nextReadMs || !reading.compareAndSet(false, true)) {
      return;
    }
    nextReadMs = nowMs + everyMs;
    try {
      reads.execute(
          () -> {
            try {
              read();
            } finally {
              reading.set(false);
            }
          });
    } catch (RejectedExecutionException e) {
      reading.set(false); // closed
    }
  }

  /** Reads the marker now; keeps the last report when the file system fails. */
  void read() {
    if (marker == null) {
      return;
    }
    try {
      // The raw local file system: a marker a worker wrote with plain file calls has no checksum
      // file to check.
      FileSystem fs =
          marker.toUri().getScheme() == null
              ? FileSystem.getLocal(conf).getRawFileSystem()
              : marker.getFileSystem(conf);
      FileStatus status;
      try {
        status = fs.getFileStatus(marker);
      } catch (FileNotFoundException e) {
        last = CheckpointReport.NONE;
        recovered();
        return;
      }
      if (status.isDirectory()) {
        throw new IOException("it is a directory, not the marker file workers write");
      }
      long step = status.getLen() <= MAX_CONTENT ? CheckpointReport.parseStep(content(fs)) : -1;
      last = new CheckpointReport(Math.max(0, status.getModificationTime()), step);
      recovered();
    } catch (IOException | RuntimeException e) {
      if (!failing) {
        failing = true;
        LOG.warn(
            "cannot read the checkpoint marker {}: {}; the status keeps the last checkpoint read ({}), and this"
                + " is not logged again until a read succeeds",
            marker,
            e.toString(),
            last.timeMs());
      }
    }
  }

  private String content(FileSystem fs) throws IOException {
    byte[] buf = new byte[MAX_CONTENT];
    int n = 0;
    try (FSDataInputStream in = fs.open(marker)) {
      n = readFully(in, buf);
    } catch (FileNotFoundException e) {
      return ""; // replaced between the status and the open: the step comes with the next read
    }
    return new String(buf, 0, n, StandardCharsets.UTF_8);
  }

  private static int readFully(InputStream in, byte[] buf) throws IOException {
    int n = 0;
    int r;
    while (n < buf.length && (r = in.read(buf, n, buf.length - n)) > 0) {
      n += r;
    }
    return n;
  }

  private void recovered() {
    if (failing) {
      failing = false;
      LOG.info("the checkpoint marker {} is readable again: {}", marker, last);
    }
  }

  @Override
  public void close() {
    if (reads instanceof ExecutorService s) {
      s.shutdownNow();
    }
  }
}
