package io.aryl.am;

import java.io.IOException;
import java.io.InputStream;
import java.util.EnumSet;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.CreateFlag;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileContext;
import org.apache.hadoop.fs.Options;
import org.apache.hadoop.fs.Path;

/**
 * The job's {@link GenerationRecord}, {@link AmKeys#GENERATION_RECORD_FILE} in its staging
 * directory. A write goes to a temporary file that is then renamed over the record, so a reader
 * sees the old record or the new one, never part of one; the next ApplicationMaster attempt reads
 * it back.
 */
public final class GenerationStore {
  private final FileContext files;
  private final Path record;
  private final Path temporary;

  public GenerationStore(Configuration conf, Path stagingDir) throws IOException {
    this.files = FileContext.getFileContext(stagingDir.toUri(), conf);
    this.record = new Path(stagingDir, AmKeys.GENERATION_RECORD_FILE);
    this.temporary = new Path(stagingDir, AmKeys.GENERATION_RECORD_FILE + ".tmp");
  }

  public Path file() {
    return record;
  }

  /**
   * The record, or empty when none was ever written.
   *
   * @throws UnreadableRecordException naming the file when it exists but cannot be read or is not a
   *     valid record
   */
  public Optional<GenerationRecord> read() throws UnreadableRecordException {
    byte[] json;
    try {
      if (!files.util().exists(record)) {
        return Optional.empty();
      }
      try (InputStream in = files.open(record)) {
        json = in.readAllBytes();
      }
    } catch (IOException e) {
      throw new UnreadableRecordException(
          "generation record " + record + " cannot be read: " + e, e);
    }
    try {
      return Optional.of(GenerationRecord.fromJson(json));
    } catch (IllegalArgumentException e) {
      throw new UnreadableRecordException(
          "generation record " + record + " is not valid: " + e.getMessage(), e);
    }
  }

  /** Replaces the record: once this returns, the new record is durable and whole. */
  public void write(GenerationRecord r) throws IOException {
    try (FSDataOutputStream out =
        files.create(
            temporary,
            EnumSet.of(CreateFlag.CREATE, CreateFlag.OVERWRITE),
            Options.CreateOpts.createParent())) {
      out.write(r.toJson());
      out.hsync();
    }
    files.rename(temporary, record, Options.Rename.OVERWRITE);
  }

  /**
   * The record file exists but cannot be trusted: its generation must not be adopted or guessed
   * from.
   */
  public static final class UnreadableRecordException extends IOException {
    UnreadableRecordException(String message, Throwable cause) {
      super(message, cause);
    }
  }
}
