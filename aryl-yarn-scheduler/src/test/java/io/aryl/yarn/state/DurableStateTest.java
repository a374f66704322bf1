package io.aryl.yarn.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("DurableState: Aryl's state, read back when a scheduler becomes active")
class DurableStateTest {
  @TempDir Path dir;

  private FsStateStore fs() throws Exception {
    return new FsStateStore(new Configuration(), new org.apache.hadoop.fs.Path(dir.toUri().toString()));
  }

  @Test
  @DisplayName("a fresh store starts empty, with the planning clock's origin at now")
  void freshStore() throws Exception {
    DurableState s = DurableState.open(fs(), 1_000);
    assertThat(s.recovered()).isFalse();
    assertThat(s.originMs()).isEqualTo(1_000);
    assertThat(s.get(Section.OWNERS).inference()).isEmpty();
    assertThat(s.get(Section.RECLAIMS).nextId()).isEqualTo(1);
    assertThat(s.get(Section.DRAINS).containers()).isEmpty();
    assertThat(s.get(Section.JOBS).jobs()).isEmpty();
  }

  @Test
  @DisplayName("every section saved is what the next active scheduler reads, and the clock keeps its origin")
  void savedSectionsAreReadBack() throws Exception {
    DurableState first = DurableState.open(fs(), 1_000);
    ReclaimRecord r = new ReclaimRecord(7, 1, List.of("n3:1"), 2_000, 9_000, 40, Map.of("app_1", "SHRINK"),
        List.of(), List.of(), Map.of(), 0, List.of("c1"), List.of(), List.of("app_1"), 30, "DRAINING", -1);
    first.save(Section.OWNERS, new Owners(List.of("n1:1", "n3:1")));
    first.save(Section.RECLAIMS, new Reclaims(8, List.of(r), List.of()));
    first.save(Section.DRAINS, new DrainList(List.of(new DrainRecord("c1", "app_1", "n3:1", 5_000, "RECLAIM", 7))));
    first.save(Section.JOBS, new Jobs(Map.of("app_1", new JobRecord(120.5, 30, Map.of("n3:1", 2, "n4:1", 2)))));

    DurableState next = DurableState.open(fs(), 99_000);
    assertThat(next.recovered()).isTrue();
    assertThat(next.epoch()).isGreaterThan(first.epoch());
    assertThat(next.originMs()).as("origin of the first scheduler").isEqualTo(1_000);
    assertThat(next.get(Section.OWNERS).inference()).containsExactly("n1:1", "n3:1");
    assertThat(next.get(Section.RECLAIMS).inFlight()).containsExactly(r);
    assertThat(next.get(Section.RECLAIMS).nextId()).isEqualTo(8);
    assertThat(next.get(Section.DRAINS).containers()).extracting(DrainRecord::container).containsExactly("c1");
    assertThat(next.get(Section.JOBS).jobs().get("app_1").workersByNode()).containsEntry("n4:1", 2);
  }

  @Test
  @DisplayName("saving a value equal to the stored one writes nothing")
  void equalValuesAreNotWritten() throws Exception {
    MemoryStateStore memory = new MemoryStateStore();
    DurableState s = DurableState.open(memory, 0);
    s.save(Section.OWNERS, new Owners(List.of("a")));
    byte[] stored = memory.readAll().get("owners");
    memory.write("owners", "changed behind its back".getBytes(StandardCharsets.UTF_8));
    s.save(Section.OWNERS, new Owners(List.of("a")));
    assertThat(new String(memory.readAll().get("owners"), StandardCharsets.UTF_8))
        .as("not written again").isEqualTo("changed behind its back");
    assertThat(stored).isNotEmpty();
  }

  @Test
  @DisplayName("an unreadable section stops the start, naming its file and how to reset it")
  void corruptSectionIsRefusedLoudly() throws Exception {
    DurableState.open(fs(), 0).save(Section.RECLAIMS, new Reclaims(1, List.of(), List.of()));
    Files.writeString(dir.resolve("reclaims.json"), "{not json", StandardCharsets.UTF_8);

    assertThatThrownBy(() -> DurableState.open(fs(), 0))
        .isInstanceOf(CorruptStateException.class)
        .hasMessageContaining("file " + dir.toUri().toString().replaceAll("/$", "").replace("file:///", "file:/")
            + "/reclaims.json")
        .hasMessageContaining("hadoop fs -rm")
        .hasMessageContaining(Section.RECLAIMS.resetForgets());
  }

  @Test
  @DisplayName("a section missing a field is unreadable too, not filled in with a default")
  void missingFieldIsCorrupt() throws Exception {
    DurableState.open(fs(), 0);
    Files.writeString(dir.resolve("jobs.json"), "{\"jobs\":{\"app_1\":{\"attainedBaseS\":3}}}");
    assertThatThrownBy(() -> DurableState.open(fs(), 0))
        .isInstanceOf(CorruptStateException.class)
        .hasMessageContaining("jobs.json");
  }

  @Test
  @DisplayName("state written by a newer format is refused rather than misread")
  void newerFormatIsRefused() throws Exception {
    DurableState.open(fs(), 0);
    Files.writeString(dir.resolve("meta.json"), "{\"version\":" + (DurableState.VERSION + 1) + ",\"originMs\":0}");
    assertThatThrownBy(() -> DurableState.open(fs(), 0))
        .isInstanceOf(CorruptStateException.class)
        .hasMessageContaining("written by a newer Aryl");
  }

  @Test
  @DisplayName("a restorer's contradiction is reported against the section it came from")
  void contradictionNamesTheSection() throws Exception {
    DurableState s = DurableState.open(fs(), 0);
    assertThat(s.corrupt(Section.DRAINS, "reason 'X' is unknown").getMessage())
        .contains("drains.json").contains("reason 'X' is unknown").contains(Section.DRAINS.resetForgets());
  }
}
