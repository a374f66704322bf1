package io.aryl.labels;

import io.aryl.labels.LoanDecider.Observation;
import io.aryl.labels.LoanLedger.Versioned;
import io.aryl.labels.Pools.PoolNode;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The inference pool as the decider counts it, from the ledger and the running nodes. A node in the ledger that does
 * not run is not counted: it neither serves nor can be loaned.
 *
 * @param owned ledger nodes that run, wherever they are
 * @param loaned of those, LOANED
 * @param reclaiming of those, RECLAIMING
 * @param idle of those, HOME and labelled inference with no container, by name: the only ones that may be loaned
 */
record PoolCensus(int owned, int loaned, int reclaiming, List<String> idle) {
  PoolCensus {
    idle = List.copyOf(idle);
  }

  static PoolCensus of(Collection<Versioned<LoanEntry>> entries, List<PoolNode> nodes, String inferenceLabel) {
    Map<String, PoolNode> byName = new HashMap<>();
    nodes.forEach(n -> byName.put(n.name(), n));
    int owned = 0;
    int loaned = 0;
    int reclaiming = 0;
    List<String> idle = new ArrayList<>();
    for (Versioned<LoanEntry> v : entries) {
      PoolNode n = byName.get(v.value().node());
      if (n == null) {
        continue;
      }
      owned++;
      switch (v.value().state()) {
        case HOME -> {
          if (n.labelled(inferenceLabel) && n.containers() == 0) {
            idle.add(n.name());
          }
        }
        case LOANED -> loaned++;
        case RECLAIMING -> reclaiming++;
      }
    }
    idle.sort(null);
    return new PoolCensus(owned, loaned, reclaiming, idle);
  }

  Observation observation(long nowMs, double rate, boolean demandComplete) {
    return new Observation(nowMs, rate, demandComplete, owned, idle.size(), loaned, reclaiming);
  }
}
