package io.aryl.am;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One membership of the job: which worker (container) has which rank. A new membership is a new
 * generation; every worker is (re)started with the generation's environment.
 *
 * @param number from 1, increasing for the job's lifetime
 * @param ranks container id to rank, in rank order: 0, 1, ...
 * @param hosts host of each ranked container
 * @param masterAddr rank 0's host
 */
public record Generation(
    int number,
    Map<String, Integer> ranks,
    Map<String, String> hosts,
    String masterAddr,
    int masterPort) {

  /**
   * @throws IllegalArgumentException naming the field and the value
   */
  public Generation {
    require(number >= 1, "generation number must be >= 1, was " + number);
    require(
        ranks != null && !ranks.isEmpty(),
        "generation " + number + ": ranks must not be empty, was " + ranks);
    int expected = 0;
    for (Map.Entry<String, Integer> e : ranks.entrySet()) {
      require(
          e.getValue() != null && e.getValue() == expected,
          "generation "
              + number
              + ": ranks must be 0.."
              + (ranks.size() - 1)
              + " in order, was "
              + ranks);
      expected++;
    }
    require(
        hosts != null
            && hosts.keySet().equals(ranks.keySet())
            && hosts.values().stream().allMatch(h -> h != null && !h.isBlank()),
        "generation "
            + number
            + ": hosts must name the host of each ranked container, was "
            + hosts);
    String rankZeroHost = hosts.get(ranks.keySet().iterator().next());
    require(
        rankZeroHost.equals(masterAddr),
        "generation "
            + number
            + ": masterAddr must be rank 0's host "
            + rankZeroHost
            + ", was "
            + masterAddr);
    require(
        masterPort >= 1 && masterPort <= 65_535,
        "generation " + number + ": masterPort must be 1-65535, was " + masterPort);
    Map<String, String> hostsInRankOrder = new LinkedHashMap<>();
    for (String id : ranks.keySet()) {
      hostsInRankOrder.put(id, hosts.get(id));
    }
    ranks = Collections.unmodifiableMap(new LinkedHashMap<>(ranks));
    hosts = Collections.unmodifiableMap(hostsInRankOrder);
  }

  private static void require(boolean ok, String message) {
    if (!ok) {
      throw new IllegalArgumentException(message);
    }
  }

  /** A worker: its container id and host. */
  public record Member(String id, String host) {}

  /**
   * Ranks the members: those of the previous generation keep their relative order (rank 0 stays
   * rank 0 while it is there, so the master moves only when it must); newcomers follow, by host
   * then container id.
   *
   * @param portSeed varies the master port between jobs (the job id's hash)
   */
  public static Generation assign(
      int number, List<Member> members, Generation previous, int portSeed) {
    if (members.isEmpty()) {
      throw new IllegalArgumentException("a generation needs at least one member");
    }
    List<Member> ordered = new ArrayList<>(members);
    Map<String, Integer> before = previous == null ? Map.of() : previous.ranks();
    ordered.sort(
        Comparator.<Member>comparingInt(m -> before.getOrDefault(m.id(), Integer.MAX_VALUE))
            .thenComparing(Member::host)
            .thenComparing(Member::id));
    Map<String, Integer> ranks = new LinkedHashMap<>();
    Map<String, String> hosts = new LinkedHashMap<>();
    for (Member m : ordered) {
      ranks.put(m.id(), ranks.size());
      hosts.put(m.id(), m.host());
    }
    return new Generation(
        number, ranks, hosts, ordered.get(0).host(), masterPort(portSeed, number));
  }

  /** Lowest master port. */
  static final int MASTER_PORT_FROM = 20_000;

  /**
   * One past the highest: Linux's ephemeral ports start at 32768, and a master port there may be
   * held by any outbound connection on the host (a rank 0 then fails to bind, which reads as a
   * worker failure).
   */
  static final int MASTER_PORT_TO = 32_768;

  /**
   * A port in [20000, 32768) that changes with each generation: the old master may still hold the
   * last one.
   */
  static int masterPort(int seed, int number) {
    return MASTER_PORT_FROM + Math.floorMod(seed * 31 + number, MASTER_PORT_TO - MASTER_PORT_FROM);
  }

  public int worldSize() {
    return ranks.size();
  }

  public int rank(String id) {
    return ranks.get(id);
  }

  /** Index of the worker among the workers of its host, in rank order. */
  public int localRank(String id) {
    String host = hosts.get(id);
    int local = 0;
    for (Map.Entry<String, Integer> e : ranks.entrySet()) {
      if (e.getKey().equals(id)) {
        return local;
      }
      if (hosts.get(e.getKey()).equals(host)) {
        local++;
      }
    }
    throw new IllegalArgumentException(id + " is not in generation " + number);
  }

  public int localWorldSize(String id) {
    String host = hosts.get(id);
    return (int) hosts.values().stream().filter(host::equals).count();
  }

  /**
   * host:slots per host (slots = workers there), in order of first rank: Horovod's host-discovery
   * format.
   */
  public List<String> hostSlots() {
    Map<String, Integer> slots = new LinkedHashMap<>();
    ranks.keySet().forEach(id -> slots.merge(hosts.get(id), 1, Integer::sum));
    List<String> out = new ArrayList<>();
    slots.forEach((h, n) -> out.add(h + ":" + n));
    return out;
  }

  /** The environment of one worker of this generation. */
  public Map<String, String> env(String id) {
    Map<String, String> env = new TreeMap<>();
    env.put(AmKeys.WORLD_SIZE, Integer.toString(worldSize()));
    env.put(AmKeys.RANK, Integer.toString(rank(id)));
    env.put(AmKeys.LOCAL_RANK, Integer.toString(localRank(id)));
    env.put(AmKeys.LOCAL_WORLD_SIZE, Integer.toString(localWorldSize(id)));
    env.put(AmKeys.MASTER_ADDR, masterAddr);
    env.put(AmKeys.MASTER_PORT, Integer.toString(masterPort));
    env.put(AmKeys.GENERATION, Integer.toString(number));
    env.put(AmKeys.HOSTS, String.join(",", hostSlots()));
    return env;
  }
}
