package io.aryl.am;

import java.io.IOException;
import java.io.OutputStream;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * The checkpoint directory must be one the job can write, or its first worker fails on its first
 * checkpoint. The client creates it when it is missing and writes and deletes a probe file in it,
 * through Hadoop's FileSystem as the submitting user.
 *
 * <p>A directory with a scheme ({@code hdfs:///ckpt/bert}) is checked on that file system. One
 * without a scheme is what workers open as a local path (a shared mount such as {@code
 * /mnt/shared/ckpt}), so it is checked on the local file system of the submitting machine, not on
 * the default file system, where such a path means something else.
 */
final class CheckpointDirCheck {
  static final String PROBE_PREFIX = ".aryl-probe-";

  private CheckpointDirCheck() {}

  /**
   * Does nothing for an empty directory (the job has none).
   *
   * @throws IllegalArgumentException naming {@code --checkpoint-dir}, the directory and the error
   */
  static void check(String dir, Configuration conf) {
    if (dir.isEmpty()) {
      return;
    }
    Path path;
    try {
      path = new Path(dir);
    } catch (IllegalArgumentException e) {
      // Path wraps the URI's own complaint (e.g. "Relative path in absolute URI: hdfs:ckpt"): tell
      // that one.
      Exception reason = e.getCause() instanceof Exception c ? c : e;
      throw new IllegalArgumentException(
          "--checkpoint-dir '" + dir + "' is not a path: " + firstLine(reason));
    }
    if (!path.isUriPathAbsolute() && path.toUri().getScheme() == null) {
      // Each worker runs in a working directory of its own that is deleted when its container ends.
      throw new IllegalArgumentException(
          "--checkpoint-dir must be an absolute path or a URI, was '" + dir + "'");
    }
    try {
      FileSystem fs =
          path.toUri().getScheme() == null ? FileSystem.getLocal(conf) : path.getFileSystem(conf);
      if (!fs.exists(path) && !fs.mkdirs(path)) {
        throw new IOException("it cannot be created");
      }
      if (!fs.getFileStatus(path).isDirectory()) {
        throw new IOException("it is not a directory");
      }
      Path probe = new Path(path, PROBE_PREFIX + UUID.randomUUID());
      try (OutputStream out = fs.create(probe, false)) {
        out.write('\n');
      }
      if (!fs.delete(probe, false)) {
        throw new IOException("the probe file " + probe + " written in it cannot be deleted");
      }
    } catch (IOException | RuntimeException e) {
      throw new IllegalArgumentException(
          "--checkpoint-dir '" + dir + "' is not writable: " + firstLine(e));
    }
  }

  /** The error's own words, without the server-side stack trace some remote file systems append. */
  private static String firstLine(Exception e) {
    String m = e.getMessage();
    if (m == null || m.isBlank()) {
      return e.getClass().getSimpleName();
    }
    int nl = m.indexOf('\n');
    return nl < 0 ? m : m.substring(0, nl);
  }
}
