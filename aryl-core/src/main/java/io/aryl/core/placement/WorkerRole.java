package io.aryl.core.placement;

/**
 * Why a worker runs, which decides where it should go.
 *
 * <p>Base workers (a job's first {@code minWorkers}) are costly to lose, so they prefer the
 * training pool's own servers. Flexible workers (the extras above the minimum) can be shed cheaply,
 * so they prefer loaned servers: when inference takes a server back, a job then mostly shrinks
 * instead of dying.
 */
public enum WorkerRole {
  BASE(false),
  FLEXIBLE(true);

  private final boolean prefersLoaned;

  WorkerRole(boolean prefersLoaned) {
    this.prefersLoaned = prefersLoaned;
  }

  public boolean prefersLoaned() {
    return prefersLoaned;
  }
}
