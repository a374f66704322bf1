package io.aryl.yarn.round;

import io.aryl.core.job.JobShape;

/**
 * An application as a round sees it.
 *
 * @param id application id
 * @param shape its elastic shape; for a plain application, its pending containers as one rigid gang
 * @param submitS submission time, seconds on the scheduler's clock
 * @param askedWorkers workers its ApplicationMaster asks for beyond those it holds
 * @param tenant the team it belongs to: the child of the training queue its queue is in (""
 *     directly in the training queue, or without teams)
 * @param plain true for an application without Aryl's tags: its running containers are not the
 *     plan's to move, only its pending asks are demand the plan serves
 */
public record AppView(
    String id, JobShape shape, double submitS, int askedWorkers, String tenant, boolean plain) {
  public AppView {
    tenant = tenant == null ? "" : tenant;
  }

  /** An elastic application of the implicit tenant. */
  public AppView(String id, JobShape shape, double submitS, int askedWorkers) {
    this(id, shape, submitS, askedWorkers, "", false);
  }

  /** This application asking for {@code more} workers beyond what it asks for now. */
  public AppView askingMore(int more) {
    return new AppView(id, shape, submitS, askedWorkers + more, tenant, plain);
  }

  /** This application with another shape (e.g. a predicted runtime from history). */
  public AppView withShape(JobShape s) {
    return new AppView(id, s, submitS, askedWorkers, tenant, plain);
  }
}
