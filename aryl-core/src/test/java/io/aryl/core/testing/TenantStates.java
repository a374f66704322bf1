package io.aryl.core.testing;

import io.aryl.core.model.ClusterState;
import io.aryl.core.model.Job;
import io.aryl.core.model.Pool;
import io.aryl.core.model.Server;
import io.aryl.core.model.Tenants;
import io.aryl.core.speedup.SpeedupModel;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;

/**
 * Random but always valid snapshots of a training pool shared by tenants, for property tests. Built
 * on {@link SmallStates}: its servers, jobs and allocations, each job given one of two or three
 * tenants, and the tenants given guarantees that split the own servers' GPUs (some left
 * unguaranteed). Everything follows from the seed.
 */
public final class TenantStates {
  private static final String[] NAMES = {"vision", "nlp", "speech"};
  public static final double NOW = 100_000;

  private TenantStates() {}

  /**
   * {@link SmallStates#random(long)} with tenants: some tenants run more than their guarantee on
   * the own servers (they borrow) while others queue. Queued jobs are submitted within the last 6 h
   * (none starving under the 12 h default), about a third of them less than 60 s ago (inside the
   * default reclaim delay).
   */
  public static ClusterState random(long seed) {
    ClusterState plain = SmallStates.random(seed);
    return withTenants(plain, new SplittableRandom(seed ^ 0x5DEECE66DL), true);
  }

  /**
   * Only 1-GPU workers on servers of one GPU type: whether a gang fits depends only on how many
   * GPUs are free, not where, so a property can tell "the cluster could serve it" from the GPUs
   * left after a round.
   */
  public static ClusterState unitGpus(long seed) {
    SplittableRandom rnd = new SplittableRandom(seed);
    List<Server> servers = new ArrayList<>();
    int serverCount = 1 + rnd.nextInt(6);
    for (int i = 0; i < serverCount; i++) {
      int gpus = rnd.nextBoolean() ? 8 : 4;
      boolean inference = rnd.nextInt(4) == 0;
      boolean loaned = inference && rnd.nextBoolean();
      boolean fenced = loaned && rnd.nextInt(4) == 0;
      servers.add(
          new Server(
              String.format("s%02d", i),
              SmallStates.A100,
              gpus,
              inference ? Pool.INFERENCE : Pool.TRAINING,
              loaned,
              fenced));
    }
    servers.add(Server.training("s99", SmallStates.A100, 8));
    List<Job> jobs = new ArrayList<>();
    int jobCount = 2 + rnd.nextInt(12);
    for (int j = 0; j < jobCount; j++) {
      int min = 1 + rnd.nextInt(6);
      int max = rnd.nextBoolean() ? min : min + rnd.nextInt(6);
      double remaining = 60 + rnd.nextDouble() * 50_000;
      jobs.add(
          Job.builder(String.format("j%02d", j))
              .submitTimeS(rnd.nextDouble() * NOW)
              .gpusPerWorker(1)
              .workers(min, max)
              .remainingS(remaining)
              .predictedRemainingS(remaining * (0.4 + rnd.nextDouble() * 1.2))
              .sinceCheckpointS(rnd.nextDouble() * 1800)
              .speedup(rnd.nextBoolean() ? SpeedupModel.linear() : SpeedupModel.powerLaw(0.8))
              .build());
    }
    ClusterState plain =
        ClusterState.of(NOW, servers, jobs, SmallStates.runSome(rnd, servers, jobs));
    return withTenants(plain, rnd, true);
  }

  /**
   * The same snapshot with tenants: each job one of two or three tenants, the own GPUs split among
   * the tenants at random (each tenant 0..all that is left, the last possibly leaving some
   * unguaranteed).
   *
   * @param recentQueue move queued jobs' submissions into the last 6 h (none starving)
   */
  public static ClusterState withTenants(
      ClusterState plain, SplittableRandom rnd, boolean recentQueue) {
    int count = 2 + rnd.nextInt(2);
    int own = 0;
    for (Server s : plain.servers()) {
      if (s.pool() == Pool.TRAINING) {
        own += s.gpus();
      }
    }
    Map<String, Integer> guarantees = new TreeMap<>();
    int left = own;
    for (int t = 0; t < count; t++) {
      int g = t == count - 1 && rnd.nextBoolean() ? left : rnd.nextInt(left + 1);
      guarantees.put(NAMES[t], g);
      left -= g;
    }
    List<Job> jobs = new ArrayList<>();
    for (Job j : plain.jobs()) {
      Job.Builder b = j.toBuilder().tenant(NAMES[rnd.nextInt(count)]);
      if (recentQueue && !plain.isRunning(j.id())) {
        double ago = rnd.nextInt(3) == 0 ? rnd.nextDouble() * 59 : 61 + rnd.nextDouble() * 6 * 3600;
        b.submitTimeS(plain.nowS() - ago);
      }
      jobs.add(b.build());
    }
    return ClusterState.of(
        plain.nowS(), plain.servers(), jobs, plain.allocations(), Tenants.of(guarantees));
  }

  /** The snapshot with every job of tenant {@code tenant} and {@code tenants} declared. */
  public static ClusterState allOf(ClusterState plain, String tenant, Tenants tenants) {
    List<Job> jobs = new ArrayList<>();
    for (Job j : plain.jobs()) {
      jobs.add(j.toBuilder().tenant(tenant).build());
    }
    return ClusterState.of(plain.nowS(), plain.servers(), jobs, plain.allocations(), tenants);
  }

  /** The snapshot without tenants: no job names one, none declared. */
  public static ClusterState withoutTenants(ClusterState state) {
    List<Job> jobs = new ArrayList<>();
    for (Job j : state.jobs()) {
      jobs.add(j.toBuilder().tenant("").build());
    }
    return ClusterState.of(state.nowS(), state.servers(), jobs, state.allocations());
  }

  /**
   * Queued jobs of the snapshot, all but one dropped (the one chosen by the seed); running jobs
   * kept.
   */
  public static ClusterState oneQueued(ClusterState state, long seed) {
    List<Job> queued = state.jobs().stream().filter(j -> !state.isRunning(j.id())).toList();
    if (queued.isEmpty()) {
      return state;
    }
    Job keep = queued.get(new SplittableRandom(seed).nextInt(queued.size()));
    List<Job> jobs = new ArrayList<>();
    for (Job j : state.jobs()) {
      if (state.isRunning(j.id()) || j.equals(keep)) {
        jobs.add(j);
      }
    }
    return ClusterState.of(
        state.nowS(), state.servers(), jobs, state.allocations(), state.tenants());
  }
}
