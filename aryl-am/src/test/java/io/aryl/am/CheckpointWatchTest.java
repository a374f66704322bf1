package io.aryl.am;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import io.aryl.core.job.CheckpointReport;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

@DisplayName(
    "CheckpointWatch: the ApplicationMaster follows the marker its workers write after each checkpoint")
class CheckpointWatchTest {
  private static final long MTIME = 1_700_000_000_000L;
  private static final Configuration CONF = new Configuration(false);

  @TempDir Path dir;

  /** Reads run where tick() is called: each test sees the read's outcome at once. */
  private CheckpointWatch watch(String checkpointDir) {
    return new CheckpointWatch(
        CONF, CheckpointReport.markerPath(checkpointDir), 3000, Runnable::run);
  }

  /** Writes the marker as the contract says a worker must: a temporary file renamed over it. */
  private Path writeMarker(String content, long mtimeMs) throws IOException {
    Path tmp = dir.resolve(CheckpointReport.MARKER_FILE + ".tmp");
    Files.writeString(tmp, content, StandardCharsets.UTF_8);
    Files.setLastModifiedTime(tmp, FileTime.fromMillis(mtimeMs));
    return Files.move(
        tmp,
        dir.resolve(CheckpointReport.MARKER_FILE),
        StandardCopyOption.REPLACE_EXISTING,
        StandardCopyOption.ATOMIC_MOVE);
  }

  static Stream<Arguments> markers() {
    return Stream.of(
        Arguments.of("a step number", "1200\n", new CheckpointReport(MTIME, 1200)),
        Arguments.of("no content: the step is unknown", "", new CheckpointReport(MTIME, -1)),
        Arguments.of("content that is not a step", "epoch 3 done", new CheckpointReport(MTIME, -1)),
        Arguments.of(
            "content longer than a step is not read",
            "1".repeat(200),
            new CheckpointReport(MTIME, -1)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("markers")
  @DisplayName("reports the marker's modification time, and its content as the step when it is one")
  void reportsMarker(String what, String content, CheckpointReport expected) throws IOException {
    writeMarker(content, MTIME);
    CheckpointWatch w = watch(dir.toString());
    w.tick(0);
    assertThat(w.last()).isEqualTo(expected);
  }

  @Test
  @DisplayName("a checkpoint directory given as a file:// URI is read the same")
  void fileUri() throws IOException {
    writeMarker("7", MTIME);
    CheckpointWatch w = watch(dir.toUri().toString());
    w.tick(0);
    assertThat(w.last()).isEqualTo(new CheckpointReport(MTIME, 7));
  }

  @Test
  @DisplayName("no marker yet: the job never checkpointed")
  void missingMarker() {
    CheckpointWatch w = watch(dir.toString());
    w.tick(0);
    assertThat(w.last()).isEqualTo(CheckpointReport.NONE);
  }

  @Test
  @DisplayName("a job without a checkpoint directory reads nothing and reports none")
  void noCheckpointDir() {
    List<Runnable> reads = new ArrayList<>();
    CheckpointWatch w = new CheckpointWatch(CONF, "", 3000, reads::add);
    w.tick(0);
    w.tick(10_000);
    assertThat(reads).isEmpty();
    assertThat(w.last()).isEqualTo(CheckpointReport.NONE);
  }

  @Test
  @DisplayName("a newer checkpoint replaces the last one at the next read, not before")
  void readsAtMostEveryInterval() throws IOException {
    writeMarker("100", MTIME);
    CheckpointWatch w = watch(dir.toString());
    w.tick(0);
    writeMarker("200", MTIME + 60_000);
    w.tick(2999);
    assertThat(w.last())
        .as("2999 ms after the last read")
        .isEqualTo(new CheckpointReport(MTIME, 100));
    w.tick(3000);
    assertThat(w.last()).isEqualTo(new CheckpointReport(MTIME + 60_000, 200));
  }

  @Test
  @DisplayName("the tick never waits for a read: while one runs, no other starts")
  void oneReadAtATime() throws IOException {
    writeMarker("1", MTIME);
    List<Runnable> pending = new ArrayList<>();
    Executor later = pending::add;
    CheckpointWatch w =
        new CheckpointWatch(CONF, CheckpointReport.markerPath(dir.toString()), 3000, later);
    w.tick(0);
    w.tick(5000);
    assertThat(pending).as("the first read has not run yet").hasSize(1);
    assertThat(w.last()).isEqualTo(CheckpointReport.NONE);
    pending.remove(0).run();
    assertThat(w.last()).isEqualTo(new CheckpointReport(MTIME, 1));
    w.tick(10_000);
    assertThat(pending).as("once it ran, the next is due").hasSize(1);
  }

  @Test
  @DisplayName(
      "a read that fails keeps the last checkpoint and throws nothing; the next good read takes over")
  void failureKeepsLast() throws IOException {
    Path marker = writeMarker("100", MTIME);
    CheckpointWatch w = watch(dir.toString());
    w.tick(0);
    Files.delete(marker);
    Files.createDirectory(marker); // not a file the file system can read as the marker
    assertThatCode(() -> w.tick(3000)).doesNotThrowAnyException();
    assertThatCode(() -> w.tick(6000)).doesNotThrowAnyException();
    assertThat(w.last()).isEqualTo(new CheckpointReport(MTIME, 100));
    Files.delete(marker);
    writeMarker("300", MTIME + 1000);
    w.tick(9000);
    assertThat(w.last()).isEqualTo(new CheckpointReport(MTIME + 1000, 300));
  }

  @Test
  @DisplayName("a file system that cannot be opened is a failed read, not an error")
  void unknownFileSystem() {
    CheckpointWatch w = watch("nosuchfs://nowhere/ckpt");
    assertThatCode(() -> w.tick(0)).doesNotThrowAnyException();
    assertThat(w.last()).isEqualTo(CheckpointReport.NONE);
  }

  @Test
  @DisplayName("the status page shows the last checkpoint's time and step, or none")
  void statusPage() {
    assertThat(
            StatusServer.lastCheckpoint(Map.of("lastCheckpointMs", -1L, "lastCheckpointStep", -1L)))
        .isEqualTo("none");
    assertThat(
            StatusServer.lastCheckpoint(
                Map.of("lastCheckpointMs", MTIME, "lastCheckpointStep", 1200L)))
        .isEqualTo("2023-11-14T22:13:20Z (step 1200)");
    assertThat(
            StatusServer.lastCheckpoint(
                Map.of("lastCheckpointMs", MTIME, "lastCheckpointStep", -1L)))
        .isEqualTo("2023-11-14T22:13:20Z");
  }
}
