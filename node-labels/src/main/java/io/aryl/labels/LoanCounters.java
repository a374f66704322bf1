package io.aryl.labels;

import java.util.concurrent.atomic.AtomicLong;

/** What one controller instance has done since it started, counted where it is done. */
final class LoanCounters {
  final AtomicLong decisions = new AtomicLong();
  final AtomicLong raised = new AtomicLong();
  final AtomicLong lowered = new AtomicLong();
  final AtomicLong targetsSent = new AtomicLong();
  final AtomicLong targetsAccepted = new AtomicLong();

  /** Refused with 400 or 503. */
  final AtomicLong targetsRefused = new AtomicLong();

  /** Refused with 409: a newer epoch was in force. */
  final AtomicLong targetsStale = new AtomicLong();

  /** No answer, or one that is not the scheduler's. */
  final AtomicLong sendFailures = new AtomicLong();

  final AtomicLong epochsClaimed = new AtomicLong();
  final AtomicLong standDowns = new AtomicLong();

  /** The counters at one moment. */
  record Snapshot(
      long decisions,
      long raised,
      long lowered,
      long targetsSent,
      long targetsAccepted,
      long targetsRefused,
      long targetsStale,
      long sendFailures,
      long epochsClaimed,
      long standDowns) {}

  Snapshot snapshot() {
    return new Snapshot(
        decisions.get(),
        raised.get(),
        lowered.get(),
        targetsSent.get(),
        targetsAccepted.get(),
        targetsRefused.get(),
        targetsStale.get(),
        sendFailures.get(),
        epochsClaimed.get(),
        standDowns.get());
  }
}
