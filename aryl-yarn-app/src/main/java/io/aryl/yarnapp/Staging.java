package io.aryl.yarnapp;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.LocalResource;
import org.apache.hadoop.yarn.api.records.LocalResourceType;
import org.apache.hadoop.yarn.api.records.LocalResourceVisibility;
import org.apache.hadoop.yarn.api.records.URL;

/**
 * An application's staging directory on the default file system, one per application under a root
 * the client's configuration names: the client writes the files the ApplicationMaster and its
 * containers localise there before it submits.
 */
public final class Staging {
  /** What a writer of a staged file writes into it. */
  @FunctionalInterface
  public interface Content {
    void writeTo(OutputStream out) throws IOException;
  }

  private final FileSystem fs;
  private final Path dir;

  private Staging(FileSystem fs, Path dir) {
    this.fs = fs;
    this.dir = dir;
  }

  /**
   * Creates application {@code id}'s directory under the root {@code rootKey} names, by default
   * {@code defaultRoot} in the user's home directory on the default file system.
   */
  public static Staging create(
      Configuration conf, String rootKey, String defaultRoot, ApplicationId id) throws IOException {
    FileSystem fs = FileSystem.get(conf);
    String root = conf.get(rootKey, new Path(fs.getHomeDirectory(), defaultRoot).toString());
    Path dir = fs.makeQualified(new Path(root, id.toString()));
    fs.mkdirs(dir);
    return new Staging(fs, dir);
  }

  /** The directory, qualified (with its file system's scheme). */
  public Path dir() {
    return dir;
  }

  /** Writes {@code content} as file {@code name}, for the containers. */
  public StagedFile write(String name, byte[] content) throws IOException {
    Path p = writeFile(name, out -> out.write(content));
    return staged(p, name);
  }

  /** Copies a local file in under its own name, for the containers. */
  public StagedFile copy(File local) throws IOException {
    Path p = copyFile(local, local.getName());
    return staged(p, local.getName());
  }

  /** Writes file {@code name} and returns it as a local resource (of the AM's container). */
  public LocalResource writeResource(String name, Content content) throws IOException {
    return resource(writeFile(name, content));
  }

  /** Copies a local file in as {@code name} and returns it as a local resource. */
  public LocalResource copyResource(File local, String name) throws IOException {
    return resource(copyFile(local, name));
  }

  /** Deletes the directory and all in it: no ApplicationMaster will run to delete it. */
  public void delete() throws IOException {
    fs.delete(dir, true);
  }

  private Path writeFile(String name, Content content) throws IOException {
    Path p = new Path(dir, name);
    try (OutputStream out = fs.create(p, true)) {
      content.writeTo(out);
    }
    return p;
  }

  private Path copyFile(File local, String name) throws IOException {
    Path p = new Path(dir, name);
    fs.copyFromLocalFile(false, true, new Path(local.getAbsolutePath()), p);
    return p;
  }

  private StagedFile staged(Path p, String name) throws IOException {
    FileStatus s = fs.getFileStatus(p);
    return new StagedFile(
        name, fs.makeQualified(p).toUri().toString(), s.getLen(), s.getModificationTime());
  }

  private LocalResource resource(Path p) throws IOException {
    FileStatus s = fs.getFileStatus(p);
    return LocalResource.newInstance(
        URL.fromPath(fs.makeQualified(p)),
        LocalResourceType.FILE,
        LocalResourceVisibility.APPLICATION,
        s.getLen(),
        s.getModificationTime());
  }
}
