package io.aryl.core.model;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Everything checked and derived of the servers alone: shared by successive snapshots of the same
 * servers.
 */
final class ServerSet {
  final List<Server>
      list; // sorted by id; immutable, so that a ServerTable made of it keeps this very list
  final List<Server>
      given; // as the caller gave them: the same as list unless they came in another order
  final Map<String, Integer> index; // position in list
  final Map<String, Integer> largestByType;
  final int largestServer; // what a job that may use any type must fit
  final int ownGpus; // of the training pool's own servers

  ServerSet(List<Server> servers) {
    List<Server> sorted = new ArrayList<>(servers);
    boolean inOrder = sortedById(sorted);
    if (!inOrder) {
      sorted.sort(Comparator.comparing(Server::id));
    }
    this.list = List.copyOf(sorted);
    this.given = inOrder ? list : List.copyOf(servers);
    Map<String, Integer> byId = new HashMap<>(sorted.size() * 2);
    for (Server s : sorted) {
      if (byId.put(s.id(), byId.size()) != null) {
        throw new IllegalArgumentException(
            "server.id must be unique, '" + s.id() + "' appears twice");
      }
    }
    this.index = byId;
    this.largestByType = largestByType(list);
    this.largestServer = largest(largestByType);
    this.ownGpus = ownGpus(list);
  }

  /**
   * The set of {@code servers}, which have {@code before}'s ids in its order: its index is theirs.
   * A scheduler's servers change their free GPUs far more often than which servers there are.
   */
  private ServerSet(ServerSet before, List<Server> servers) {
    this.list = List.copyOf(servers);
    this.given = list;
    this.index = before.index;
    this.largestByType = largestByType(list);
    this.largestServer = largest(largestByType);
    this.ownGpus = ownGpus(list);
  }

  /**
   * The most GPUs of one server per GPU type; refuses two servers that give one type different
   * speeds.
   */
  private static Map<String, Integer> largestByType(List<Server> servers) {
    Map<String, Integer> largest = new HashMap<>();
    Map<String, GpuType> typesByName = new HashMap<>();
    for (Server s : servers) {
      GpuType known = typesByName.putIfAbsent(s.gpuType().name(), s.gpuType());
      if (known != null && !known.equals(s.gpuType())) {
        throw new IllegalArgumentException(
            "server("
                + s.id()
                + ").gpuType "
                + s.gpuType().name()
                + " has trainingSpeed "
                + s.gpuType().trainingSpeed()
                + " but other servers give it "
                + known.trainingSpeed());
      }
      largest.merge(s.gpuType().name(), s.gpus(), Math::max);
    }
    return largest;
  }

  private static int largest(Map<String, Integer> largestByType) {
    int max = 0;
    for (int g : largestByType.values()) {
      max = Math.max(max, g);
    }
    return max;
  }

  private static int ownGpus(List<Server> servers) {
    int own = 0;
    for (Server s : servers) {
      own += s.pool() == Pool.TRAINING ? s.gpus() : 0;
    }
    return own;
  }

  private static boolean sortedById(List<Server> servers) {
    for (int i = 1; i < servers.size(); i++) {
      if (servers.get(i - 1).id().compareTo(servers.get(i).id()) > 0) {
        return false;
      }
    }
    return true;
  }

  /**
   * This set again if {@code others} are the same servers in the same order as before; a set
   * sharing this one's index if they have the same ids in its order; else a new one.
   */
  ServerSet reusedFor(List<Server> others) {
    if (others == list || same(others, given)) {
      return this;
    }
    return sameIds(others, list) ? new ServerSet(this, others) : new ServerSet(others);
  }

  /**
   * True if {@code a} has {@code b}'s ids in {@code b}'s order; {@link String#equals} compares by
   * identity first, which is quick as a caller reuses its ids.
   */
  private static boolean sameIds(List<Server> a, List<Server> b) {
    if (a.size() != b.size()) {
      return false;
    }
    for (int i = 0; i < a.size(); i++) {
      String x = a.get(i).id();
      String y = b.get(i).id();
      if (!x.equals(y)) {
        return false;
      }
    }
    return true;
  }

  /**
   * List equality; a record's equals compares by identity first, which is quick as a caller passes
   * the very servers it passed before.
   */
  private static boolean same(List<Server> a, List<Server> b) {
    if (a.size() != b.size()) {
      return false;
    }
    for (int i = 0; i < a.size(); i++) {
      Server x = a.get(i);
      Server y = b.get(i);
      if (!x.equals(y)) {
        return false;
      }
    }
    return true;
  }

  /**
   * Refuses a job whose worker is larger than every server of a type it may use, or that names an
   * unknown type.
   */
  void checkFits(Job j) {
    int largest = 0;
    if (j.allowedGpuTypes().isEmpty()) {
      largest = largestServer;
    } else {
      for (String t : j.allowedGpuTypes()) {
        Integer g = largestByType.get(t);
        if (g == null) {
          throw new IllegalArgumentException(
              "job("
                  + j.id()
                  + ").allowedGpuTypes names unknown GPU type '"
                  + t
                  + "'; the cluster has "
                  + new TreeSet<>(largestByType.keySet()));
        }
        largest = Math.max(largest, g);
      }
    }
    if (j.gpusPerWorker() > largest) {
      throw new IllegalArgumentException(
          "job("
              + j.id()
              + ").gpusPerWorker must fit on one server, was "
              + j.gpusPerWorker()
              + " but the largest server it may use has "
              + largest
              + " GPUs");
    }
  }
}
