package io.aryl.yarn.state;

import java.util.Map;

/**
 * The elastic jobs' progress, as stored: the section {@link Section#JOBS}.
 *
 * @param jobs each elastic job's progress, by application id
 */
public record Jobs(Map<String, JobRecord> jobs) {
  public Jobs {
    jobs = Map.copyOf(jobs);
  }
}
