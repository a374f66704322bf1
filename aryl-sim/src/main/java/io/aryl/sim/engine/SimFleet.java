package io.aryl.sim.engine;

import io.aryl.core.model.GpuType;
import io.aryl.core.model.Pool;
import io.aryl.core.model.Server;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The simulated servers of both pools and which inference servers are on loan: lent, fenced (asked
 * back, training until its grace ends) or home; and which of those home are still getting ready to
 * serve after a reclaim (relabel and replica start). Training servers come first ({@code
 * t00000...}), then inference servers ({@code i00000...}); a server is named by its position.
 */
final class SimFleet {
  private final SimConfig cfg;
  private final List<String> ids = new ArrayList<>();
  private final Map<String, Integer> index = new HashMap<>();
  private final boolean[] loaned;
  private final double[] returnDeadline; // NaN unless fenced
  private final double[] servesFrom; // NaN unless home from a reclaim and not serving yet
  private int warmingCount;
  private int loanedCount;
  private int fencedCount;
  private List<Server> servers; // null: changed since last built

  SimFleet(SimConfig cfg) {
    this.cfg = cfg;
    for (int i = 0; i < cfg.trainingServers(); i++) {
      ids.add(String.format("t%05d", i));
    }
    for (int i = 0; i < cfg.inferenceServers(); i++) {
      ids.add(String.format("i%05d", i));
    }
    for (int i = 0; i < ids.size(); i++) {
      index.put(ids.get(i), i);
    }
    loaned = new boolean[ids.size()];
    returnDeadline = new double[ids.size()];
    Arrays.fill(returnDeadline, Double.NaN);
    servesFrom = new double[ids.size()];
    Arrays.fill(servesFrom, Double.NaN);
  }

  int size() {
    return ids.size();
  }

  String id(int s) {
    return ids.get(s);
  }

  int indexOf(String id) {
    return index.get(id);
  }

  boolean isInference(int s) {
    return s >= cfg.trainingServers();
  }

  /** Inference servers on loan, fenced ones included. */
  int loanedCount() {
    return loanedCount;
  }

  /** Loaned servers asked back and still in their grace. */
  int fencedCount() {
    return fencedCount;
  }

  /**
   * The servers as a round sees them, sorted by id as the snapshot orders them; rebuilt only after
   * a change.
   */
  List<Server> servers() {
    if (servers == null) {
      GpuType train = GpuType.of(Simulator.TRAINING_TYPE, 1.0);
      GpuType infer = GpuType.of(Simulator.INFERENCE_TYPE, cfg.inferenceGpuSpeed());
      List<Server> list = new ArrayList<>(ids.size());
      for (int s = 0; s < ids.size(); s++) {
        list.add(
            new Server(
                ids.get(s),
                isInference(s) ? infer : train,
                isInference(s) ? cfg.gpusPerServer() : cfg.trainingServerGpus(s),
                isInference(s) ? Pool.INFERENCE : Pool.TRAINING,
                loaned[s],
                !Double.isNaN(returnDeadline[s])));
      }
      list.sort(Comparator.comparing(Server::id));
      servers = list;
    }
    return servers;
  }

  /** When the first fenced server's grace ends; infinity when none is fenced. */
  double earliestReturn() {
    double min = Double.POSITIVE_INFINITY;
    if (fencedCount > 0) {
      for (double d : returnDeadline) {
        if (d < min) {
          min = d;
        }
      }
    }
    return min;
  }

  /** Asks a loaned server back: it trains on until {@code deadline}, then goes home. */
  void fence(String id, double deadline) {
    returnDeadline[indexOf(id)] = deadline;
    fencedCount++;
    servers = null;
  }

  /**
   * Lends up to {@code n} inference servers not on loan, the highest-numbered first; how many it
   * lent.
   */
  int lend(int n) {
    int lent = 0;
    for (int s = ids.size() - 1; s >= cfg.trainingServers() && lent < n; s--) {
      if (!loaned[s]) {
        if (!Double.isNaN(servesFrom[s])) { // lent again before it served: it never will
          servesFrom[s] = Double.NaN;
          warmingCount--;
        }
        loaned[s] = true;
        loanedCount++;
        lent++;
      }
    }
    servers = null;
    return lent;
  }

  /** The fenced servers whose grace is over at {@code t}, by position. */
  List<Integer> due(double t) {
    if (fencedCount == 0) {
      return List.of(); // as most events find it: no deadline to look through
    }
    List<Integer> out = new ArrayList<>();
    for (int s = 0; s < returnDeadline.length; s++) {
      if (returnDeadline[s] <= t) {
        out.add(s);
      }
    }
    return out;
  }

  /**
   * A fenced server goes home: it is no longer on loan, and serves inference from {@code
   * servesFrom} on (its relabel and replica start done).
   */
  void returnHome(int s, double servesFrom) {
    this.servesFrom[s] = servesFrom;
    warmingCount++;
    returnDeadline[s] = Double.NaN;
    loaned[s] = false;
    loanedCount--;
    fencedCount--;
    servers = null;
  }

  /**
   * Server-seconds the inference servers at home and serving fall short of {@code needed} over
   * {@code [from, to)}, and for how many of those seconds they fall short at all: servers on loan
   * (fenced ones included) serve nothing, and a server home from a reclaim serves only from its
   * {@link #returnHome} time on. Forgets the servers that serve by {@code to}.
   *
   * @return {short server-seconds, seconds short}
   */
  double[] shortfall(int needed, double from, double to) {
    int home = cfg.inferenceServers() - loanedCount;
    if (warmingCount == 0) {
      int shortNow = Math.max(0, needed - home);
      return new double[] {shortNow * (to - from), shortNow > 0 ? to - from : 0};
    }
    int first = cfg.trainingServers();
    double[] ready = new double[warmingCount];
    int n = 0;
    for (int s = first; s < servesFrom.length; s++) {
      if (!Double.isNaN(servesFrom[s])) {
        ready[n++] = servesFrom[s];
      }
    }
    Arrays.sort(ready);
    double serverS = 0;
    double shortS = 0;
    double at = from;
    int serving = home - warmingCount;
    for (int k = 0; k <= n && at < to; k++) {
      double until = k < n ? Math.min(to, Math.max(at, ready[k])) : to;
      int shortNow = Math.max(0, needed - serving);
      serverS += shortNow * (until - at);
      shortS += shortNow > 0 ? until - at : 0;
      at = until;
      serving++;
    }
    for (int s = first; s < servesFrom.length; s++) {
      if (servesFrom[s] <= to) {
        servesFrom[s] = Double.NaN;
        warmingCount--;
      }
    }
    return new double[] {serverS, shortS};
  }
}
