package io.aryl.yarn.round;

import io.aryl.core.model.GpuType;
import io.aryl.core.model.Pool;
import io.aryl.core.model.Server;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The nodes a round may plan on — those of the training pool whose GPU type is known — sorted by
 * id, each with a position: what {@link SnapshotTranslator} keeps per node in arrays by that
 * position rather than in maps by name.
 *
 * <p>Made again only when a node joins, leaves, or changes its label, size or GPU type ({@link
 * #fits}): at thousands of nodes, sorting and indexing every node each round cost more than the
 * nodes that changed. The servers handed to the plan are kept as well ({@link #server}): a node
 * whose free GPUs, loan and fence are as they were gives the very same {@link Server}, so that a
 * snapshot of an unchanged cluster is recognised as such ({@code ClusterState.next}).
 *
 * <p>Not thread-safe: one translator, one round at a time.
 */
final class PlannableNodes {
  private final String trainingLabel;
  private final GpuType defaultType;

  /**
   * The views this was made of, in the order given: {@link #fits} compares a round's views with
   * them.
   */
  private final NodeView[] given;

  /** For each given view, its position, or -1 if it is not planned on. */
  private final int[] positionOfGiven;

  private final String[] ids;
  private final GpuType[] types;
  private final Map<String, Integer> positions;
  private final Server[] servers;

  private PlannableNodes(
      String trainingLabel,
      GpuType defaultType,
      NodeView[] given,
      int[] positionOfGiven,
      String[] ids,
      GpuType[] types) {
    this.trainingLabel = trainingLabel;
    this.defaultType = defaultType;
    this.given = given;
    this.positionOfGiven = positionOfGiven;
    this.ids = ids;
    this.types = types;
    this.positions = new HashMap<>(ids.length * 2);
    for (int i = 0; i < ids.length; i++) {
      positions.put(ids[i], i);
    }
    this.servers = new Server[ids.length];
  }

  /**
   * @param trainingLabel the pool planned on
   * @param defaultType the GPU type of a node that names none
   */
  static PlannableNodes of(List<NodeView> nodes, String trainingLabel, GpuType defaultType) {
    NodeView[] given = nodes.toArray(new NodeView[0]);
    // By id, as the snapshot's servers are; a node given twice counts once, as its last view.
    Map<String, Integer> last = new HashMap<>(given.length * 2);
    for (int k = 0; k < given.length; k++) {
      if (plannable(given[k], trainingLabel)) {
        last.put(given[k].id(), k);
      }
    }
    List<Integer> kept = new ArrayList<>(last.values());
    kept.sort(Comparator.comparing(k -> given[k].id()));
    int[] positionOfGiven = new int[given.length];
    Arrays.fill(positionOfGiven, -1);
    String[] ids = new String[kept.size()];
    GpuType[] types = new GpuType[kept.size()];
    for (int i = 0; i < kept.size(); i++) {
      NodeView n = given[kept.get(i)];
      positionOfGiven[kept.get(i)] = i;
      ids[i] = n.id();
      types[i] = n.gpuType() == null ? defaultType : n.gpuType();
    }
    return new PlannableNodes(trainingLabel, defaultType, given, positionOfGiven, ids, types);
  }

  /** A node of no known GPU type is not planned on: its speed would be a guess. */
  private static boolean plannable(NodeView n, String trainingLabel) {
    return trainingLabel.equals(n.label()) && n.gpuTypeError() == null;
  }

  /**
   * True if {@code nodes} are the nodes this was made of, in the same order, each of the same
   * label, size and type.
   */
  @SuppressWarnings("ReferenceEquality") // the same view object is the fast path; else its fields
  boolean fits(List<NodeView> nodes, String trainingLabel, GpuType defaultType) {
    if (nodes.size() != given.length
        || !this.trainingLabel.equals(trainingLabel)
        || !this.defaultType.equals(defaultType)) {
      return false;
    }
    for (int k = 0; k < given.length; k++) {
      NodeView a = given[k];
      NodeView b = nodes.get(k);
      if (a != b
          && !(a.id().equals(b.id())
              && a.label().equals(b.label())
              && a.gpus() == b.gpus()
              && Objects.equals(a.gpuType(), b.gpuType())
              && Objects.equals(a.gpuTypeError(), b.gpuTypeError()))) {
        return false;
      }
    }
    return true;
  }

  int size() {
    return ids.length;
  }

  /** The position of the node given {@code k}-th, or -1 if it is not planned on. */
  int positionOfGiven(int k) {
    return positionOfGiven[k];
  }

  /** The node's position, or -1 if it is not planned on. */
  int position(String nodeId) {
    Integer i = positions.get(nodeId);
    return i == null ? -1 : i;
  }

  String id(int position) {
    return ids[position];
  }

  GpuType type(int position) {
    return types[position];
  }

  /**
   * The server of the node at {@code position}: the one handed out last time if nothing about it
   * changed. Every node planned on carries the training label, so one not on loan is the training
   * pool's own; a node of the default partition is never a server here (its status names no owner:
   * {@code StatusReport.owner}).
   */
  Server server(int position, int gpus, boolean loaned, boolean fenced) {
    Server s = servers[position];
    if (s == null || s.gpus() != gpus || s.loaned() != loaned || s.fenced() != fenced) {
      s =
          new Server(
              ids[position],
              types[position],
              gpus,
              loaned ? Pool.INFERENCE : Pool.TRAINING,
              loaned,
              fenced);
      servers[position] = s;
    }
    return s;
  }
}
