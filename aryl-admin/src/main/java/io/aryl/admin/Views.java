package io.aryl.admin;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The human form of the scheduler's {@code GET /ws/v1/cluster/aryl} and of a reclaim: aligned tables, times in UTC
 * with how far they are from {@code nowMs}. Fields a scheduler does not send print as {@code -}.
 */
final class Views {
  /** How many finished reclaims {@code status} shows, newest first. */
  static final int DONE_SHOWN = 5;

  private Views() {}

  static String status(JsonNode s, long nowMs) {
    if (!s.path("enabled").asBoolean(true)) {
      return disabled();
    }
    StringBuilder out = new StringBuilder();
    out.append(summary(s, nowMs)).append("\n\n");

    out.append("Pools\n").append(pools(s.path("nodes")).render()).append('\n');

    JsonNode inFlight = s.path("reclaimsInFlight");
    out.append("Reclaims in flight\n");
    if (inFlight.isEmpty()) {
      out.append("(none)\n");
    } else {
      Table t = new Table("ID", "PHASE", "ASKED", "NODES", "DEADLINE", "LATE");
      for (JsonNode r : inFlight) {
        t.row(r.path("id").asText("-"), text(r, "phase"), text(r, "requested"), list(r.path("nodes")),
            when(r.path("deadlineMs"), nowMs), yesNo(r.path("late")));
      }
      out.append(t.render());
    }
    out.append('\n');

    List<JsonNode> done = new ArrayList<>();
    s.path("reclaimsDone").forEach(done::add);
    done.sort(Comparator.comparingLong((JsonNode r) -> r.path("id").asLong()).reversed());
    out.append("Reclaims done (last ").append(Math.min(DONE_SHOWN, done.size())).append(" of ").append(done.size())
        .append(")\n");
    if (done.isEmpty()) {
      out.append("(none)\n");
    } else {
      Table t = new Table("ID", "ASKED", "RETURNED", "FINISHED", "TOOK", "LATE", "GPU-S LOST");
      for (JsonNode r : done.subList(0, Math.min(DONE_SHOWN, done.size()))) {
        t.row(r.path("id").asText("-"), text(r, "requested"), list(r.path("returnedNodes")),
            when(r.path("finishedMs"), nowMs), duration(r.path("tookMs")), yesNo(r.path("late")),
            text(r, "gpuSecondsLost"));
      }
      out.append(t.render());
    }
    out.append('\n');

    JsonNode apps = s.path("applications");
    out.append("Elastic jobs\n");
    if (apps.isEmpty()) {
      out.append("(none)\n");
    } else {
      Table t = new Table("APPLICATION", "TEAM", "MIN", "TARGET", "ACTUAL", "MAX", "CHANGE");
      for (JsonNode a : apps) {
        String team = a.path("team").asText("");
        t.row(text(a, "application"), team.isEmpty() ? null : team, text(a, "minWorkers"), text(a, "targetWorkers"),
            text(a, "actualWorkers"), text(a, "maxWorkers"), text(a, "change"));
      }
      out.append(t.render());
    }
    return out.toString();
  }

  /** One line: round, recovery, store, loan controller. */
  static String summary(JsonNode s, long nowMs) {
    StringBuilder l = new StringBuilder("Aryl scheduler: round ").append(s.path("round").asText("-"));
    JsonNode recovery = s.path("recovery");
    l.append(", ").append(recovery.path("recovering").asBoolean(false)
        ? "RECOVERING (waiting for " + recovery.path("waitingForNodes").size() + " node(s))" : "not recovering");
    JsonNode store = s.path("store");
    if (!store.isMissingNode()) {
      l.append(", store ").append(store.path("kind").asText("-")).append(" epoch ").append(store.path("epoch")
          .asText("-"));
    }
    JsonNode lc = s.path("loanController");
    if (lc.isMissingNode() || lc.isNull()) {
      l.append(", no loan controller report");
    } else {
      l.append(", loan controller ").append(lc.path("status").path("instance").asText("?")).append(' ')
          .append(lc.path("status").path("role").asText("?")).append(" reported ")
          .append(when(lc.path("receivedMs"), nowMs));
    }
    return l.toString();
  }

  /** Nodes, GPUs, GPUs in use, nodes on loan and nodes fenced, per pool (the node's owner). */
  static Table pools(JsonNode nodes) {
    Map<String, long[]> byPool = new TreeMap<>(Comparator.comparingInt(Views::poolOrder)
        .thenComparing(Comparator.naturalOrder()));
    for (JsonNode n : nodes) {
      String owner = n.path("owner").asText("");
      String pool = !owner.isEmpty() ? owner : n.path("label").asText("").isEmpty() ? "(none)"
          : n.path("label").asText();
      long[] c = byPool.computeIfAbsent(pool, k -> new long[5]);
      c[0]++;
      c[1] += n.path("gpus").asLong();
      c[2] += n.path("usedGpus").asLong();
      c[3] += n.path("loaned").asBoolean() ? 1 : 0;
      c[4] += n.path("fenced").asBoolean() ? 1 : 0;
    }
    Table t = new Table("POOL", "NODES", "GPUS", "USED-GPUS", "ON-LOAN", "FENCED");
    byPool.forEach((pool, c) -> t.row(pool, c[0], c[1], c[2], c[3], c[4]));
    return t;
  }

  private static int poolOrder(String pool) {
    return switch (pool) {
      case "inference" -> 0;
      case "training" -> 1;
      default -> 2;
    };
  }

  static String nodes(JsonNode s) {
    if (!s.path("enabled").asBoolean(true)) {
      return disabled();
    }
    Table t = new Table("NODE", "LABEL", "OWNER", "GPU-TYPE", "GPUS", "USED-GPUS", "LOANED", "FENCED");
    for (JsonNode n : s.path("nodes")) {
      t.row(text(n, "node"), text(n, "label"), text(n, "owner"), text(n, "gpuType"), text(n, "gpus"),
          text(n, "usedGpus"), yesNo(n.path("loaned")), yesNo(n.path("fenced")));
    }
    return t.size() == 0 ? t.render() + "(no nodes)\n" : t.render();
  }

  /** A reclaim as {@code POST /ws/v1/cluster/aryl/reclaims} answers it. */
  static String reclaim(JsonNode r, long nowMs) {
    Table t = new Table("RECLAIM", r.path("id").asText("-"));
    t.row("phase", text(r, "phase"));
    t.row("asked", text(r, "requested"));
    t.row("nodes", list(r.path("nodes")));
    t.row("deadline", when(r.path("deadlineMs"), nowMs));
    t.row("planned cost", r.has("plannedCostGpuS") ? r.path("plannedCostGpuS").asText() + " GPU-s" : null);
    List<String> jobs = new ArrayList<>();
    r.path("jobs").fields().forEachRemaining(e -> jobs.add(e.getKey() + " " + e.getValue().asText()));
    t.row("jobs", jobs.isEmpty() ? null : String.join(", ", jobs));
    return t.render();
  }

  private static String disabled() {
    return "Aryl is off in this ResourceManager (aryl.scheduler.enabled=false)\n";
  }

  private static String text(JsonNode n, String field) {
    JsonNode v = n.path(field);
    return v.isMissingNode() || v.isNull() ? null : v.asText();
  }

  private static String yesNo(JsonNode v) {
    return v.isMissingNode() || v.isNull() ? null : v.asBoolean() ? "yes" : "no";
  }

  private static String list(JsonNode array) {
    List<String> out = new ArrayList<>();
    array.forEach(x -> out.add(x.asText()));
    return out.isEmpty() ? null : String.join(",", out);
  }

  /** {@code 2025-11-29T14:00:00Z (in 4m59s)}, or {@code -} for a missing or negative (not yet) time. */
  static String when(JsonNode epochMs, long nowMs) {
    if (!epochMs.canConvertToLong() || epochMs.asLong() < 0) {
      return null;
    }
    long ms = epochMs.asLong();
    String at = Instant.ofEpochMilli(ms).truncatedTo(ChronoUnit.SECONDS).toString();
    long d = ms - nowMs;
    return at + (d >= 0 ? " (in " + human(d) + ")" : " (" + human(-d) + " ago)");
  }

  private static String duration(JsonNode ms) {
    return !ms.canConvertToLong() || ms.asLong() < 0 ? null : human(ms.asLong());
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
