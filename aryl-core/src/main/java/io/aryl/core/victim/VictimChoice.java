package io.aryl.core.victim;

import java.util.ArrayList;
import java.util.List;

/**
 * Which victims, among candidates in {@link VictimOrder}, to preempt so that one gang fits: the
 * cheaper of two plans ({@link VictimOrder#cheaper}, the first on a tie):
 *
 * <ol>
 *   <li><b>One victim</b>: the first candidate that may be taken and makes room for the gang alone.
 *       One preemption disturbs one job, and the first in order is the cheapest that suffices.
 *   <li><b>Victims in order</b>: candidates that may be taken, in order, until the gang fits; then
 *       each but the last spared if the gang fits without it, the last taken first (the costliest),
 *       so that none is preempted that the gang turns out not to need. Several small jobs can cost
 *       less than one large one.
 * </ol>
 *
 * <p>Nobody is preempted if neither plan makes the gang fit: a preemption that does not admit the
 * gang only loses work.
 */
public final class VictimChoice {
  private VictimChoice() {}

  /** What the caller knows about its candidates and the gang that needs room. */
  public interface Trial<V> {
    /**
     * Whether {@code victim} may be taken, given those {@linkplain #take taken} so far (criterion 1
     * of {@link VictimOrder}), and whether taking it would free anything the gang could use.
     */
    boolean mayTake(V victim);

    /** Whether the gang fits once {@code victims} are gone. */
    boolean fitsWithout(List<V> victims);

    /**
     * Counts {@code victim} as taken, so that {@link #mayTake} judges the next candidates against
     * what is left.
     */
    void take(V victim);

    /** Undoes {@link #take}. */
    void untake(V victim);

    /** GPU-seconds of work lost if {@code victim} is preempted. */
    double cost(V victim);
  }

  /**
   * The victims to preempt, from {@code candidates} in victim order, or null if the gang fits
   * neither way. Leaves nothing {@linkplain Trial#take taken}: the caller preempts what it returns.
   */
  public static <V> List<V> choose(List<V> candidates, Trial<V> trial) {
    return VictimOrder.cheaper(
        alone(candidates, trial), inOrder(candidates, trial), victims -> cost(victims, trial));
  }

  /** Plan 1: the first candidate that may be taken and suffices alone, or null. */
  static <V> List<V> alone(List<V> candidates, Trial<V> trial) {
    for (V v : candidates) {
      if (trial.mayTake(v) && trial.fitsWithout(List.of(v))) {
        return List.of(v);
      }
    }
    return null;
  }

  /**
   * Plan 2: candidates in order until the gang fits, those it does not need then spared; null if it
   * never fits.
   */
  static <V> List<V> inOrder(List<V> candidates, Trial<V> trial) {
    List<V> taken = new ArrayList<>();
    boolean fits = false;
    try {
      for (V v : candidates) {
        if (!trial.mayTake(v)) {
          continue;
        }
        trial.take(v);
        taken.add(v);
        if (trial.fitsWithout(taken)) {
          fits = true;
          break;
        }
      }
    } finally {
      taken.forEach(trial::untake);
    }
    if (!fits) {
      return null;
    }
    List<V> needed = new ArrayList<>(taken);
    for (int i = taken.size() - 2;
        i >= 0;
        i--) { // the last one made it fit: try sparing the others
      List<V> rest = new ArrayList<>(needed);
      rest.remove(taken.get(i));
      if (trial.fitsWithout(rest)) {
        needed = rest;
      }
    }
    return needed;
  }

  private static <V> double cost(List<V> victims, Trial<V> trial) {
    double c = 0;
    for (V v : victims) {
      c += trial.cost(v);
    }
    return c;
  }
}
