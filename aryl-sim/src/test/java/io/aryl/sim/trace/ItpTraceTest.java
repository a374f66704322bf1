package io.aryl.sim.trace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@DisplayName("ItpTrace")
class ItpTraceTest {
  private static final String RAW = "job_id,submission_time,duration,num_gpu\n";
  private static final String ELASTICFLOW =
      "job_id,submission_time,num_iteration,model_name,deadline,batch_size,num_gpu,duration\n";

  @TempDir Path dir;

  private Path write(String name, String text) throws IOException {
    return Files.writeString(dir.resolve(name), text);
  }

  @Test
  @DisplayName("reads the raw layout exactly, sorted by (submitS, id), model empty")
  void raw() throws IOException {
    Path f =
        write(
            "cluster99.csv",
            RAW
                + "job-b,100,3600,8\n"
                + "job-a,100,60,1\n"
                + "job-c,0,1,64\n"
                + "job-d,2000581.5,1532,2");

    assertThat(ItpTrace.read(f))
        .containsExactly(
            new TraceJob("job-c", 0, 1, 64, ""),
            new TraceJob("job-a", 100, 60, 1, ""),
            new TraceJob("job-b", 100, 3600, 8, ""),
            new TraceJob("job-d", 2000581.5, 1532, 2, ""));
  }

  @Test
  @DisplayName("reads the elasticflow layout, taking the model from model_name")
  void elasticflow() throws IOException {
    Path f =
        write(
            "cluster01.csv",
            ELASTICFLOW
                + "965d744f-0445-c1a8-12af-97e4c536c66e,1932025,45775,resnet50,1933904,256,64,2429\n"
                + "fb10987f-20ac-3703-eb67-146a77a6e17c,2000581,11197,gpt2,2002204,128,1,1532\n");

    assertThat(ItpTrace.read(f))
        .containsExactly(
            new TraceJob("965d744f-0445-c1a8-12af-97e4c536c66e", 1932025, 2429, 64, "resnet50"),
            new TraceJob("fb10987f-20ac-3703-eb67-146a77a6e17c", 2000581, 1532, 1, "gpt2"));
  }

  @Test
  @DisplayName("tells raw from elasticflow by the header: the same jobs, with or without models")
  void detection() throws IOException {
    List<TraceJob> raw = ItpTrace.read(write("raw.csv", RAW + "j1,5,300,4\n"));
    List<TraceJob> ef =
        ItpTrace.read(write("ef.csv", ELASTICFLOW + "j1,5,1000,bert,900,32,4,300\n"));

    assertThat(raw).containsExactly(new TraceJob("j1", 5, 300, 4, ""));
    assertThat(ef).containsExactly(new TraceJob("j1", 5, 300, 4, "bert"));
  }

  @Test
  @DisplayName("looks columns up by name, whatever their order")
  void columnsByName() throws IOException {
    Path f = write("reordered.csv", "num_gpu,duration,job_id,submission_time\n8,3600,j1,42\n");

    assertThat(ItpTrace.read(f)).containsExactly(new TraceJob("j1", 42, 3600, 8, ""));
  }

  @Test
  @DisplayName("refuses a header of neither layout, on line 1, naming both")
  void unknownHeader() throws IOException {
    Path f = write("other.csv", "id,submit,length,gpus\nj1,0,1,1\n");

    assertThatThrownBy(() -> ItpTrace.read(f))
        .isInstanceOf(TraceFormatException.class)
        .hasMessageStartingWith(f + ":1: not an ITP trace header")
        .hasMessageContaining("job_id,submission_time,duration,num_gpu")
        .hasMessageContaining("model_name")
        .hasMessageEndingWith("was 'id,submit,length,gpus'");
  }

  @Test
  @DisplayName("refuses an empty file on line 1")
  void emptyFile() throws IOException {
    Path f = write("empty.csv", "");

    assertThatThrownBy(() -> ItpTrace.read(f))
        .isInstanceOf(TraceFormatException.class)
        .hasMessageStartingWith(f + ":1: ");
  }

  @Test
  @DisplayName("reads a header with no job as no job, and ignores blank lines at the end")
  void blankTail() throws IOException {
    assertThat(ItpTrace.read(write("none.csv", RAW))).isEmpty();
    assertThat(ItpTrace.read(write("tail.csv", RAW + "j1,0,1,1\n\n  \n\n"))).hasSize(1);
    assertThat(ItpTrace.read(write("crlf.csv", RAW.replace("\n", "\r\n") + "j1,0,1,1\r\n\r\n")))
        .hasSize(1);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "too few columns          | j2,7,1       | j2,7,1       | expected 4 comma-separated columns",
        "too many columns         | j2,7,1,1,1   | j2,7,1,1,1   | expected 4 comma-separated columns",
        "time not a number        | j2,soon,1,1  | soon         | submission_time must be a number",
        "time empty               | j2,,1,1      | ''           | submission_time must be a number",
        "time NaN                 | j2,NaN,1,1   | NaN          | submission_time must be a number",
        "time negative            | j2,-5,1,1    | -5           | submission_time must be >= 0",
        "duration not a number    | j2,7,1h,1    | 1h           | duration must be a number",
        "duration zero            | j2,7,0,1     | 0            | duration must be > 0",
        "duration negative        | j2,7,-10,1   | -10          | duration must be > 0",
        "gpus zero                | j2,7,1,0     | 0            | num_gpu must be a whole number > 0",
        "gpus negative            | j2,7,1,-8    | -8           | num_gpu must be a whole number > 0",
        "gpus fractional          | j2,7,1,1.5   | 1.5          | num_gpu must be a whole number > 0",
        "gpus not a number        | j2,7,1,x     | x            | num_gpu must be a whole number > 0",
        "gpus overflow            | j2,7,1,99999999999 | 99999999999 | num_gpu must be a whole number > 0",
        "blank id                 | ' ,7,1,1'    | ''           | job_id must not be blank",
        "id used before           | j1,7,1,1     | j1           | job_id already used on line 2",
      })
  void malformedRaw(String what, String line, String value, String problem) throws IOException {
    Path f = write("bad.csv", RAW + "j1,0,10,1\n" + line + "\nj3,9,1,1\n");

    TraceFormatException e =
        catchThrowableOfType(TraceFormatException.class, () -> ItpTrace.read(f));

    assertThat(e).as(what).isNotNull();
    assertThat(e.getMessage())
        .startsWith(f + ":3: ")
        .contains(problem)
        .endsWith(", was '" + value + "'");
    assertThat(e.source()).isEqualTo(f.toString());
    assertThat(e.line()).isEqualTo(3);
    assertThat(e.value()).isEqualTo(value);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "blank model          | j2,7,100,,900,32,4,300     | ''   | model_name must not be blank",
        "iterations zero      | j2,7,0,bert,900,32,4,300   | 0    | num_iteration must be a whole number > 0",
        "batch not a number   | j2,7,100,bert,900,big,4,300 | big | batch_size must be a whole number > 0",
        "deadline negative    | j2,7,100,bert,-1,32,4,300  | -1   | deadline must be >= 0",
        "gpus zero            | j2,7,100,bert,900,32,0,300 | 0    | num_gpu must be a whole number > 0",
        "duration zero        | j2,7,100,bert,900,32,4,0   | 0    | duration must be > 0",
        "column missing       | j2,7,100,bert,900,32,4     | j2,7,100,bert,900,32,4 | expected 8 comma-separated",
      })
  void malformedElasticflow(String what, String line, String value, String problem)
      throws IOException {
    Path f = write("bad-ef.csv", ELASTICFLOW + "j1,0,100,vgg16,900,32,1,300\n" + line + "\n");

    assertThatThrownBy(() -> ItpTrace.read(f))
        .as(what)
        .isInstanceOf(TraceFormatException.class)
        .hasMessageStartingWith(f + ":3: ")
        .hasMessageContaining(problem)
        .hasMessageEndingWith(", was '" + value + "'");
  }

  @Test
  @DisplayName("refuses a blank line followed by more records, on the blank line")
  void blankLineInside() throws IOException {
    Path f = write("gap.csv", RAW + "j1,0,1,1\n\nj2,1,1,1\n");

    assertThatThrownBy(() -> ItpTrace.read(f))
        .isInstanceOf(TraceFormatException.class)
        .hasMessageStartingWith(
            f + ":3: blank line before the end of the file (next record on line 4)");
  }

  @Test
  @DisplayName("names a stream by the name given")
  void streamName() {
    byte[] bytes = (RAW + "j1,0,1,1\nj2,zero,1,1\n").getBytes(StandardCharsets.UTF_8);

    assertThatThrownBy(() -> ItpTrace.read(new ByteArrayInputStream(bytes), "traces/x.csv"))
        .isInstanceOf(TraceFormatException.class)
        .hasMessage("traces/x.csv:3: submission_time must be a number, was 'zero'");
  }

  @Test
  @DisplayName("reports a missing file as an I/O failure naming it")
  void missingFile() {
    Path f = dir.resolve("absent.csv");

    assertThatThrownBy(() -> ItpTrace.read(f))
        .isInstanceOf(UncheckedIOException.class)
        .hasMessageContaining(f.toString());
  }
}
