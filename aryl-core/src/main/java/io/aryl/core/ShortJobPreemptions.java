package io.aryl.core;

import io.aryl.core.admission.Admission;
import io.aryl.core.admission.CheckpointPreemption;
import io.aryl.core.model.Job;
import io.aryl.core.placement.GpuBudget;
import io.aryl.core.reclaim.ReclaimCostModel;
import io.aryl.core.victim.VictimChoice;
import io.aryl.core.victim.VictimOrder;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * aryl+'s step between phase 1 and phase 2: running jobs stopped after their checkpoint to start
 * much shorter waiting ones, as {@link CheckpointPreemption} prices it.
 *
 * <p>The jobs phase 1 left waiting are taken aged first ({@link CheckpointPreemption#aged}: never
 * ran, waited past the threshold), oldest first, then the others in phase 1's offer order (shortest
 * predicted first, the senior lane's starving jobs ahead), at most {@link #MAX_OFFERS} of each a
 * round. For each, the running jobs that the rule lets it stop are candidates, in {@link
 * VictimOrder} (least lost work first, then id); {@link VictimChoice} takes the cheaper of the
 * first that makes room for its gang alone and candidates in order until it fits, and nobody if it
 * would not fit: a preemption that starts nothing only loses work. The gang is placed where the
 * victims' GPUs (base and flexible) came free, as admission places gangs. A job stopped or started
 * here is not stopped again this round.
 *
 * <p>Then the round is finished as the next would: the jobs still waiting (in offer order), then
 * the stopped jobs (in the order they were stopped), are offered their gangs once more in what is
 * left, the room the stops freed beyond the gangs they started included. A waiting job that fits
 * starts; a stopped job that fits runs on where it fits, moved rather than stopped (it checkpoints
 * and re-forms, losing nothing). Without this the round's plan is not its own fixed point: the next
 * round, shown what this one decided, starts those very gangs (a stopped long job back in the
 * flexible workers' room), so a stop would cost a restart that a move avoids, and a scheduler
 * planning again before its plan is carried out would plan something else.
 */
final class ShortJobPreemptions {
  /**
   * How many waiting jobs a round tries: the shortest, which gain most; a long queue's tail would
   * only make the round slower, and waits for the next round.
   */
  static final int MAX_OFFERS = 16;

  /**
   * What the step decided.
   *
   * @param preemptedFor each stopped job's id, with the id of the job it was stopped for
   * @param admitted the waiting jobs started, with the server index of each base worker
   * @param moved the jobs stopped and then placed again in the room left (see the class), with the
   *     server index of each base worker; not in {@code preemptedFor}
   */
  record Result(Map<String, String> preemptedFor, Map<Job, int[]> admitted, Map<Job, int[]> moved) {
    static final Result NONE = new Result(Map.of(), Map.of(), Map.of());

    /** Every job whose old placement the step set aside: stopped, or stopped and placed again. */
    Set<String> setAside() {
      Set<String> out = new HashSet<>(preemptedFor.keySet());
      moved.keySet().forEach(j -> out.add(j.id()));
      return out;
    }
  }

  private final CheckpointPreemption rule;
  private final ReclaimCostModel cost;
  private final Admission admission;

  ShortJobPreemptions(CheckpointPreemption rule, ReclaimCostModel cost, Admission admission) {
    this.rule = rule;
    this.cost = cost;
    this.admission = admission;
  }

  /**
   * Stops running jobs ({@code placed}'s running ones) for {@code waiting} jobs, in that order, and
   * places the gangs it starts in {@code budget}, which gets the stopped jobs' GPUs back.
   */
  Result apply(List<Job> waiting, List<PlacedJob> placed, GpuBudget budget, double nowS) {
    if (!rule.enabled() || waiting.isEmpty()) {
      return Result.NONE;
    }
    Map<String, String> preemptedFor = new LinkedHashMap<>();
    Map<Job, int[]> admitted = new LinkedHashMap<>();
    Set<PlacedJob> stopped = new LinkedHashSet<>();
    List<Job> aged = new ArrayList<>();
    List<Job> others = new ArrayList<>();
    for (Job w : waiting) {
      (rule.aged(w, nowS) ? aged : others).add(w);
    }
    aged.sort(Comparator.comparingDouble(Job::submitTimeS).thenComparing(Job::id));
    List<Job> offers = new ArrayList<>();
    offers.addAll(aged.subList(0, Math.min(aged.size(), MAX_OFFERS)));
    offers.addAll(others.subList(0, Math.min(others.size(), MAX_OFFERS)));
    for (Job w : offers) {
      List<PlacedJob> candidates = candidatesFor(w, placed, stopped, nowS);
      if (candidates.isEmpty()) {
        continue;
      }
      boolean[] types = budget.table().allowedTypes(w);
      List<PlacedJob> chosen =
          VictimChoice.choose(
              candidates,
              new VictimChoice.Trial<>() {
                @Override
                public boolean mayTake(PlacedJob v) {
                  return freesRoom(v, w, types, budget);
                }

                @Override
                public boolean fitsWithout(List<PlacedJob> victims) {
                  GpuBudget without = budget.copy();
                  victims.forEach(v -> vacate(v, without));
                  return admission.placeGang(without, w) != null;
                }

                @Override
                public void take(PlacedJob v) {}

                @Override
                public void untake(PlacedJob v) {}

                @Override
                public double cost(PlacedJob v) {
                  return lost(v);
                }
              });
      if (chosen == null) {
        continue;
      }
      for (PlacedJob v : chosen) {
        vacate(v, budget);
        stopped.add(v);
        preemptedFor.put(v.job.id(), w.id());
      }
      int[] servers = admission.placeGang(budget, w);
      if (servers == null) {
        throw new IllegalStateException(
            "job(" + w.id() + ") does not fit after preempting " + preemptedFor.keySet());
      }
      admitted.put(w, servers);
    }
    if (preemptedFor.isEmpty()) {
      return Result.NONE;
    }
    for (Job w : waiting) {
      if (!admitted.containsKey(w)) {
        int[] servers = admission.placeGang(budget, w);
        if (servers != null) {
          admitted.put(w, servers);
        }
      }
    }
    Map<Job, int[]> moved = new LinkedHashMap<>();
    for (PlacedJob v : stopped) {
      int[] servers = admission.placeGang(budget, v.job);
      if (servers != null) {
        moved.put(v.job, servers);
        preemptedFor.remove(v.job.id());
      }
    }
    return new Result(preemptedFor, admitted, moved);
  }

  /** The running jobs {@code w} may stop, in victim order. */
  private List<PlacedJob> candidatesFor(
      Job w, List<PlacedJob> placed, Set<PlacedJob> stopped, double nowS) {
    List<PlacedJob> out = new ArrayList<>();
    for (PlacedJob p : placed) {
      if (p.running && !stopped.contains(p) && rule.pays(p.job, p.widthNow(), w, cost, nowS)) {
        out.add(p);
      }
    }
    if (out.size() > 1) {
      Map<PlacedJob, VictimOrder.Candidate> asCandidate = new HashMap<>();
      for (PlacedJob p : out) {
        asCandidate.put(p, VictimOrder.Candidate.job(p.job.id(), lost(p), 0));
      }
      out.sort(Comparator.comparing(asCandidate::get, VictimOrder.ORDER));
    }
    return out;
  }

  /** The work stopping the job throws away: every GPU it holds x (since checkpoint + restart). */
  private double lost(PlacedJob p) {
    return cost.preemptCost(p.job, p.widthNow());
  }

  /**
   * Whether stopping the job frees GPUs the gang could use: base GPUs on an open server of a type
   * it may use that can hold one of its workers.
   */
  private static boolean freesRoom(PlacedJob v, Job w, boolean[] types, GpuBudget budget) {
    var table = budget.table();
    for (int i = 0; i < v.base.size(); i++) {
      int s = v.base.server(i);
      if (table.open(s) && types[table.typeIndex(s)] && table.gpus(s) >= w.gpusPerWorker()) {
        return true;
      }
    }
    return false;
  }

  /** Gives a stopped job's base and flexible GPUs back to {@code budget}. */
  private static void vacate(PlacedJob v, GpuBudget budget) {
    int g = v.job.gpusPerWorker();
    Map<Integer, Integer> flexible = v.flexibleNow.toMap();
    Map<Integer, Integer> base = v.base.toMap();
    base.forEach((s, w) -> budget.vacate(s, w * g, flexible.getOrDefault(s, 0) * g));
    flexible.forEach(
        (s, w) -> {
          if (!base.containsKey(s)) {
            budget.vacate(s, 0, w * g);
          }
        });
  }
}
