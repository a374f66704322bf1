package io.aryl.yarn.rm;

import java.util.ArrayList;
import java.util.List;

/**
 * The workers of one commit request, taken out of their asks while it is committed ({@link
 * AskLedger#allocating}); none for a request that allocates no elastic worker.
 */
public final class AllocatingWorkers {
  private record Worker(ElasticApps.App app, String askKey, String unseenKey) {}

  private final List<Worker> workers = new ArrayList<>();

  /** None: for a commit Aryl does not look at (Aryl off, or not active here yet). */
  public AllocatingWorkers() {}

  void add(ElasticApps.App app, String askKey, String unseenKey) {
    workers.add(new Worker(app, askKey, unseenKey));
  }

  /**
   * Once the commit ended and, if it committed, its containers are where a round reads them: a
   * worker not committed goes back into its ask.
   */
  public void ended(boolean committed) {
    for (Worker w : workers) {
      synchronized (w.app) {
        if (!committed) {
          w.app.addToAsk(w.askKey, 1);
          w.app.dropUnseen(w.unseenKey);
        }
        w.app.allocationEnded();
      }
    }
  }
}
