package io.aryl.am;

import java.util.List;
import java.util.Optional;

/**
 * A job's base gang ({@code --min-workers} workers of {@code --gpus} GPUs, all at once) must fit
 * the nodes it can run on. Workers are placed whole on nodes, so a node of {@code G} GPUs holds
 * {@code floor(G / gpus)} of them. The queue's partition (its default node label) is the pool the
 * job always has; the inference partition's nodes may be lent to it later, so they count as well,
 * as the most it could ever get:
 *
 * <ul>
 *   <li>the pool holds the gang now: nothing to say;
 *   <li>only with lent nodes: a warning, and the job is submitted (it waits until inference lends
 *       them);
 *   <li>not even then: refused.
 * </ul>
 *
 * Nodes are the RUNNING ones the ResourceManager knows now: a node that is down counts for nothing.
 */
final class GangFitCheck {
  private GangFitCheck() {}

  /**
   * A running node as the ResourceManager reports it.
   *
   * @param label its partition; "" is the default partition
   * @param gpus its GPUs ({@code yarn.io/gpu} of its capability)
   */
  record Node(String label, long gpus) {
    Node {
      label = label == null ? "" : label;
      if (gpus < 0) {
        throw new IllegalArgumentException("node gpus must be >= 0, was " + gpus);
      }
    }
  }

  /**
   * @param poolLabel the queue's partition
   * @param lendingLabel the partition whose nodes the scheduler lends to training (the inference
   *     label)
   * @return a warning when only lent nodes would hold the gang
   * @throws IllegalArgumentException naming the option and the value, what the gang needs and what
   *     the nodes hold, when even every lendable node would not hold it
   */
  static Optional<String> check(
      int minWorkers, int gpus, String poolLabel, String lendingLabel, List<Node> nodes) {
    Capacity pool = Capacity.of(nodes, poolLabel, gpus);
    if (minWorkers <= pool.workers) {
      return Optional.empty();
    }
    Capacity lendable =
        poolLabel.equals(lendingLabel) ? Capacity.NONE : Capacity.of(nodes, lendingLabel, gpus);
    String needs =
        "--min-workers "
            + minWorkers
            + " needs "
            + count(minWorkers, "worker")
            + " of "
            + count(gpus, "GPU")
            + " at once; "
            + poolName(poolLabel)
            + " holds at most "
            + pool.workers
            + " ("
            + count(pool.nodes, "node")
            + " now)";
    String withLoans =
        (pool.workers + lendable.workers)
            + " with every "
            + lendingLabel
            + " node lent ("
            + count(lendable.nodes, "node")
            + " now)";
    if (minWorkers > pool.workers + lendable.workers) {
      throw new IllegalArgumentException(lendable.nodes == 0 ? needs : needs + ", " + withLoans);
    }
    return Optional.of(
        needs + ", " + withLoans + ": the job waits until " + lendingLabel + " lends nodes");
  }

  private static String poolName(String label) {
    return label.isEmpty() ? "the default partition" : "the " + label + " pool";
  }

  private static String count(long n, String noun) {
    return n + " " + noun + (n == 1 ? "" : "s");
  }

  /** Nodes of one partition, and the workers of one size they hold. */
  private record Capacity(long nodes, long workers) {
    static final Capacity NONE = new Capacity(0, 0);

    static Capacity of(List<Node> nodes, String label, int gpusPerWorker) {
      long count = 0;
      long workers = 0;
      for (Node n : nodes) {
        if (n.label().equals(label)) {
          count++;
          workers += n.gpus() / gpusPerWorker;
        }
      }
      return new Capacity(count, workers);
    }
  }
}
