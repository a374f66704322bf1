package io.aryl.api.status;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Unmodifiable copies for the records' components: a record of the contract is shared between
 * threads (the page, the REST answer) and must not change under a reader. Order is kept (JSON
 * objects come out in the order they were built, sorted where the scheduler sorted them), and so
 * are null elements, which a lenient read of an unknown enum value produces. A missing list or map
 * is an empty one, except at the top of {@link SchedulerStatus}, where a status with Aryl off has
 * none ({@link #listOrNull}).
 */
final class Copies {
  private Copies() {}

  static <T> List<T> list(List<T> l) {
    return l == null ? List.of() : Collections.unmodifiableList(new ArrayList<>(l));
  }

  static <T> List<T> listOrNull(List<T> l) {
    return l == null ? null : list(l);
  }

  static <K, V> Map<K, V> map(Map<K, V> m) {
    return m == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(m));
  }

  static <K, V> Map<K, V> mapOrNull(Map<K, V> m) {
    return m == null ? null : map(m);
  }
}
