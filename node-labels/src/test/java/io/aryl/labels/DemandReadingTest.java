package io.aryl.labels;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@DisplayName("DemandReading: the largest rate the sources answered, and whether all of them did")
class DemandReadingTest {
  /** A source named {@code name} answering {@code rate}, or failing when {@code rate} is "down". */
  private static DemandSource source(String name, String rate) {
    return new DemandSource() {
      @Override
      public double rate() throws IOException {
        if (rate.equals("down")) {
          throw new IOException(name + " does not answer");
        }
        return Double.parseDouble(rate);
      }

      @Override
      public String name() {
        return name;
      }
    };
  }

  /** Sources from "name=rate,name=rate". */
  private static List<DemandSource> sources(String spec) {
    List<DemandSource> out = new ArrayList<>();
    for (String s : spec.split(",", -1)) {
      String[] kv = s.split("=", -1);
      out.add(source(kv[0], kv[1]));
    }
    return out;
  }

  @ParameterizedTest(name = "[{index}] {3}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
      # sources                | rate | complete | case
        replay=120             |  120 | true     | one source
        replay=120,http=300    |  300 | true     | the largest wins
        replay=300,http=120    |  300 | true     | whatever the order
        replay=0,http=0        |    0 | true     | no demand is a rate too
        replay=120,http=down   |  120 | false    | a source that does not answer leaves the others' rate, incomplete
        replay=down,http=120   |  120 | false    | whichever source it is
        replay=down,http=down  |  NaN | false    | none answers: the rate is unknown
      """)
  @DisplayName("reads every source")
  void reads(String spec, double rate, boolean complete, String why) {
    DemandReading d = DemandReading.read(sources(spec));
    if (Double.isNaN(rate)) {
      assertThat(d.rate()).as(why).isNaN();
    } else {
      assertThat(d.rate()).as(why).isEqualTo(rate);
    }
    assertThat(d.complete()).as(why).isEqualTo(complete);
    assertThat(d.sources()).as("every source shows").hasSize(spec.split(",").length);
  }

  @Test
  @DisplayName(
      "the status shows each source's rate or why it is unavailable, in the sources' order")
  void status() {
    DemandReading d = DemandReading.read(sources("yarn-queue=80,replay=down,http=120.5"));
    Map<String, Object> sources = new LinkedHashMap<>();
    sources.put("yarn-queue", 80.0);
    sources.put("replay", "unavailable: replay does not answer");
    sources.put("http", 120.5);
    Map<String, Object> status = d.toStatus();
    assertThat(status)
        .containsOnlyKeys("rate", "complete", "sources")
        .containsEntry("rate", 120.5)
        .containsEntry("complete", false);
    assertThat(status.get("sources"))
        .asInstanceOf(InstanceOfAssertFactories.map(String.class, Object.class))
        .containsExactlyEntriesOf(sources);
  }

  @Test
  @DisplayName("an unknown rate shows as null")
  void unknownRate() {
    assertThat(DemandReading.read(sources("replay=down")).toStatus())
        .containsEntry("rate", null)
        .containsEntry("complete", false);
  }
}
