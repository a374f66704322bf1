package io.aryl.yarn.conf;

import io.aryl.api.conf.PoolConf;
import io.aryl.core.ArylPolicy;
import io.aryl.core.PolicyConfig;
import io.aryl.core.admission.JobOrder;
import io.aryl.core.elastic.ElasticValue;
import io.aryl.core.speedup.SpeedupModel;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * The scheduler's settings, read once at start-up from the {@link ArylConf} keys and the pools'
 * labels ({@link PoolConf}, shared with the loan controller and aryl-am). A wrong value, an unknown
 * {@code aryl.scheduler.} or {@code aryl.pools.} key, or a key that was renamed stops the start
 * with one line naming the key and the value.
 */
public record ArylSettings(
    boolean enabled,
    long roundIntervalMs,
    long shrinkGraceMs,
    long reclaimDeadlineMs,
    String inferenceLabel,
    String trainingLabel,
    String inferenceQueue,
    String trainingQueue,
    Pattern inferenceNodes,
    String gpuType,
    GpuCatalog gpus,
    PolicyConfig policy,
    SpeedupModel speedup,
    Predictor predictor,
    StoreKind stateStore,
    String stateStoreDir,
    String stateStoreZkRoot,
    long recoveryMaxWaitMs,
    long partialGangGraceMs,
    long checkpointPollMs,
    long moveTimeoutMs,
    long maxWorkersPerJob,
    long maxGpusPerJob,
    int metricsQuantileWindowS,
    boolean webappNavLink) {

  /** Where the durable state lives. */
  public enum StoreKind {
    AUTO,
    ZOOKEEPER,
    FILESYSTEM,
    MEMORY
  }

  /** Where a job's predicted runtime comes from. */
  public enum Predictor {
    TAG,
    HISTORY
  }

  public static ArylSettings defaults() {
    return from(Map.of());
  }

  /**
   * Settings from raw key/value pairs (every property whose key starts with {@link ArylConf#PREFIX}
   * or {@link PoolConf#PREFIX}; others are ignored).
   *
   * @throws IllegalArgumentException naming the key and value of the first wrong setting
   */
  public static ArylSettings from(Map<String, String> raw) {
    Map<String, String> speeds = new java.util.TreeMap<>();
    for (String key : raw.keySet()) {
      if (GpuCatalog.SPEED_KEY.matcher(key).matches()) {
        speeds.put(key, raw.get(key));
        continue;
      }
      // A pool label under its old key, or an aryl.pools.* typo: the message says which key to set
      // instead.
      Optional<String> refused = PoolConf.refusal(key, raw.get(key));
      if (refused.isPresent()) {
        throw new IllegalArgumentException(refused.get());
      }
      if (key.startsWith(ArylConf.PREFIX) && ArylConf.byKey(key).isEmpty()) {
        // Name the value too: the operator finds the line (key=value) to fix in yarn-site.xml.
        throw new IllegalArgumentException(
            "unknown configuration key "
                + key
                + "="
                + raw.get(key)
                + " (known: "
                + ArylConf.keys()
                + ")");
      }
    }
    Reader r = new Reader(raw);
    PolicyConfig policy =
        PolicyConfig.defaults()
            .withJobOrder(r.jobOrder())
            .withElastic(r.bool(ArylConf.ELASTIC))
            .withElasticValue(r.elasticValue())
            .withStarvationWaitS(r.positiveDouble(ArylConf.STARVATION_WAIT_S))
            .withStarvationShare(r.fraction(ArylConf.STARVATION_SHARE))
            .withRescaleOverheadS(r.nonNegativeDouble(ArylConf.RESCALE_OVERHEAD_S))
            .withTenantReclaimDelayS(r.nonNegativeDouble(ArylConf.TENANT_RECLAIM_DELAY_S));
    ArylPolicy named = r.policy();
    // The policy as the simulator evaluates it, unless the operator chose the worth of extra
    // workers.
    policy =
        raw.containsKey(ArylConf.ELASTIC_VALUE.key())
            ? policy.withSpeedAware(named.speedAware()).withPreemption(named.preemption())
            : named.applyTo(policy);
    GpuCatalog gpus =
        GpuCatalog.of(
            r.name(ArylConf.GPU_TYPE),
            r.value(ArylConf.GPU_TYPES),
            speeds,
            r.name(ArylConf.GPU_TYPE_ATTRIBUTE),
            r.value(ArylConf.GPU_TYPE_NODES));
    ArylSettings s =
        new ArylSettings(
            r.bool(ArylConf.ENABLED),
            r.positiveLong(ArylConf.ROUND_INTERVAL_MS),
            r.nonNegativeLong(ArylConf.SHRINK_GRACE_MS),
            r.positiveLong(ArylConf.RECLAIM_DEADLINE_MS),
            r.poolLabel(PoolConf.INFERENCE_LABEL),
            r.poolLabel(PoolConf.TRAINING_LABEL),
            r.name(ArylConf.INFERENCE_QUEUE),
            r.name(ArylConf.TRAINING_QUEUE),
            r.pattern(ArylConf.INFERENCE_NODES),
            r.name(ArylConf.GPU_TYPE),
            gpus,
            policy,
            r.speedup(),
            r.predictor(),
            r.storeKind(),
            r.value(ArylConf.STATE_STORE_DIR),
            r.zkPath(ArylConf.STATE_STORE_ZK_ROOT),
            r.nonNegativeLong(ArylConf.RECOVERY_MAX_WAIT_MS),
            r.nonNegativeLong(ArylConf.PARTIAL_GANG_GRACE_MS),
            r.nonNegativeLong(ArylConf.CHECKPOINT_POLL_MS),
            r.positiveLong(ArylConf.MOVE_TIMEOUT_MS),
            r.nonNegativeLong(ArylConf.MAX_WORKERS_PER_JOB),
            r.nonNegativeLong(ArylConf.MAX_GPUS_PER_JOB),
            r.positiveInt(ArylConf.METRICS_QUANTILE_WINDOW_S),
            r.bool(ArylConf.WEBAPP_NAV_LINK));
    if (s.inferenceLabel.equals(s.trainingLabel)) {
      throw new IllegalArgumentException(
          PoolConf.INFERENCE_LABEL.key()
              + " and "
              + PoolConf.TRAINING_LABEL.key()
              + " must differ, both are '"
              + s.inferenceLabel
              + "'");
    }
    if (s.inferenceQueue.equals(s.trainingQueue)) {
      throw new IllegalArgumentException(
          ArylConf.INFERENCE_QUEUE.key()
              + " and "
              + ArylConf.TRAINING_QUEUE.key()
              + " must differ, both are '"
              + s.inferenceQueue
              + "'");
    }
    return s;
  }

  /**
   * True if the node with this name is owned by inference according to {@link
   * ArylConf#INFERENCE_NODES}.
   */
  public boolean configuredAsInference(String nodeName) {
    return inferenceNodes != null && inferenceNodes.matcher(nodeName).matches();
  }

  private static final class Reader {
    private final Map<String, String> raw;

    Reader(Map<String, String> raw) {
      this.raw = raw;
    }

    String value(ArylConf c) {
      String v = raw.get(c.key());
      return v == null ? c.defaultValue() : v.trim();
    }

    private IllegalArgumentException wrong(ArylConf c, String v, String what) {
      return new IllegalArgumentException(c.key() + " must be " + what + ", was '" + v + "'");
    }

    boolean bool(ArylConf c) {
      String v = value(c).toLowerCase(Locale.ROOT);
      if (!v.equals("true") && !v.equals("false")) {
        throw wrong(c, v, "true or false");
      }
      return Boolean.parseBoolean(v);
    }

    long positiveLong(ArylConf c) {
      long v = longValue(c);
      if (v <= 0) {
        throw wrong(c, value(c), "a positive integer");
      }
      return v;
    }

    int positiveInt(ArylConf c) {
      long v = positiveLong(c);
      if (v > Integer.MAX_VALUE) {
        throw wrong(c, value(c), "a positive integer up to " + Integer.MAX_VALUE);
      }
      return (int) v;
    }

    long nonNegativeLong(ArylConf c) {
      long v = longValue(c);
      if (v < 0) {
        throw wrong(c, value(c), "an integer >= 0");
      }
      return v;
    }

    private long longValue(ArylConf c) {
      try {
        return Long.parseLong(value(c));
      } catch (NumberFormatException e) {
        throw wrong(c, value(c), "an integer");
      }
    }

    double positiveDouble(ArylConf c) {
      double v = doubleValue(c);
      if (!(v > 0) || Double.isInfinite(v)) {
        throw wrong(c, value(c), "a positive number");
      }
      return v;
    }

    /** Every job's speed-up: linear (exactly today's plans) at 1, a power law below. */
    SpeedupModel speedup() {
      double v = doubleValue(ArylConf.SPEEDUP_EXPONENT);
      if (!(v > 0 && v <= 1)) {
        throw wrong(
            ArylConf.SPEEDUP_EXPONENT, value(ArylConf.SPEEDUP_EXPONENT), "a number in (0, 1]");
      }
      return v == 1 ? SpeedupModel.linear() : SpeedupModel.powerLaw(v);
    }

    double fraction(ArylConf c) {
      double v = doubleValue(c);
      if (!(v >= 0 && v <= 1)) {
        throw wrong(c, value(c), "a number in [0, 1]");
      }
      return v;
    }

    double nonNegativeDouble(ArylConf c) {
      double v = doubleValue(c);
      if (!(v >= 0) || Double.isInfinite(v)) {
        throw wrong(c, value(c), "a number >= 0");
      }
      return v;
    }

    private double doubleValue(ArylConf c) {
      try {
        return Double.parseDouble(value(c));
      } catch (NumberFormatException e) {
        throw wrong(c, value(c), "a number");
      }
    }

    String name(ArylConf c) {
      String v = value(c);
      if (v.isEmpty()) {
        throw wrong(c, v, "non-empty");
      }
      return v;
    }

    /** A pool's label: a key of its own, read by the loan controller and aryl-am too. */
    String poolLabel(PoolConf c) {
      String v = raw.get(c.key());
      v = v == null ? c.defaultValue() : v.trim();
      if (v.isEmpty()) {
        throw new IllegalArgumentException(c.key() + " must be non-empty, was '" + v + "'");
      }
      return v;
    }

    Pattern pattern(ArylConf c) {
      String v = value(c);
      if (v.isEmpty()) {
        return null;
      }
      try {
        return Pattern.compile(v);
      } catch (PatternSyntaxException e) {
        throw wrong(c, v, "a regular expression (" + e.getDescription() + ")");
      }
    }

    JobOrder jobOrder() {
      String v = value(ArylConf.JOB_ORDER).toLowerCase(Locale.ROOT);
      return switch (v) {
        case "shortest-predicted-first" -> JobOrder.SHORTEST_PREDICTED_FIRST;
        case "fifo" -> JobOrder.FIFO;
        default -> throw wrong(ArylConf.JOB_ORDER, v, "shortest-predicted-first or fifo");
      };
    }

    ElasticValue elasticValue() {
      String v = value(ArylConf.ELASTIC_VALUE).toLowerCase(Locale.ROOT);
      return switch (v) {
        case "jct-reduction" -> ElasticValue.JCT_REDUCTION;
        case "shortest-remaining-first" -> ElasticValue.SHORTEST_REMAINING_FIRST;
        default ->
            throw wrong(ArylConf.ELASTIC_VALUE, v, "jct-reduction or shortest-remaining-first");
      };
    }

    StoreKind storeKind() {
      String v = value(ArylConf.STATE_STORE).toLowerCase(Locale.ROOT);
      return switch (v) {
        case "auto" -> StoreKind.AUTO;
        case "zookeeper" -> StoreKind.ZOOKEEPER;
        case "filesystem" -> StoreKind.FILESYSTEM;
        case "memory" -> StoreKind.MEMORY;
        default -> throw wrong(ArylConf.STATE_STORE, v, "auto, zookeeper, filesystem or memory");
      };
    }

    String zkPath(ArylConf c) {
      String v = name(c);
      if (!v.startsWith("/") || v.endsWith("/") || v.length() < 2 || v.contains("//")) {
        throw wrong(c, v, "an absolute ZooKeeper path without a trailing / (e.g. /aryl-scheduler)");
      }
      return v;
    }

    ArylPolicy policy() {
      String v = value(ArylConf.POLICY).toLowerCase(Locale.ROOT);
      return ArylPolicy.named(v)
          .orElseThrow(() -> wrong(ArylConf.POLICY, v, ArylPolicy.namesInWords()));
    }

    Predictor predictor() {
      String v = value(ArylConf.PREDICTOR).toLowerCase(Locale.ROOT);
      return switch (v) {
        case "tag" -> Predictor.TAG;
        case "history" -> Predictor.HISTORY;
        default -> throw wrong(ArylConf.PREDICTOR, v, "tag or history");
      };
    }
  }
}
