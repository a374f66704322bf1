package io.aryl.labels;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.aryl.core.model.Checks;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * Demand from an HTTP endpoint answering JSON: the number at {@code pointer} (e.g. {@code /rate})
 * in rps.
 */
public final class HttpDemand implements DemandSource {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final URI url;
  private final String pointer;
  private final Duration timeout;
  private final HttpClient http;

  public HttpDemand(URI url, String pointer, Duration timeout) {
    this.url = Checks.notNull("url", url);
    this.pointer = Checks.notNull("pointer", pointer);
    if (!pointer.isEmpty() && !pointer.startsWith("/")) {
      throw new IllegalArgumentException(
          "pointer must be a JSON pointer starting with /, was " + pointer);
    }
    this.timeout = Checks.notNull("timeout", timeout);
    this.http = HttpClient.newBuilder().connectTimeout(timeout).build();
  }

  @Override
  public double rate() throws IOException {
    HttpResponse<String> r;
    try {
      r =
          http.send(
              HttpRequest.newBuilder(url)
                  .timeout(timeout)
                  .header("Accept", "application/json")
                  .GET()
                  .build(),
              HttpResponse.BodyHandlers.ofString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted reading " + url, e);
    }
    if (r.statusCode() != 200) {
      throw new IOException(url + " answered " + r.statusCode());
    }
    JsonNode value = JSON.readTree(r.body()).at(pointer);
    if (!value.isNumber() || !(value.asDouble() >= 0) || Double.isInfinite(value.asDouble())) {
      throw new IOException(
          url + ": " + pointer + " must be a number >= 0, was " + value + " in " + r.body());
    }
    return value.asDouble();
  }

  @Override
  public String name() {
    return "http " + url;
  }
}
