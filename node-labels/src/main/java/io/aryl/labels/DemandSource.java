package io.aryl.labels;

import java.io.IOException;
import java.util.List;

/**
 * Where the loan controller reads inference demand: the current request rate, in requests per
 * second.
 */
@FunctionalInterface
public interface DemandSource {
  /**
   * The demanded rate now, requests per second.
   *
   * @throws IOException when the source cannot say: the controller then loans nothing
   */
  double rate() throws IOException;

  /**
   * The start-ups of inference replicas this source measured since the last call, milliseconds
   * each, in the order it read them: the part of a returned server's time to serve after it is home
   * ({@link LeadPlanner}). None from a source that sees no replicas (all but {@code serve}): the
   * lead is then the reclaim alone.
   */
  default List<Long> takeReplicaStartupsMs() {
    return List.of();
  }

  /** Name shown in the controller's status. */
  default String name() {
    return getClass().getSimpleName();
  }
}
