package io.aryl.yarn.rm;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

/**
 * Whether an application outside the plan — a plain one, or an elastic one waiting for its
 * ApplicationMaster's container — may be asking for containers. A node on which the plan promised
 * nothing is offered to those applications alone ({@link NodeOffers}), so while none of them asks,
 * an attempt to allocate there has no one to offer the node to and is skipped before the queues are
 * walked: the asynchronous scheduling thread's endless walk of every node then costs a few checks a
 * node instead of a walk of the queues, and leaves the cores to the rest of the ResourceManager.
 *
 * <p>"May be asking" errs towards yes. Every ask reaches the scheduler through its allocate call,
 * and a pending request comes back when a container is lost before its application took it: the
 * scheduler reports both ({@link #changed}). A scan of the applications clears the flag when it
 * finds none of them asking and nothing changed meanwhile; it runs at most once per {@code
 * rescanNanos} while the flag is up, and once per {@code maxAgeNanos} while it is down, so that a
 * pending request that arrived some other way waits at most that.
 */
final class UnplannedDemand {
  private final BooleanSupplier anyAsking;
  private final LongSupplier nanoClock;
  private final long rescanNanos;
  private final long maxAgeNanos;

  private final AtomicLong changes = new AtomicLong();
  private volatile long clearedAt =
      -1; // the changes count the last scan that found no one asking saw
  private volatile long scannedAt;

  /**
   * @param anyAsking scans the applications: true if one outside the plan has containers pending
   */
  UnplannedDemand(BooleanSupplier anyAsking, LongSupplier nanoClock, long rescanMs, long maxAgeMs) {
    if (rescanMs <= 0 || maxAgeMs < rescanMs) {
      throw new IllegalArgumentException(
          "rescan must be > 0 ms and max age >= rescan, were "
              + rescanMs
              + " ms and "
              + maxAgeMs
              + " ms");
    }
    this.anyAsking = anyAsking;
    this.nanoClock = nanoClock;
    this.rescanNanos = TimeUnit.MILLISECONDS.toNanos(rescanMs);
    this.maxAgeNanos = TimeUnit.MILLISECONDS.toNanos(maxAgeMs);
    this.scannedAt = nanoClock.getAsLong() - maxAgeNanos;
  }

  /**
   * An application outside the plan asked, or a container completed (its request may be pending
   * again).
   */
  void changed() {
    changes.incrementAndGet();
  }

  /**
   * False only if no application outside the plan was asking at a scan since which nothing changed.
   */
  boolean mayBeAsking() {
    long seen = changes.get();
    long now = nanoClock.getAsLong();
    boolean cleared = clearedAt == seen;
    if (now - scannedAt < (cleared ? maxAgeNanos : rescanNanos)) {
      return !cleared;
    }
    synchronized (this) {
      if (now - scannedAt >= (clearedAt == seen ? maxAgeNanos : rescanNanos)) {
        scannedAt = now;
        // The count is read before the scan: a change during it keeps the flag up until the next
        // scan.
        clearedAt = anyAsking.getAsBoolean() ? -1 : seen;
      }
      return clearedAt != changes.get();
    }
  }
}
