package io.aryl.yarn.rm;

import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The thread the rounds run on: one every interval, and one at once when asked, at most one asked
 * for and not yet begun at a time. A round that fails is counted ({@code PlanningRoundsFailed}) and
 * logged, and the loop goes on: the failed round left the last promises in place, and the next one
 * starts from the ResourceManager's state again.
 */
final class RoundLoop implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(RoundLoop.class);

  /** The round itself: reads the ResourceManager, decides, carries the actions out. */
  private final Runnable round;

  /** Told of every round that ran, with its time. */
  private final LongConsumer afterRound;

  private final ArylMetrics metrics;
  private final ScheduledExecutorService thread =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "aryl-planning-loop");
            t.setDaemon(true);
            return t;
          });

  /** Whether a round asked for has not begun yet. */
  private final AtomicBoolean requested = new AtomicBoolean();

  RoundLoop(Runnable round, LongConsumer afterRound, ArylMetrics metrics) {
    this.round = round;
    this.afterRound = afterRound;
    this.metrics = metrics;
  }

  /**
   * Rounds every {@code intervalMs} from now on. Nothing waits on their future: a round catches
   * what it throws ({@link #runSafely}), and {@link #close} ends them.
   */
  @SuppressWarnings("FutureReturnValueIgnored")
  void start(long intervalMs) {
    thread.scheduleWithFixedDelay(this::runSafely, intervalMs, intervalMs, TimeUnit.MILLISECONDS);
  }

  /** A round on the loop's thread as soon as it is free, unless one asked for is still waiting. */
  void request() {
    if (requested.compareAndSet(false, true)) {
      try {
        thread.execute(
            () -> {
              requested.set(false);
              runSafely();
            });
      } catch (RejectedExecutionException e) {
        requested.set(false); // shutting down
      }
    }
  }

  /** Runs a round on the calling thread, counting and logging its failure as the loop does. */
  void runSafely() {
    try {
      round.run();
      afterRound.accept(System.currentTimeMillis());
    } catch (RuntimeException | LinkageError e) {
      // Anything escaping here would cancel every later round silently, so errors are logged and
      // the loop goes on.
      metrics.planningRoundsFailed.incr();
      LOG.error("Aryl planning round failed", e);
    }
  }

  /**
   * Ends the rounds, waiting up to 5 s for one in flight: it may still write state, and must end
   * before the store is closed beneath it.
   */
  @Override
  public void close() {
    thread.shutdownNow();
    try {
      if (!thread.awaitTermination(5, TimeUnit.SECONDS)) {
        LOG.warn("Aryl's planning round did not end within 5 s of the scheduler stopping");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
