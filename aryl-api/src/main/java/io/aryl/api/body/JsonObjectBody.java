package io.aryl.api.body;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.aryl.api.ArylJson;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.Set;

/**
 * A REST request's body read strictly: at most a stated size, one JSON object, no duplicate or
 * unknown fields, and typed accessors whose errors name the field and the value. Nothing is acted
 * on until the whole body passed. The request records ({@link io.aryl.api.reclaim.ReclaimRequest},
 * {@link io.aryl.api.loan.LoanTarget}, {@link io.aryl.api.loan.LendRequest}) parse themselves with
 * it.
 */
public final class JsonObjectBody {
  /** Longest value quoted back in an error. */
  private static final int QUOTE_CHARS = 80;

  private final JsonNode object;

  private JsonObjectBody(JsonNode object) {
    this.object = object;
  }

  /**
   * Reads at most {@code maxBytes} of the body (a longer one is refused unread) as one JSON object.
   *
   * @param example a valid body, shown when this one is not an object
   */
  public static JsonObjectBody read(InputStream in, int maxBytes, String example)
      throws BadRequestException {
    byte[] bytes;
    try {
      bytes = in == null ? new byte[0] : in.readNBytes(maxBytes + 1);
    } catch (IOException e) {
      throw new BadRequestException("body could not be read: " + e.getMessage());
    }
    if (bytes.length > maxBytes) {
      throw new BadRequestException("body is longer than " + maxBytes + " bytes");
    }
    String text = new String(bytes, StandardCharsets.UTF_8);
    if (text.isBlank()) {
      throw new BadRequestException("body is empty: send a JSON object like " + example);
    }
    JsonNode node;
    try {
      node = ArylJson.readStrictTree(text);
    } catch (JsonProcessingException e) {
      throw new BadRequestException("body is not JSON: " + e.getOriginalMessage() + location(e));
    }
    if (node == null || !node.isObject()) {
      throw new BadRequestException(
          "body must be a JSON object like " + example + ", was " + quote(node));
    }
    return new JsonObjectBody(node);
  }

  /** Refuses any field not in {@code known}, naming it and the fields there are. */
  public JsonObjectBody onlyFields(Set<String> known) throws BadRequestException {
    for (Iterator<String> it = object.fieldNames(); it.hasNext(); ) {
      String field = it.next();
      if (!known.contains(field)) {
        throw new BadRequestException(
            "unknown field '"
                + quoteText(field)
                + "'; the fields are "
                + String.join(", ", known.stream().sorted().toList()));
      }
    }
    return this;
  }

  /**
   * The field as an integer in [min, max]; {@code absent} when missing (or null), refused when
   * {@code required}.
   */
  public long integer(String field, long min, long max, boolean required, long absent)
      throws BadRequestException {
    JsonNode v = object.get(field);
    if (v == null || v.isNull()) {
      if (required) {
        throw new BadRequestException(
            field + " is required: an integer in [" + min + ", " + max + "]");
      }
      return absent;
    }
    if (!v.isIntegralNumber() || !v.canConvertToLong() || v.asLong() < min || v.asLong() > max) {
      throw new BadRequestException(
          field + " must be an integer in [" + min + ", " + max + "], was " + quote(v));
    }
    return v.asLong();
  }

  /**
   * The field as text of 1..maxChars characters, each a letter, digit or one of {@code ._-}; null
   * when missing.
   */
  public String name(String field, int maxChars, boolean required) throws BadRequestException {
    JsonNode v = object.get(field);
    if (v == null || v.isNull()) {
      if (required) {
        throw new BadRequestException(
            field + " is required: a name of up to " + maxChars + " characters");
      }
      return null;
    }
    String text = v.isTextual() ? v.asText() : null;
    if (text == null
        || text.isEmpty()
        || text.length() > maxChars
        || !text.matches("[A-Za-z0-9._-]+")) {
      throw new BadRequestException(
          field
              + " must be a name of 1-"
              + maxChars
              + " letters, digits, '.', '_' or '-',"
              + " was "
              + quote(v));
    }
    return text;
  }

  /** The field as printable text of 1..maxChars characters. */
  public String text(String field, int maxChars) throws BadRequestException {
    JsonNode v = object.get(field);
    String text = v != null && v.isTextual() ? v.asText() : null;
    if (text == null
        || text.isBlank()
        || text.length() > maxChars
        || text.chars().anyMatch(Character::isISOControl)) {
      throw new BadRequestException(
          field + " must be printable text of 1-" + maxChars + " characters, was " + quote(v));
    }
    return text;
  }

  /**
   * The field as printable text of at most maxChars characters; {@code ""} when missing or null.
   */
  public String optionalText(String field, int maxChars) throws BadRequestException {
    JsonNode v = object.get(field);
    if (v == null || v.isNull()) {
      return "";
    }
    String text = v.isTextual() ? v.asText() : null;
    if (text == null
        || text.length() > maxChars
        || text.chars().anyMatch(Character::isISOControl)) {
      throw new BadRequestException(
          field
              + " must be printable text of at most "
              + maxChars
              + " characters, was "
              + quote(v));
    }
    return text;
  }

  /**
   * The field as a list of 1..maxItems distinct texts, each of 1..maxChars characters, none blank
   * nor with control characters.
   */
  public java.util.List<String> texts(String field, int maxItems, int maxChars)
      throws BadRequestException {
    JsonNode v = object.get(field);
    if (v == null || !v.isArray() || v.isEmpty() || v.size() > maxItems) {
      throw new BadRequestException(
          field + " must be a list of 1-" + maxItems + " names, was " + quote(v));
    }
    java.util.List<String> out = new java.util.ArrayList<>();
    for (JsonNode item : v) {
      String text = item.isTextual() ? item.asText() : null;
      if (text == null
          || text.isBlank()
          || text.length() > maxChars
          || text.chars().anyMatch(Character::isISOControl)) {
        throw new BadRequestException(
            field
                + " must hold names of 1-"
                + maxChars
                + " printable characters, had "
                + quote(item));
      }
      if (out.contains(text)) {
        throw new BadRequestException(field + " names " + quote(item) + " twice");
      }
      out.add(text);
    }
    return out;
  }

  /** The field as text equal to {@code expected}. */
  public void equalTo(String field, String expected, String why) throws BadRequestException {
    JsonNode v = object.get(field);
    if (v == null || !v.isTextual() || !expected.equals(v.asText())) {
      throw new BadRequestException(
          field + " must be \"" + expected + "\" (" + why + "), was " + quote(v));
    }
  }

  /** The whole object, as read. */
  public JsonNode node() {
    return object;
  }

  private static String location(JsonProcessingException e) {
    return e.getLocation() == null
        ? ""
        : " (line "
            + e.getLocation().getLineNr()
            + ", column "
            + e.getLocation().getColumnNr()
            + ")";
  }

  /** The value as JSON, shortened: errors quote what was sent without echoing a whole body back. */
  static String quote(JsonNode v) {
    return v == null ? "missing" : quoteText(v.toString());
  }

  private static String quoteText(String s) {
    return s.length() <= QUOTE_CHARS ? s : s.substring(0, QUOTE_CHARS) + "...";
  }
}
