package io.aryl.labels;

import io.aryl.api.conf.PoolConf;
import io.aryl.core.loan.LoanPolicy;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;

/**
 * The {@link LabelsConf} keys and the pools' labels ({@link PoolConf}, shared with the scheduler
 * and aryl-am) read from a Hadoop configuration and checked: a wrong value, an unknown {@code
 * aryl.labels.*} or {@code aryl.pools.*} key, a key that was renamed, or one that is gone ({@link
 * LabelsConf#GONE}) is refused with one line naming the key.
 */
public record LabelsSettings(
    String inferenceLabel,
    String trainingLabel,
    String zkConnect,
    String zkRoot,
    int zkSessionTimeoutMs,
    int zkConnectionTimeoutMs,
    String instanceId,
    long intervalMs,
    LoanPolicy policy,
    long loanHoldMs,
    long loanCooldownMs,
    int loanMaxStep,
    long reclaimDeadlineMs,
    long timeToServeSeedMs,
    int timeToServeWindow,
    long forecastTrendMs,
    List<String> demandSources,
    String replayFile,
    String replayModel,
    double replayTimeScale,
    double replayStartS,
    double replayRateScale,
    String httpUrl,
    String httpPointer,
    long httpTimeoutMs,
    String queuePath,
    int gpusPerServer,
    String httpHost,
    int httpPort) {

  public static LabelsSettings from(Configuration conf) {
    for (Map.Entry<String, String> e : conf) {
      Optional<String> refused = PoolConf.refusal(e.getKey(), e.getValue());
      if (refused.isPresent()) {
        throw new IllegalArgumentException(refused.get());
      }
      String gone = LabelsConf.GONE.get(e.getKey());
      if (gone != null) {
        throw new IllegalArgumentException(
            "configuration key " + e.getKey() + " is gone: " + gone + "; remove it");
      }
      if (e.getKey().startsWith(LabelsConf.PREFIX) && LabelsConf.byKey(e.getKey()).isEmpty()) {
        throw new IllegalArgumentException(
            "unknown key " + e.getKey() + " (known: " + LabelsConf.keys() + ")");
      }
    }
    String zk = str(conf, LabelsConf.ZK_CONNECT);
    if (zk.isEmpty()) {
      zk = conf.getTrimmed("hadoop.zk.address", "");
    }
    List<String> sources = new ArrayList<>();
    for (String s : str(conf, LabelsConf.DEMAND_SOURCES).split(",", -1)) {
      String name = s.trim();
      if (name.isEmpty()) {
        continue;
      }
      if (!List.of("replay", "http", "yarn-queue", "serve").contains(name)) {
        throw new IllegalArgumentException(
            LabelsConf.DEMAND_SOURCES.key()
                + " must list replay, http, yarn-queue or serve, was "
                + name);
      }
      sources.add(name);
    }
    if (sources.isEmpty()) {
      throw new IllegalArgumentException(
          LabelsConf.DEMAND_SOURCES.key() + " must name at least one source");
    }
    String id = str(conf, LabelsConf.INSTANCE_ID);
    if (id.isEmpty()) {
      id = defaultInstanceId();
    }
    LoanPolicy policy =
        new LoanPolicy(
            dbl(conf, LabelsConf.CAPACITY_PER_SERVER),
            dbl(conf, LabelsConf.HEADROOM),
            integer(conf, LabelsConf.SAFETY_MARGIN, 0));
    LabelsSettings s =
        new LabelsSettings(
            label(conf, PoolConf.INFERENCE_LABEL),
            label(conf, PoolConf.TRAINING_LABEL),
            zk,
            str(conf, LabelsConf.ZK_ROOT),
            integer(conf, LabelsConf.ZK_SESSION_TIMEOUT_MS, 1),
            integer(conf, LabelsConf.ZK_CONNECTION_TIMEOUT_MS, 1),
            id,
            lng(conf, LabelsConf.INTERVAL_MS, 1),
            policy,
            lng(conf, LabelsConf.LOAN_HOLD_MS, 0),
            lng(conf, LabelsConf.LOAN_COOLDOWN_MS, 0),
            integer(conf, LabelsConf.LOAN_MAX_STEP, 1),
            lng(conf, LabelsConf.RECLAIM_DEADLINE_MS, 1),
            lng(conf, LabelsConf.TIME_TO_SERVE_SEED_MS, 0),
            integer(conf, LabelsConf.TIME_TO_SERVE_WINDOW, 1),
            lng(conf, LabelsConf.FORECAST_TREND_MS, 0),
            List.copyOf(sources),
            str(conf, LabelsConf.REPLAY_FILE),
            str(conf, LabelsConf.REPLAY_MODEL),
            dbl(conf, LabelsConf.REPLAY_TIME_SCALE),
            dbl(conf, LabelsConf.REPLAY_START_S),
            dbl(conf, LabelsConf.REPLAY_RATE_SCALE),
            str(conf, LabelsConf.HTTP_URL),
            str(conf, LabelsConf.HTTP_POINTER),
            lng(conf, LabelsConf.HTTP_TIMEOUT_MS, 1),
            str(conf, LabelsConf.QUEUE_PATH),
            integer(conf, LabelsConf.GPUS_PER_SERVER, 1),
            str(conf, LabelsConf.HTTP_HOST),
            integer(conf, LabelsConf.HTTP_PORT, -1));
    if (s.inferenceLabel.isEmpty()
        || s.trainingLabel.isEmpty()
        || s.inferenceLabel.equals(s.trainingLabel)) {
      throw new IllegalArgumentException(
          PoolConf.INFERENCE_LABEL.key()
              + " and "
              + PoolConf.TRAINING_LABEL.key()
              + " must be two different non-empty labels, were "
              + s.inferenceLabel
              + " and "
              + s.trainingLabel);
    }
    if (sources.contains("replay") && s.replayFile.isEmpty()) {
      throw new IllegalArgumentException(
          LabelsConf.REPLAY_FILE.key() + " must name a file for the replay source");
    }
    if (sources.contains("http") && s.httpUrl.isEmpty()) {
      throw new IllegalArgumentException(
          LabelsConf.HTTP_URL.key() + " must name a URL for the http source");
    }
    String schedulerUrl = str(conf, LabelsConf.SCHEDULER_URL);
    if (!schedulerUrl.isEmpty()) {
      ActiveRmWebApp.parseCandidates(LabelsConf.SCHEDULER_URL.key(), schedulerUrl);
    }
    return s;
  }

  /** The decision's settings. */
  public LoanDecider.Settings deciderSettings() {
    return new LoanDecider.Settings(
        policy, loanHoldMs, loanCooldownMs, loanMaxStep, reclaimDeadlineMs);
  }

  public LoanController.Config controllerConfig() {
    return new LoanController.Config(
        instanceId,
        zkRoot,
        intervalMs,
        deciderSettings(),
        new LoanController.Lead(timeToServeSeedMs, timeToServeWindow, forecastTrendMs));
  }

  private static String defaultInstanceId() {
    String host;
    try {
      host = InetAddress.getLocalHost().getHostName();
    } catch (Exception e) {
      host = "localhost";
    }
    return host + "-" + ManagementFactory.getRuntimeMXBean().getPid();
  }

  private static String str(Configuration conf, LabelsConf key) {
    return conf.getTrimmed(key.key(), key.defaultValue());
  }

  private static String label(Configuration conf, PoolConf key) {
    return conf.getTrimmed(key.key(), key.defaultValue());
  }

  private static double dbl(Configuration conf, LabelsConf key) {
    String v = str(conf, key);
    try {
      return Double.parseDouble(v);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(key.key() + " must be a number, was " + v);
    }
  }

  private static long lng(Configuration conf, LabelsConf key, long min) {
    String v = str(conf, key);
    long x;
    try {
      x = Long.parseLong(v);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(key.key() + " must be an integer, was " + v);
    }
    if (x < min) {
      throw new IllegalArgumentException(key.key() + " must be >= " + min + ", was " + v);
    }
    return x;
  }

  private static int integer(Configuration conf, LabelsConf key, int min) {
    long x = lng(conf, key, min);
    if (x > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          key.key() + " must be <= " + Integer.MAX_VALUE + ", was " + x);
    }
    return (int) x;
  }
}
