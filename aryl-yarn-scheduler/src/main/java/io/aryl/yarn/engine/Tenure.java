package io.aryl.yarn.engine;

import io.aryl.api.status.RecoveryStatus;
import io.aryl.yarn.state.StoreFencedException;
import java.util.HashSet;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether this engine may act on the cluster, and why not: after its scheduler became active it
 * waits for the cluster to come back ({@link RecoveryGate}) and moves the {@link Lifecycle} from
 * RECOVERING to ACTIVE; once another scheduler claimed the state store it moves it to DEPOSED and
 * keeps the reason, and acts no more.
 *
 * <p>Its lines are the engine's: they are logged under {@link RoundEngine}'s name, which operators
 * set the engine's log level by. The engine changes it under its lock; the reason may be read from
 * any thread.
 */
final class Tenure {
  private static final Logger LOG = LoggerFactory.getLogger(RoundEngine.class);

  private final Lifecycle lifecycle;
  private final RecoveryGate recovery;

  /**
   * Why another scheduler's claim of the state store deposed this one; null while it is not
   * deposed.
   */
  private volatile String deposedBecause;

  Tenure(Lifecycle lifecycle, RecoveryGate recovery) {
    this.lifecycle = lifecycle;
    this.recovery = recovery;
  }

  /** Whether the engine acts: recovering (it plans nothing yet, but answers) or active. */
  boolean running() {
    return lifecycle.running();
  }

  /** Whether it still waits for the cluster to come back. */
  boolean recovering() {
    return lifecycle.get() == Lifecycle.State.RECOVERING;
  }

  /**
   * True once the cluster came back after this scheduler became active (RECOVERING, then ACTIVE for
   * good).
   */
  boolean recovered(RmView view) {
    if (lifecycle.get() == Lifecycle.State.ACTIVE) {
      return true;
    }
    Set<String> registered = new HashSet<>();
    view.nodes().forEach(n -> registered.add(n.id()));
    if (!recovery.ready(registered, view.rmReady(), view.nowMs())
        || !lifecycle.move(Lifecycle.State.RECOVERING, Lifecycle.State.ACTIVE)) {
      return false;
    }
    LOG.info("Aryl recovery done after {} ms: {}", recovery.waitedMs(), recovery.how());
    return true;
  }

  /** Another scheduler claimed the state store: this one acts no more. */
  void depose(StoreFencedException e) {
    deposedBecause = e.getMessage();
    if (!lifecycle.move(Lifecycle.State.ACTIVE, Lifecycle.State.DEPOSED)) {
      lifecycle.move(Lifecycle.State.RECOVERING, Lifecycle.State.DEPOSED);
    }
    LOG.error("Aryl stops acting: {}", e.getMessage());
  }

  /**
   * Why this engine no longer acts (another scheduler claimed the store), or null while it is not
   * deposed.
   */
  String deposedBecause() {
    return deposedBecause;
  }

  /**
   * Refuses a request that needs the engine running.
   *
   * @throws ArylUnavailableException when it is not
   */
  void requireRunning() {
    if (!lifecycle.running()) {
      throw new ArylUnavailableException("this scheduler is not active (" + lifecycle + ")");
    }
  }

  /**
   * Refuses a request that acts on the cluster unless the engine is active and recovered.
   *
   * @throws ArylUnavailableException while recovering, or once the engine stopped acting, saying
   *     why
   */
  void requireActive() {
    if (!lifecycle.running()) {
      throw new ArylUnavailableException(
          "this scheduler is no longer active"
              + (deposedBecause == null ? " (" + lifecycle + ")" : ": " + deposedBecause));
    }
    if (recovering()) {
      throw new ArylUnavailableException(
          "Aryl is recovering after the ResourceManager became active: waiting for "
              + recovery.waitingFor()
              + "; ask again shortly");
    }
  }

  /** Milliseconds from becoming active to recovered, or -1. */
  long recoveryWaitedMs() {
    return recovery.waitedMs();
  }

  /** {@code recovery} of the status. */
  RecoveryStatus recoveryStatus() {
    return recovery.status();
  }
}
