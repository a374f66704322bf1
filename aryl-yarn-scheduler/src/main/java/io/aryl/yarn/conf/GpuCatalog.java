package io.aryl.yarn.conf;

import io.aryl.core.model.GpuType;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * The GPU types of the cluster and how fast each trains, and which type each node has: its YARN
 * node attribute ({@link ArylConf#GPU_TYPE_ATTRIBUTE}, e.g. {@code nm.yarn.io/gpu-type=a100} from
 * an NM attribute script, or {@code rm.yarn.io/gpu-type} set with {@code yarn nodeattributes}),
 * else the first node-name rule that matches ({@link ArylConf#GPU_TYPE_NODES}), else the cluster's
 * one type ({@link ArylConf#GPU_TYPE}) if it is declared.
 *
 * <p>Without declared types ({@link ArylConf#GPU_TYPES} empty) every node has the one type {@link
 * ArylConf#GPU_TYPE} at speed 1, whatever its attributes say. With declared types a node whose type
 * is not declared, or that nothing names a type for, has none: it is left out of the plan and
 * logged, never given a type by default.
 *
 * <p>Immutable.
 */
public final class GpuCatalog {
  /** {@code aryl.scheduler.gpu-type.<name>.speed}: the training speed of a declared type. */
  static final Pattern SPEED_KEY =
      Pattern.compile(Pattern.quote(ArylConf.GPU_TYPE.key()) + "\\.(.+)\\.speed");

  /**
   * Type names: what YARN node attribute values and application tags (lower-cased by YARN) can
   * carry.
   */
  private static final Pattern TYPE_NAME = Pattern.compile("[a-z0-9][a-z0-9_.-]*");

  private final String fallback;
  private final Map<String, GpuType> types;
  private final String attribute;
  private final List<Rule> rules;

  /** A node-name rule: nodes whose name matches {@code nodes} have GPUs of {@code type}. */
  record Rule(String type, Pattern nodes) {}

  /** A node's type, or why it has none. */
  public record Resolution(GpuType type, String error) {
    static Resolution of(GpuType type) {
      return new Resolution(type, null);
    }

    static Resolution none(String why) {
      return new Resolution(null, why);
    }

    public boolean known() {
      return type != null;
    }
  }

  private GpuCatalog(
      String fallback, Map<String, GpuType> types, String attribute, List<Rule> rules) {
    this.fallback = fallback;
    this.types = Collections.unmodifiableMap(types);
    this.attribute = attribute;
    this.rules = List.copyOf(rules);
  }

  /**
   * The catalog the scheduler's settings describe.
   *
   * @param fallback {@link ArylConf#GPU_TYPE}
   * @param declared {@link ArylConf#GPU_TYPES} (comma-separated; empty: the one type {@code
   *     fallback})
   * @param speeds every {@code aryl.scheduler.gpu-type.<name>.speed} key set, with its value
   * @param attribute {@link ArylConf#GPU_TYPE_ATTRIBUTE}
   * @param nodeRules {@link ArylConf#GPU_TYPE_NODES}: {@code type=regex} entries separated by
   *     whitespace
   * @throws IllegalArgumentException naming the key and the value: a bad type name, a speed for a
   *     type not declared, a speed that is not a positive number, a rule for a type not declared or
   *     with a bad expression
   */
  public static GpuCatalog of(
      String fallback,
      String declared,
      Map<String, String> speeds,
      String attribute,
      String nodeRules) {
    Map<String, GpuType> types = new TreeMap<>();
    List<String> names = new ArrayList<>();
    // Names are compared lower-cased: YARN lower-cases application tags, and node attribute values
    // vary in case.
    fallback = fallback.trim().toLowerCase(Locale.ROOT);
    for (String n : declared.split(",", -1)) {
      if (!n.isBlank()) {
        names.add(n.trim().toLowerCase(Locale.ROOT));
      }
    }
    boolean single = names.isEmpty();
    if (single) {
      names.add(fallback);
    }
    for (String n : names) {
      if (!TYPE_NAME.matcher(n).matches()) {
        throw new IllegalArgumentException(
            (single ? ArylConf.GPU_TYPE : ArylConf.GPU_TYPES).key()
                + ": GPU type '"
                + n
                + "' must be letters, digits, '.', '_' or '-'");
      }
      types.put(n, GpuType.of(n, 1.0));
    }
    for (Map.Entry<String, String> e : new TreeMap<>(speeds).entrySet()) {
      Matcher m = SPEED_KEY.matcher(e.getKey());
      if (!m.matches()) {
        throw new IllegalArgumentException(
            "not a GPU speed key: " + e.getKey() + "=" + e.getValue());
      }
      String type = m.group(1).toLowerCase(Locale.ROOT);
      if (!types.containsKey(type)) {
        throw new IllegalArgumentException(
            e.getKey()
                + "="
                + e.getValue()
                + " names GPU type '"
                + type
                + "', which "
                + ArylConf.GPU_TYPES.key()
                + " does not declare (declared: "
                + types.keySet()
                + ")");
      }
      double speed;
      try {
        speed = Double.parseDouble(e.getValue().trim());
      } catch (NumberFormatException x) {
        speed = Double.NaN;
      }
      if (!(speed > 0) || Double.isInfinite(speed)) {
        throw new IllegalArgumentException(
            e.getKey()
                + " must be a positive number (training speed relative to the"
                + " reference GPU), was '"
                + e.getValue()
                + "'");
      }
      types.put(type, GpuType.of(type, speed));
    }
    List<Rule> rules = new ArrayList<>();
    for (String entry : nodeRules.trim().split("\\s+", -1)) {
      if (entry.isEmpty()) {
        continue;
      }
      int eq = entry.indexOf('=');
      String type = eq < 0 ? "" : entry.substring(0, eq).toLowerCase(Locale.ROOT);
      if (eq <= 0 || eq == entry.length() - 1) {
        throw new IllegalArgumentException(
            ArylConf.GPU_TYPE_NODES.key()
                + ": entry '"
                + entry
                + "' must be type=regular-expression");
      }
      if (!types.containsKey(type)) {
        throw new IllegalArgumentException(
            ArylConf.GPU_TYPE_NODES.key()
                + ": entry '"
                + entry
                + "' names GPU type '"
                + type
                + "', which "
                + ArylConf.GPU_TYPES.key()
                + " does not declare (declared: "
                + types.keySet()
                + ")");
      }
      try {
        rules.add(new Rule(type, Pattern.compile(entry.substring(eq + 1))));
      } catch (PatternSyntaxException x) {
        throw new IllegalArgumentException(
            ArylConf.GPU_TYPE_NODES.key()
                + ": entry '"
                + entry
                + "' is not a regular expression ("
                + x.getDescription()
                + ")");
      }
    }
    return new GpuCatalog(single ? null : fallback, types, attribute, rules);
  }

  /** The declared types with their speeds, by name; the one type without declared types. */
  public Map<String, GpuType> types() {
    return types;
  }

  public Optional<GpuType> type(String name) {
    return Optional.ofNullable(types.get(name));
  }

  /**
   * The node's GPU type.
   *
   * @param node the node's name (host:port or host)
   * @param attributes the node's attributes, by name without prefix ({@code gpu-type}), with their
   *     values
   */
  public Resolution resolve(String node, Map<String, String> attributes) {
    if (fallback == null && types.size() == 1) {
      return Resolution.of(
          types.values().iterator().next()); // one type, none declared: every node has it
    }
    String value = attributes.get(attribute);
    if (value != null) {
      String name = value.trim().toLowerCase(Locale.ROOT);
      GpuType t = types.get(name);
      return t != null
          ? Resolution.of(t)
          : Resolution.none(
              "node "
                  + node
                  + " has GPU type '"
                  + name
                  + "' (node attribute "
                  + attribute
                  + "), which "
                  + ArylConf.GPU_TYPES.key()
                  + " does not declare (declared: "
                  + types.keySet()
                  + ")");
    }
    for (Rule r : rules) {
      if (r.nodes().matcher(node).matches()) {
        return Resolution.of(types.get(r.type()));
      }
    }
    GpuType t = types.get(fallback);
    return t != null
        ? Resolution.of(t)
        : Resolution.none(
            "node "
                + node
                + " has no GPU type: no node attribute "
                + attribute
                + ", no rule of "
                + ArylConf.GPU_TYPE_NODES.key()
                + " matches it, and "
                + ArylConf.GPU_TYPE.key()
                + "="
                + fallback
                + " is not one of "
                + ArylConf.GPU_TYPES.key()
                + " "
                + types.keySet());
  }
}
