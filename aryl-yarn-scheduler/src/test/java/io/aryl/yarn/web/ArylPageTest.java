package io.aryl.yarn.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.api.loan.LoanDemand;
import io.aryl.api.status.ApplicationStatus;
import io.aryl.api.status.ApplicationStatus.Change;
import io.aryl.api.status.HistorySample;
import io.aryl.api.status.LoanTargetStatus;
import io.aryl.api.status.NodeStatus;
import io.aryl.api.status.NodeStatus.Pool;
import io.aryl.api.status.PlanStatus;
import io.aryl.api.status.ReclaimStatus;
import io.aryl.api.status.ReclaimStatus.Action;
import io.aryl.api.status.ReclaimStatus.Phase;
import io.aryl.api.status.RecoveryStatus;
import io.aryl.api.status.SchedulerStatus;
import io.aryl.api.status.StoreStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class ArylPageTest {
  private static final long NOW = 1_700_000_000_000L;

  private static NodeStatus node(
      String name, String label, Pool owner, boolean loaned, boolean fenced, int gpus, int used) {
    return new NodeStatus(name, label, gpus, used, owner, loaned, fenced, "a100", 1.0, null, null);
  }

  private static ApplicationStatus app(String id, int actual, String team) {
    return new ApplicationStatus(
        id, 1, 16, 1, 3600, 8, Map.of(), actual, 0, Change.SHRINK, null, team);
  }

  private static ReclaimStatus reclaim(long id, Phase phase, long tookMs, boolean late) {
    return new ReclaimStatus(
        id,
        phase,
        1,
        List.of("n1:1"),
        List.of(),
        List.of(),
        Map.of(),
        0,
        NOW - 5_000,
        NOW + 25_000,
        phase == Phase.DONE ? NOW : -1,
        tookMs,
        late,
        Map.of("application_1_0001", Action.SHRINK, "application_1_0009", Action.PREEMPT),
        2,
        0,
        0,
        0);
  }

  private static SchedulerStatus status() {
    NodeStatus lent = node("n1:1", "training", Pool.INFERENCE, true, true, 8, 6);
    return new SchedulerStatus(
        true,
        42L,
        1.0,
        new RecoveryStatus(false, NOW, NOW, 60000, 0, List.of(), "done"),
        new StoreStatus("memory", "", 1, null),
        List.of(
            node("n0:1", "inference", Pool.INFERENCE, false, false, 8, 2),
            lent,
            node("n2:1", "training", Pool.TRAINING, false, false, 8, 8)),
        List.of(lent),
        List.of(
            app("application_1_0001", 14, "<script>alert(1)</script>"),
            app("application_1_0002", 0, null)),
        List.of(),
        List.of(),
        PlanStatus.NONE,
        List.of(reclaim(1, Phase.DRAINING, -1, false)),
        List.of(reclaim(0, Phase.DONE, 2500, true)),
        0,
        null);
  }

  private static String render(SchedulerStatus status, List<HistorySample> history) {
    return ArylPage.render(
        new ArylPage.Inputs(status, history, NOW, "inference", "training", id -> true));
  }

  @Test
  void showsTilesByPoolWithOwnerLoanAndFence() {
    String html = render(status(), List.of());
    assertThat(html).contains("<meta http-equiv=\"refresh\" content=\"10\">");
    int inference = html.indexOf("data-pool=\"inference\"");
    int training = html.indexOf("data-pool=\"training\"");
    assertThat(inference).isPositive().isLessThan(training);
    assertThat(html.indexOf("data-node=\"n0:1\"")).isBetween(inference, training);
    assertThat(html.indexOf("data-node=\"n1:1\""))
        .as("a lent node is a tile of the pool it serves")
        .isGreaterThan(training);
    assertThat(html)
        .contains(
            "<div class=\"tile loaned fenced\" data-node=\"n1:1\" data-owner=\"inference\""
                + " data-label=\"training\" data-loaned=\"true\" data-fenced=\"true\" data-used-gpus=\"6\" data-gpus=\"8\">");
    assertThat(html).contains("2 node(s), 14 / 16 GPUs used");
  }

  @Test
  void showsTheDefaultPartitionAfterThePoolsWithNoOwnerAndOutOfTrainingsCount() {
    SchedulerStatus s = status();
    List<NodeStatus> nodes = new ArrayList<>(s.nodes());
    nodes.add(0, node("am1:1", "", null, false, false, 0, 0));
    String html =
        render(
            new SchedulerStatus(
                true,
                s.round(),
                s.roundLatencyMs(),
                s.recovery(),
                s.store(),
                nodes,
                s.loanedNodes(),
                s.applications(),
                s.teams(),
                s.plainDemand(),
                s.plan(),
                s.reclaimsInFlight(),
                s.reclaimsDone(),
                s.drainingContainers(),
                s.loanTarget()),
            List.of());
    int training = html.indexOf("data-pool=\"training\"");
    int partition = html.indexOf("data-pool=\"\"");
    assertThat(partition).as("after the pools").isGreaterThan(training);
    assertThat(html.indexOf("data-node=\"am1:1\"")).isGreaterThan(partition);
    assertThat(html.substring(partition))
        .startsWith("data-pool=\"\"><h3>default partition <small>1 node(s), 0 / 0 GPUs used")
        .contains("data-node=\"am1:1\" data-owner=\"\" data-label=\"\"")
        .contains("<dd class=\"owner\">-</dd>");
    assertThat(html.substring(training, partition))
        .as("training's box counts its own nodes and the one lent to it")
        .contains("2 node(s), 14 / 16 GPUs used");
  }

  @Test
  void leavesTheDefaultPartitionOutWhenNoNodeIsUnlabelled() {
    assertThat(render(status(), List.of())).doesNotContain("default partition");
  }

  @Test
  void showsReclaimsWithDeadlineAndWhatTheyDrained() {
    String html = render(status(), List.of());
    assertThat(html).contains("<td class=\"left\">25 s</td>");
    assertThat(html)
        .contains(
            "<a href=\"/cluster/app/application_1_0009\">application_1_0009</a>: "
                + "<span class=\"action\">PREEMPT</span>");
    assertThat(html).contains("<td class=\"shrunk\">2</td>");
    assertThat(html).contains("<td class=\"took\">2.5 s</td><td class=\"late warn\">late</td>");
  }

  @Test
  void listsApplicationsWithLinksToTheirRmPageAndEscapesValues() {
    String html = render(status(), List.of());
    assertThat(html).contains("<a href=\"/cluster/app/application_1_0001\">application_1_0001</a>");
    assertThat(html)
        .contains(
            "<td class=\"min\">1</td><td class=\"target\">8</td>"
                + "<td class=\"actual differs\">14</td><td class=\"max\">16</td>");
    assertThat(html).doesNotContain("<script>").contains("&lt;script&gt;alert(1)&lt;/script&gt;");
  }

  @Test
  void saysBesideTheWorkersWhyAJobRunsBelowItsMaximum() {
    String why = "no spare GPUs of the types it may use (a100 & <t4>)";
    ApplicationStatus below =
        new ApplicationStatus(
            "application_1_0003", 2, 8, 1, 3600, 6, Map.of(), 6, 6, Change.GROW, 12.0, "", why);
    ApplicationStatus atMax =
        new ApplicationStatus(
            "application_1_0004", 1, 4, 1, 3600, 4, Map.of(), 4, 4, Change.NONE, 0.0, "");
    SchedulerStatus s = status();
    String html =
        render(
            new SchedulerStatus(
                true,
                s.round(),
                s.roundLatencyMs(),
                s.recovery(),
                s.store(),
                s.nodes(),
                s.loanedNodes(),
                List.of(below, atMax),
                s.teams(),
                s.plainDemand(),
                s.plan(),
                s.reclaimsInFlight(),
                s.reclaimsDone(),
                s.drainingContainers(),
                s.loanTarget()),
            List.of());
    assertThat(html).contains("<th>max</th><th>why below max</th>");
    assertThat(html)
        .as("6 of 8, and why, escaped")
        .contains(
            "<td class=\"target\">6</td><td class=\"actual\">6</td><td class=\"max\">8</td>"
                + "<td class=\"below-max\">no spare GPUs of the types it may use"
                + " (a100 &amp; &lt;t4&gt;)</td>");
    assertThat(html)
        .as("a job at its maximum has nothing to explain")
        .contains(
            "<td class=\"target\">4</td><td class=\"actual\">4</td><td class=\"max\">4</td>"
                + "<td class=\"below-max\"></td>");
  }

  @Test
  void hidesApplicationsTheCallerMayNotView() {
    String html =
        ArylPage.render(
            new ArylPage.Inputs(
                status(), List.of(), NOW, "inference", "training", id -> id.endsWith("0002")));
    assertThat(html)
        .doesNotContain("application_1_0001")
        .doesNotContain("application_1_0009")
        .contains("application_1_0002")
        .contains("1 application(s) you may not view are not listed.")
        .contains("2 other application(s)");
  }

  @Test
  void chartsEndAtTheCurrentStatus() {
    HistorySample old =
        new HistorySample(
            NOW - 120_000,
            0,
            3,
            Map.of("inference", 1, "training", 4),
            Map.of("inference", 8, "training", 16));
    String html = render(status(), List.of(old));
    assertThat(html).contains("id=\"chart-loaned\" data-points=\"2\"");
    assertThat(html).contains("data-series=\"on loan\" data-last=\"1\"");
    assertThat(html).contains("data-series=\"queued\" data-last=\"1\"");
    assertThat(html)
        .contains("data-series=\"inference\" data-last=\"2\"")
        .contains("data-series=\"training\" data-last=\"14\"");
    assertThat(html).contains("<svg xmlns=\"http://www.w3.org/2000/svg\"");
  }

  private static SchedulerStatus withTarget(LoanTargetStatus target) {
    SchedulerStatus s = status();
    return new SchedulerStatus(
        true,
        s.round(),
        s.roundLatencyMs(),
        s.recovery(),
        s.store(),
        s.nodes(),
        s.loanedNodes(),
        s.applications(),
        s.teams(),
        s.plainDemand(),
        s.plan(),
        s.reclaimsInFlight(),
        s.reclaimsDone(),
        s.drainingContainers(),
        target);
  }

  @Test
  @DisplayName(
      "the loan section shows the inference demand beside the lent nodes: the rate, its forecast one"
          + " time to serve ahead (the reclaim and the replica's start-up apart), the servers needed,"
          + " what is lent and the target")
  void showsTheInferenceDemandBesideTheLentNodes() {
    String html =
        render(
            withTarget(
                new LoanTargetStatus(
                    4,
                    "lc-<1>",
                    2,
                    0,
                    NOW - 1_000,
                    "rate 120.0 rps (forecast 150.0) needs 2",
                    NOW - 900,
                    1,
                    new LoanDemand(120, 150, 2, 4_800, 2_600L))),
            List.of());
    int pools = html.indexOf("id=\"pools\"");
    int loan = html.indexOf("<section id=\"loan\">");
    assertThat(loan).as("after the pools' tiles").isGreaterThan(pools);
    assertThat(html.substring(loan))
        .contains(
            "<p id=\"inference-demand\">inference demand: 120.0 req/s (forecast 150.0, 4.8 s"
                + " ahead: 2.2 s reclaim + 2.6 s start-up), needs 2 servers; 1 lent, target 2</p>")
        .contains("<dd>lc-&lt;1&gt; (epoch 4)</dd>")
        .contains("<dt>back by</dt><dd>the scheduler's default deadline</dd>")
        .contains("<dd class=\"reason\">rate 120.0 rps (forecast 150.0) needs 2</dd>");
  }

  @Test
  @DisplayName(
      "a flat rate shows no forecast; a target without its demand (an older controller's) says so;"
          + " no target says that none was set")
  void theLoanSectionWithoutAForecastOrADemandOrATarget() {
    assertThat(
            render(
                withTarget(
                    new LoanTargetStatus(
                        4, "lc-1", 1, 0, NOW, "", NOW, 1, new LoanDemand(80, 80, 1, 30_000))),
                List.of()))
        .contains(
            "<p id=\"inference-demand\">inference demand: 80.0 req/s, needs 1 server; 1 lent,"
                + " target 1</p>");
    assertThat(
            render(withTarget(new LoanTargetStatus(4, "lc-1", 3, 0, NOW, "", NOW, 2)), List.of()))
        .contains(
            "<p id=\"inference-demand\" class=\"none\">inference demand: not sent with the target;"
                + " 2 lent, target 3</p>");
    assertThat(render(status(), List.of()))
        .contains("<p class=\"none\" id=\"inference-demand\">no loan target");
  }

  @Test
  void saysSoWhenArylIsOff() {
    assertThat(render(SchedulerStatus.disabled(), List.of()))
        .contains("id=\"off\"")
        .doesNotContain("id=\"pools\"");
  }
}
