package io.aryl.yarn.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.aryl.yarn.state.InferenceNodes.Place;
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
    return new FsStateStore(
        new Configuration(), new org.apache.hadoop.fs.Path(dir.toUri().toString()));
  }

  @Test
  @DisplayName("a fresh store starts empty, with the planning clock's origin at now")
  void freshStore() throws Exception {
    DurableState s = DurableState.open(fs(), 1_000);
    assertThat(s.recovered()).isFalse();
    assertThat(s.originMs()).isEqualTo(1_000);
    assertThat(s.get(Section.POOLS).nodes()).isEmpty();
    assertThat(s.get(Section.LOAN_TARGET).set()).isFalse();
    assertThat(s.get(Section.RECLAIMS).nextId()).isEqualTo(1);
    assertThat(s.get(Section.DRAINS).containers()).isEmpty();
    assertThat(s.get(Section.JOBS).jobs()).isEmpty();
  }

  @Test
  @DisplayName(
      "every section saved is what the next active scheduler reads, and the clock keeps its origin")
  void savedSectionsAreReadBack() throws Exception {
    DurableState first = DurableState.open(fs(), 1_000);
    ReclaimRecord r =
        new ReclaimRecord(
            7,
            1,
            List.of("n3:1"),
            2_000,
            9_000,
            40,
            Map.of("app_1", "SHRINK"),
            List.of(),
            List.of(),
            Map.of(),
            0,
            List.of("c1"),
            List.of(),
            List.of("app_1"),
            30,
            "DRAINING",
            -1);
    first.save(Section.POOLS, new InferenceNodes(Map.of("n1:1", Place.HOME, "n3:1", Place.LENT)));
    first.save(Section.RECLAIMS, new Reclaims(8, List.of(r), List.of()));
    first.save(
        Section.DRAINS,
        new DrainList(
            List.of(new DrainRecord("c1", "app_1", "n3:1", 5_000, "RECLAIM", 7, 0, true))));
    LoanTargetRecord target =
        new LoanTargetRecord(3, "controller-1", 2, 9_000, 1_500, "rate 10 rps", 1_600);
    first.save(Section.LOAN_TARGET, target);
    first.save(
        Section.JOBS,
        new Jobs(Map.of("app_1", new JobRecord(120.5, 30, Map.of("n3:1", 2, "n4:1", 2), 3))));

    DurableState next = DurableState.open(fs(), 99_000);
    assertThat(next.recovered()).isTrue();
    assertThat(next.epoch()).isGreaterThan(first.epoch());
    assertThat(next.originMs()).as("origin of the first scheduler").isEqualTo(1_000);
    assertThat(next.get(Section.POOLS).nodes())
        .containsExactly(Map.entry("n1:1", Place.HOME), Map.entry("n3:1", Place.LENT));
    assertThat(next.get(Section.LOAN_TARGET)).isEqualTo(target);
    assertThat(next.formatRead()).isEqualTo(DurableState.VERSION);
    assertThat(next.get(Section.RECLAIMS).inFlight()).containsExactly(r);
    assertThat(next.get(Section.RECLAIMS).nextId()).isEqualTo(8);
    assertThat(next.get(Section.DRAINS).containers())
        .containsExactly(new DrainRecord("c1", "app_1", "n3:1", 5_000, "RECLAIM", 7, 0, true));
    assertThat(next.get(Section.JOBS).jobs().get("app_1").workersByNode()).containsEntry("n4:1", 2);
    assertThat(next.get(Section.JOBS).jobs().get("app_1").preemptions()).isEqualTo(3);
  }

  @Test
  @DisplayName("saving a value equal to the stored one writes nothing")
  void equalValuesAreNotWritten() throws Exception {
    MemoryStateStore memory = new MemoryStateStore();
    DurableState s = DurableState.open(memory, 0);
    s.save(Section.POOLS, new InferenceNodes(Map.of("a", Place.HOME)));
    byte[] stored = memory.readAll().get("pools");
    memory.write("pools", "changed behind its back".getBytes(StandardCharsets.UTF_8));
    s.save(Section.POOLS, new InferenceNodes(Map.of("a", Place.HOME)));
    assertThat(new String(memory.readAll().get("pools"), StandardCharsets.UTF_8))
        .as("not written again")
        .isEqualTo("changed behind its back");
    assertThat(stored).isNotEmpty();
  }

  @Test
  @DisplayName(
      "format 1 is read once and written back as the current format: inference nodes get their place, a move's"
          + " hold-until time leaves the reclaim id")
  void format1IsUpgraded() throws Exception {
    Files.writeString(dir.resolve("meta.json"), "{\"version\":1,\"originMs\":500}");
    Files.writeString(dir.resolve("owners.json"), "{\"inference\":[\"i1:1\",\"i2:1\"]}");
    Files.writeString(
        dir.resolve("drains.json"),
        "{\"containers\":["
            + "{\"container\":\"c1\",\"app\":\"a\",\"node\":\"i1:1\",\"killAtMs\":9,\"reason\":\"MOVE\",\"reclaimId\":700},"
            + "{\"container\":\"c2\",\"app\":\"a\",\"node\":\"i2:1\",\"killAtMs\":9,\"reason\":\"RECLAIM\",\"reclaimId\":4}]}");

    DurableState s = DurableState.open(fs(), 99_000);
    assertThat(s.formatRead()).isEqualTo(1);
    assertThat(s.originMs()).isEqualTo(500);
    assertThat(s.get(Section.POOLS).nodes())
        .containsExactly(Map.entry("i1:1", Place.HOME), Map.entry("i2:1", Place.HOME));
    assertThat(s.get(Section.DRAINS).containers())
        .containsExactly(
            new DrainRecord("c1", "a", "i1:1", 9, "MOVE", 0, 700, false),
            new DrainRecord("c2", "a", "i2:1", 9, "RECLAIM", 4, 0, false));

    DurableState again = DurableState.open(fs(), 99_000);
    assertThat(again.formatRead()).as("written back").isEqualTo(DurableState.VERSION);
    assertThat(again.get(Section.DRAINS).containers())
        .isEqualTo(s.get(Section.DRAINS).containers());
    assertThat(again.get(Section.POOLS)).isEqualTo(s.get(Section.POOLS));
  }

  @Test
  @DisplayName(
      "format 2 is read once and written back as the current format: each job's preemptions, which"
          + " format 2 did not count, read as 0")
  void format2JobsReadWithNoPreemptions() throws Exception {
    Files.writeString(dir.resolve("meta.json"), "{\"version\":2,\"originMs\":500}");
    Files.writeString(
        dir.resolve("jobs.json"),
        "{\"jobs\":{\"app_1\":{\"attainedBaseS\":120.5,\"sinceChangeS\":30.0,"
            + "\"workersByNode\":{\"n1:1\":2}}}}");

    DurableState s = DurableState.open(fs(), 99_000);
    assertThat(s.formatRead()).isEqualTo(2);
    assertThat(s.get(Section.JOBS).jobs())
        .containsExactly(Map.entry("app_1", new JobRecord(120.5, 30, Map.of("n1:1", 2), 0)));

    DurableState again = DurableState.open(fs(), 99_000);
    assertThat(again.formatRead()).as("written back").isEqualTo(DurableState.VERSION);
    assertThat(again.get(Section.JOBS)).isEqualTo(s.get(Section.JOBS));
  }

  @Test
  @DisplayName(
      "format 3 is read once and written back as the current format: each drain, which format 3 did"
          + " not mark as part of a job's stop, is re-checked before its kill as before")
  void format3DrainsReadAsNoStop() throws Exception {
    Files.writeString(dir.resolve("meta.json"), "{\"version\":3,\"originMs\":500}");
    Files.writeString(
        dir.resolve("drains.json"),
        "{\"containers\":["
            + "{\"container\":\"c1\",\"app\":\"a\",\"node\":\"t1:1\",\"killAtMs\":9,"
            + "\"reason\":\"RECLAIM\",\"reclaimId\":4,\"holdUntilMs\":0},"
            + "{\"container\":\"c2\",\"app\":\"b\",\"node\":\"t2:1\",\"killAtMs\":9,"
            + "\"reason\":\"SHRINK\",\"reclaimId\":0,\"holdUntilMs\":0}]}");

    DurableState s = DurableState.open(fs(), 99_000);
    assertThat(s.formatRead()).isEqualTo(3);
    assertThat(s.get(Section.DRAINS).containers())
        .containsExactly(
            new DrainRecord("c1", "a", "t1:1", 9, "RECLAIM", 4, 0, false),
            new DrainRecord("c2", "b", "t2:1", 9, "SHRINK", 0, 0, false));

    DurableState again = DurableState.open(fs(), 99_000);
    assertThat(again.formatRead()).as("written back").isEqualTo(DurableState.VERSION);
    assertThat(again.get(Section.DRAINS)).isEqualTo(s.get(Section.DRAINS));
  }

  @Test
  @DisplayName("an unreadable section stops the start, naming its file and how to reset it")
  void corruptSectionIsRefusedLoudly() throws Exception {
    DurableState.open(fs(), 0).save(Section.RECLAIMS, new Reclaims(1, List.of(), List.of()));
    Files.writeString(dir.resolve("reclaims.json"), "{not json", StandardCharsets.UTF_8);

    assertThatThrownBy(() -> DurableState.open(fs(), 0))
        .isInstanceOf(CorruptStateException.class)
        .hasMessageContaining(
            "file "
                + dir.toUri().toString().replaceAll("/$", "").replace("file:///", "file:/")
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
    Files.writeString(
        dir.resolve("meta.json"),
        "{\"version\":" + (DurableState.VERSION + 1) + ",\"originMs\":0}");
    assertThatThrownBy(() -> DurableState.open(fs(), 0))
        .isInstanceOf(CorruptStateException.class)
        .hasMessageContaining("written by a newer Aryl");
  }

  @Test
  @DisplayName("a restorer's contradiction is reported against the section it came from")
  void contradictionNamesTheSection() throws Exception {
    DurableState s = DurableState.open(fs(), 0);
    assertThat(s.corrupt(Section.DRAINS, "reason 'X' is unknown").getMessage())
        .contains("drains.json")
        .contains("reason 'X' is unknown")
        .contains(Section.DRAINS.resetForgets());
  }
}
