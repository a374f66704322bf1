package io.aryl.yarn.round;

/**
 * One round's GPU accounts of the nodes it plans on, by node position ({@link PlannableNodes}): per
 * node, the GPUs the plan may use ({@code capacity}: its GPUs less those held by what the plan does
 * not own) and those the round has given so far to live workers and promises ({@code used}). Arrays
 * rather than maps by name: a round keeps these for every node, and most of thousands of nodes are
 * only ever read.
 */
final class GpuLedger {
  private final PlannableNodes nodes;
  private final int[] capacity;
  private final int[] used;

  GpuLedger(PlannableNodes nodes) {
    this.nodes = nodes;
    this.capacity = new int[nodes.size()];
    this.used = new int[nodes.size()];
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
