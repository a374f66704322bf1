package io.aryl.admin;

import io.aryl.api.status.ApplicationStatus;
import io.aryl.api.status.LoanTargetStatus;
import io.aryl.api.status.NodeStatus;
import io.aryl.api.status.ReclaimStatus;
import io.aryl.api.status.RecoveryStatus;
import io.aryl.api.status.SchedulerStatus;
import io.aryl.api.status.StoreStatus;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The human form of the scheduler's status ({@link SchedulerStatus}, {@code GET
 * /ws/v1/cluster/aryl}) and of a reclaim ({@link ReclaimStatus}): aligned tables, times in UTC with
 * how far they are from {@code nowMs}. What the status leaves null (an unknown GPU type, the team
 * of a job not planned yet, a time not reached, the owner of a node of neither pool) prints as
 * {@code -}.
 */
final class Views {
  /** How many finished reclaims {@code status} shows, newest first. */
  static final int DONE_SHOWN = 5;

  /** The pools in the order {@code pools} lists them: the inference pool, then training. */
  private static final List<String> POOL_ORDER =
      List.of(NodeStatus.Pool.INFERENCE.value(), NodeStatus.Pool.TRAINING.value());

  /**
   * The {@code pools} row of the unlabelled nodes: in parentheses, so that no label can be taken
   * for it.
   */
  static final String DEFAULT_PARTITION = "(default partition)";

  private Views() {}

  static String status(SchedulerStatus s, long nowMs) {
    if (!s.enabled()) {
      return disabled();
    }
    StringBuilder out = new StringBuilder();
    out.append(summary(s, nowMs)).append('\n');
    String demand = s.loanTarget() == null ? null : s.loanTarget().demandSummary();
    if (demand != null) {
      out.append(demand).append('\n'); // the page's wording: LoanTargetStatus.demandSummary
    }
    out.append('\n');

    out.append("Pools\n").append(pools(s.nodes()).render()).append('\n');

    List<ReclaimStatus> inFlight = s.reclaimsInFlight();
    out.append("Reclaims in flight\n");
    if (inFlight.isEmpty()) {
      out.append("(none)\n");
    } else {
      Table t = new Table("ID", "PHASE", "ASKED", "NODES", "DEADLINE", "LATE");
      for (ReclaimStatus r : inFlight) {
        t.row(
            r.id(),
            r.phase(),
            r.requested(),
            list(r.nodes()),
            when(r.deadlineMs(), nowMs),
            yesNo(r.late()));
      }
      out.append(t.render());
    }
    out.append('\n');

    List<ReclaimStatus> done = new ArrayList<>(s.reclaimsDone());
    done.sort(Comparator.comparingLong(ReclaimStatus::id).reversed());
    out.append("Reclaims done (last ")
        .append(Math.min(DONE_SHOWN, done.size()))
        .append(" of ")
        .append(done.size())
        .append(")\n");
    if (done.isEmpty()) {
      out.append("(none)\n");
    } else {
      Table t = new Table("ID", "ASKED", "RETURNED", "FINISHED", "TOOK", "LATE", "GPU-S LOST");
      for (ReclaimStatus r : done.subList(0, Math.min(DONE_SHOWN, done.size()))) {
        t.row(
            r.id(),
            r.requested(),
            list(r.returnedNodes()),
            when(r.finishedMs(), nowMs),
            duration(r.tookMs()),
            yesNo(r.late()),
            r.gpuSecondsLost());
      }
      out.append(t.render());
    }
    out.append('\n');

    List<ApplicationStatus> apps = s.applications();
    out.append("Elastic jobs\n");
    if (apps.isEmpty()) {
      out.append("(none)\n");
    } else {
      // The reason is free text, so it comes last: the columns of numbers stay narrow and aligned.
      Table t =
          new Table(
              "APPLICATION",
              "TEAM",
              "MIN",
              "TARGET",
              "ACTUAL",
              "MAX",
              "CHANGE",
              "PREEMPTED",
              "WHY-BELOW-MAX");
      for (ApplicationStatus a : apps) {
        String team = a.team() == null || a.team().isEmpty() ? null : a.team();
        t.row(
            a.application(),
            team,
            a.minWorkers(),
            a.targetWorkers(),
            a.actualWorkers(),
            a.maxWorkers(),
            a.change(),
            a.preemptions(),
            a.belowMaxBecause());
      }
      out.append(t.render());
    }
    return out.toString();
  }

  /** One line: round, recovery, store, the loan target in force and who set it. */
  static String summary(SchedulerStatus s, long nowMs) {
    StringBuilder l =
        new StringBuilder("Aryl scheduler: round ").append(s.round() == null ? "-" : s.round());
    RecoveryStatus recovery = s.recovery();
    l.append(", ")
        .append(
            recovery != null && recovery.recovering()
                ? "RECOVERING (waiting for " + recovery.waitingForNodes().size() + " node(s))"
                : "not recovering");
    StoreStatus store = s.store();
    if (store != null) {
      l.append(", store ")
          .append(store.kind() == null ? "-" : store.kind())
          .append(" epoch ")
          .append(store.epoch());
    }
    LoanTargetStatus t = s.loanTarget();
    if (t == null) {
      l.append(", no loan target");
    } else {
      l.append(", loan target ")
          .append(t.maxOnLoan())
          .append(" (")
          .append(t.onLoan())
          .append(" on loan");
      if (t.returnByMs() > 0 && t.onLoan() > t.maxOnLoan()) {
        l.append(", the rest back by ").append(when(t.returnByMs(), nowMs));
      }
      l.append(") from ")
          .append(t.controller())
          .append(" epoch ")
          .append(t.epoch())
          .append(", received ")
          .append(when(t.receivedMs(), nowMs));
    }
    return l.toString();
  }

  /**
   * Nodes, GPUs, GPUs in use, nodes on loan and nodes fenced, per pool (the node's owner), then per
   * partition for the nodes of neither pool: the default partition ({@link #DEFAULT_PARTITION}),
   * which holds the ApplicationMasters, and any other label. A pool's row counts its own nodes
   * only.
   */
  static Table pools(List<NodeStatus> nodes) {
    Map<String, long[]> byPool =
        new TreeMap<>(
            Comparator.comparingInt(Views::poolOrder).thenComparing(Comparator.naturalOrder()));
    for (NodeStatus n : nodes) {
      String label = n.label() == null ? "" : n.label();
      String pool =
          n.owner() != null ? n.owner().value() : label.isEmpty() ? DEFAULT_PARTITION : label;
      long[] c = byPool.computeIfAbsent(pool, k -> new long[5]);
      c[0]++;
      c[1] += n.gpus();
      c[2] += n.usedGpus();
      c[3] += n.loaned() ? 1 : 0;
      c[4] += n.fenced() ? 1 : 0;
    }
    Table t = new Table("POOL", "NODES", "GPUS", "USED-GPUS", "ON-LOAN", "FENCED");
    byPool.forEach((pool, c) -> t.row(pool, c[0], c[1], c[2], c[3], c[4]));
    return t;
  }

  /** The pools first, in {@link #POOL_ORDER}, then the default partition, then any other label. */
  private static int poolOrder(String pool) {
    int i = POOL_ORDER.indexOf(pool);
    if (i >= 0) {
      return i;
    }
    return pool.equals(DEFAULT_PARTITION) ? POOL_ORDER.size() : POOL_ORDER.size() + 1;
  }

  static String nodes(SchedulerStatus s) {
    if (!s.enabled()) {
      return disabled();
    }
    Table t =
        new Table("NODE", "LABEL", "OWNER", "GPU-TYPE", "GPUS", "USED-GPUS", "LOANED", "FENCED");
    for (NodeStatus n : s.nodes()) {
      t.row(
          n.node(),
          n.label(),
          n.owner() == null ? null : n.owner().value(),
          n.gpuType(),
          n.gpus(),
          n.usedGpus(),
          yesNo(n.loaned()),
          yesNo(n.fenced()));
    }
    return t.size() == 0 ? t.render() + "(no nodes)\n" : t.render();
  }

  /** A reclaim as {@code POST /ws/v1/cluster/aryl/reclaims} answers it. */
  static String reclaim(ReclaimStatus r, long nowMs) {
    Table t = new Table("RECLAIM", String.valueOf(r.id()));
    t.row("phase", r.phase());
    t.row("asked", r.requested());
    t.row("nodes", list(r.nodes()));
    t.row("deadline", when(r.deadlineMs(), nowMs));
    t.row("planned cost", r.plannedCostGpuS() + " GPU-s");
    List<String> jobs = new ArrayList<>();
    new TreeMap<>(r.jobs()).forEach((app, action) -> jobs.add(app + " " + action));
    t.row("jobs", jobs.isEmpty() ? null : String.join(", ", jobs));
    return t.render();
  }

  private static String disabled() {
    return "Aryl is off in this ResourceManager (aryl.scheduler.enabled=false)\n";
  }

  private static String yesNo(boolean v) {
    return v ? "yes" : "no";
  }

  private static String list(List<String> items) {
    return items.isEmpty() ? null : String.join(",", items);
  }

  /** {@code 2025-11-29T14:00:00Z (in 4m59s)}, or {@code -} for a time not reached (negative). */
  static String when(long epochMs, long nowMs) {
    if (epochMs < 0) {
      return null;
    }
    String at = Instant.ofEpochMilli(epochMs).truncatedTo(ChronoUnit.SECONDS).toString();
    long d = epochMs - nowMs;
    return at + (d >= 0 ? " (in " + human(d) + ")" : " (" + human(-d) + " ago)");
  }

  private static String duration(long ms) {
    return ms < 0 ? null : human(ms);
  }

  /** 0s, 42s, 4m59s, 2h0m, 3d4h: the two largest units. */
  static String human(long ms) {
    long s = ms / 1000;
    if (s < 60) {
      return s + "s";
    }
    if (s < 3600) {
      return s / 60 + "m" + s % 60 + "s";
    }
    if (s < 86400) {
      return s / 3600 + "h" + s % 3600 / 60 + "m";
    }
    return s / 86400 + "d" + s % 86400 / 3600 + "h";
  }
}
