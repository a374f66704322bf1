package io.aryl.labels;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Inference demand as the sources gave it at one decision: the largest rate any source answered.
 *
 * @param rate requests per second; NaN when no source answered
 * @param complete false when some source did not answer: that blocks new loans, reclaims still
 *     follow {@code rate}
 * @param sources each source's rate, or why it is unavailable, by name, in the sources' order
 */
record DemandReading(double rate, boolean complete, Map<String, Object> sources) {
  DemandReading {
    sources = Collections.unmodifiableMap(new LinkedHashMap<>(sources));
  }

  /**
   * Asks every source in turn; one that fails counts as unavailable and does not stop the others.
   */
  static DemandReading read(List<DemandSource> sources) {
    double rate = Double.NaN;
    boolean complete = true;
    Map<String, Object> seen = new LinkedHashMap<>();
    for (DemandSource s : sources) {
      try {
        double r = s.rate();
        rate = Double.isNaN(rate) ? r : Math.max(rate, r);
        seen.put(s.name(), r);
      } catch (Exception ex) {
        complete = false;
        seen.put(s.name(), "unavailable: " + ex.getMessage());
      }
    }
    return new DemandReading(rate, complete, seen);
  }

  /** The status's {@code demand}: {@code rate} is null while unknown. */
  Map<String, Object> toStatus() {
    Map<String, Object> dm = new LinkedHashMap<>();
    dm.put("rate", Double.isNaN(rate) ? null : rate);
    dm.put("complete", complete);
    dm.put("sources", sources);
    return dm;
  }
}
