package io.aryl.yarn.engine;

import io.aryl.core.model.Plan;
import io.aryl.yarn.round.AppView;
import io.aryl.yarn.round.RoundInput;
import java.util.HashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The scheduler's log of why a job the plan runs below its declared maximum is not wider ({@link
 * WhyBelowMax}): a line each time the kind of reason changes (its numbers move every round; its
 * kind is what is news), and one when the job runs at its maximum again.
 *
 * <p>The lines are the engine's: they are logged under {@link RoundEngine}'s name, which operators
 * set the engine's log level by. Not thread-safe: the engine uses it under its lock.
 */
final class BelowMaxLog {
  private static final Logger LOG = LoggerFactory.getLogger(RoundEngine.class);

  /** Why each running job below its declared maximum is, as last logged. */
  private final Map<String, WhyBelowMax> logged = new HashMap<>();

  /**
   * Logs what changed since the last round about why the plan runs {@code apps} below their
   * maximum. Never throws: a log line is not worth a round.
   */
  void log(Map<String, AppView> apps, RoundInput input, Plan plan) {
    try {
      for (AppView app : apps.values()) {
        log(app, input, plan);
      }
    } catch (RuntimeException e) {
      LOG.warn("Aryl could not say why jobs run below their maximum: {}", e.toString());
    }
  }

  private void log(AppView app, RoundInput input, Plan plan) {
    String id = app.id();
    int target = plan.target(id).totalWorkers();
    WhyBelowMax before = logged.get(id);
    if (target == 0) {
      logged.remove(id); // not running: nothing to explain until it runs again
      return;
    }
    if (target >= app.shape().maxWorkers()) {
      if (before != null) {
        logged.remove(id);
        LOG.info("Aryl: {} runs all {} of its workers", id, target);
      }
      return;
    }
    WhyBelowMax why =
        WhyBelowMax.of(id, app.shape(), input.liveWorkers(id), app.askedWorkers(), input, plan);
    if (why == null) {
      logged.remove(id);
      return;
    }
    if (!why.sameReasonAs(before)) {
      LOG.info("{}", why.logLine(id));
    }
    logged.put(id, why);
  }

  /** The job ended: nothing more to say of it. */
  void jobFinished(String appId) {
    logged.remove(appId);
  }
}
