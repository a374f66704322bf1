package io.aryl.yarn.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.yarn.StatusHistory;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ArylPageTest {
  private static final long NOW = 1_700_000_000_000L;

  private static Map<String, Object> node(String name, String label, String owner, boolean loaned, boolean fenced,
      int gpus, int used) {
    Map<String, Object> n = new LinkedHashMap<>();
    n.put("node", name);
    n.put("label", label);
    n.put("gpus", gpus);
    n.put("usedGpus", used);
    n.put("owner", owner);
    n.put("loaned", loaned);
    n.put("fenced", fenced);
    n.put("gpuType", "a100");
    return n;
  }

  private static Map<String, Object> status() {
    Map<String, Object> lent = node("n1:1", "training", "inference", true, true, 8, 6);
    Map<String, Object> s = new LinkedHashMap<>();
    s.put("enabled", true);
    s.put("round", 42);
    s.put("recovery", Map.of("recovering", false));
    s.put("nodes", List.of(node("n0:1", "inference", "inference", false, false, 8, 2), lent,
        node("n2:1", "training", "training", false, false, 8, 8)));
    s.put("loanedNodes", List.of(lent));
    Map<String, Object> app = new LinkedHashMap<>();
    app.put("application", "application_1_0001");
    app.put("minWorkers", 1);
    app.put("maxWorkers", 16);
    app.put("targetWorkers", 8);
    app.put("actualWorkers", 14);
    app.put("askedWorkers", 0);
    app.put("change", "SHRINK");
    app.put("team", "<script>alert(1)</script>");
    Map<String, Object> waiting = new LinkedHashMap<>(app);
    waiting.put("application", "application_1_0002");
    waiting.put("actualWorkers", 0);
    waiting.put("team", null);
    s.put("applications", List.of(app, waiting));
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("id", "r-1");
    r.put("phase", "DRAINING");
    r.put("nodes", List.of("n1:1"));
    r.put("returnedNodes", List.of());
    r.put("requestedMs", NOW - 5_000);
    r.put("deadlineMs", NOW + 25_000);
    r.put("jobs", Map.of("application_1_0001", "SHRINK", "application_1_0009", "PREEMPT"));
    r.put("containersShrunk", 2);
    r.put("containersPreempted", 0);
    s.put("reclaimsInFlight", List.of(r));
    Map<String, Object> done = new LinkedHashMap<>(r);
    done.put("id", "r-0");
    done.put("phase", "DONE");
    done.put("tookMs", 2500L);
    done.put("late", true);
    done.put("shortBy", 0);
    s.put("reclaimsDone", List.of(done));
    return s;
  }

  private static String render(Map<String, Object> status, List<StatusHistory.Sample> history) {
    return ArylPage.render(new ArylPage.Inputs(status, history, NOW, "inference", "training", id -> true));
  }

  @Test
  void showsTilesByPoolWithOwnerLoanAndFence() {
    String html = render(status(), List.of());
    assertThat(html).contains("<meta http-equiv=\"refresh\" content=\"10\">");
    int inference = html.indexOf("data-pool=\"inference\"");
    int training = html.indexOf("data-pool=\"training\"");
    assertThat(inference).isPositive().isLessThan(training);
    assertThat(html.indexOf("data-node=\"n0:1\"")).isBetween(inference, training);
    assertThat(html.indexOf("data-node=\"n1:1\"")).as("a lent node is a tile of the pool it serves")
        .isGreaterThan(training);
    assertThat(html).contains("<div class=\"tile loaned fenced\" data-node=\"n1:1\" data-owner=\"inference\""
        + " data-label=\"training\" data-loaned=\"true\" data-fenced=\"true\" data-used-gpus=\"6\" data-gpus=\"8\">");
    assertThat(html).contains("2 node(s), 14 / 16 GPUs used");
  }

  @Test
  void showsReclaimsWithDeadlineAndWhatTheyDrained() {
    String html = render(status(), List.of());
    assertThat(html).contains("<td class=\"left\">25 s</td>");
    assertThat(html).contains("<a href=\"/cluster/app/application_1_0009\">application_1_0009</a>: "
        + "<span class=\"action\">PREEMPT</span>");
    assertThat(html).contains("<td class=\"shrunk\">2</td>");
    assertThat(html).contains("<td class=\"took\">2.5 s</td><td class=\"late warn\">late</td>");
  }

  @Test
  void listsApplicationsWithLinksToTheirRmPageAndEscapesValues() {
    String html = render(status(), List.of());
    assertThat(html).contains("<a href=\"/cluster/app/application_1_0001\">application_1_0001</a>");
    assertThat(html).contains("<td class=\"min\">1</td><td class=\"target\">8</td>"
        + "<td class=\"actual differs\">14</td><td class=\"max\">16</td>");
    assertThat(html).doesNotContain("<script>").contains("&lt;script&gt;alert(1)&lt;/script&gt;");
  }

  @Test
  void hidesApplicationsTheCallerMayNotView() {
    String html = ArylPage.render(new ArylPage.Inputs(status(), List.of(), NOW, "inference", "training",
        id -> id.endsWith("0002")));
    assertThat(html).doesNotContain("application_1_0001").doesNotContain("application_1_0009")
        .contains("application_1_0002").contains("1 application(s) you may not view are not listed.")
        .contains("2 other application(s)");
  }

  @Test
  void chartsEndAtTheCurrentStatus() {
    StatusHistory.Sample old = new StatusHistory.Sample(NOW - 120_000, 0, 3, Map.of("inference", 1, "training", 4),
        Map.of("inference", 8, "training", 16));
    String html = render(status(), List.of(old));
    assertThat(html).contains("id=\"chart-loaned\" data-points=\"2\"");
    assertThat(html).contains("data-series=\"on loan\" data-last=\"1\"");
    assertThat(html).contains("data-series=\"queued\" data-last=\"1\"");
    assertThat(html).contains("data-series=\"inference\" data-last=\"2\"").contains("data-series=\"training\" data-last=\"14\"");
    assertThat(html).contains("<svg xmlns=\"http://www.w3.org/2000/svg\"");
  }

  @Test
  void saysSoWhenArylIsOff() {
    assertThat(render(Map.of("enabled", false), List.of())).contains("id=\"off\"").doesNotContain("id=\"pools\"");
  }
}
