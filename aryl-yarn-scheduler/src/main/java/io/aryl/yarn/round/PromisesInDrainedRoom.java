package io.aryl.yarn.round;

import io.aryl.core.model.Allocation;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The rule by which promises into room that containers being drained still hold count as held, as
 * if those drains were gone: gangs first ({@link #countGangs}), then running jobs' extra workers
 * ({@link #countRunningJobs}), each taking the drains' GPUs it counts on so that no other promise
 * counts on them too ({@link GpuLedger#takeFromDrains}).
 *
 * <p>Why: the last round shrank a job or moved one (the moved job's old workers are held until its
 * new ones run) to make that room. Modelled afresh meanwhile, the promise found no room and was
 * dropped, the round planned again without the room, and the drains that made it were called off or
 * went to waste. The allocation path still holds the promised workers back until their room is
 * free.
 */
final class PromisesInDrainedRoom {
  private final PlanBook book;
  private final Set<String> fenced;
  private final GpuLedger gpus;
  private final HeldWorkers held;
  private final CountedWorkers counted;

  PromisesInDrainedRoom(
      PlanBook book, Set<String> fenced, GpuLedger gpus, HeldWorkers held, CountedWorkers counted) {
    this.book = book;
    this.fenced = fenced;
    this.gpus = gpus;
    this.held = held;
    this.counted = counted;
  }

  /**
   * Gangs whose promised room is held by containers being drained (for them, as a rule: the last
   * round shrank a job to make it) count as started on their promise, the GPUs those drains free
   * being theirs already: the plan keeps their base workers where they were promised, as any
   * running job's, and the drains that make their room stand.
   */
  void countGangs(Iterable<AppView> apps) {
    for (AppView app : apps) {
      Allocation promise = book.target(app.id());
      Map<String, Integer> taken = roomOnceDrained(app, promise);
      if (taken == null) {
        continue;
      }
      taken.forEach(gpus::takeFromDrains);
      promise
          .workersByServer()
          .forEach(
              (node, w) -> {
                int extra = w - counted.at(app.id(), node);
                if (extra > 0) {
                  counted.add(app, node, extra);
                }
              });
      counted.awaitDrains(app.id());
    }
  }

  /**
   * A running job's promises that wait for the drains on their node, as a gang's do: a worker
   * promised into room a shrink or another job's move frees is promised already. Gangs had the
   * drains' GPUs first; these take what is left of them.
   */
  void countRunningJobs(Iterable<AppView> apps) {
    for (AppView app : apps) {
      int g = app.shape().gpusPerWorker();
      int total = counted.total(app.id());
      if (total < app.shape().minWorkers() || counted.awaitsDrains(app.id())) {
        continue; // not running: a gang, partial or whole, is countGangs' or a partial gang
      }
      int headroom =
          Math.min(
                  app.shape().maxWorkers(),
                  Math.max(held.count(app.id()) + app.askedWorkers(), app.shape().minWorkers()))
              - total;
      for (Map.Entry<String, Integer> p : book.target(app.id()).workersByServer().entrySet()) {
        String node = p.getKey();
        int extra = Math.min(p.getValue() - counted.at(app.id(), node), headroom);
        int leaving = gpus.leaving(node);
        if (extra <= 0 || leaving <= 0 || !gpus.plans(node) || fenced.contains(node)) {
          continue;
        }
        int free = gpus.free(node);
        int take = Math.min(extra, (free + leaving) / g);
        int fromDrains = take * g - free;
        if (take <= 0 || fromDrains <= 0) {
          continue; // what fits in the free room was counted already
        }
        gpus.takeFromDrains(node, fromDrains);
        counted.add(app, node, take);
        headroom -= take;
      }
    }
  }

  /**
   * For a job short of its gang whose promise covers it, and fits on every node once the containers
   * being drained there are gone, though not now: per node, the GPUs of those drains its promise
   * needs. Null for any other job.
   */
  private Map<String, Integer> roomOnceDrained(AppView app, Allocation promise) {
    int g = app.shape().gpusPerWorker();
    int allocated = counted.total(app.id());
    if (allocated >= app.shape().minWorkers()
        || held.count(app.id()) + app.askedWorkers() < app.shape().minWorkers()
        || promise.totalWorkers() < app.shape().minWorkers()
        || promise.totalWorkers() > app.shape().maxWorkers()) {
      return null;
    }
    // Started on its promise, it holds on each node the more of its promise and what it counts
    // there already.
    int started = allocated;
    for (Map.Entry<String, Integer> p : promise.workersByServer().entrySet()) {
      started += Math.max(0, p.getValue() - counted.at(app.id(), p.getKey()));
    }
    if (started > app.shape().maxWorkers()) {
      return null; // workers beyond the promise too: a partial gang like any other
    }
    Map<String, Integer> fromDrains = new TreeMap<>();
    for (Map.Entry<String, Integer> p : promise.workersByServer().entrySet()) {
      String node = p.getKey();
      // What of the promise is not counted yet: neither live nor already fitted in the room free
      // now.
      int missingGpus = (p.getValue() - counted.at(app.id(), node)) * g;
      if (missingGpus <= 0) {
        continue;
      }
      if (!gpus.plans(node) || fenced.contains(node)) {
        return null;
      }
      int free = gpus.free(node);
      if (free + gpus.leaving(node) < missingGpus) {
        return null;
      }
      if (free < missingGpus) {
        fromDrains.put(node, missingGpus - free);
      }
    }
    return fromDrains.isEmpty() ? null : fromDrains;
  }
}
