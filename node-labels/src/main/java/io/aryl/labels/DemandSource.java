package io.aryl.labels;

import java.io.IOException;

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

  /** Name shown in the controller's status. */
  default String name() {
    return getClass().getSimpleName();
  }
}
