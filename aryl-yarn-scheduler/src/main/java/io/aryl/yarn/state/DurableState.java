package io.aryl.yarn.state;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * What Aryl keeps across ResourceManager restarts and failovers, read back whenever a scheduler
 * becomes active. Each {@link Section} is written by one class, before the action it records is
 * taken:
 *
 * <table>
 *   <caption>Who writes what</caption>
 *   <tr><th>section</th><th>writer</th><th>written before</th></tr>
 *   <tr><td>pools</td><td>InferencePool</td><td>a node is relabelled, or a round relies on it being inference's</td>
 *   </tr>
 *   <tr><td>reclaims</td><td>ReclaimSteps</td><td>a node is fenced, drained or relabelled</td></tr>
 *   <tr><td>drains</td><td>Drains</td><td>an ApplicationMaster is told to give a container back</td></tr>
 *   <tr><td>jobs</td><td>JobProgressMeter</td><td>a job's preemption is told (its count); measurements: saved
 *   when workers change, else every few rounds</td></tr>
 *   <tr><td>loan-target</td><td>LoanTargets</td><td>a loan target is acknowledged</td></tr>
 *   <tr><td>meta</td><td>this class</td><td>the first round</td></tr>
 * </table>
 *
 * <p>A section that cannot be read stops the start with a {@link CorruptStateException} naming its
 * znode or file and how to reset it. Saving a value equal to the stored one writes nothing.
 */
public final class DurableState {
  /**
   * Format of the stored state this Aryl writes and reads; older ones are read through {@link
   * StateFormat}.
   */
  public static final int VERSION = 4;

  private static final ObjectMapper JSON =
      new ObjectMapper()
          .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
          .enable(DeserializationFeature.FAIL_ON_MISSING_CREATOR_PROPERTIES)
          .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS);

  private final StateStore store;
  private final long epoch;
  private final Map<Section<?>, Object> values = new HashMap<>();
  private final Map<Section<?>, byte[]> stored = new HashMap<>();
  private final boolean recovered;

  /** The format the stored state was written in; 0 when nothing was stored. */
  private int formatRead;

  private DurableState(StateStore store, long epoch, boolean recovered) {
    this.store = store;
    this.epoch = epoch;
    this.recovered = recovered;
  }

  /**
   * Claims the store (fencing any earlier active scheduler) and reads every section back.
   *
   * @param nowMs the planning clock's origin when nothing is stored yet
   * @throws CorruptStateException naming the section's location when one cannot be read
   */
  public static DurableState open(StateStore store, long nowMs) throws IOException {
    long epoch = store.claim();
    Map<String, byte[]> raw = new HashMap<>(store.readAll());
    DurableState s = new DurableState(store, epoch, !raw.isEmpty());
    byte[] metaBytes = raw.get(Section.META.name());
    if (metaBytes != null) {
      s.load(Section.META, metaBytes);
    }
    Meta meta = s.get(Section.META);
    s.formatRead = meta == null ? 0 : meta.version();
    if (meta != null && meta.version() > VERSION) {
      throw s.corrupt(
          Section.META,
          "written by a newer Aryl: format " + meta.version() + ", this one reads up to " + VERSION,
          null);
    }
    Map<String, byte[]> upgraded = Map.of();
    if (meta != null && meta.version() < VERSION) {
      try {
        upgraded = StateFormat.upgrade(raw, meta.version());
      } catch (IOException | RuntimeException e) {
        throw s.corrupt(
            Section.META, "cannot be read as format " + meta.version() + ": " + e.getMessage(), e);
      }
    }
    for (Section<?> section : Section.ALL) {
      byte[] bytes = raw.get(section.name());
      if (bytes != null && section != Section.META) {
        s.load(section, bytes);
      }
    }
    for (Map.Entry<String, byte[]> e : upgraded.entrySet()) {
      store.write(e.getKey(), e.getValue());
    }
    if (meta == null) {
      s.save(Section.META, new Meta(VERSION, nowMs));
    } else if (meta.version() < VERSION) {
      s.save(
          Section.META,
          new Meta(VERSION, meta.originMs())); // last: a failed upgrade is read as the old format
    }
    return s;
  }

  private <T> void load(Section<T> section, byte[] bytes) throws CorruptStateException {
    T value;
    try {
      value = JSON.readValue(bytes, section.type());
    } catch (IOException | RuntimeException e) {
      throw corrupt(
          section,
          e.getMessage() == null ? e.toString() : e.getMessage().lines().findFirst().orElse(""),
          e);
    }
    if (value == null) {
      throw corrupt(section, "empty", null);
    }
    values.put(section, value);
    stored.put(section, bytes);
  }

  /**
   * The error for a section that was read but contradicts itself (found by whoever restores it).
   */
  public CorruptStateException corrupt(Section<?> section, String problem) {
    return corrupt(section, problem, null);
  }

  private CorruptStateException corrupt(Section<?> section, String problem, Throwable cause) {
    return new CorruptStateException(
        store.location(section.name()),
        problem,
        "stop the ResourceManager"
            + ("zookeeper".equals(store.kind()) ? "s" : "")
            + ", run `"
            + store.deleteCommand(section.name())
            + "`, and start again; this forgets what the section held: "
            + section.resetForgets(),
        cause);
  }

  /** The stored value, or the section's empty value when nothing is stored. */
  @SuppressWarnings("unchecked")
  public synchronized <T> T get(Section<T> section) {
    Object v = values.get(section);
    return v == null ? section.empty() : (T) v;
  }

  /**
   * Writes the section unless the stored value is already equal.
   *
   * @throws StoreFencedException when another scheduler became active since; this one must stop
   *     acting
   */
  public synchronized <T> void save(Section<T> section, T value) throws IOException {
    byte[] bytes = JSON.writeValueAsBytes(value);
    if (Arrays.equals(bytes, stored.get(section))) {
      return;
    }
    store.write(section.name(), bytes);
    stored.put(section, bytes);
    values.put(section, value);
  }

  /**
   * The format the stored state was written in when it was opened ({@link #VERSION} once upgraded);
   * 0 if none.
   */
  public int formatRead() {
    return formatRead;
  }

  /**
   * True if the store held state when it was opened: this scheduler took over from an earlier one.
   */
  public boolean recovered() {
    return recovered;
  }

  public long epoch() {
    return epoch;
  }

  public long originMs() {
    return get(Section.META).originMs();
  }

  public StateStore store() {
    return store;
  }
}
