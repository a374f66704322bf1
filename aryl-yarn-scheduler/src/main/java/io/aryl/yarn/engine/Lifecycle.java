package io.aryl.yarn.engine;

import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Where Aryl stands in one ResourceManager: one state in one field, changed only by compare-and-set
 * along the arrows below. The scheduler moves it through its service life (init, start, stop); the
 * engine moves it from RECOVERING to ACTIVE once the cluster came back, and to DEPOSED once another
 * scheduler claimed the state store.
 *
 * <pre>
 *   NEW ──init──> OFF                          (aryl.scheduler.enabled=false: the stock Capacity Scheduler)
 *   NEW ──init──> STANDBY ──start──> RECOVERING ──cluster back──> ACTIVE
 *                                    RECOVERING, ACTIVE ──store claimed by another──> DEPOSED
 *   any ──stop──> STOPPED
 * </pre>
 */
public final class Lifecycle {
  /** The states. */
  public enum State {
    /** Constructed, not initialised yet. */
    NEW,
    /** Aryl is switched off: the class is the stock Capacity Scheduler. */
    OFF,
    /**
     * Initialised; this ResourceManager is not active (a standby initialises its scheduler but
     * starts it only then).
     */
    STANDBY,
    /**
     * Active, waiting for the cluster to come back after a restart or failover: nothing is acted on
     * yet.
     */
    RECOVERING,
    /** Active and acting. */
    ACTIVE,
    /** Another scheduler claimed Aryl's state store: this one acts no more. */
    DEPOSED,
    /** Stopped. */
    STOPPED
  }

  private static final Map<State, Set<State>> ARROWS =
      Map.of(
          State.NEW, EnumSet.of(State.OFF, State.STANDBY, State.STOPPED),
          State.OFF, EnumSet.of(State.STOPPED),
          State.STANDBY, EnumSet.of(State.RECOVERING, State.STOPPED),
          State.RECOVERING, EnumSet.of(State.ACTIVE, State.DEPOSED, State.STOPPED),
          State.ACTIVE, EnumSet.of(State.DEPOSED, State.STOPPED),
          State.DEPOSED, EnumSet.of(State.STOPPED),
          State.STOPPED, EnumSet.noneOf(State.class));

  private final AtomicReference<State> state = new AtomicReference<>(State.NEW);

  public State get() {
    return state.get();
  }

  /**
   * Moves from {@code from} to {@code to} if the state is {@code from} now.
   *
   * @return false if the state was not {@code from} (someone else moved it)
   * @throws IllegalArgumentException for a move that is not one of the arrows
   */
  public boolean move(State from, State to) {
    if (!ARROWS.get(from).contains(to)) {
      throw new IllegalArgumentException("no move from " + from + " to " + to);
    }
    return state.compareAndSet(from, to);
  }

  /** Moves to STOPPED from wherever it is; returns the state it left. */
  public State stop() {
    return state.getAndSet(State.STOPPED);
  }

  /**
   * Whether Aryl acts on the cluster now: recovering (it plans nothing yet, but answers) or active.
   */
  public boolean running() {
    State s = state.get();
    return s == State.RECOVERING || s == State.ACTIVE;
  }

  @Override
  public String toString() {
    return state.get().name();
  }
}
