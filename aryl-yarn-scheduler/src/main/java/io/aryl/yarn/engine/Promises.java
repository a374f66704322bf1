package io.aryl.yarn.engine;

import io.aryl.yarn.round.PlanBook;
import java.util.Map;
import java.util.Set;

/**
 * What the allocation path holds every proposal and every ApplicationMaster heartbeat to, as the
 * latest round left it: immutable and published whole, so that a proposal never sees the book of
 * one round with the fences of another.
 *
 * @param book the one target set: workers per node of every planned application
 * @param fenced nodes that take no new container (being returned to inference, or being lent)
 * @param moving per application, workers being moved off their nodes: their replacements are
 *     granted before they go
 */
public record Promises(PlanBook book, Set<String> fenced, Map<String, Integer> moving) {
  /**
   * Before the first round, and after this scheduler stopped acting: nothing promised, nothing
   * fenced.
   */
  public static final Promises NONE = new Promises(PlanBook.EMPTY, Set.of(), Map.of());

  public Promises {
    fenced = Set.copyOf(fenced);
    moving = Map.copyOf(moving);
  }

  /** Workers of the application being moved off their nodes. */
  public int moving(String appId) {
    return moving.getOrDefault(appId, 0);
  }
}
