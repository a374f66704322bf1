package io.aryl.yarn.state;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.CreateFlag;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileContext;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Options;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsPermission;

/**
 * The files of an {@link FsStateStore}'s directory: read one, list them, replace one atomically.
 * Two ways to reach them: Hadoop's {@link FileContext} for any file system, and java.nio for a
 * local directory, because Hadoop's local file system forks a process for each permission it sets
 * and each link it resolves ({@code chmod}, {@code readlink}): about eight per write, which made a
 * planning round that saves state take ~100 ms.
 */
interface SectionFiles {
  /** Creates the directory, readable by its owner only, if it does not exist. */
  void createDirectory() throws IOException;

  /** The file's bytes; null if it does not exist. */
  byte[] read(String name) throws IOException;

  /** Names of the files in the directory; empty if the directory does not exist. */
  List<String> list() throws IOException;

  /**
   * Replaces the file: a reader sees the old bytes or the new ones, never part of either, even
   * after a crash.
   */
  void replace(String name, byte[] data) throws IOException;

  /** The directory, as a URI string. */
  String location();

  static SectionFiles open(Configuration conf, Path dir, boolean preferLocal) throws IOException {
    FileContext fc = FileContext.getFileContext(dir.toUri(), conf);
    Path qualified = fc.makeQualified(dir);
    if (preferLocal && "file".equals(qualified.toUri().getScheme())) {
      return new Local(java.nio.file.Path.of(qualified.toUri()));
    }
    return new Hadoop(fc, qualified);
  }

  /** Any Hadoop file system (HDFS, ...). */
  final class Hadoop implements SectionFiles {
    private static final FsPermission PRIVATE = new FsPermission((short) 0700);
    private final FileContext fc;
    private final Path dir;

    Hadoop(FileContext fc, Path dir) {
      this.fc = fc;
      this.dir = dir;
    }

    @Override
    public void createDirectory() throws IOException {
      fc.mkdir(dir, PRIVATE, true);
    }

    @Override
    public byte[] read(String name) throws IOException {
      try (InputStream in = fc.open(new Path(dir, name))) {
        return in.readAllBytes();
      } catch (FileNotFoundException e) {
        return null;
      }
    }

    @Override
    public List<String> list() throws IOException {
      List<String> names = new ArrayList<>();
      try {
        for (FileStatus f : fc.util().listStatus(dir)) {
          if (f.isFile()) {
            names.add(f.getPath().getName());
          }
        }
      } catch (FileNotFoundException e) {
        // no directory yet: no files
      }
      return names;
    }

    @Override
    public void replace(String name, byte[] data) throws IOException {
      Path tmp = new Path(dir, "." + name + ".tmp");
      try (FSDataOutputStream out =
          fc.create(
              tmp,
              EnumSet.of(CreateFlag.CREATE, CreateFlag.OVERWRITE),
              Options.CreateOpts.perms(PRIVATE))) {
        out.write(data);
        out.hsync();
      }
      fc.rename(tmp, new Path(dir, name), Options.Rename.OVERWRITE);
    }

    @Override
    public String location() {
      return dir.toString();
    }
  }

  /** A local directory, through java.nio: no processes forked, no checksum files. */
  final class Local implements SectionFiles {
    private final java.nio.file.Path dir;

    Local(java.nio.file.Path dir) {
      this.dir = dir;
    }

    @Override
    public void createDirectory() throws IOException {
      if (!Files.isDirectory(dir)) {
        Files.createDirectories(
            dir,
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
      }
    }

    @Override
    public byte[] read(String name) throws IOException {
      try {
        return Files.readAllBytes(dir.resolve(name));
      } catch (NoSuchFileException e) {
        return null;
      }
    }

    @Override
    public List<String> list() throws IOException {
      List<String> names = new ArrayList<>();
      try (DirectoryStream<java.nio.file.Path> files =
          Files.newDirectoryStream(dir, Files::isRegularFile)) {
        files.forEach(p -> names.add(p.getFileName().toString()));
      } catch (NoSuchFileException e) {
        // no directory yet: no files
      }
      return names;
    }

    @Override
    public void replace(String name, byte[] data) throws IOException {
      java.nio.file.Path tmp = dir.resolve("." + name + ".tmp");
      try (FileChannel out =
          FileChannel.open(
              tmp,
              EnumSet.of(
                  StandardOpenOption.CREATE,
                  StandardOpenOption.WRITE,
                  StandardOpenOption.TRUNCATE_EXISTING),
              PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")))) {
        ByteBuffer buf = ByteBuffer.wrap(data);
        while (buf.hasRemaining()) {
          out.write(buf);
        }
        out.force(true);
      }
      Files.move(
          tmp,
          dir.resolve(name),
          StandardCopyOption.ATOMIC_MOVE,
          StandardCopyOption.REPLACE_EXISTING);
      // A checksum left by Hadoop's local file system (an earlier Aryl) would no longer match:
      // Hadoop would refuse it.
      Files.deleteIfExists(dir.resolve("." + name + ".crc"));
    }

    @Override
    public String location() {
      return "file:" + dir.toAbsolutePath(); // as Hadoop's Path prints it
    }
  }
}
