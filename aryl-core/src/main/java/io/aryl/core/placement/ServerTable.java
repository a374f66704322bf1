package io.aryl.core.placement;

import io.aryl.core.model.GpuType;
import io.aryl.core.model.Job;
import io.aryl.core.model.Server;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The servers of one snapshot as dense arrays, indexed 0..n-1 in server-id order, so that the hot
 * loops of a round touch ints instead of maps. Immutable.
 */
public final class ServerTable {
  private final List<Server> servers;
  private final Map<String, Integer> indexById;
  private final int[] gpus;
  private final int[] typeIndex;
  private final boolean[] loaned;
  private final boolean[] open;
  private final List<GpuType> types;
  private final int maxGpus;

  /**
   * @param servers sorted by id, as {@code ClusterState.servers()} gives them
   */
  public ServerTable(List<Server> servers) {
    this.servers = List.copyOf(servers);
    int n = servers.size();
    this.indexById = new HashMap<>(n * 2);
    this.gpus = new int[n];
    this.typeIndex = new int[n];
    this.loaned = new boolean[n];
    this.open = new boolean[n];
    TreeSet<GpuType> typeSet = new TreeSet<>();
    for (Server s : servers) {
      typeSet.add(s.gpuType());
    }
    this.types = new ArrayList<>(typeSet);
    Map<GpuType, Integer> typeIdx = new HashMap<>();
    for (int t = 0; t < types.size(); t++) {
      typeIdx.put(types.get(t), t);
    }
    int max = 0;
    for (int i = 0; i < n; i++) {
      Server s = servers.get(i);
      indexById.put(s.id(), i);
      gpus[i] = s.gpus();
      typeIndex[i] = typeIdx.get(s.gpuType());
      loaned[i] = s.loaned();
      open[i] = s.acceptsNewWorkers();
      max = Math.max(max, s.gpus());
    }
    this.maxGpus = max;
  }

  /** True if this is the table of exactly these servers, in this order. */
  public boolean isOf(List<Server> others) {
    return servers.equals(others);
  }

  public int size() {
    return gpus.length;
  }

  public Server server(int i) {
    return servers.get(i);
  }

  public String id(int i) {
    return servers.get(i).id();
  }

  public int indexOf(String serverId) {
    Integer i = indexById.get(serverId);
    if (i == null) {
      throw new IllegalArgumentException("unknown server '" + serverId + "'");
    }
    return i;
  }

  public int gpus(int i) {
    return gpus[i];
  }

  public int typeIndex(int i) {
    return typeIndex[i];
  }

  public boolean loaned(int i) {
    return loaned[i];
  }

  /** True if new training workers may be placed on server i. */
  public boolean open(int i) {
    return open[i];
  }

  /** GPU types, fastest first. */
  public List<GpuType> types() {
    return types;
  }

  public int maxGpus() {
    return maxGpus;
  }

  /** The allowed types that train at exactly {@code speed}. */
  public boolean[] ofSpeed(boolean[] allowed, double speed) {
    boolean[] out = new boolean[allowed.length];
    for (int t = 0; t < allowed.length; t++) {
      out[t] = allowed[t] && types.get(t).trainingSpeed() == speed;
    }
    return out;
  }

  /** Every type. */
  public boolean[] allTypes() {
    boolean[] all = new boolean[types.size()];
    Arrays.fill(all, true);
    return all;
  }

  /** Training speed of the fastest type in the set, 0 for an empty set. */
  public double speedOf(boolean[] typeSet) {
    for (int t = 0; t < typeSet.length; t++) { // types are sorted fastest first
      if (typeSet[t]) {
        return types.get(t).trainingSpeed();
      }
    }
    return 0;
  }

  /**
   * A set of type indexes as a bit mask, for use as a key (a snapshot has far fewer than 64 GPU
   * types).
   */
  public static long mask(boolean[] typeSet) {
    long m = 0;
    for (int t = 0; t < typeSet.length && t < 63; t++) {
      if (typeSet[t]) {
        m |= 1L << t;
      }
    }
    return m;
  }

  /**
   * The allowed types grouped by training speed, fastest group first: where one gang can run at one
   * pace.
   */
  public List<boolean[]> speedTiers(boolean[] allowed) {
    List<boolean[]> tiers = new ArrayList<>();
    double last = Double.NaN;
    for (int t = 0; t < allowed.length; t++) { // types are sorted fastest first
      if (!allowed[t]) {
        continue;
      }
      double speed = types.get(t).trainingSpeed();
      if (tiers.isEmpty() || speed != last) {
        tiers.add(new boolean[allowed.length]);
        last = speed;
      }
      tiers.get(tiers.size() - 1)[t] = true;
    }
    return tiers;
  }

  /** Which type indexes the job may use. */
  public boolean[] allowedTypes(Job job) {
    boolean[] allowed = new boolean[types.size()];
    for (int t = 0; t < allowed.length; t++) {
      allowed[t] = job.allows(types.get(t));
    }
    return allowed;
  }
}
