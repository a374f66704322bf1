package io.aryl.labels;

import java.util.concurrent.atomic.AtomicLong;

/** What one controller instance has done since it started, counted where it is done. */
final class LoanCounters {
  final AtomicLong nodesLoaned = new AtomicLong();
  final AtomicLong reclaimsRequested = new AtomicLong();
  final AtomicLong reclaimsAdopted = new AtomicLong();
  final AtomicLong reclaimsRefused = new AtomicLong();
  final AtomicLong nodesReturned = new AtomicLong();
  final AtomicLong fencedWrites = new AtomicLong();
  final AtomicLong epochsClaimed = new AtomicLong();

  /** The counters at one moment. */
  record Snapshot(long nodesLoaned, long reclaimsRequested, long reclaimsAdopted, long reclaimsRefused,
      long nodesReturned, long fencedWrites, long epochsClaimed) {}

  Snapshot snapshot() {
    return new Snapshot(nodesLoaned.get(), reclaimsRequested.get(), reclaimsAdopted.get(), reclaimsRefused.get(),
        nodesReturned.get(), fencedWrites.get(), epochsClaimed.get());
  }
}
