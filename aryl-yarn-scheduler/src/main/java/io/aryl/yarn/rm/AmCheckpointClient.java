package io.aryl.yarn.rm;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import io.aryl.core.job.CheckpointReport;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.MalformedURLException;
import java.net.Proxy;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URL;

/**
 * Reads a job's last checkpoint ({@link CheckpointReport}) from its ApplicationMaster's {@code
 * status.json}, at the tracking URL the ApplicationMaster registered (the AM itself, not the RM's
 * web proxy in front of it). Short timeouts, no proxy, no redirects; only the two top-level fields
 * are parsed and the rest of the document is skipped, reading at most {@link #MAX_BYTES}: the
 * ResourceManager must not spend time or memory on a slow or odd answer.
 */
final class AmCheckpointClient {
  static final int CONNECT_TIMEOUT_MS = 1000;
  static final int READ_TIMEOUT_MS = 2000;

  /** A status far larger than this is not an Aryl ApplicationMaster's. */
  static final int MAX_BYTES = 4 << 20;

  private static final JsonFactory JSON = new JsonFactory();

  /**
   * The checkpoint the ApplicationMaster at {@code trackingUrl} reports; {@link
   * CheckpointReport#NONE} when its status has no such field (it never checkpointed, or it is not
   * an ApplicationMaster that reports them).
   *
   * @throws IOException naming the URL when it cannot be reached, answers other than 200, or its
   *     answer is not a status
   */
  CheckpointReport fetch(String trackingUrl) throws IOException {
    URL url = statusUrl(trackingUrl);
    HttpURLConnection c = (HttpURLConnection) url.openConnection(Proxy.NO_PROXY);
    c.setConnectTimeout(CONNECT_TIMEOUT_MS);
    c.setReadTimeout(READ_TIMEOUT_MS);
    c.setInstanceFollowRedirects(false);
    c.setRequestProperty("Accept", "application/json");
    try {
      int code = c.getResponseCode();
      if (code != HttpURLConnection.HTTP_OK) {
        throw new IOException(url + " answered HTTP " + code);
      }
      try (InputStream in = new Capped(c.getInputStream(), MAX_BYTES)) {
        return parse(in);
      } catch (IOException e) {
        throw new IOException(url + ": " + e.getMessage(), e);
      }
    } finally {
      c.disconnect();
    }
  }

  /** {@code status.json} under a tracking URL ({@code http://host:port/} or {@code host:port}). */
  static URL statusUrl(String trackingUrl) throws IOException {
    String base = trackingUrl.strip();
    if (!base.contains("://")) {
      base = "http://" + base;
    }
    try {
      URI uri = new URI(base.endsWith("/") ? base : base + "/");
      if (!"http".equalsIgnoreCase(uri.getScheme()) && !"https".equalsIgnoreCase(uri.getScheme())) {
        throw new IOException("tracking URL '" + trackingUrl + "' is not http(s)");
      }
      return uri.resolve("status.json").toURL();
    } catch (URISyntaxException | MalformedURLException | IllegalArgumentException e) {
      throw new IOException(
          "tracking URL '" + trackingUrl + "' is not a URL: " + e.getMessage(), e);
    }
  }

  /**
   * The report in a status document: its top-level {@value CheckpointReport#LAST_CHECKPOINT_MS} and
   * {@value CheckpointReport#LAST_CHECKPOINT_STEP}, each -1 when absent.
   *
   * @throws IOException naming the field and value when the document is not a JSON object or a
   *     field is not an integer of the contract
   */
  static CheckpointReport parse(InputStream in) throws IOException {
    try (JsonParser p = JSON.createParser(in)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        throw new IOException("the status is not a JSON object");
      }
      long timeMs = -1;
      long step = -1;
      boolean seenTime = false;
      boolean seenStep = false;
      while (!(seenTime && seenStep) && p.nextToken() == JsonToken.FIELD_NAME) {
        String field = p.currentName();
        JsonToken value = p.nextToken();
        if (CheckpointReport.LAST_CHECKPOINT_MS.equals(field)) {
          timeMs = integer(p, field, value);
          seenTime = true;
        } else if (CheckpointReport.LAST_CHECKPOINT_STEP.equals(field)) {
          step = integer(p, field, value);
          seenStep = true;
        } else {
          p.skipChildren();
        }
      }
      return new CheckpointReport(timeMs, step);
    } catch (JsonProcessingException e) {
      throw new IOException("the status is not JSON: " + e.getOriginalMessage(), e);
    } catch (IllegalArgumentException e) {
      throw new IOException(e.getMessage(), e);
    }
  }

  private static long integer(JsonParser p, String field, JsonToken value) throws IOException {
    if (value != JsonToken.VALUE_NUMBER_INT
        || p.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
      throw new IOException(field + " must be an integer, was " + p.getText());
    }
    return p.getLongValue();
  }

  /** Fails a read past {@code max} bytes. */
  private static final class Capped extends FilterInputStream {
    private long left;

    Capped(InputStream in, long max) {
      super(in);
      this.left = max;
    }

    @Override
    public int read() throws IOException {
      int b = super.read();
      if (b >= 0) {
        count(1);
      }
      return b;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      int n = super.read(b, off, len);
      if (n > 0) {
        count(n);
      }
      return n;
    }

    private void count(int n) throws IOException {
      left -= n;
      if (left < 0) {
        throw new IOException("the status is larger than " + MAX_BYTES + " bytes");
      }
    }
  }
}
