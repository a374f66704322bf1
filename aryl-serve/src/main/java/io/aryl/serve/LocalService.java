package io.aryl.serve;

import io.aryl.api.ArylJson;
import io.aryl.api.serve.ServeStatus;
import io.aryl.serve.loadgen.LoadGenerator;
import io.aryl.serve.loadgen.RequestRecord;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.records.ApplicationId;

/**
 * An inference service driven from the submitting JVM, as the end-to-end tests and {@code bin/aryl
 * demo} do: {@code serve --wait} through the client's own command line, the service's status read
 * from its AM, and the load generator played on another thread. One place, so that what the tests
 * measure is what the demo runs.
 */
public final class LocalService {
  /** The request path of the bundled {@code serve.py} (and the load generator's). */
  public static final String PREDICT_PATH = "/predict";

  /** How long a request may take before the load generator records it as a timeout. */
  public static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);

  private LocalService() {}

  /**
   * A service submitted and running: its id and its status URL, as {@code serve --wait} printed.
   */
  public record Running(ApplicationId id, String statusUrl) {}

  /**
   * Submits a service with {@code serve OPTIONS --wait} and returns once its AM runs.
   *
   * @param conf the cluster's configuration (its {@code aryl.serve.*} keys included)
   * @param log where the client's lines go
   * @param options {@code serve}'s options, without {@code serve} and {@code --wait}
   * @throws IllegalStateException naming the client's exit status and output when it did not
   *     submit, or the service ended before it ran
   */
  public static Running submit(Configuration conf, PrintStream log, List<String> options)
      throws Exception {
    List<String> args = new ArrayList<>(List.of("serve"));
    args.addAll(options);
    args.add("--wait");
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    PrintStream both = new PrintStream(out, true, StandardCharsets.UTF_8);
    int exit = Main.run(conf, both, both, args.toArray(String[]::new));
    String printed = out.toString(StandardCharsets.UTF_8);
    log.print(printed);
    if (exit != 0) {
      throw new IllegalStateException(
          "aryl-serve serve exited with " + exit + ": " + printed.strip());
    }
    String first = printed.lines().findFirst().orElse("");
    int at = printed.indexOf(" status ");
    if (!first.startsWith("submitted ") || at < 0) {
      throw new IllegalStateException("aryl-serve serve printed no status URL: " + printed.strip());
    }
    return new Running(
        ApplicationId.fromString(first.substring("submitted ".length()).strip()),
        printed.substring(at + " status ".length()).strip());
  }

  /** The service's status now; empty while its AM does not answer. */
  public static Optional<ServeStatus> status(String statusUrl) {
    try {
      HttpURLConnection c = (HttpURLConnection) URI.create(statusUrl).toURL().openConnection();
      c.setConnectTimeout(2000);
      c.setReadTimeout(2000);
      try {
        if (c.getResponseCode() != 200) {
          return Optional.empty();
        }
        try (InputStream in = c.getInputStream()) {
          return Optional.of(
              ArylJson.read(
                  new String(in.readAllBytes(), StandardCharsets.UTF_8), ServeStatus.class));
        }
      } finally {
        c.disconnect();
      }
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  /**
   * Plays these arrival times against the service's endpoints ({@code POST /predict}, {@link
   * #REQUEST_TIMEOUT}) on another thread, every request recorded (and written to {@code requests}
   * as JSON lines when it is not null).
   */
  public static CompletableFuture<List<RequestRecord>> play(
      String statusUrl, double[] arrivals, Path requests) {
    LoadGenerator gen = new LoadGenerator(statusUrl, PREDICT_PATH, "", REQUEST_TIMEOUT);
    return CompletableFuture.supplyAsync(
        () -> {
          try {
            return gen.run(arrivals, requests);
          } catch (IOException e) {
            throw new IllegalStateException(e);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
          }
        });
  }
}
