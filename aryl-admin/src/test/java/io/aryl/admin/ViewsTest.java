package io.aryl.admin;

import static org.assertj.core.api.Assertions.as;
import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.api.ArylJson;
import io.aryl.api.status.ReclaimStatus;
import io.aryl.api.status.SchedulerStatus;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The tables drawn from the scheduler's answer (the example of the REST page, abridged). */
class ViewsTest {
  static final String STATUS =
      """
      {"enabled": true, "round": 5120, "roundLatencyMs": 3,
       "recovery": {"recovering": false, "waitingForNodes": []},
       "store": {"kind": "zookeeper", "location": "/aryl-scheduler", "epoch": 12},
       "nodes": [
         {"node": "gpu-tr-1:45454", "label": "training", "gpus": 8, "usedGpus": 8, "owner": "training",
          "loaned": false, "fenced": false, "gpuType": "a100"},
         {"node": "gpu-inf-3:45454", "label": "training", "gpus": 8, "usedGpus": 6, "owner": "inference",
          "loaned": true, "fenced": true, "gpuType": "t4"},
         {"node": "gpu-inf-4:45454", "label": "inference", "gpus": 8, "usedGpus": 2, "owner": "inference",
          "loaned": false, "fenced": false, "gpuType": null},
         {"node": "cpu-1:45454", "label": "", "gpus": 0, "usedGpus": 0,
          "loaned": false, "fenced": false, "gpuType": "a100"}],
       "applications": [
         {"application": "application_1764400000000_0042", "minWorkers": 2, "maxWorkers": 8, "targetWorkers": 6,
          "actualWorkers": 5, "change": "GROW", "team": "vision",
          "belowMaxBecause": "the spare GPUs it may use went to jobs whose extra workers are worth more per GPU \
      (1 more worker would save 41.5 s, for a 30.0 s re-scale pause)"},
         {"application": "application_1764400000000_0043", "minWorkers": 4, "maxWorkers": 4, "targetWorkers": 4,
          "actualWorkers": 4, "change": "NONE", "team": "nlp", "preemptions": 2}],
       "reclaimsInFlight": [
         {"id": 8, "phase": "DRAINING", "requested": 1, "nodes": ["gpu-inf-3:45454"], "requestedMs": 1764431880000,
          "deadlineMs": 1764432000000, "finishedMs": -1, "tookMs": -1, "late": false}],
       "reclaimsDone": [
         {"id": 6, "phase": "DONE", "requested": 1, "returnedNodes": ["gpu-inf-1:45454"], "finishedMs": 1764430000000,
          "tookMs": 12000, "late": false, "gpuSecondsLost": 0},
         {"id": 7, "phase": "DONE", "requested": 1, "returnedNodes": ["gpu-inf-2:45454"], "finishedMs": 1764431031000,
          "tookMs": 31000, "late": true, "gpuSecondsLost": 60}],
       "loanTarget": {"epoch": 4, "controller": "lc-1", "maxOnLoan": 1, "returnByMs": 0, "decidedMs": 1764431869990,
                      "reason": "rate 150.0 rps needs 2 server(s) + margin 1 of 4", "receivedMs": 1764431870000,
                      "onLoan": 1,
                      "demand": {"rateRps": 150.0, "forecastRps": 172.5, "serversNeeded": 2, "timeToServeMs": 4500,
                                 "startupMs": 2400}}}
      """;

  /** The status, read as aryl-admin reads it. */
  private static SchedulerStatus json(String s) throws Exception {
    return ArylJson.readStatus(s);
  }

  @Test
  @DisplayName(
      "the fixture names no field the status lacks: it is the scheduler's answer, abridged, not invented")
  void fixtureHoldsToTheContract() throws Exception {
    assertThat(ArylJson.strictReader(SchedulerStatus.class).<SchedulerStatus>readValue(STATUS))
        .isEqualTo(json(STATUS));
  }

  @Test
  @DisplayName(
      "status: one summary line, the inference demand the loan target was decided on, then pools (a node of neither pool in its partition's row, not in"
          + " training's), reclaims in flight, the last done newest first, elastic jobs")
  void status() throws Exception {
    assertThat(Views.status(json(STATUS), Cli.NOW_MS))
        .isEqualTo(
            """
        Aryl scheduler: round 5120, not recovering, store zookeeper epoch 12, loan target 1 (1 on loan) from lc-1 \
        epoch 4, received 2025-11-29T15:57:50Z (10s ago)
        inference demand: 150.0 req/s (forecast 172.5, 4.5 s ahead: 2.1 s reclaim + 2.4 s start-up), needs 2 \
        servers; 1 lent, target 1

        Pools
        POOL                 NODES  GPUS  USED-GPUS  ON-LOAN  FENCED
        inference            2      16    8          1        1
        training             1      8     8          0        0
        (default partition)  1      0     0          0        0

        Reclaims in flight
        ID  PHASE     ASKED  NODES            DEADLINE                        LATE
        8   DRAINING  1      gpu-inf-3:45454  2025-11-29T16:00:00Z (in 2m0s)  no

        Reclaims done (last 2 of 2)
        ID  ASKED  RETURNED         FINISHED                           TOOK  LATE  GPU-S LOST
        7   1      gpu-inf-2:45454  2025-11-29T15:43:51Z (14m9s ago)   31s   yes   60
        6   1      gpu-inf-1:45454  2025-11-29T15:26:40Z (31m20s ago)  12s   no    0

        Elastic jobs
        APPLICATION                     TEAM    MIN  TARGET  ACTUAL  MAX  CHANGE  PREEMPTED  WHY-BELOW-MAX
        application_1764400000000_0042  vision  2    6       5       8    GROW    0          the spare GPUs it may use \
        went to jobs whose extra workers are worth more per GPU (1 more worker would save 41.5 s, for a 30.0 s \
        re-scale pause)
        application_1764400000000_0043  nlp     4    4       4       4    NONE    2          -
        """);
  }

  @Test
  @DisplayName(
      "status: a job the last round runs below its maximum says why on its row; one at its maximum shows -")
  void whyBelowMax() throws Exception {
    String status = Views.status(json(STATUS), Cli.NOW_MS);
    String jobs = status.substring(status.indexOf("Elastic jobs\n"));
    assertThat(jobs.lines())
        .filteredOn(l -> l.startsWith("application_1764400000000_0042"))
        .singleElement(as(InstanceOfAssertFactories.STRING))
        .contains(" 6 ", " 8 ")
        .endsWith(
            "the spare GPUs it may use went to jobs whose extra workers are worth more per GPU"
                + " (1 more worker would save 41.5 s, for a 30.0 s re-scale pause)");
    assertThat(jobs.lines())
        .filteredOn(l -> l.startsWith("application_1764400000000_0043"))
        .singleElement(as(InstanceOfAssertFactories.STRING))
        .as("stopped twice, at its maximum")
        .endsWith("NONE    2          -");
  }

  @Test
  @DisplayName(
      "status of an idle scheduler says (none) for each empty section, and a recovering one says so")
  void emptySections() throws Exception {
    String s =
        Views.status(
            json(
                "{\"enabled\":true,\"round\":1,\"recovery\":{\"recovering\":true,"
                    + "\"waitingForNodes\":[\"a:1\",\"b:1\"]},\"nodes\":[],\"applications\":[],\"reclaimsInFlight\":[],"
                    + "\"reclaimsDone\":[]}"),
            Cli.NOW_MS);
    assertThat(s)
        .startsWith("Aryl scheduler: round 1, RECOVERING (waiting for 2 node(s)), no loan target")
        .contains(
            "Reclaims in flight\n(none)\n",
            "Reclaims done (last 0 of 0)\n(none)\n",
            "Elastic jobs\n(none)\n");
  }

  @Test
  @DisplayName(
      "a target without the demand it was decided on (an older controller's) prints no demand line")
  void targetWithoutDemand() throws Exception {
    assertThat(
            Views.status(
                json(
                    "{\"enabled\":true,\"round\":7,\"nodes\":[],\"loanTarget\":{\"epoch\":5,"
                        + "\"controller\":\"lc-2\",\"maxOnLoan\":1,\"receivedMs\":1764431870000,"
                        + "\"onLoan\":1}}"),
                Cli.NOW_MS))
        .contains("received 2025-11-29T15:57:50Z (10s ago)\n\nPools\n")
        .doesNotContain("inference demand");
  }

  @Test
  @DisplayName("the summary shows a lowered target with the deadline of the nodes above it")
  void loweredTarget() throws Exception {
    String s =
        Views.summary(
            json(
                "{\"enabled\":true,\"round\":7,\"loanTarget\":{\"epoch\":5,\"controller\":\"lc-2\","
                    + "\"maxOnLoan\":0,\"returnByMs\":1764432000000,\"receivedMs\":1764431870000,\"onLoan\":2}}"),
            Cli.NOW_MS);
    assertThat(s)
        .isEqualTo(
            "Aryl scheduler: round 7, not recovering, loan target 0 (2 on loan, the rest back by"
                + " 2025-11-29T16:00:00Z (in 2m0s)) from lc-2 epoch 5, received 2025-11-29T15:57:50Z (10s ago)");
  }

  @Test
  @DisplayName(
      "nodes: one row per node, a missing GPU type and a node of neither pool's owner as -")
  void nodes() throws Exception {
    assertThat(Views.nodes(json(STATUS)))
        .isEqualTo(
            """
        NODE             LABEL      OWNER      GPU-TYPE  GPUS  USED-GPUS  LOANED  FENCED
        gpu-tr-1:45454   training   training   a100      8     8          no      no
        gpu-inf-3:45454  training   inference  t4        8     6          yes     yes
        gpu-inf-4:45454  inference  inference  -         8     2          no      no
        cpu-1:45454                 -          a100      0     0          no      no
        """);
  }

  @Test
  @DisplayName("a scheduler with Aryl off says so instead of empty tables")
  void disabled() throws Exception {
    assertThat(Views.status(json("{\"enabled\":false}"), 0))
        .contains("aryl.scheduler.enabled=false");
    assertThat(Views.nodes(json("{\"enabled\":false}"))).contains("aryl.scheduler.enabled=false");
  }

  @Test
  @DisplayName("reclaim: the reclaim's id, phase, nodes, deadline and the jobs it touches")
  void reclaim() throws Exception {
    assertThat(
            Views.reclaim(
                ArylJson.read(
                    """
        {"id": 8, "phase": "DRAINING", "requested": 2, "nodes": ["gpu-inf-3:45454", "gpu-inf-5:45454"],
         "deadlineMs": 1764432000000, "jobs": {"application_1764400000000_0042": "SHRINK"}, "plannedCostGpuS": 120}
        """,
                    ReclaimStatus.class),
                Cli.NOW_MS))
        .isEqualTo(
            """
        RECLAIM       8
        phase         DRAINING
        asked         2
        nodes         gpu-inf-3:45454,gpu-inf-5:45454
        deadline      2025-11-29T16:00:00Z (in 2m0s)
        planned cost  120 GPU-s
        jobs          application_1764400000000_0042 SHRINK
        """);
  }
}
