package io.aryl.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.aryl.api.loan.LoanTargetAccepted;
import io.aryl.api.loan.StaleTarget;
import io.aryl.api.status.History;
import io.aryl.api.status.ReclaimStatus;
import io.aryl.api.status.SchedulerStatus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The REST reference ({@code site/src/site/markdown/rest.md}) against the records: each JSON
 * example of a contract reads strictly (no field the record lacks) and names every field the record
 * writes, so the page and the code cannot drift apart.
 */
@DisplayName("The REST page's JSON examples name exactly the records' fields")
class RestPageExamplesTest {
  private static final ObjectMapper PLAIN = new ObjectMapper();
  private static final Pattern JSON_BLOCK = Pattern.compile("```json\\n(.*?)```", Pattern.DOTALL);
  private static String page;

  @BeforeAll
  static void readPage() throws Exception {
    Path root = Path.of(System.getProperty("aryl.root", "..")).toAbsolutePath().normalize();
    page = Files.readString(root.resolve("site/src/site/markdown/rest.md"));
  }

  /** The JSON examples of the section whose heading starts with {@code heading}, in order. */
  private static List<String> examples(String heading) {
    int start = page.indexOf("\n## " + heading);
    assertThat(start).as("section %s of rest.md", heading).isNotNegative();
    int end = page.indexOf("\n## ", start + 1);
    Matcher m = JSON_BLOCK.matcher(page.substring(start, end < 0 ? page.length() : end));
    List<String> out = new ArrayList<>();
    while (m.find()) {
      out.add(m.group(1));
    }
    return out;
  }

  /**
   * Every field path of the tree: objects' names joined by dots, arrays' elements as []. Maps keyed
   * by data (by node, by application) come out the same on both sides, as the record keeps their
   * entries.
   */
  private static SortedSet<String> paths(JsonNode n, String at, SortedSet<String> out) {
    if (n.isObject()) {
      for (Map.Entry<String, JsonNode> e : n.properties()) {
        String p = at.isEmpty() ? e.getKey() : at + "." + e.getKey();
        out.add(p);
        paths(e.getValue(), p, out);
      }
    } else if (n.isArray()) {
      n.forEach(x -> paths(x, at + "[]", out));
    }
    return out;
  }

  private static <T> void namesEveryField(String example, Class<T> type) throws Exception {
    T record = ArylJson.strictReader(type).readValue(example);
    SortedSet<String> documented = paths(PLAIN.readTree(example), "", new TreeSet<>());
    SortedSet<String> written = paths(PLAIN.readTree(ArylJson.write(record)), "", new TreeSet<>());
    assertThat(documented)
        .as("fields of the %s example in rest.md", type.getSimpleName())
        .isEqualTo(written);
  }

  @Test
  @DisplayName("GET /ws/v1/cluster/aryl: the status, every field of every part")
  void status() throws Exception {
    List<String> ex = examples("`GET /ws/v1/cluster/aryl`");
    assertThat(ex).hasSize(1);
    namesEveryField(ex.get(0), SchedulerStatus.class);
  }

  @Test
  @DisplayName("POST /ws/v1/cluster/aryl/reclaims: the reclaim it answers")
  void reclaim() throws Exception {
    List<String> ex = examples("`POST /ws/v1/cluster/aryl/reclaims`");
    assertThat(ex).hasSize(1);
    namesEveryField(ex.get(0), ReclaimStatus.class);
  }

  @Test
  @DisplayName("PUT /ws/v1/cluster/aryl/loan-target: the 200's and the 409's bodies")
  void loanTarget() throws Exception {
    List<String> ex = examples("`PUT /ws/v1/cluster/aryl/loan-target`");
    assertThat(ex).hasSize(2);
    namesEveryField(ex.get(0), LoanTargetAccepted.class);
    namesEveryField(ex.get(1), StaleTarget.class);
  }

  @Test
  @DisplayName("GET /ws/v1/cluster/aryl/history: the samples' fields")
  void history() throws Exception {
    List<String> ex = examples("`GET /ws/v1/cluster/aryl/history`");
    assertThat(ex).hasSize(1);
    namesEveryField(ex.get(0), History.class);
  }
}
