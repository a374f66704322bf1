package io.aryl.core.placement;

import java.util.ArrayList;
import java.util.List;

/**
 * What one round may hand out, per server, at two levels:
 *
 * <ul>
 *   <li><b>spare</b>: GPUs not held by base workers. Flexible workers are re-decided every round,
 *       so their GPUs count as spare: base demand always wins over elastic extras.
 *   <li><b>idle</b>: spare GPUs that no flexible worker holds either. Placing a gang here costs no
 *       shrink.
 * </ul>
 *
 * A gang is placed on idle GPUs when it fits there and on spare GPUs only otherwise, so that
 * admitting a job shrinks elastic jobs only when it must. Placement is all-or-nothing: a gang that
 * does not fit leaves the budget exactly as it was.
 */
public final class GpuBudget {
  private final ServerTable table;
  private final FreeGpuIndex spare;
  private final FreeGpuIndex idle;
  private final int[] flexible;

  /**
   * @param spare GPUs per server not held by base workers
   * @param flexible GPUs per server held by flexible workers (at most spare)
   */
  public GpuBudget(ServerTable table, int[] spare, int[] flexible) {
    this.table = table;
    this.spare = new FreeGpuIndex(table, spare);
    int[] idleCounts = new int[spare.length];
    for (int s = 0; s < spare.length; s++) {
      if (flexible[s] > spare[s]) {
        throw new IllegalArgumentException(
            "server("
                + table.id(s)
                + ") has "
                + flexible[s]
                + " flexible GPUs but only "
                + spare[s]
                + " spare");
      }
      idleCounts[s] = spare[s] - flexible[s];
    }
    this.idle = new FreeGpuIndex(table, idleCounts);
    this.flexible = flexible.clone();
  }

  private GpuBudget(GpuBudget other) {
    this.table = other.table;
    this.spare = other.spare.copy();
    this.idle =
        other.idle
            .copy(); // idle is spare less flexible after every change, as the constructor makes it
    this.flexible = other.flexible.clone();
  }

  /** An independent copy, for trying placements without committing them. */
  public GpuBudget copy() {
    return new GpuBudget(this);
  }

  public ServerTable table() {
    return table;
  }

  public int spare(int s) {
    return spare.free(s);
  }

  public int idle(int s) {
    return idle.free(s);
  }

  /** The spare level's index, for phase 2 which re-places every flexible worker. */
  public FreeGpuIndex spareIndex() {
    return spare;
  }

  /** Takes {@code gpus} on server s; flexible workers there are displaced only as far as needed. */
  public void take(int s, int gpus) {
    int newSpare = spare.free(s) - gpus;
    if (newSpare < 0) {
      throw new IllegalStateException(
          "server(" + table.id(s) + ") has " + spare.free(s) + " spare GPUs, asked " + gpus);
    }
    spare.set(s, newSpare);
    flexible[s] = Math.min(flexible[s], newSpare);
    idle.set(s, newSpare - flexible[s]);
  }

  /** Gives back {@code gpus} taken on server s (as idle GPUs): undoes a hold, never a placement. */
  public void release(int s, int gpus) {
    int newSpare = spare.free(s) + gpus;
    if (gpus < 0 || newSpare > table.gpus(s)) {
      throw new IllegalStateException(
          "server(" + table.id(s) + ") cannot get back " + gpus + " GPUs");
    }
    spare.set(s, newSpare);
    idle.set(s, newSpare - flexible[s]);
  }

  /**
   * Frees what a preempted job held on server s: its {@code baseGpus} come back as idle GPUs, and
   * of its {@code flexibleGpus} those still counted as flexible become idle too.
   */
  public void vacate(int s, int baseGpus, int flexibleGpus) {
    int newSpare = spare.free(s) + baseGpus;
    if (baseGpus < 0 || flexibleGpus < 0 || newSpare > table.gpus(s)) {
      throw new IllegalStateException(
          "server(" + table.id(s) + ") cannot get back " + baseGpus + " base GPUs");
    }
    spare.set(s, newSpare);
    flexible[s] = Math.max(0, flexible[s] - flexibleGpus);
    idle.set(s, newSpare - flexible[s]);
  }

  /**
   * Holds {@code gpus} spare GPUs of server s that flexible workers hold, so that no gang is placed
   * on them (a hold that keeps them flexible): spare and flexible GPUs both drop by as many.
   * Returns how many flexible GPUs were held, for {@link #unholdFlexible}.
   */
  public int holdFlexible(int s, int gpus) {
    int newSpare = spare.free(s) - gpus;
    if (gpus < 0 || newSpare < 0) {
      throw new IllegalStateException(
          "server(" + table.id(s) + ") has " + spare.free(s) + " spare GPUs, asked " + gpus);
    }
    int flex = Math.min(flexible[s], gpus);
    spare.set(s, newSpare);
    flexible[s] -= flex;
    idle.set(s, newSpare - flexible[s]);
    return flex;
  }

  /**
   * Undoes {@link #holdFlexible}: {@code gpus} come back, {@code flexibleGpus} of them flexible
   * again.
   */
  public void unholdFlexible(int s, int gpus, int flexibleGpus) {
    int newSpare = spare.free(s) + gpus;
    if (gpus < 0 || flexibleGpus < 0 || flexibleGpus > gpus || newSpare > table.gpus(s)) {
      throw new IllegalStateException(
          "server(" + table.id(s) + ") cannot get back " + gpus + " held GPUs");
    }
    spare.set(s, newSpare);
    flexible[s] += flexibleGpus;
    idle.set(s, newSpare - flexible[s]);
  }

  /**
   * Makes this budget what {@code other} (a budget of the same servers, e.g. an earlier copy) is.
   */
  public void restoreFrom(GpuBudget other) {
    if (other.table != table) {
      throw new IllegalArgumentException("budgets of different server tables");
    }
    for (int s = 0; s < flexible.length; s++) {
      spare.set(s, other.spare.free(s));
      flexible[s] = other.flexible[s];
      idle.set(s, other.idle.free(s));
    }
  }

  /**
   * Places {@code workers} workers of {@code gpusPerWorker} GPUs each, all or none: on idle GPUs if
   * the whole gang fits there, else on spare GPUs. Returns the server index of each worker, or null
   * (budget unchanged).
   */
  public int[] placeGang(int gpusPerWorker, int workers, boolean[] allowedTypes, WorkerRole role) {
    int[] placed = tryPlace(idle, gpusPerWorker, workers, allowedTypes, role);
    if (placed == null) {
      placed = tryPlace(spare, gpusPerWorker, workers, allowedTypes, role);
    }
    return placed;
  }

  private int[] tryPlace(
      FreeGpuIndex level, int g, int workers, boolean[] allowedTypes, WorkerRole role) {
    List<int[]> undo = new ArrayList<>(); // {server, spare, flexible, idle} before each take
    int[] out = new int[workers];
    for (int w = 0; w < workers; w++) {
      int s = level.bestFit(g, allowedTypes, role);
      if (s < 0) {
        for (int i = undo.size() - 1; i >= 0; i--) {
          int[] u = undo.get(i);
          spare.set(u[0], u[1]);
          flexible[u[0]] = u[2];
          idle.set(u[0], u[3]);
        }
        return null;
      }
      undo.add(new int[] {s, spare.free(s), flexible[s], idle.free(s)});
      take(s, g);
      out[w] = s;
    }
    return out;
  }
}
