package io.aryl.yarn.state;

import java.util.List;

/**
 * The reclaims as stored: the section {@link Section#RECLAIMS}.
 *
 * @param nextId the id the next reclaim gets: ids stay unique across restarts
 * @param inFlight reclaims still returning nodes
 * @param finished the last reclaims done, newest first
 */
public record Reclaims(long nextId, List<ReclaimRecord> inFlight, List<ReclaimRecord> finished) {
  public Reclaims {
    inFlight = List.copyOf(inFlight);
    finished = List.copyOf(finished);
  }
}
