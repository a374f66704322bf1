package io.aryl.labels;

import java.util.ArrayList;
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
 * @param replicaStartupsMs the inference replicas' start-ups the sources measured since the last
 *     reading, milliseconds ({@link DemandSource#takeReplicaStartupsMs})
 */
record DemandReading(
    double rate, boolean complete, Map<String, Object> sources, List<Long> replicaStartupsMs) {
  DemandReading {
    sources = Collections.unmodifiableMap(new LinkedHashMap<>(sources));
    replicaStartupsMs = List.copyOf(replicaStartupsMs);
  }

  /** A reading in which no replica's start-up was measured. */
  DemandReading(double rate, boolean complete, Map<String, Object> sources) {
    this(rate, complete, sources, List.of());
  }

  /**
   * Asks every source in turn; one that fails counts as unavailable and does not stop the others.
   * The start-ups a source measured before it failed still count: they were measured.
   */
  static DemandReading read(List<DemandSource> sources) {
    double rate = Double.NaN;
    boolean complete = true;
    Map<String, Object> seen = new LinkedHashMap<>();
    List<Long> startups = new ArrayList<>();
    for (DemandSource s : sources) {
      try {
        double r = s.rate();
        rate = Double.isNaN(rate) ? r : Math.max(rate, r);
        seen.put(s.name(), r);
      } catch (Exception ex) {
        complete = false;
        seen.put(s.name(), "unavailable: " + ex.getMessage());
      }
      startups.addAll(s.takeReplicaStartupsMs());
    }
    return new DemandReading(rate, complete, seen, startups);
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
