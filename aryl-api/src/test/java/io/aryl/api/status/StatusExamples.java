package io.aryl.api.status;

import io.aryl.api.loan.LoanDemand;
import io.aryl.api.status.ApplicationStatus.Change;
import io.aryl.api.status.NodeStatus.Pool;
import io.aryl.api.status.ReclaimStatus.Action;
import io.aryl.api.status.ReclaimStatus.Phase;
import java.util.List;
import java.util.Map;

/**
 * A status with every component set, none to its type's default, and the JSON the scheduler writes
 * for it.
 */
final class StatusExamples {
  private StatusExamples() {}

  static final NodeStatus TRAINING_NODE =
      new NodeStatus(
          "gpu-tr-1:45454", "training", 8, 8, Pool.TRAINING, false, false, "a100", 1.0, null, null);
  static final NodeStatus LENT_NODE =
      new NodeStatus(
          "gpu-inf-3:45454",
          "training",
          8,
          6,
          Pool.INFERENCE,
          true,
          true,
          "t4",
          0.5,
          null,
          NodeStatus.Place.RETURNING);
  static final NodeStatus UNTYPED_NODE =
      new NodeStatus(
          "gpu-inf-4:45454",
          "inference",
          4,
          2,
          Pool.INFERENCE,
          false,
          false,
          null,
          1.0,
          "no rule of aryl.scheduler.gpu-type.nodes names it",
          NodeStatus.Place.HOME);

  static final ReclaimStatus IN_FLIGHT =
      new ReclaimStatus(
          8,
          Phase.DRAINING,
          2,
          List.of("gpu-inf-3:45454", "gpu-inf-6:45454"),
          List.of(),
          List.of("gpu-inf-5:45454"),
          Map.of("gpu-inf-5:45454", "gpu-inf-6:45454"),
          0,
          1764431880000L,
          1764432000000L,
          -1,
          -1,
          false,
          Map.of("application_1764400000000_0042", Action.SHRINK),
          1,
          0,
          120,
          30);
  static final ReclaimStatus DONE =
      new ReclaimStatus(
          7,
          Phase.DONE,
          1,
          List.of("gpu-inf-2:45454"),
          List.of("gpu-inf-2:45454"),
          List.of(),
          Map.of(),
          1,
          1764431000000L,
          1764431120000L,
          1764431031000L,
          31000,
          true,
          Map.of("application_1764400000000_0040", Action.PREEMPT),
          0,
          2,
          60,
          75);

  static SchedulerStatus full() {
    return new SchedulerStatus(
        true,
        5120L,
        3.5,
        new RecoveryStatus(
            false,
            1764400000000L,
            1764400004200L,
            60000,
            3,
            List.of("gpu-inf-9:45454"),
            "waited 60000 ms; still missing [gpu-inf-9:45454]"),
        new StoreStatus("zookeeper", "/aryl-scheduler", 12, "a newer scheduler claimed epoch 13"),
        List.of(TRAINING_NODE, LENT_NODE, UNTYPED_NODE),
        List.of(LENT_NODE),
        List.of(
            new ApplicationStatus(
                "application_1764400000000_0042",
                2,
                8,
                1,
                3600,
                6,
                Map.of("gpu-tr-1:45454", 2, "gpu-inf-3:45454", 4),
                5,
                8,
                Change.GROW,
                412.5,
                "vision",
                "no spare GPUs of the types it may use (a100, t4)",
                1)),
        List.of(new TeamStatus("vision", 9, 6)),
        List.of(
            new PlainDemand(
                "application_1764400000000_0044", "nlp", 2, 4, Map.of("gpu-tr-2:45454", 2))),
        new PlanStatus(
            Map.of(
                "application_1764400000000_0042",
                Map.of("gpu-tr-1:45454", 2, "gpu-inf-3:45454", 4)),
            Map.of("application_1764400000000_0042", Change.GROW)),
        List.of(IN_FLIGHT),
        List.of(DONE),
        3,
        new LoanTargetStatus(
            4,
            "lc-1",
            1,
            1764432000000L,
            1764431880000L,
            "rate 10 rps needs 3 of 5",
            1764431880100L,
            2,
            new LoanDemand(10, 12.5, 3, 4_800)));
  }

  /** {@link #full()} as the scheduler writes it: every field name of the contract, once. */
  static final String FULL_JSON =
      """
      {"enabled": true, "round": 5120, "roundLatencyMs": 3.5,
       "recovery": {"recovering": false, "sinceMs": 1764400000000, "readyMs": 1764400004200, "maxWaitMs": 60000,
                    "expectedNodes": 3, "waitingForNodes": ["gpu-inf-9:45454"],
                    "outcome": "waited 60000 ms; still missing [gpu-inf-9:45454]"},
       "store": {"kind": "zookeeper", "location": "/aryl-scheduler", "epoch": 12,
                 "deposed": "a newer scheduler claimed epoch 13"},
       "nodes": [
         {"node": "gpu-tr-1:45454", "label": "training", "gpus": 8, "usedGpus": 8, "owner": "training",
          "loaned": false, "fenced": false, "gpuType": "a100", "gpuSpeed": 1.0},
         {"node": "gpu-inf-3:45454", "label": "training", "gpus": 8, "usedGpus": 6, "owner": "inference",
          "loaned": true, "fenced": true, "gpuType": "t4", "gpuSpeed": 0.5, "place": "RETURNING"},
         {"node": "gpu-inf-4:45454", "label": "inference", "gpus": 4, "usedGpus": 2, "owner": "inference",
          "loaned": false, "fenced": false, "gpuType": null, "gpuSpeed": 1.0,
          "gpuTypeError": "no rule of aryl.scheduler.gpu-type.nodes names it", "place": "HOME"}],
       "loanedNodes": [
         {"node": "gpu-inf-3:45454", "label": "training", "gpus": 8, "usedGpus": 6, "owner": "inference",
          "loaned": true, "fenced": true, "gpuType": "t4", "gpuSpeed": 0.5, "place": "RETURNING"}],
       "applications": [
         {"application": "application_1764400000000_0042", "minWorkers": 2, "maxWorkers": 8, "gpusPerWorker": 1,
          "predictedRuntimeS": 3600.0, "targetWorkers": 6,
          "targetByNode": {"gpu-tr-1:45454": 2, "gpu-inf-3:45454": 4}, "actualWorkers": 5, "askedWorkers": 8,
          "change": "GROW", "sinceCheckpointS": 412.5, "team": "vision",
          "belowMaxBecause": "no spare GPUs of the types it may use (a100, t4)", "preemptions": 1}],
       "teams": [{"team": "vision", "guaranteedGpus": 9, "plannedGpus": 6}],
       "plainDemand": [
         {"application": "application_1764400000000_0044", "team": "nlp", "pendingContainers": 2,
          "gpusPerContainer": 4, "roomMadeByNode": {"gpu-tr-2:45454": 2}}],
       "plan": {"targets": {"application_1764400000000_0042": {"gpu-tr-1:45454": 2, "gpu-inf-3:45454": 4}},
                "changes": {"application_1764400000000_0042": "GROW"}},
       "reclaimsInFlight": [
         {"id": 8, "phase": "DRAINING", "requested": 2, "nodes": ["gpu-inf-3:45454", "gpu-inf-6:45454"],
          "returnedNodes": [], "lostNodes": ["gpu-inf-5:45454"], "replacements": {"gpu-inf-5:45454": "gpu-inf-6:45454"},
          "shortBy": 0, "requestedMs": 1764431880000, "deadlineMs": 1764432000000, "finishedMs": -1, "tookMs": -1,
          "late": false, "jobs": {"application_1764400000000_0042": "SHRINK"}, "containersShrunk": 1,
          "containersPreempted": 0, "plannedCostGpuS": 120, "gpuSecondsLost": 30}],
       "reclaimsDone": [
         {"id": 7, "phase": "DONE", "requested": 1, "nodes": ["gpu-inf-2:45454"], "returnedNodes": ["gpu-inf-2:45454"],
          "lostNodes": [], "replacements": {}, "shortBy": 1, "requestedMs": 1764431000000,
          "deadlineMs": 1764431120000, "finishedMs": 1764431031000, "tookMs": 31000, "late": true,
          "jobs": {"application_1764400000000_0040": "PREEMPT"}, "containersShrunk": 0, "containersPreempted": 2,
          "plannedCostGpuS": 60, "gpuSecondsLost": 75}],
       "drainingContainers": 3,
       "loanTarget": {"epoch": 4, "controller": "lc-1", "maxOnLoan": 1, "returnByMs": 1764432000000,
                      "decidedMs": 1764431880000, "reason": "rate 10 rps needs 3 of 5", "receivedMs": 1764431880100,
                      "onLoan": 2,
                      "demand": {"rateRps": 10.0, "forecastRps": 12.5, "serversNeeded": 3, "timeToServeMs": 4800}}}
      """;
}
