package io.aryl.yarn.state;

import java.util.Map;
import java.util.TreeMap;

/**
 * The inference pool's nodes and where each one is, as the scheduler (their one writer) last
 * decided: written before a node is relabelled, so that a newly active scheduler carries out what
 * its predecessor decided.
 *
 * @param nodes each inference node's place, by node name
 */
public record InferenceNodes(Map<String, Place> nodes) {
  public static final InferenceNodes NONE = new InferenceNodes(Map.of());

  /** Where an inference node is. */
  public enum Place {
    /** In the inference pool (labelled inference). */
    HOME,
    /** Chosen to be lent: fenced, to be relabelled training once nothing runs on it. */
    LENDING,
    /** Lent to training (labelled training); a reclaim in flight may be returning it. */
    LENT
  }

  public InferenceNodes {
    nodes = java.util.Collections.unmodifiableMap(new TreeMap<>(nodes));
  }
}
