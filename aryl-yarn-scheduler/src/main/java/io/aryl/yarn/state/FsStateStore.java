package io.aryl.yarn.state;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;

/**
 * State on a Hadoop file system (local or HDFS), for a ResourceManager without HA: one {@code
 * <section>.json} file per section in a directory. A write goes to a temporary file renamed over
 * the old one, so a crash leaves either the old or the new section, never half of one. A local
 * directory is reached through java.nio, any other through Hadoop's FileContext ({@link
 * SectionFiles} says why).
 *
 * <p>Fencing is best effort, for an operator who starts a second ResourceManager on the same
 * directory by mistake: a claim writes a larger number to {@code epoch}, and each write first
 * checks that the number is still its own.
 */
public final class FsStateStore implements StateStore {
  static final String SUFFIX = ".json";
  private static final String EPOCH = "epoch";

  private final SectionFiles files;
  private long epoch = -1;

  public FsStateStore(Configuration conf, Path dir) throws IOException {
    this(SectionFiles.open(conf, dir, true));
  }

  /**
   * Whether {@code dir} holds a store some ResourceManager claimed (its {@code epoch} file). A
   * folder that cannot be looked at counts as holding none: the check only guards against leaving
   * state behind unnoticed, and a wrong answer there must not be what refuses a start.
   */
  public static boolean holdsState(Configuration conf, Path dir) {
    try {
      return dir.getFileSystem(conf).exists(new Path(dir, EPOCH));
    } catch (IOException | IllegalArgumentException e) {
      return false;
    }
  }

  /** Through Hadoop's FileContext even for a local directory: what an HDFS directory gets. */
  static FsStateStore viaHadoop(Configuration conf, Path dir) throws IOException {
    return new FsStateStore(SectionFiles.open(conf, dir, false));
  }

  private FsStateStore(SectionFiles files) {
    this.files = files;
  }

  @Override
  public synchronized long claim() throws IOException {
    files.createDirectory();
    long next = readEpoch() + 1;
    files.replace(EPOCH, Long.toString(next).getBytes(StandardCharsets.UTF_8));
    epoch = next;
    return epoch;
  }

  private long readEpoch() throws IOException {
    byte[] bytes = files.read(EPOCH);
    if (bytes == null) {
      return 0;
    }
    String text = new String(bytes, StandardCharsets.UTF_8).trim();
    try {
      return Long.parseLong(text);
    } catch (NumberFormatException e) {
      String p = files.location() + "/" + EPOCH;
      throw new CorruptStateException(
          p,
          "not a number: '" + text + "'",
          "stop the ResourceManager and delete " + p + " (only the fencing number is lost)",
          e);
    }
  }

  @Override
  public synchronized Map<String, byte[]> readAll() throws IOException {
    Map<String, byte[]> out = new TreeMap<>();
    for (String name : files.list()) {
      if (name.endsWith(SUFFIX) && !name.startsWith(".")) {
        byte[] bytes = files.read(name);
        if (bytes != null) {
          out.put(name.substring(0, name.length() - SUFFIX.length()), bytes);
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
      throw new StoreFencedException(
          "Aryl's state in "
              + files.location()
              + " was claimed by another ResourceManager"
              + " (epoch "
              + current
              + ") after this one (epoch "
              + epoch
              + "): this scheduler is no longer active");
    }
    files.replace(section + SUFFIX, data);
  }

  @Override
  public String kind() {
    return "filesystem";
  }

  @Override
  public String location() {
    return files.location();
  }

  @Override
  public String location(String section) {
    return "file " + files.location() + "/" + section + SUFFIX;
  }

  @Override
  public String deleteCommand(String section) {
    return "hadoop fs -rm " + files.location() + "/" + section + SUFFIX;
  }

  @Override
  public void close() {}
}
