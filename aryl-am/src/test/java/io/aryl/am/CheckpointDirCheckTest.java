package io.aryl.am;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

@DisplayName("CheckpointDirCheck: the checkpoint directory is one the job can write")
class CheckpointDirCheckTest {
  @TempDir static Path tmp;

  private static final Configuration CONF = new Configuration(false);

  @Test
  @DisplayName("no --checkpoint-dir: nothing to check")
  void none() {
    assertThatCode(() -> CheckpointDirCheck.check("", CONF)).doesNotThrowAnyException();
  }

  @Test
  @DisplayName("a writable directory passes, and the probe file is gone afterwards")
  void writable() throws IOException {
    Path dir = Files.createDirectories(tmp.resolve("existing"));
    Files.writeString(dir.resolve("last.pt"), "a checkpoint");
    CheckpointDirCheck.check(dir.toString(), CONF);
    assertThat(dir).isDirectoryContaining(p -> p.getFileName().toString().equals("last.pt"));
    try (Stream<Path> left = Files.list(dir)) {
      assertThat(left.map(p -> p.getFileName().toString())).containsExactly("last.pt");
    }
  }

  @Test
  @DisplayName("a missing directory is created, parents too")
  void created() {
    Path dir = tmp.resolve("new/a/b");
    CheckpointDirCheck.check(dir.toString(), CONF);
    assertThat(dir).isEmptyDirectory();
  }

  @Test
  @DisplayName("a file: URI is checked on the local file system as well")
  void fileUri() {
    Path dir = tmp.resolve("as-uri");
    CheckpointDirCheck.check(dir.toUri().toString(), CONF);
    assertThat(dir).isEmptyDirectory();
  }

  static Stream<Arguments> refused() throws IOException {
    Path file =
        Files.writeString(Files.createDirectories(tmp).resolve("a-file"), "not a directory");
    return Stream.of(
        Arguments.of(
            "a directory under a regular file",
            file + "/ckpt",
            "--checkpoint-dir '"
                + file
                + "/ckpt' is not writable: Parent path is not a directory: "
                + file),
        Arguments.of(
            "a regular file",
            file.toString(),
            "--checkpoint-dir '" + file + "' is not writable: it is not a directory"),
        Arguments.of(
            "a file system no one provides",
            "nosuchfs://store/ckpt",
            "--checkpoint-dir 'nosuchfs://store/ckpt' is not writable: No FileSystem for scheme \"nosuchfs\""),
        Arguments.of(
            "a relative path: each worker has its own working directory",
            "ckpt/bert",
            "--checkpoint-dir must be an absolute path or a URI, was 'ckpt/bert'"),
        Arguments.of(
            "a URI whose path is relative",
            "hdfs:ckpt",
            "--checkpoint-dir 'hdfs:ckpt' is not a path: Relative path in absolute URI: hdfs:ckpt"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("refused")
  @DisplayName("is refused naming the option, the directory and the error")
  void refused(String description, String dir, String message) {
    assertThatThrownBy(() -> CheckpointDirCheck.check(dir, CONF))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(message)
        .hasMessageNotContaining("\n");
  }
}
