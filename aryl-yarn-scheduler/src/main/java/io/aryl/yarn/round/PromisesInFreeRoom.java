package io.aryl.yarn.round;

import java.util.Map;
import java.util.Set;

/**
 * The rule by which the workers the last round promised and no container fills yet count as held:
 * on each node where they still fit in the free room, never on a fenced node, and the job never
 * beyond its maximum nor beyond what its ApplicationMaster asks for. Live workers the book did not
 * place (a worker that reached a node under an earlier book) count first.
 */
final class PromisesInFreeRoom {
  private final PlanBook book;
  private final Set<String> fenced;
  private final GpuLedger gpus;
  private final CountedWorkers counted;

  PromisesInFreeRoom(PlanBook book, Set<String> fenced, GpuLedger gpus, CountedWorkers counted) {
    this.book = book;
    this.fenced = fenced;
    this.gpus = gpus;
    this.counted = counted;
  }

  /** Counts each job's unfilled promises where they fit, after its live workers. */
  void count(Iterable<AppView> apps) {
    for (AppView app : apps) {
      int g = app.shape().gpusPerWorker();
      int live = counted.total(app.id());
      // A promise counts only as far as the ApplicationMaster still asks for it. Without this cap a
      // promise made while its asks were stale (containers allocated, the AM's decremented ask not
      // yet received) or that the AM withdrew was counted as the job's allocation, which then set
      // the job's width: it was promised again every round, never filled (the gate passes no more
      // than the AM asks), and kept GPUs from other jobs for good.
      int demand = Math.max(live + app.askedWorkers(), app.shape().minWorkers());
      int headroom = Math.min(app.shape().maxWorkers(), demand) - live;
      for (Map.Entry<String, Integer> p : book.target(app.id()).workersByServer().entrySet()) {
        String node = p.getKey();
        int extra = p.getValue() - counted.at(app.id(), node);
        if (extra <= 0 || !gpus.plans(node) || fenced.contains(node)) {
          continue;
        }
        int room = gpus.free(node) / g;
        int take = Math.min(Math.min(extra, room), headroom);
        if (take > 0) {
          counted.add(app, node, take);
          headroom -= take;
        }
      }
    }
  }
}
