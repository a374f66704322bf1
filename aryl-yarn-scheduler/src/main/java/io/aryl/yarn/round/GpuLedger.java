package io.aryl.yarn.round;

import java.util.Map;
import java.util.TreeMap;

/**
 * One round's GPU accounts of the nodes it plans on, by node position ({@link PlannableNodes}): per
 * node, the GPUs the plan may use ({@code capacity}: its GPUs less those held by what the plan does
 * not own), those the round has given so far to live workers and promises ({@code used}), and those
 * of containers being drained ({@code leaving}), which a promise may count as its room before they
 * are gone ({@link #takeFromDrains}). Arrays rather than maps by name: a round keeps these for
 * every node, and most of thousands of nodes are only ever read.
 */
final class GpuLedger {
  private final PlannableNodes nodes;
  private final int[] capacity;
  private final int[] used;
  private final int[] leaving;

  /** Per node, the GPUs of drains that promises took as their room ({@link #takeFromDrains}). */
  private final Map<String, Integer> roomFromDrains = new TreeMap<>();

  GpuLedger(PlannableNodes nodes) {
    this.nodes = nodes;
    this.capacity = new int[nodes.size()];
    this.used = new int[nodes.size()];
    this.leaving = new int[nodes.size()];
  }

  /** True if the round plans on this node. */
  boolean plans(String node) {
    return nodes.position(node) >= 0;
  }

  int capacity(String node) {
    return capacity[at(node)];
  }

  int capacityAt(int position) {
    return capacity[position];
  }

  void setCapacityAt(int position, int gpus) {
    capacity[position] = gpus;
  }

  void addCapacity(String node, int gpus) {
    capacity[at(node)] += gpus;
  }

  /** GPUs given so far on a node the round plans on; 0 on any other. */
  int used(String node) {
    int i = nodes.position(node);
    return i < 0 ? 0 : used[i];
  }

  void addUsed(String node, int gpus) {
    used[at(node)] += gpus;
  }

  /** The GPUs the plan may use on a node and has not given yet; never below 0. */
  int free(String node) {
    return Math.max(0, capacity(node) - used(node));
  }

  /**
   * A container being drained on the node at {@code position} holds {@code gpus} until it is gone.
   */
  void addLeavingAt(int position, int gpus) {
    leaving[position] += gpus;
  }

  /**
   * GPUs of containers being drained on a node that no promise took yet; 0 on a node not planned
   * on.
   */
  int leaving(String node) {
    int i = nodes.position(node);
    return i < 0 ? 0 : leaving[i];
  }

  /**
   * A promise counts {@code gpus} of the drains on {@code node} as its room: they join the node's
   * capacity, and no other promise can count on them too.
   */
  void takeFromDrains(String node, int gpus) {
    int i = at(node);
    if (gpus > leaving[i]) {
      throw new IllegalArgumentException(
          "node " + node + " has " + leaving[i] + " GPUs being drained, not " + gpus);
    }
    capacity[i] += gpus;
    leaving[i] -= gpus;
    roomFromDrains.merge(node, gpus, Integer::sum);
  }

  /** Per node, the GPUs of drains that promises took as their room, by node name. */
  Map<String, Integer> roomFromDrains() {
    return roomFromDrains;
  }

  /** The most GPUs the plan may use on one node; 0 without nodes. */
  int largestCapacity() {
    int max = 0;
    for (int c : capacity) {
      max = Math.max(max, c);
    }
    return max;
  }

  private int at(String node) {
    int i = nodes.position(node);
    if (i < 0) {
      throw new IllegalArgumentException("node " + node + " is not planned on");
    }
    return i;
  }
}
