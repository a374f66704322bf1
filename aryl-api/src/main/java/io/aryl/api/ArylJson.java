package io.aryl.api;

import com.fasterxml.jackson.annotation.JsonSetter;
import com.fasterxml.jackson.annotation.Nulls;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import io.aryl.api.status.SchedulerStatus;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;

/**
 * The JSON mappers of Aryl's contracts, held here only, in two kinds:
 *
 * <ul>
 *   <li><b>lenient</b>, for whoever reads what the scheduler answers (aryl-admin, the loan
 *       controller, the integration tests): a field the record does not know is skipped, an enum
 *       value it does not know reads as {@code null}, and a list or map that is missing or {@code
 *       null} reads as empty. So a client built against an older version of this module reads a
 *       newer scheduler, and a newer client an older one.
 *   <li><b>strict</b>, for request bodies the scheduler acts on ({@link
 *       io.aryl.api.body.JsonObjectBody}): a duplicate field or anything after the object is
 *       refused, and the body's own readers refuse unknown fields.
 * </ul>
 *
 * <p>Writing is the same for everyone ({@link #write}): the records' components in their order,
 * under the names they have in the JSON.
 */
public final class ArylJson {
  private static final ObjectMapper LENIENT = lenientMapper();
  private static final ObjectMapper STRICT =
      new ObjectMapper()
          .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

  private ArylJson() {}

  private static ObjectMapper lenientMapper() {
    ObjectMapper m =
        new ObjectMapper()
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.READ_UNKNOWN_ENUM_VALUES_AS_NULL);
    for (Class<?> container : List.of(List.class, Map.class)) {
      m.configOverride(container).setSetterInfo(JsonSetter.Value.forValueNulls(Nulls.AS_EMPTY));
    }
    return m;
  }

  /** A value of one of the contract's records as JSON text. */
  public static String write(Object value) {
    try {
      return LENIENT.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      // Only the contract's records and plain maps and lists are written: a failure is a bug, not
      // an input.
      throw new UncheckedIOException(
          "could not write " + value.getClass().getName() + " as JSON", e);
    }
  }

  /**
   * A record of the contract read leniently (see above).
   *
   * @throws JsonProcessingException when the text is not JSON, or not of the record's shape (an
   *     object where a number is due, ...)
   */
  public static <T> T read(String json, Class<T> type) throws JsonProcessingException {
    return LENIENT.readValue(json, type);
  }

  /** {@code GET /ws/v1/cluster/aryl}'s answer, read leniently. */
  public static SchedulerStatus readStatus(String json) throws JsonProcessingException {
    return read(json, SchedulerStatus.class);
  }

  /**
   * A reader of the record that refuses fields it does not know: for tests that hold a fixture to
   * the contract.
   */
  public static <T> ObjectReader strictReader(Class<T> type) {
    return LENIENT.readerFor(type).with(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
  }

  /** A value as a plain tree of maps and lists, as the free-form parts of a contract are kept. */
  public static Map<String, Object> toMap(JsonNode object) {
    @SuppressWarnings("unchecked")
    Map<String, Object> out = LENIENT.convertValue(object, Map.class);
    return out;
  }

  /**
   * The text as one JSON value, read strictly: a duplicate field or a token after the value is an
   * error. For the scheduler's request bodies ({@link io.aryl.api.body.JsonObjectBody}).
   */
  public static JsonNode readStrictTree(String json) throws JsonProcessingException {
    return STRICT.readTree(json);
  }
}
