package io.aryl.api.conf;

import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The node labels of Aryl's two GPU pools: one key each, read by everything that must agree on
 * them, from the same yarn-site.xml: the scheduler (which pool a node serves, which nodes are on
 * loan), the loan controller (which nodes it lends and takes back) and aryl-am's submission checks
 * (which partition lends to training). Each reader refuses the keys these replaced ({@link
 * #RENAMED}) and any other {@code aryl.pools.*} key it does not know.
 *
 * <p>Uses nothing but java.util: the site's configuration page test compiles it on its own.
 */
public enum PoolConf {
  INFERENCE_LABEL(
      "aryl.pools.inference.label",
      "inference",
      "Exclusive node label of the inference pool. Read by the scheduler, the loan controller and aryl-am's"
          + " submission checks, from the same yarn-site.xml."),
  TRAINING_LABEL(
      "aryl.pools.training.label",
      "training",
      "Exclusive node label of the training pool; a loaned inference node carries it while on loan. Read by the"
          + " scheduler, the loan controller and aryl-am's submission checks, from the same yarn-site.xml.");

  /**
   * Prefix of every key above; a key with this prefix that is not above is a typo and refused at
   * start-up.
   */
  public static final String PREFIX = "aryl.pools.";

  /** The keys the labels were read from before, each to the key that replaced it. */
  public static final Map<String, PoolConf> RENAMED = renamed();

  private final String key;
  private final String defaultValue;
  private final String doc;

  PoolConf(String key, String defaultValue, String doc) {
    this.key = key;
    this.defaultValue = defaultValue;
    this.doc = doc;
  }

  public String key() {
    return key;
  }

  public String defaultValue() {
    return defaultValue;
  }

  public String doc() {
    return doc;
  }

  public static Optional<PoolConf> byKey(String key) {
    return Arrays.stream(values()).filter(c -> c.key.equals(key)).findFirst();
  }

  public static List<String> keys() {
    return Arrays.stream(values()).map(PoolConf::key).toList();
  }

  /**
   * Why a configuration key is refused at start, in one line, or empty when it is not refused here:
   * a key of {@link #RENAMED} ({@link #renamed}), or an {@code aryl.pools.*} key that is not one of
   * these (a typo).
   */
  public static Optional<String> refusal(String key, String value) {
    Optional<String> renamed = renamed(key, value);
    if (renamed.isPresent() || !key.startsWith(PREFIX) || byKey(key).isPresent()) {
      return renamed;
    }
    return Optional.of(
        "unknown configuration key " + key + "=" + value + " (known: " + keys() + ")");
  }

  /**
   * For a key of {@link #RENAMED}, one line naming it, its value and the key to set instead; else
   * empty. A client that may be older than the cluster's configuration (aryl-am) refuses only
   * these, which it would otherwise ignore.
   */
  public static Optional<String> renamed(String key, String value) {
    PoolConf renamedTo = RENAMED.get(key);
    if (renamedTo == null) {
      return Optional.empty();
    }
    return Optional.of(
        "configuration key "
            + key
            + "="
            + value
            + " was renamed to "
            + renamedTo.key
            + ": set "
            + renamedTo.key
            + "="
            + value
            + " instead (the scheduler, the loan controller and aryl-am all read it)");
  }

  private static Map<String, PoolConf> renamed() {
    Map<String, PoolConf> m = new LinkedHashMap<>();
    m.put("aryl.scheduler.inference.label", INFERENCE_LABEL);
    m.put("aryl.scheduler.training.label", TRAINING_LABEL);
    m.put("aryl.labels.inference.label", INFERENCE_LABEL);
    m.put("aryl.labels.training.label", TRAINING_LABEL);
    return Collections.unmodifiableMap(m);
  }
}
