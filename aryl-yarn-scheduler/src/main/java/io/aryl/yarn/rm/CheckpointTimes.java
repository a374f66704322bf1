package io.aryl.yarn.rm;

import io.aryl.core.job.CheckpointReport;
import io.aryl.yarn.round.JobProgress;
import java.io.IOException;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.server.resourcemanager.RMContext;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * When each elastic job last checkpointed, as its ApplicationMaster reports it ({@link
 * CheckpointReport}): a reclaim prices preempting a job by the work since then instead of since its
 * workers last changed, which is all the scheduler sees itself.
 *
 * <p>Every {@link ArylConf#CHECKPOINT_POLL_MS} ms a thread of its own asks each elastic
 * application's ApplicationMaster (the tracking URL it registered) for its status, and keeps the
 * last answer per application; a round only reads what is kept, so a slow or dead ApplicationMaster
 * never holds a round up. A failed read keeps the previous answer and is logged once per
 * application; applications that ended are forgotten. Nothing is stored: after a restart or
 * failover the first poll, at once, fills it again, and meanwhile jobs are priced as without it.
 */
final class CheckpointTimes implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(CheckpointTimes.class);

  /** Reads one ApplicationMaster's report. */
  interface Source {
    CheckpointReport fetch(String trackingUrl) throws IOException;
  }

  private final long pollMs;
  private final Supplier<Collection<String>> apps;
  private final Function<String, String> trackingUrls;
  private final Source source;
  private final Map<String, CheckpointReport> reports = new ConcurrentHashMap<>();

  /** Applications whose last read failed, logged already. */
  private final Set<String> failing = ConcurrentHashMap.newKeySet();

  private final ScheduledExecutorService thread;

  /**
   * @param pollMs milliseconds between polls; 0: never poll, every job is priced by the time since
   *     its workers changed
   * @param apps the elastic applications to ask
   * @param trackingUrls an application's ApplicationMaster URL; null while it has none (not
   *     registered yet)
   */
  CheckpointTimes(
      long pollMs,
      Supplier<Collection<String>> apps,
      Function<String, String> trackingUrls,
      Source source) {
    this.pollMs = pollMs;
    this.apps = apps;
    this.trackingUrls = trackingUrls;
    this.source = source;
    this.thread =
        pollMs <= 0
            ? null
            : Executors.newSingleThreadScheduledExecutor(
                r -> {
                  Thread t = new Thread(r, "aryl-checkpoint-poll");
                  t.setDaemon(true);
                  return t;
                });
  }

  /** Polls the ApplicationMasters of the elastic applications the scheduler knows, over HTTP. */
  static CheckpointTimes onRm(RMContext rm, ElasticApps apps, long pollMs) {
    AmCheckpointClient client = new AmCheckpointClient();
    return new CheckpointTimes(
        pollMs,
        () -> apps.all().stream().map(a -> a.id).toList(),
        id -> trackingUrl(rm, id),
        client::fetch);
  }

  /**
   * The URL the application's current attempt registered: the ApplicationMaster itself. (RMApp's
   * tracking URL is the RM web proxy's, which would send every poll through the proxy.) Null before
   * the attempt registers ("N/A").
   */
  static String trackingUrl(RMContext rm, String appId) {
    RMApp app;
    try {
      app = rm.getRMApps().get(ApplicationId.fromString(appId));
    } catch (IllegalArgumentException e) {
      return null;
    }
    String url = app == null ? null : app.getOriginalTrackingUrl();
    return url == null || url.isBlank() || url.equals("N/A") ? null : url;
  }

  /**
   * Polls from now on. Nothing waits on the polls' future: a poll catches what it throws ({@link
   * #pollSafely}), and {@link #close} ends them.
   */
  @SuppressWarnings("FutureReturnValueIgnored")
  void start() {
    if (thread != null) {
      thread.scheduleWithFixedDelay(this::pollSafely, 0, pollMs, TimeUnit.MILLISECONDS);
    }
  }

  @Override
  public void close() {
    if (thread != null) {
      thread.shutdownNow();
    }
  }

  private void pollSafely() {
    try {
      poll();
    } catch (RuntimeException e) {
      // Anything escaping would cancel every later poll silently.
      LOG.warn("Aryl checkpoint poll failed; the next one starts again", e);
    }
  }

  /** Asks every elastic application once and forgets the ones that ended. */
  void poll() {
    List<String> ids = List.copyOf(apps.get());
    Set<String> known = new HashSet<>(ids);
    reports.keySet().retainAll(known);
    failing.retainAll(known);
    for (String id : ids) {
      if (Thread.currentThread().isInterrupted()) {
        return; // closing
      }
      String url = trackingUrls.apply(id);
      if (url == null) {
        continue;
      }
      try {
        CheckpointReport r = source.fetch(url);
        reports.put(id, r); // an application that ended meanwhile goes at the next poll
        if (failing.remove(id)) {
          LOG.info("Aryl reads the last checkpoint of {} again: {}", id, r);
        }
      } catch (IOException | RuntimeException e) {
        if (failing.add(id)) {
          CheckpointReport kept = reports.getOrDefault(id, CheckpointReport.NONE);
          LOG.info(
              "Aryl cannot read the last checkpoint of {} from its ApplicationMaster: {}; keeping {} (logged once"
                  + " until a read succeeds)",
              id,
              e.getMessage(),
              kept.known()
                  ? kept
                  : "none: its preemption is priced" + " by the time since its workers changed");
        }
      }
    }
  }

  /**
   * The last answer of the application's ApplicationMaster; {@link CheckpointReport#NONE} without
   * one.
   */
  CheckpointReport get(String appId) {
    return reports.getOrDefault(appId, CheckpointReport.NONE);
  }

  /** The application ended. */
  void forget(String appId) {
    reports.remove(appId);
    failing.remove(appId);
  }

  /**
   * Seconds of work preempting the job at {@code nowMs} throws away, what the reclaim cost
   * multiplies by its GPUs: since its last checkpoint or the last change of its workers, whichever
   * is later ({@link CheckpointReport#sinceCheckpointS}); since the change alone while its
   * ApplicationMaster has reported no checkpoint (none yet, polling off, or an ApplicationMaster
   * that does not report them).
   */
  double sinceCheckpointS(String appId, JobProgress progress, long nowMs) {
    return get(appId).sinceCheckpointS(nowMs, progress.sinceChangeS());
  }
}
