package io.aryl.yarn.engine;

import io.aryl.core.job.CheckpointReport;
import io.aryl.core.job.JobShape;
import io.aryl.yarn.round.AppView;
import io.aryl.yarn.round.NodeView;
import io.aryl.yarn.round.TenantShares;
import java.util.List;
import java.util.Map;

/**
 * What the ResourceManager shows at the start of a round, in plain values: read by the adapter,
 * handed to the {@link RoundEngine}, never kept. Everything Aryl must remember from one round to
 * the next is the engine's; nothing here is.
 *
 * @param nowMs the wall clock, epoch milliseconds
 * @param nodes every registered node, sorted by name
 * @param elastic the elastic applications of the training queue whose ApplicationMaster runs, by
 *     id, with what they ask for now
 * @param known every elastic application the scheduler knows, running or not yet, by id
 * @param plainDemand applications without Aryl's tags whose pending GPU containers in the training
 *     partition the plan makes room for, each as one rigid gang
 * @param tenants the training pool's teams and their guaranteed shares
 * @param rmReady whether the ResourceManager's own recovery wait is over (it allocates nothing
 *     before)
 * @param checkpoints the last checkpoint each elastic job's ApplicationMaster reported; absent when
 *     unknown
 * @param finished applications that ended since the last round, in the order they ended
 */
public record RmView(
    long nowMs,
    List<NodeView> nodes,
    Map<String, AppView> elastic,
    Map<String, KnownApp> known,
    Map<String, AppView> plainDemand,
    TenantShares tenants,
    boolean rmReady,
    Map<String, CheckpointReport> checkpoints,
    List<Finished> finished) {

  public RmView {
    nodes = List.copyOf(nodes);
    elastic = Map.copyOf(elastic);
    known = Map.copyOf(known);
    plainDemand = Map.copyOf(plainDemand);
    checkpoints = Map.copyOf(checkpoints);
    finished = List.copyOf(finished);
  }

  /**
   * An elastic application the scheduler knows.
   *
   * @param id application id
   * @param shape its shape, from its tags
   * @param askedWorkers workers its ApplicationMaster asks for now (and those being allocated)
   */
  public record KnownApp(String id, JobShape shape, int askedWorkers) {}

  /**
   * An application that ended.
   *
   * @param id application id
   * @param succeeded whether it finished successfully (only those teach the history predictor)
   * @param kind its job family ({@code aryl.kind}) if it was elastic, else null
   */
  public record Finished(String id, boolean succeeded, String kind) {}

  /** Whether the application is an elastic job the scheduler knows. */
  public boolean isElastic(String appId) {
    return known.containsKey(appId);
  }

  /** The elastic job's minimum workers; 0 if the scheduler does not know it (any more). */
  public int minWorkers(String appId) {
    KnownApp app = known.get(appId);
    return app == null ? 0 : app.shape().minWorkers();
  }

  /**
   * The last checkpoint the application's ApplicationMaster reported, or {@link
   * CheckpointReport#NONE}.
   */
  public CheckpointReport checkpoint(String appId) {
    return checkpoints.getOrDefault(appId, CheckpointReport.NONE);
  }
}
