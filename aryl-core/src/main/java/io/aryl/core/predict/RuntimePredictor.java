package io.aryl.core.predict;

import io.aryl.core.model.Job;

/**
 * What the scheduler believes about how much work a job has left. Decisions read only {@link
 * Job#predictedRemainingS()}, so swapping the predictor is how experiments measure a policy's
 * sensitivity to prediction error.
 */
public interface RuntimePredictor {
  /** Predicted remaining work of {@code job} in base-seconds (see {@link Job}); never negative. */
  double predictRemainingS(Job job);

  /** The same job carrying this predictor's belief as its {@link Job#predictedRemainingS()}. */
  default Job apply(Job job) {
    return job.toBuilder().predictedRemainingS(predictRemainingS(job)).build();
  }
}
