package io.aryl.yarn.round;

import io.aryl.core.job.JobShape;

/**
 * An elastic application as a round sees it.
 *
 * @param id application id
 * @param shape its elastic shape
 * @param submitS submission time, seconds on the scheduler's clock
 * @param askedWorkers workers its ApplicationMaster asks for beyond those it holds
 */
public record AppView(String id, JobShape shape, double submitS, int askedWorkers) {}
