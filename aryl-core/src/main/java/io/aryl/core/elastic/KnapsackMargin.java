package io.aryl.core.elastic;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The margin of one phase-2 solution over one pool of GPUs: what GPUs handed back to the pool would
 * be worth to its jobs (the increments they wanted and did not get, best first), and what taking
 * GPUs out of it would cost them (idle GPUs first, for nothing, then the increments they got,
 * cheapest first). Used to price moving a job whole from one pool to another without solving the
 * knapsack again for every candidate.
 *
 * <p>Increments are whole: a job's next worker is worth its value only if all of its GPUs are
 * there. A job that leaves the pool takes its own increments out of the market ({@link #remove}).
 */
public final class KnapsackMargin {
  private record Increment(int owner, double perGpu, int gpus) {}

  private final List<Increment> wanted = new ArrayList<>(); // best first
  private final List<Increment> held = new ArrayList<>(); // cheapest first
  private int idleGpus;

  /**
   * @param groups the knapsack groups of the pool's jobs
   * @param chosen the item chosen per group
   * @param owners an id per group (reported back to {@link #remove})
   * @param idleGpus GPUs of the pool that the solution left unused
   */
  public KnapsackMargin(List<KnapsackGroup> groups, int[] chosen, int[] owners, int idleGpus) {
    if (groups.size() != chosen.length || chosen.length != owners.length) {
      throw new IllegalArgumentException(
          "margin: "
              + groups.size()
              + " groups, "
              + chosen.length
              + " choices, "
              + owners.length
              + " owners");
    }
    this.idleGpus = Math.max(0, idleGpus);
    for (int i = 0; i < groups.size(); i++) {
      KnapsackGroup g = groups.get(i);
      for (int k = chosen[i]; k < g.maxItem(); k++) {
        double v = (g.value(k + 1) - g.value(k)) / g.unitWeight();
        if (v > 0) {
          wanted.add(new Increment(owners[i], v, g.unitWeight()));
        }
      }
      for (int k = chosen[i]; k > 0; k--) {
        held.add(
            new Increment(
                owners[i], (g.value(k) - g.value(k - 1)) / g.unitWeight(), g.unitWeight()));
      }
    }
    wanted.sort(Comparator.comparingDouble((Increment i) -> -i.perGpu()));
    held.sort(Comparator.comparingDouble(Increment::perGpu));
  }

  /**
   * What {@code gpus} GPUs handed back would be worth to the pool's jobs other than {@code leaving}
   * (the job that hands them back, or -1); with {@code commit}, they take them.
   */
  public double valueOfReturned(int gpus, int leaving, boolean commit) {
    double value = 0;
    int left = gpus;
    for (int k = 0; k < wanted.size() && left > 0; k++) {
      Increment inc = wanted.get(k);
      if (inc.gpus() > left || inc.owner() == leaving) {
        continue;
      }
      value += inc.perGpu() * inc.gpus();
      left -= inc.gpus();
      if (commit) {
        held.add(insertionPoint(held, inc.perGpu(), true), inc);
        wanted.remove(k--);
      }
    }
    if (commit) {
      idleGpus += left;
    }
    return value;
  }

  /**
   * What taking {@code gpus} GPUs out of the pool would cost its jobs; with {@code commit}, they
   * are taken.
   */
  public double costOfTaking(int gpus, boolean commit) {
    int fromIdle = Math.min(idleGpus, gpus);
    int left = gpus - fromIdle;
    double cost = 0;
    int k = 0;
    for (; k < held.size() && left > 0; k++) {
      Increment inc = held.get(k);
      cost += inc.perGpu() * inc.gpus();
      left -= inc.gpus();
    }
    if (left > 0) {
      return Double.POSITIVE_INFINITY; // more than the pool has
    }
    if (commit) {
      idleGpus -= fromIdle;
      idleGpus += -left; // the last increment taken may free more than was needed
      for (int i = 0; i < k; i++) {
        Increment inc = held.remove(0);
        wanted.add(insertionPoint(wanted, inc.perGpu(), false), inc);
      }
    }
    return cost;
  }

  /**
   * A job left the pool: its increments neither compete for returned GPUs nor can be taken from it.
   */
  public void remove(int owner) {
    wanted.removeIf(i -> i.owner() == owner);
    held.removeIf(i -> i.owner() == owner);
  }

  private static int insertionPoint(List<Increment> list, double perGpu, boolean ascending) {
    int i = 0;
    while (i < list.size()
        && (ascending ? list.get(i).perGpu() <= perGpu : list.get(i).perGpu() >= perGpu)) {
      i++;
    }
    return i;
  }
}
