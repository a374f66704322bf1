package io.aryl.am;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GenerationStoreTest {
  @TempDir java.nio.file.Path dir;

  private static GenerationRecord record(int number, boolean running) {
    return new GenerationRecord(
        Generation.assign(
            number,
            List.of(new Generation.Member("c1", "h1"), new Generation.Member("c2", "h2")),
            null,
            5),
        1,
        running);
  }

  private GenerationStore store() throws Exception {
    return new GenerationStore(new Configuration(), new Path(dir.resolve("staging").toUri()));
  }

  @Test
  @DisplayName("a job that never recorded a generation has no record")
  void noRecord() throws Exception {
    assertThat(store().read()).isEmpty();
  }

  @Test
  @DisplayName("a write replaces the record whole, and leaves no temporary file behind")
  void writeReplacesTheRecord() throws Exception {
    GenerationStore store = store();
    store.write(record(1, false));
    store.write(record(2, true));
    assertThat(store().read()).contains(record(2, true));
    try (var files = Files.list(dir.resolve("staging"))) {
      assertThat(files.map(f -> f.getFileName().toString()).filter(n -> !n.endsWith(".crc")))
          .containsExactly(AmKeys.GENERATION_RECORD_FILE);
    }
  }

  @Test
  @DisplayName("a record file that is not a valid record is refused, naming the file")
  void corruptRecord() throws Exception {
    GenerationStore store = store();
    Path file = store.file();
    try (FSDataOutputStream out = FileSystem.getLocal(new Configuration()).create(file, true)) {
      out.write("{\"format\": 1, \"generation\": 3".getBytes(StandardCharsets.UTF_8));
    }
    assertThatThrownBy(store::read)
        .isInstanceOf(GenerationStore.UnreadableRecordException.class)
        .hasMessageStartingWith("generation record " + file + " is not valid: not JSON");
  }

  @Test
  @DisplayName("a record file that cannot be read is refused, naming the file")
  void unreadableRecord() throws Exception {
    GenerationStore store = store();
    Files.createDirectories(dir.resolve("staging").resolve(AmKeys.GENERATION_RECORD_FILE));
    assertThatThrownBy(store::read)
        .isInstanceOf(GenerationStore.UnreadableRecordException.class)
        .hasMessageStartingWith("generation record " + store.file() + " cannot be read");
  }
}
