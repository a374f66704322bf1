package io.aryl.am;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.yarn.api.records.LocalResource;
import org.apache.hadoop.yarn.api.records.LocalResourceType;
import org.apache.hadoop.yarn.api.records.LocalResourceVisibility;
import org.apache.hadoop.yarn.api.records.URL;

/**
 * {@link AmKeys#SUPERVISOR_FILE}, the main process of every worker container, staged once per job
 * in its staging directory and shipped to each worker as a local resource. A later AM attempt
 * reuses the staged file: a local resource names its file's size and modification time, which must
 * not change while containers use it.
 */
final class SupervisorScript {
  private SupervisorScript() {}

  /** The script's text, from this jar. */
  static byte[] text() throws IOException {
    return text(AmKeys.SUPERVISOR_FILE);
  }

  /**
   * A script of this jar (a resource of this package), e.g. the supervisor or {@link
   * TorchrunLauncher#SCRIPT_FILE}.
   */
  static byte[] text(String name) throws IOException {
    try (InputStream in = SupervisorScript.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IOException(name + " is missing from the aryl-am jar");
      }
      return in.readAllBytes();
    }
  }

  /**
   * Writes the script into {@code stagingDir} unless an earlier attempt did; returns it as a local
   * resource.
   */
  static LocalResource stage(Configuration conf, Path stagingDir) throws IOException {
    return stage(conf, stagingDir, AmKeys.SUPERVISOR_FILE);
  }

  /**
   * Writes the jar's script {@code name} into {@code stagingDir} unless an earlier attempt did, as
   * {@link #stage}.
   */
  static LocalResource stage(Configuration conf, Path stagingDir, String name) throws IOException {
    FileSystem fs = stagingDir.getFileSystem(conf);
    Path file = fs.makeQualified(new Path(stagingDir, name));
    if (!fs.exists(file)) {
      Path temporary = new Path(stagingDir, name + ".tmp");
      try (OutputStream out = fs.create(temporary, true)) {
        out.write(text(name));
      }
      if (!fs.rename(temporary, file) && !fs.exists(file)) {
        throw new IOException("could not stage " + file);
      }
    }
    FileStatus s = fs.getFileStatus(file);
    return LocalResource.newInstance(
        URL.fromPath(file),
        LocalResourceType.FILE,
        LocalResourceVisibility.APPLICATION,
        s.getLen(),
        s.getModificationTime());
  }
}
