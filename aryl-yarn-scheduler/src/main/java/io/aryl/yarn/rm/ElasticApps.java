package io.aryl.yarn.rm;

import io.aryl.core.job.JobShape;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ResourceRequest;

/**
 * The elastic applications the scheduler knows: their shape from submission, and what their
 * ApplicationMaster last asked for. The ApplicationMaster's asks are kept here and only what the
 * plan grants is passed on to the Capacity Scheduler, so a job never holds part of its gang.
 */
final class ElasticApps {
  /** One elastic application. */
  static final class App {
    final String id;
    final JobShape shape;
    final long submitMs;

    /**
     * The ApplicationMaster's outstanding worker asks at ResourceRequest.ANY, by priority and
     * request id: its last ask, less the workers allocated against it since (as the Capacity
     * Scheduler counts its own pending asks).
     */
    final Map<String, ResourceRequest> asks = new ConcurrentHashMap<>();

    /** Whether asks for containers larger than the shape were logged (once per application). */
    boolean oversizeLogged;

    /** Node and rack names the scheduler last asked for on the application's behalf, by ask. */
    final Map<String, java.util.Set<String>> sentNames = new ConcurrentHashMap<>();

    /**
     * Workers allocated and not yet handed to the ApplicationMaster, by attempt, priority and
     * request id: an ask the ApplicationMaster sends meanwhile still counts them. Guarded by this
     * App's monitor.
     */
    final Map<String, Integer> unseen = new java.util.HashMap<>();

    /**
     * Workers taken out of {@link #asks} whose commit has not ended: in no ask and on no node yet.
     * A round reads the asks before the nodes, so without them a round reading across a commit saw
     * the job asking for one worker fewer than it does, planned it that width, and then found the
     * last worker not worth a re-scale: the job stayed a worker short for good, with a GPU idle and
     * its ask outstanding.
     */
    private final AtomicInteger allocating = new AtomicInteger();

    App(String id, JobShape shape, long submitMs) {
      this.id = id;
      this.shape = shape;
      this.submitMs = submitMs;
    }

    int askedWorkers() {
      int n = 0;
      for (ResourceRequest rr : asks.values()) {
        n += rr.getNumContainers();
      }
      return n;
    }

    /**
     * The workers a round counts as asked for: {@link #askedWorkers()} and the workers being
     * allocated. Read the nodes after this: a worker whose commit ended since is on its node by
     * then. The asks are read first: a worker leaves them only after it is counted as being
     * allocated, so it is never in neither.
     */
    int askedOrAllocating() {
      int asked = askedWorkers();
      return asked + allocating.get();
    }

    /**
     * A worker leaves the asks to be committed; {@link #allocationEnded()} follows once its commit
     * ended.
     */
    void allocationStarted() {
      allocating.incrementAndGet();
    }

    void allocationEnded() {
      allocating.decrementAndGet();
    }

    /**
     * Replaces the ask under {@code key} with a copy of it holding {@code delta} more containers
     * (never below 0): swapped whole, since rounds read the asks without this App's monitor, which
     * the caller holds.
     */
    void addToAsk(String key, int delta) {
      ResourceRequest rr = asks.get(key);
      if (rr != null) {
        ResourceRequest updated = ResourceRequest.clone(rr);
        updated.setNumContainers(Math.max(0, rr.getNumContainers() + delta));
        asks.put(key, updated);
      }
    }

    /**
     * One worker counted in {@link #unseen} under this key no longer is: handed over, or never
     * committed. The caller holds this App's monitor.
     */
    void dropUnseen(String unseenKey) {
      unseen.computeIfPresent(unseenKey, (k, n) -> n > 1 ? n - 1 : null);
    }
  }

  private final Map<String, App> apps = new ConcurrentHashMap<>();

  /**
   * The same applications by the ResourceManager's id: looked up for every application on paths
   * that run for every node (a round's read, the offer of a node), where building each id's string
   * cost more than the lookup.
   */
  private final Map<ApplicationId, App> byId = new ConcurrentHashMap<>();

  void register(String appId, JobShape shape, long submitMs) {
    App app = new App(appId, shape, submitMs);
    apps.put(appId, app);
    ApplicationId id = parse(appId);
    if (id != null) {
      byId.put(id, app);
    }
  }

  void remove(String appId) {
    apps.remove(appId);
    ApplicationId id = parse(appId);
    if (id != null) {
      byId.remove(id);
    }
  }

  Optional<App> get(String appId) {
    return Optional.ofNullable(apps.get(appId));
  }

  /** The application, or null if it is not elastic. */
  App get(ApplicationId appId) {
    return byId.get(appId);
  }

  /** The id as the ResourceManager's, or null if it is not one (a test's name). */
  private static ApplicationId parse(String appId) {
    try {
      return ApplicationId.fromString(appId);
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  boolean isElastic(String appId) {
    return apps.containsKey(appId);
  }

  List<App> all() {
    return new ArrayList<>(apps.values());
  }
}
