package io.aryl.yarn.state;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.CreateFlag;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileContext;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Options;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsPermission;

/**
 * State on a Hadoop file system (local or HDFS), for a ResourceManager without HA: one {@code <section>.json} file per
 * section in a directory. A write goes to a temporary file renamed over the old one, so a crash leaves either the old
 * or the new section, never half of one.
 *
 * <p>Fencing is best effort, for an operator who starts a second ResourceManager on the same directory by mistake: a
 * claim writes a larger number to {@code epoch}, and each write first checks that the number is still its own.
 */
public final class FsStateStore implements StateStore {
  static final String SUFFIX = ".json";
  private static final String EPOCH = "epoch";
  private static final FsPermission PRIVATE = new FsPermission((short) 0700);

  private final FileContext fc;
  private final Path dir;
  private long epoch = -1;

  public FsStateStore(Configuration conf, Path dir) throws IOException {
    this.fc = FileContext.getFileContext(dir.toUri(), conf);
    this.dir = fc.makeQualified(dir);
  }

  @Override
  public synchronized long claim() throws IOException {
    fc.mkdir(dir, PRIVATE, true);
    long next = readEpoch() + 1;
    writeAtomically(new Path(dir, EPOCH), Long.toString(next).getBytes(StandardCharsets.UTF_8));
    epoch = next;
    return epoch;
  }

  private long readEpoch() throws IOException {
    Path p = new Path(dir, EPOCH);
    try (InputStream in = fc.open(p)) {
      String text = new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
      try {
        return Long.parseLong(text);
      } catch (NumberFormatException e) {
        throw new CorruptStateException(p.toString(), "not a number: '" + text + "'",
            "stop the ResourceManager and delete " + p + " (only the fencing number is lost)", e);
      }
    } catch (FileNotFoundException e) {
      return 0;
    }
  }

  @Override
  public synchronized Map<String, byte[]> readAll() throws IOException {
    Map<String, byte[]> out = new TreeMap<>();
    FileStatus[] files;
    try {
      files = fc.util().listStatus(dir);
    } catch (FileNotFoundException e) {
      return out;
    }
    for (FileStatus f : files) {
      String name = f.getPath().getName();
      if (f.isFile() && name.endsWith(SUFFIX)) {
        try (InputStream in = fc.open(f.getPath())) {
          out.put(name.substring(0, name.length() - SUFFIX.length()), in.readAllBytes());
        }
      }
    }
    return out;
  }

  @Override
  public synchronized void write(String section, byte[] data) throws IOException {
    if (epoch < 0) {
      throw new IllegalStateException("write before claim");
    }
    long current = readEpoch();
    if (current != epoch) {
      throw new StoreFencedException("Aryl's state in " + dir + " was claimed by another ResourceManager (epoch "
          + current + ") after this one (epoch " + epoch + "): this scheduler is no longer active");
    }
    writeAtomically(file(section), data);
  }

  private Path file(String section) {
    return new Path(dir, section + SUFFIX);
  }

  private void writeAtomically(Path target, byte[] data) throws IOException {
    Path tmp = new Path(dir, "." + target.getName() + ".tmp");
    try (FSDataOutputStream out = fc.create(tmp, EnumSet.of(CreateFlag.CREATE, CreateFlag.OVERWRITE),
        Options.CreateOpts.perms(PRIVATE))) {
      out.write(data);
      out.hsync();
    }
    fc.rename(tmp, target, Options.Rename.OVERWRITE);
  }

  @Override
  public String kind() {
    return "filesystem";
  }

  @Override
  public String location() {
    return dir.toString();
  }

  @Override
  public String location(String section) {
    return "file " + file(section);
  }

  @Override
  public String deleteCommand(String section) {
    return "hadoop fs -rm " + file(section);
  }

  @Override
  public void close() {}
}
